"""``litdesk evidence add --source pdf --page N`` through the real CLI app on a fixture
PDF (brief pdfev): the passage is checked on that page of the paper's PDF by the reader's
service method; an altered quote exits 3 naming the page with the nearest text; a quote
on another page names that page; ``evidence list`` and the CSV export say where."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli._app import app

pytestmark = pytest.mark.fixtures

HINDAWI_PDF = "hindawi_rrp_2010_157939.pdf"
REAL = "Fifteen participants took part, seven from the rural hospital and eight from the urban hospital."
ALTERED = REAL.replace("seven", "six")
PAGE_ONE = "Structured rehabilitation programmes are effective in enabling patients"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fixtures_dir: Path) -> Iterator[Path]:
    for key in [k for k in __import__("os").environ if k.startswith("LITDESK_")]:
        if key not in {"LITDESK_FIXTURES", "LITDESK_LIBRARY_INDEX_WORKERS"}:
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LITDESK_LLM_BACKEND", "none")
    get_settings.cache_clear()
    folder = tmp_path / "pdfs"
    folder.mkdir()
    shutil.copyfile(fixtures_dir / "pdf" / HINDAWI_PDF, folder / HINDAWI_PDF)
    yield folder
    get_settings.cache_clear()


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_evidence_from_a_pdf_page(env: Path) -> None:
    assert _run("library", "add", str(env))[0] == 0
    assert _run("study", "new", "Heart failure")[0] == 0
    code, out, _ = _run("library", "save-paper", HINDAWI_PDF, "--study", "Heart failure", "--json")
    assert code == 0, out
    pid = json.loads(out)["paper"]["id"]
    add = ("evidence", "add", pid, "--finding", "15 took part", "--source", "pdf",
           "--study", "Heart failure")  # fmt: skip

    code, out, err = _run(*add, "--passage", REAL, "--page", "2")
    assert code == 0, err
    assert "(ok), From the PDF, page 2 (checked)" in out
    code, _, err = _run(*add, "--passage", ALTERED, "--page", "2")
    assert code == 3 and "page 2 of " + HINDAWI_PDF in err and "seven from the rural" in err
    code, _, err = _run(*add, "--passage", PAGE_ONE, "--page", "2")
    assert code == 3 and "it is on page 1" in err
    code, _, err = _run(*add, "--passage", REAL)
    assert code == 2 and "give the page" in err
    code, _, err = _run(*add, "--passage", REAL, "--page", "2", "--pdf", "0" * 64)
    assert code == 3 and "no longer the PDF" in err

    code, out, _ = _run("evidence", "list", "--study", "Heart failure", "--json")
    listed = json.loads(out)
    assert listed["problems"] == []
    [rec] = listed["evidence"]
    assert rec["pdf"]["page"] == 2 and rec["recheck"] == "ok"
    assert rec["source_label"] == "From the PDF, page 2 (checked)"
