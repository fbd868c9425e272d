"""``litdesk import FILE… --study NAME`` end to end over real exports
($LITDESK_FIXTURES/bib) and a real SQLite store; ``search --study`` with a Study that
does not exist stores nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.adapters.http import CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.faces.cli import app
from litdesk.services.search import make_definition, plan_search

pytestmark = pytest.mark.fixtures


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_settings):
    """The store the CLI opens: SQLite in the data dir, or PostgreSQL in a fresh schema at
    the newest migration (a clone of the session's template)."""
    if request.param == "sqlite":
        return None
    return request.getfixturevalue("pg_schema")


@pytest.fixture
def cli(tmp_settings, monkeypatch, database):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    if database is not None:
        monkeypatch.setenv("LITDESK_DATABASE_URL", database)
    get_settings.cache_clear()
    runner = CliRunner()

    def invoke(*args: str, code: int = 0):
        result = runner.invoke(app, [str(a) for a in args])
        assert result.exit_code == code, (result.output, result.exception)
        return result

    yield invoke
    get_settings.cache_clear()


@pytest.mark.no_store_template  # it checks that no SQLite file is made beside PostgreSQL
def test_import_into_a_new_study_then_report(cli, fixtures_dir, database, tmp_settings):
    ris = fixtures_dir / "bib" / "ris" / "asreview__embase.ris"  # 6 records
    medline = sorted((fixtures_dir / "bib" / "medline").glob("*.nbib"))[0]
    out = cli("import", ris, medline, "--study", "Cysts")
    assert "Study 'Cysts' created" in out.stdout
    assert "Saved 6 records from" in out.stdout and out.stdout.count("; import imp-") == 2
    shown = json.loads(cli("study", "show", "Cysts", "--json").stdout)
    assert len(shown["imports"]) == 2 and len(shown["papers"]) >= 6
    prisma = json.loads(cli("report", "prisma", "--study", "Cysts", "--json").stdout)
    assert len(prisma["imports"]) == 2
    # the second time the Study exists: not created again, papers merged by identity
    again = json.loads(cli("import", ris, "--study", "Cysts", "--json").stdout)
    assert again["study_created"] is False and again["papers_created"] == 0
    assert again["records_saved"] == 6 and again["files"][0]["path"] == str(ris)
    assert len(json.loads(cli("study", "show", "Cysts", "--json").stdout)["imports"]) == 3
    sqlite_file = tmp_settings.data_dir / "litdesk.sqlite3"
    assert sqlite_file.exists() is (database is None)  # PostgreSQL really was the store


def test_refused_files_are_reported_and_the_others_saved(cli, fixtures_dir, tmp_path):
    bib = fixtures_dir / "bib" / "bibtex" / "bibtexparser__article.bib"
    junk = tmp_path / "notes.txt"
    junk.write_text("this is not an export\n")
    out = cli("import", junk, bib, tmp_path / "gone.ris", "--study", "Mixed", code=2)
    assert "Saved 1 record from" in out.stdout
    err = out.stderr
    assert f"{junk}: " in err and "(unsupported); not saved" in err
    assert "gone.ris" in err and "(file_not_found)" in err
    listed = json.loads(cli("study", "list", "--json").stdout)
    assert [(s["name"], s["papers"]) for s in listed] == [("Mixed", 1)]


def test_when_every_file_is_refused_nothing_is_saved(cli, tmp_path):
    missing = cli("import", tmp_path / "a.ris", tmp_path / "b.ris", "--study", "Nope", code=4)
    assert "nothing was saved" in missing.stderr
    junk = tmp_path / "notes.txt"
    junk.write_text("this is not an export\n")
    refused = cli("import", junk, "--study", "Nope", "--json", code=2)
    doc = json.loads(refused.stdout)
    assert doc["error"] == "FilesRefused" and doc["details"]["refused"][0]["path"] == str(junk)
    assert json.loads(cli("study", "list", "--json").stdout) == []


def test_paper_save_file_with_status(cli, fixtures_dir):
    ris = fixtures_dir / "bib" / "ris" / "rispy__example_full.ris"  # 2 records
    cli("study", "new", "Full")
    out = json.loads(
        cli("paper", "save", "--file", ris, "--study", "Full", "--status", "read", "--json").stdout
    )
    assert out["records_saved"] == 2 and out["path"] == str(ris)
    rows = json.loads(cli("paper", "list", "--study", "Full", "--json").stdout)
    assert [r["status"] for r in rows] == ["read", "read"]


def _cassette(folder):
    body = json.dumps(
        {
            "status": "ok",
            "message-type": "work-list",
            "message": {
                "total-results": 1,
                "items": [
                    {"DOI": "10.1000/xyz123", "title": ["Sepsis"], "type": "journal-article"}
                ],
            },
        }
    ).encode()
    req = plan_search(make_definition("sepsis", providers=["crossref"])).lanes[0].request
    CassetteRecorder(folder).record(
        Exchange(
            provider="crossref",
            method=req.method,
            url=sanitised_url(req),
            request_body=None,
            status=200,
            headers={},
            body=body,
            received_at=datetime(2026, 11, 30, tzinfo=UTC),
        ),
        Redactor(),
    )


def test_search_into_a_missing_study_stores_no_run(cli, tmp_path):
    _cassette(tmp_path / "cas")
    args = ("search", "sepsis", "-p", "crossref", "--replay", tmp_path / "cas", "--no-cache")
    out = cli(*args, "--study", "Missing", code=4)
    assert "no Study 'Missing'" in out.stderr
    assert json.loads(cli("runs", "list", "--json").stdout) == []
    cli("study", "new", "Missing")
    run_id = json.loads(cli(*args, "--study", "Missing", "--json").stdout)["id"]
    assert json.loads(cli("study", "show", "Missing", "--json").stdout)["search_runs"] == [run_id]


def test_import_into_a_study_shows_each_files_notices_and_the_total(cli, fixtures_dir, tmp_path):
    """The notices of a saved file were shown only without --study (or in --json): a cut-off
    export (its last record without ER) was "Saved 2 records" with no word of it."""
    whole = fixtures_dir / "bib" / "ris" / "citesource__medline_84.ris"
    cut = tmp_path / "medline_cut.ris"
    cut.write_bytes(whole.read_bytes()[:5000])  # ends inside the second record
    empty = tmp_path / "empty.ris"
    empty.write_bytes(b"")
    bom = fixtures_dir / "bib" / "ris" / "rispy__example_bom.ris"
    out = cli("import", cut, bom, empty, "--study", "Cut", code=2)
    lines = out.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "from " + str(cut) in line)
    assert lines[at].startswith("Saved 2 records")
    assert lines[at + 1] == "  notices: unterminated 1"
    assert lines[at + 2] == "    line 58: last record has no ER line; read anyway"
    at = next(i for i, line in enumerate(lines) if "from " + str(bom) in line)
    assert lines[at + 1] == "  notices: encoding 1"
    assert "byte-order mark" in lines[at + 2]
    assert lines[-1] == (
        "In all: 3 records from 2 files saved into Study 'Cut' (3 new papers); 1 file refused"
    )
    assert "empty.ris: the file is empty (empty); not saved" in out.stderr


