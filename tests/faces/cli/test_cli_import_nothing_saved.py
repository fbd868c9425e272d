"""``litdesk import`` without ``--study`` only reads: it says so, and how to save."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli import app

GOOD = b"TY  - JOUR\nTI  - Good paper\nDO  - 10.1/good\nER  - \n"


@pytest.fixture
def run(tmp_settings, monkeypatch):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    get_settings.cache_clear()
    yield lambda *args: CliRunner().invoke(app, [str(a) for a in args])
    get_settings.cache_clear()


def _papers(data_dir: Path) -> int:
    engine = sa.create_engine(f"sqlite:///{data_dir / 'litdesk.sqlite3'}")
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.text("SELECT count(*) FROM papers")).scalar_one())
    finally:
        engine.dispose()


def test_import_without_study_says_nothing_was_saved_and_how_to_save(run, tmp_path, tmp_settings):
    ris = tmp_path / "my refs.ris"
    ris.write_bytes(GOOD)
    before = _papers(tmp_settings.data_dir)
    result = run("import", ris)
    assert result.exit_code == 0, result.output
    assert "1 record from 1 file" in result.stdout  # the summary is still printed
    said = result.stderr
    assert "Nothing was saved" in said
    quoted = shlex.quote(str(ris))  # a path with a space, ready to paste
    assert f"litdesk import {quoted} --study NAME" in said
    assert f"litdesk convert {quoted} --to ris --output FILE" in said
    assert _papers(tmp_settings.data_dir) == before  # and indeed nothing was saved
    # the commands it suggests are real: each parses (``--help``: nothing runs)
    for line in said.splitlines():
        if line.strip().startswith("litdesk "):
            args = shlex.split(line)[1:]
            parsed = CliRunner().invoke(app, [*args, "--help"])
            assert parsed.exit_code == 0, (line, parsed.output)


def test_the_format_given_is_kept_in_the_suggestions(run, tmp_path):
    ris = tmp_path / "refs.ris"
    ris.write_bytes(GOOD)
    said = run("import", ris, "--format", "ris").stderr
    assert f"litdesk import {ris} --format ris --study NAME" in said


def test_json_and_study_imports_print_no_such_hint(run, tmp_path):
    ris = tmp_path / "refs.ris"
    ris.write_bytes(GOOD)
    assert "Nothing was saved" not in run("import", ris, "--json").output
    saved = run("import", ris, "--study", "Kept")
    assert saved.exit_code == 0, saved.output
    assert "Nothing was saved" not in saved.output


def test_a_refused_file_gets_its_refusal_not_the_hint(run, tmp_path):
    result = run("import", tmp_path / "missing.ris")
    assert result.exit_code == 2, result.output  # without --study: every refusal is 2
    assert "missing.ris" in result.stderr
    assert "Nothing was saved" not in result.output
