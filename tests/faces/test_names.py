"""Things named by what a person knows (issue 34): an import by its file, records and day;
a kept search by its query and day; lanes by database; counts and nouns that agree — in the
views (the Study's API answer), a page and a CLI table."""

from __future__ import annotations

import itertools
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.adapters.http import CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.core.search import SearchFilters
from litdesk.core.words import day, import_label, run_label
from litdesk.faces.cli import app
from litdesk.services.search import default_kit

RIS = (
    "TY  - JOUR\nTI  - Aspirin and stroke in older adults\nDO  - 10.1/one\nPY  - 2001\nER  - \n"
    "TY  - JOUR\nTI  - Malaria vaccines in children\nDO  - 10.5555/gen.3\nPY  - 1993\nER  - \n"
)
CROSSREF = json.dumps(
    {
        "status": "ok",
        "message-type": "work-list",
        "message": {
            "total-results": 1,
            "items": [{"DOI": "10.1000/xyz123", "title": ["Deep learning for sepsis"]}],
        },
    }
).encode()


def test_labels_read_like_a_person_names_things() -> None:
    assert import_label("/home/a/psycinfo_64.ris", 64, "2026-12-05") == (
        "psycinfo_64.ris, 64 records, 5 Dec 2026"
    )
    assert import_label("C:\\exports\\one.nbib", 1, None) == "one.nbib, 1 record"
    assert run_label("sepsis  AND\nchildren", "2026-12-05") == "“sepsis AND children”, 5 Dec 2026"
    long = run_label("x" * 200, None)
    assert long.endswith("…”") and len(long) < 90
    assert run_label("", None) == "a search without a query"


@pytest.fixture
def env(tmp_settings, monkeypatch, tmp_path):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


def _cassette(folder: Path) -> None:
    req = default_kit().compile("crossref", "sepsis", SearchFilters(), 20, None)
    CassetteRecorder(folder).record(
        Exchange(
            provider="crossref",
            method=req.method,
            url=sanitised_url(req),
            request_body=req.body,
            status=200,
            headers={},
            body=CROSSREF,
            received_at=datetime(2026, 11, 30, tzinfo=UTC),
        ),
        Redactor(),
    )


def test_a_studys_imports_and_searches_carry_labels_and_tables_say_them(env: Path) -> None:
    runner = CliRunner()
    ris = env / "psycinfo_2.ris"
    ris.write_text(RIS, encoding="utf-8")
    folder = env / "cas"
    _cassette(folder)
    assert runner.invoke(app, ["study", "new", "Sepsis"]).exit_code == 0
    imported = runner.invoke(app, ["import", str(ris), "--study", "Sepsis"])
    assert imported.exit_code == 0, imported.output
    assert "Saved 2 records from" in imported.stdout and "(s)" not in imported.stdout
    searched = runner.invoke(
        app, ["search", "sepsis", "-p", "crossref", "--replay", str(folder), "--study", "Sepsis"]
    )
    assert searched.exit_code == 0, searched.output
    listed = runner.invoke(app, ["runs", "list"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0, listed.output
    assert "Crossref, keyword search: answered" in listed.stdout
    assert "crossref-keyword" not in listed.stdout
    assert not re.search(r"\d{4}-\d\d-\d\dT", listed.stdout)  # no ISO timestamps

    shown = runner.invoke(app, ["study", "show", "Sepsis"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "  import: psycinfo_2.ris, 2 records, " in shown.stdout
    assert "  search: “sepsis”, " in shown.stdout
    assert "1 search run, 1 import" in shown.stdout and "(s)" not in shown.stdout

    from litdesk.faces.web import create_app

    web = create_app(get_settings(), host="127.0.0.1", port=8765)
    with TestClient(web, base_url="http://127.0.0.1:8765") as client:
        answer = client.get("/api/v1/studies/Sepsis")
        assert answer.status_code == 200, answer.text
        study = answer.json()
        page = client.get(f"/study/{study['id']}")
    today = day(datetime.now(UTC))
    (row,) = study["import_rows"]
    assert row["label"] == f"psycinfo_2.ris, 2 records, {today}"
    (kept,) = study["runs"]
    assert kept["label"] == f"“sepsis”, {today}"
    assert page.status_code == 200 and "psycinfo_2.ris" in page.text


def test_study_show_wraps_long_labels_at_the_terminal_width(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from litdesk.faces.cli import _output

    monkeypatch.setattr(_output.console, "_width", 80)  # the console is built at import
    runner = CliRunner()
    ris = env / ("a_very_long_export_file_name_from_a_database_search_" + "x" * 20 + ".ris")
    ris.write_text(RIS, encoding="utf-8")
    assert runner.invoke(app, ["study", "new", "Wide"]).exit_code == 0
    assert runner.invoke(app, ["import", str(ris), "--study", "Wide"]).exit_code == 0
    shown = runner.invoke(app, ["study", "show", "Wide"])
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout[shown.stdout.index("  import:") :].splitlines()
    # the import's line and its continuation lines (indented under it)
    mine = "\n".join([lines[0], *itertools.takewhile(lambda ln: ln.startswith("    "), lines[1:])])
    assert ris.name in mine  # the long file name is kept whole
    assert max(len(line) for line in mine.splitlines()) <= 80