def test_import_names_its_prisma_source_and_changes_it(cli, fixtures_dir):
    """``import --source/--source-kind`` (issue 28): the files' records count under the
    named source; a file that names its database is counted under it unasked; ``study
    import-source`` changes an import's source later; PRISMA 2020 and PRISMA-S read them."""
    ris = fixtures_dir / "bib" / "ris"
    out = cli("import", ris / "asreview__scopus.ris", "--study", "Hips")
    assert "counted as Scopus (database) (read from the file)" in out.stdout
    out = cli(
        "import", ris / "rispy__example_full.ris", "--study", "Hips",
        "--source", "Citation searching", "--source-kind", "other", "--json",
    )  # fmt: skip
    cited = json.loads(out.stdout)["files"][0]
    assert cited["source"] == {"name": "Citation searching", "kind": "other", "origin": "given"}
    plain = json.loads(
        cli("import", ris / "litstudy__example.ris", "--study", "Hips", "--json").stdout
    )
    assert plain["files"][0]["source"] is None
    flow = json.loads(cli("study", "prisma", "Hips", "--json").stdout)
    sources = {s["name"]: s["kind"] for s in flow["rounds"][0]["identified"]["sources"]}
    assert sources == {
        "Scopus": "database",
        "Citation searching": "other",
        "Import: litstudy__example.ris (ris)": "database",
    }
    imp = plain["files"][0]["import_id"]
    out = cli("study", "import-source", "Hips", imp, "--source", "CENTRAL trials register",
              "--source-kind", "register")  # fmt: skip
    assert "counted as CENTRAL trials register (register), 25 records" in out.stdout
    flow = json.loads(cli("study", "prisma", "Hips", "--json").stdout)
    assert flow["rounds"][0]["identified"]["registers"] == 25
    report = json.loads(cli("report", "prisma", "--study", "Hips", "--json").stdout)
    assert report["identification"]["records_per_source"]["CENTRAL trials register"] == 25
    assert "counted as CENTRAL trials register (register)" in cli("study", "show", "Hips").stdout
    bad = cli("study", "import-source", "Hips", imp, "--source-kind", "website", code=2)
    assert "not one of database, register, other" in bad.output
    out = cli("import", ris / "litstudy__example.ris", "--study", "Plain")
    assert "counted as a database named after the file (the file names none)" in out.stdout
    assert "litdesk study import-source 'Plain' imp-" in out.stdout
    alone = cli("import", ris / "litstudy__example.ris", "--source", "Embase", code=2)
    assert "add --study NAME" in alone.output


def test_a_reference_managers_export_counts_under_other_methods(cli, fixtures_dir):
    """A Zotero RIS export (its own layout) is no database: its records count under "other
    methods", named after Zotero and the file, and the output says how to name the
    databases; ``--source`` names them at import; a database's export keeps its database."""
    ris = fixtures_dir / "bib" / "ris"
    zotero = ris / "asreview__pubmed_zotero.ris"  # 6 records
    out = cli("import", zotero, "--study", "Knees")
    name = "Zotero export: asreview__pubmed_zotero.ris"
    assert f"counted as {name} (other) (read from the file)" in out.stdout
    assert "a Zotero export names no database it was searched in" in out.stdout
    assert "--source" in out.stdout
    cli("import", ris / "asreview__scopus.ris", "--study", "Knees")
    flow = json.loads(cli("study", "prisma", "Knees", "--json").stdout)
    sources = {s["name"]: s["kind"] for s in flow["rounds"][0]["identified"]["sources"]}
    assert sources == {name: "other", "Scopus": "database"}
    # the user names the database the Zotero library was filled from
    named = json.loads(
        cli("import", zotero, "--study", "Named", "--source", "PubMed", "--json").stdout
    )
    assert named["files"][0]["source"] == {"name": "PubMed", "kind": "database", "origin": "given"}
    flow = json.loads(cli("study", "prisma", "Named", "--json").stdout)
    sources = {s["name"]: s["kind"] for s in flow["rounds"][0]["identified"]["sources"]}
    assert sources == {"PubMed": "database"}
