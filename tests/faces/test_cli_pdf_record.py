"""``litdesk library show|confirm|attach|save-paper|match`` and the Study scope of ``litdesk
report`` through the real CLI app, on fixture PDFs (issue 32)."""

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

SPECTER_PDF = "acl_2020_main_207_specter.pdf"
HINDAWI_PDF = "hindawi_rrp_2010_157939.pdf"


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
    for name in (SPECTER_PDF, HINDAWI_PDF):
        shutil.copyfile(fixtures_dir / "pdf" / name, folder / name)
    yield folder
    get_settings.cache_clear()


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_show_confirm_save_match_and_a_study_scope(env: Path) -> None:
    assert _run("library", "add", str(env))[0] == 0
    code, out, _ = _run("library", "show", SPECTER_PDF)
    assert code == 0 and "read from the PDF" in out and "% sure" in out

    # only the year is corrected: the other fields keep what was read
    code, out, _ = _run("library", "confirm", SPECTER_PDF, "--year", "2020", "--json")
    assert code == 0, out
    doc = json.loads(out)
    fields = {f["name"]: f for f in doc["fields"]}
    assert fields["year"] == fields["year"] | {"value": 2020, "source": "confirmed by you"}
    assert fields["title"]["value"].startswith("SPECTER") and fields["authors"]["value"]
    code, _, err = _run("library", "confirm", SPECTER_PDF, "--doi", "nonsense")
    assert code == 2 and "is not a DOI" in err

    assert _run("study", "new", "Heart failure")[0] == 0
    code, out, _ = _run("library", "save-paper", HINDAWI_PDF, "--study", "Heart failure", "--json")
    assert code == 0, out
    made = json.loads(out)
    assert made["paper"]["doi"] == "10.1155/2010/157939" and len(made["linked_in"]) == 1
    code, out, _ = _run("library", "match", "--json")
    assert code == 0 and json.loads(out) == {"attached": []}  # already attached; no other paper

    code, _, err = _run("report", "--study", "Heart failure", "--all", "--questions", "q?")
    assert code == 2 and "one of them" in err
    code, _, err = _run("report", "--study", "No such study", "--questions", "q?")
    assert code == 4, err
