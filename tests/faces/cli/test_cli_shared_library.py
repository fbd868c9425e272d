"""``litdesk library add`` and ``litdesk library protocol`` with a shared object store (a
``file://`` folder): the add says how many PDFs it kept for the other servers; the protocol
prints a day's answers as the store holds them (whichever host wrote them), says so when
there are none, and refuses a day not written YYYY-MM-DD."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.services.library.conftest import write_pdf
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli import app


@pytest.fixture
def run(tmp_settings, tmp_path, monkeypatch):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    monkeypatch.setenv("LITDESK_OBJECT_STORE", f"file://{tmp_path / 'objects'}")
    get_settings.cache_clear()
    yield lambda *args: CliRunner().invoke(app, [str(a) for a in args])
    get_settings.cache_clear()


def test_add_and_protocol_with_a_shared_store(run, tmp_path: Path) -> None:
    folder = tmp_path / "papers"
    write_pdf(folder / "one.pdf", ["The first paper. " * 20])
    write_pdf(folder / "two.pdf", ["The second paper. " * 20])
    added = run("library", "add", folder)
    assert added.exit_code == 0, added.output
    assert f"added: {folder}" in added.stdout
    assert "2 PDFs kept in the object store for the other servers" in added.stdout
    assert len(list((tmp_path / "objects" / "library" / "pdfs").glob("*/*.pdf"))) == 2

    entry = tmp_path / "objects" / "library" / "protocols" / "2026-03-01" / "101500.000000-ab.md"
    entry.parent.mkdir(parents=True)
    entry.write_text("## 2026-03-01T10:15:00+00:00 — Which gauges?\n\n- scope: whole library\n")
    shown = run("library", "protocol", "--day", "2026-03-01")
    assert shown.exit_code == 0 and "Which gauges?" in shown.stdout, shown.output
    doc = json.loads(run("library", "protocol", "--day", "2026-03-01", "--json").stdout)
    assert (doc["day"], doc["answers"]) == ("2026-03-01", 1)
    empty = run("library", "protocol", "--day", "2026-03-02")
    assert "no questions were answered on 2026-03-02" in empty.stdout
    bad = run("library", "protocol", "--day", "March 1")
    assert bad.exit_code == 2 and "YYYY-MM-DD" in bad.output, bad.output
