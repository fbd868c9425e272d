"""``litdesk study round`` (issue 28): a living review kept current by exports of databases
litdesk cannot query begins its update round, imports the new export, and ``study prisma``
shows the round as its own column with the import in it; ``study show`` lists the round;
a second round while the first is empty is refused. SQLite, a real store, the real CLI."""

from __future__ import annotations

import json

import pytest
from tests.services.studies._ris import ris
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli import app


@pytest.fixture
def cli(tmp_settings, monkeypatch):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    get_settings.cache_clear()
    runner = CliRunner()

    def invoke(*args: str, code: int = 0):
        result = runner.invoke(app, [str(a) for a in args])
        assert result.exit_code == code, (result.output, result.exception)
        return result

    yield invoke
    get_settings.cache_clear()


def test_round_then_import_counts_in_its_column(cli, tmp_path) -> None:
    assert "round" in cli("study", "--help").stdout
    cli("import", ris(tmp_path / "a.ris", range(1, 11), "Embase"), "--study", "Exports")
    cli("import", ris(tmp_path / "b.ris", range(8, 16), "Scopus"), "--study", "Exports")
    said = cli("study", "round", "Exports", "--note", "Embase re-run").stdout
    assert "Update round 1 of Exports began" in said and "(Embase re-run)" in said
    refused = cli("study", "round", "Exports", "--json", code=3)
    assert json.loads(refused.stdout)["code"] == "round_empty"
    cli("import", ris(tmp_path / "c.ris", range(12, 21), "Embase"), "--study", "Exports")
    flow = json.loads(cli("study", "prisma", "Exports", "--json").stdout)
    first, update = flow["rounds"]
    assert update["label"].startswith("Update 1 (")
    assert (first["identified"]["total"], first["to_screen"]) == (18, 15)
    assert (update["identified"]["total"], update["removed_duplicates"]) == (9, 4)
    assert update["to_screen"] == 5
    shown = cli("study", "show", "Exports").stdout
    assert "round: update round 1 begun" in shown and "Embase re-run" in shown
    begun = json.loads(cli("study", "round", "Exports", "--json").stdout)
    assert begun["round"] == 2 and begun["note"] is None and begun["label"] == "update round 2"
