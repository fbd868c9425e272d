"""Importing a collection of the real Zotero 6 directory again after changes in Zotero: the
Study's line says how many papers came from Zotero *and* how many the Study holds (it said
"PDE review: 2 papers" for a Study of 4: items removed or moved in Zotero stay in it), and a
moved item names its collections (it showed their keys, "COLLAAAA → -")."""

from __future__ import annotations

import shutil
import sqlite3
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli import app as cli_app
from litdesk.services.app import open_app_sync
from litdesk.services.zotero import ZoteroImportRequest

pytestmark = pytest.mark.fixtures


def _copy_with_a_collection(fixtures_dir: Path, root: Path) -> Path:
    """The real directory, writable, with a collection "PDE review" of three of its items
    (and a sub-collection "Euler" of a fourth), as Zotero stores them."""
    data = root / "Zotero"
    shutil.copytree(fixtures_dir / "zotero" / "zotero-6-papis", data)
    for p in [data, *data.rglob("*")]:
        p.chmod(p.stat().st_mode | stat.S_IWUSR)
    with sqlite3.connect(data / "zotero.sqlite") as db:
        db.execute(
            "INSERT INTO collections (collectionID, collectionName, parentCollectionID, "
            "libraryID, key) VALUES (1, 'PDE review', NULL, 1, 'COLLAAAA'), "
            "(2, 'Euler', 1, 1, 'COLLBBBB')"
        )
        # items 7 (5KW7TMDH), 11 (I6RNZ53Q), 13 (EWM83WCB) in it; 9 (X8H6TF8V) in Euler
        db.execute("INSERT INTO collectionItems VALUES (1, 7, 0), (1, 11, 1), (1, 13, 2)")
        db.execute("INSERT INTO collectionItems VALUES (2, 9, 0)")
    return data


def _change_in_zotero(data: Path) -> None:
    """I6RNZ53Q taken out of the collection, EWM83WCB put in the trash."""
    with sqlite3.connect(data / "zotero.sqlite") as db:
        db.execute("DELETE FROM collectionItems WHERE collectionID = 1 AND itemID = 11")
        db.execute("INSERT INTO deletedItems (itemID) VALUES (13)")


def test_reimport_counts_the_studys_papers_and_names_moved_collections(
    fixtures_dir: Path, tmp_path: Path, tmp_settings
) -> None:
    data = _copy_with_a_collection(fixtures_dir, tmp_path)
    req = ZoteroImportRequest(data_dir=str(data), collections=("PDE review",))
    with open_app_sync(tmp_settings) as app:
        first = app.zotero.import_library(req, owner=app.owner)
        (study,) = first.studies
        assert (study.name, study.papers, study.total, study.created) == ("PDE review", 4, 4, True)
        _change_in_zotero(data)
        again = app.zotero.import_library(req, owner=app.owner)
        (study,) = again.studies
        assert (study.papers, study.total, study.created) == (2, 4, False)
        assert len(app.workspace().papers(study="PDE review")) == study.total
        assert [r.key for r in again.removed] == ["EWM83WCB"]
        (moved,) = again.moved
        assert moved.key == "I6RNZ53Q"
        assert (moved.before, moved.after) == (("COLLAAAA",), ())
        assert (moved.before_names, moved.after_names) == (("PDE review",), ())


def test_cli_reimport_says_what_the_study_holds(
    fixtures_dir: Path, tmp_path: Path, tmp_settings, monkeypatch
) -> None:
    data = _copy_with_a_collection(fixtures_dir, tmp_path)
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    get_settings.cache_clear()
    runner = CliRunner()
    args = ["zotero", "import", str(data), "--collection", "PDE review"]
    try:
        first = runner.invoke(cli_app, args)
        assert first.exit_code == 0, first.output
        assert "  Study PDE review (new): 4 papers from Zotero\n" in first.stdout
        _change_in_zotero(data)
        again = runner.invoke(cli_app, args)
        assert again.exit_code == 0, again.output
        out = " ".join(again.stdout.split())  # the console wraps long lines
        assert "Study PDE review: 2 papers from Zotero (the Study holds 4)" in out
        assert "removed in Zotero (its paper stays in the Study): EWM83WCB" in out
        assert "(PDE review → no collection)" in out
        assert "COLLAAAA" not in out
    finally:
        get_settings.cache_clear()
