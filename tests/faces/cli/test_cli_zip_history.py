"""``litdesk study import`` says what became of the ZIP's screening: the history with each
reviewer and how they were recorded, and the review mode in words."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests._screening_pairs import pairs_zip
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli import app


@pytest.fixture
def run(tmp_settings, monkeypatch):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    get_settings.cache_clear()
    yield lambda *args: CliRunner().invoke(app, [str(a) for a in args])
    get_settings.cache_clear()


def test_study_import_reports_the_history_and_its_reviewers(
    run, tmp_path: Path, fixtures_dir: Path
) -> None:
    path = tmp_path / "pairs.zip"
    path.write_bytes(pairs_zip(fixtures_dir, tmp_path / "elsewhere"))
    out = run("study", "import", path)
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    assert "screening history: 25 decisions, changes, undos and resolutions recorded" in text
    assert "dual review at title/abstract; revealed at title/abstract" in text
    assert "reviewer Ana Lima: no account here: recorded by you under their name" in text
    assert "reviewer the exporting workspace's user: you" in text
    assert "title/abstract screening: 25 decisions recorded with their reviewers" in text
