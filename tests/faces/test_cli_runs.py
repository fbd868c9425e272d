"""``litdesk runs list|show|export|freeze``, ``litdesk report prisma`` and ``litdesk eval``
end to end over a replayed, saved search and a Study with an import."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.adapters.http import CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.faces.cli import app
from litdesk.services.app import open_app_sync
from litdesk.services.imports import import_files
from litdesk.services.search import make_definition, plan_search

CROSSREF = json.dumps(
    {
        "status": "ok",
        "message-type": "work-list",
        "message": {
            "total-results": 812,
            "items": [
                {
                    "DOI": "10.1000/xyz123",
                    "title": ["Deep learning for <b>sepsis</b>"],
                    "author": [{"family": "Okafor", "given": "Ada"}],
                    "issued": {"date-parts": [[2021]]},
                    "type": "journal-article",
                },
                {"DOI": "10.1000/abc456", "title": ["Second paper"], "type": "journal-article"},
            ],
        },
    }
).encode()
RIS = (
    "TY  - JOUR\nTI  - Deep learning for sepsis\nDO  - 10.1000/xyz123\nPY  - 2021\nER  - \n"
    "TY  - JOUR\nTI  - A trial of fluids in septic shock\nDO  - 10.1000/other9\nPY  - 2019\nER  - \n"
)


@pytest.fixture
def env(tmp_settings, monkeypatch, tmp_path):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


@pytest.fixture
def saved(env):
    folder = env / "cas"
    recorder = CassetteRecorder(folder)
    req = plan_search(make_definition("sepsis", providers=["crossref"])).lanes[0].request
    recorder.record(
        Exchange(
            provider="crossref",
            method=req.method,
            url=sanitised_url(req),
            request_body=None,
            status=200,
            headers={},
            body=CROSSREF,
            received_at=datetime(2026, 11, 30, tzinfo=UTC),
        ),
        Redactor(),
    )
    runner = CliRunner()
    assert runner.invoke(app, ["study", "new", "Sepsis"]).exit_code == 0
    result = runner.invoke(
        app,
        [
            "search",
            "sepsis",
            "-p",
            "crossref",
            "--replay",
            str(folder),
            "--json",
            "--study",
            "Sepsis",
        ],
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["id"]


def test_runs_list_and_show(saved):
    runner = CliRunner()
    listed = runner.invoke(app, ["runs", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)
    assert [r["id"] for r in rows] == [saved] and rows[0]["hits"] == 2
    shown = runner.invoke(app, ["runs", "show", saved])
    assert shown.exit_code == 0 and "Crossref, keyword search" in shown.output
    missing = runner.invoke(app, ["runs", "show", "nope"])
    assert missing.exit_code == 4


def test_runs_export_json_ris_prisma(saved, env):
    runner = CliRunner()
    manifest = runner.invoke(app, ["runs", "export", saved, "--to", "json"])
    assert manifest.exit_code == 0, manifest.output
    doc = json.loads(manifest.stdout)
    assert doc["kind"] == "literature-search" and doc["run"]["omitted_hits"] == 0
    out = env / "run.ris"
    ris = runner.invoke(app, ["runs", "export", saved, "--to", "ris", "-o", str(out)])
    assert ris.exit_code == 0, ris.output
    text = out.read_text()
    assert text.count("ER  -") == 2 and "10.1000/xyz123" in text
    again = runner.invoke(app, ["runs", "export", saved, "--to", "ris", "-o", str(out)])
    assert again.exit_code == 2 and "exists" in again.stderr
    md = runner.invoke(app, ["runs", "export", saved, "--to", "prisma-md"])
    assert "Crossref" in md.stdout and "Records identified: 2" in md.stdout
    page = runner.invoke(app, ["runs", "export", saved, "--to", "prisma-html"])
    assert page.stdout.startswith("<!DOCTYPE html>") and "<svg" in page.stdout
    bad = runner.invoke(app, ["runs", "export", saved, "--to", "docx"])
    assert bad.exit_code == 2


def test_report_prisma_for_a_study_counts_runs_and_imports(saved, env):
    ris = env / "scopus.ris"
    ris.write_text(RIS)
    batch = import_files([ris])
    # attached through the app, as the faces do: its store's writes keep the Study's records
    # in step with its sources (reads no longer reconcile them)
    with open_app_sync(get_settings()) as desk:
        desk.workspace().attach_import(batch.imports[0], study="Sepsis")
    runner = CliRunner()
    result = runner.invoke(app, ["report", "prisma", "--study", "Sepsis", "--json"])
    assert result.exit_code == 0, result.output
    ident = json.loads(result.stdout)["identification"]
    assert ident["records_per_source"] == {"Crossref": 2, "Import: scopus.ris (ris)": 2}
    assert ident["records_identified"] == 4
    assert ident["duplicates_removed"] == 1  # the same DOI from the search and the import
    assert ident["records_after_deduplication"] == 3
    html_out = env / "prisma.html"
    page = runner.invoke(
        app, ["report", "prisma", "--study", "Sepsis", "--html", "-o", str(html_out)]
    )
    assert page.exit_code == 0, page.output
    # the Study's whole PRISMA 2020 flow: 4 identified, 1 duplicate, 3 left to screen
    drawn = html_out.read_text().split("<h2>PRISMA 2020 flow diagram</h2>")[1]
    assert "Records identified (n = 4)" in drawn and "Duplicate records removed (n = 1)" in drawn
    assert "Records awaiting screening (n = 3)" in drawn
    # named .html, the file is the HTML page without --html; any other name is Markdown
    named = env / "named.HTML"
    assert (
        runner.invoke(app, ["report", "prisma", "--study", "Sepsis", "-o", str(named)]).exit_code
        == 0
    )
    assert named.read_text().startswith("<!DOCTYPE html>")
    md = env / "prisma.md"
    assert (
        runner.invoke(app, ["report", "prisma", "--study", "Sepsis", "-o", str(md)]).exit_code == 0
    )
    assert md.read_text().startswith("# PRISMA-S search report")
    assert runner.invoke(app, ["report", "prisma", "--study", "Nope"]).exit_code == 4


def test_freeze_and_eval(saved, env):
    runner = CliRunner()
    fixture = env / "runs.json"
    frozen = runner.invoke(app, ["runs", "freeze", saved, "-o", str(fixture), "--case", "c1"])
    assert frozen.exit_code == 0, frozen.output
    assert "sepsis" not in fixture.read_text().lower()
    ids = [h["id"] for h in json.loads(fixture.read_text())["runs"][0]["hits"]]
    judgments = env / "j.json"
    judgments.write_text(
        json.dumps(
            {"judgments": {"c1": {"grades": {ids[0]: 2, ids[1]: 0}, "known_items": [ids[1]]}}}
        )
    )
    result = runner.invoke(
        app, ["eval", "--runs", str(fixture), "--judgments", str(judgments), "--k", "2", "--json"]
    )
    assert result.exit_code == 0, result.output
    r = json.loads(result.stdout)["runs"][0]
    assert r["precision_at_k"] == 0.5 and r["ndcg_at_k"] == 1.0
    assert r["known_item_recall_at_k"] == 1.0
    k3 = runner.invoke(app, ["eval", "--runs", str(fixture), "--k", "3", "--json"])
    assert json.loads(k3.stdout)["runs"][0]["precision_at_k"] == "unjudged"
    out = env / "report.json"
    out.write_text("{}")
    refused = runner.invoke(app, ["eval", "--runs", str(fixture), "--out", str(out)])
    assert refused.exit_code == 2 and out.read_text() == "{}"
    big = env / "big.json"
    big.write_bytes(b" " * 5_000_001)
    assert runner.invoke(app, ["eval", "--runs", str(big)]).exit_code == 2


def test_a_run_kept_from_the_cli_is_the_studys_papers(saved):
    """``search --study`` and ``study add --run`` keep a run in a Study with its hits as the
    Study's papers (issue 28): the Study's papers, working set and records agree; keeping
    the same run again adds nothing."""
    runner = CliRunner()

    def show(study: str) -> tuple[int, int, int]:
        out = runner.invoke(app, ["study", "show", study, "--json"])
        assert out.exit_code == 0, out.output
        doc = json.loads(out.stdout)
        ws = doc["working_set"]
        return doc["papers_total"], ws["studies"], ws["records_identified"]

    assert show("Sepsis") == (2, 2, 2)  # before: 0 papers, 2 records to screen
    assert runner.invoke(app, ["study", "new", "Other"]).exit_code == 0
    for _ in range(2):  # the second time the run is kept already: nothing more
        added = runner.invoke(app, ["study", "add", "Other", "10.1000/xyz123", "--run", saved])
        assert added.exit_code == 0, added.output
        assert show("Other") == (2, 2, 2)
    again = runner.invoke(app, ["study", "add", "Sepsis", "10.1000/abc456", "--run", saved])
    assert again.exit_code == 0 and "0 papers added" in again.output, again.output
    assert show("Sepsis") == (2, 2, 2)
