"""Importing a collection of the real Zotero 6 directory again after changes in Zotero: the
Study's line says how many papers came from Zotero *and* how many the Study holds (it said
"PDE review: 2 papers" for a Study of 4: items removed or moved in Zotero stay in it), a
moved item names its collections (it showed their keys, "COLLAAAA → -"), and an item
changed in Zotero is changed in the Study's working set, screening and exports too (only
the paper list showed the new title)."""

from __future__ import annotations

import shutil
import sqlite3
import stat
from pathlib import Path

import pytest
from tests.services.conftest import pg_schema
from typer.testing import CliRunner

from litdesk import Settings
from litdesk._settings import get_settings
from litdesk.faces.cli import app as cli_app
from litdesk.services.app import open_app_sync
from litdesk.services.screening import ItemsRequest
from litdesk.services.studies import PdfLinkRequest, WorkingSetExportRequest, WorkingSetRequest
from litdesk.services.zotero import ZoteroImportRequest

__all__ = ["pg_schema"]  # the fixture, used by name

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
        assert first.stdout.startswith(f"Zotero library (personal) in {data} (schema 121)")
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


@pytest.fixture(params=["sqlite", "postgres"])
def any_settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    if request.param == "postgres":
        return tmp_settings.model_copy(
            update={"database_url": request.getfixturevalue("pg_schema")}
        )
    return tmp_settings


def _retitle_in_zotero(data: Path, item_id: int, title: str) -> None:
    """Zotero's edit of an item's title: a new value, the item's version and dateModified."""
    with sqlite3.connect(data / "zotero.sqlite") as db:
        value_id = db.execute("SELECT MAX(valueID) + 1 FROM itemDataValues").fetchone()[0]
        db.execute("INSERT INTO itemDataValues (valueID, value) VALUES (?, ?)", (value_id, title))
        field_id = db.execute("SELECT fieldID FROM fields WHERE fieldName = 'title'").fetchone()[0]
        db.execute(
            "UPDATE itemData SET valueID = ? WHERE itemID = ? AND fieldID = ?",
            (value_id, item_id, field_id),
        )
        db.execute(
            "UPDATE items SET version = 5, dateModified = '2026-12-06 12:00:00' WHERE itemID = ?",
            (item_id,),
        )


def test_an_item_changed_in_zotero_changes_in_the_working_set_and_screening(
    fixtures_dir: Path, tmp_path: Path, any_settings: Settings
) -> None:
    data = _copy_with_a_collection(fixtures_dir, tmp_path)
    req = ZoteroImportRequest(data_dir=str(data), collections=("PDE review",), pdfs=False)
    new_title = "Efficient spherical harmonic transforms (revised in Zotero)"
    with open_app_sync(any_settings) as app:
        app.zotero.import_library(req, owner=app.owner)
        _retitle_in_zotero(data, 7, new_title)  # 5KW7TMDH
        again = app.zotero.import_library(req, owner=app.owner)
        assert (again.added, again.updated, again.unchanged) == (0, 1, 3)
        titles = {r.paper.title for r in app.workspace().papers(study="PDE review")}
        assert new_title in titles
        groups = app.studies.working_set(WorkingSetRequest("PDE review"), owner=app.owner)
        shown = " | ".join(str(g) for g in groups.to_dict()["working_set"])  # type: ignore[union-attr]
        assert new_title in shown and "aimed at pseudospectral" not in shown
        ris = app.studies.export_working_set(
            WorkingSetExportRequest("PDE review", "ris"), owner=app.owner
        ).body.decode()
        assert f"TI  - {new_title}" in ris and "aimed at pseudospectral" not in ris
        items = str(app.screening.items(ItemsRequest("PDE review"), owner=app.owner).to_dict())
        assert new_title in items and "aimed at pseudospectral" not in items


def test_the_items_pdfs_are_the_studys_pdfs(
    fixtures_dir: Path, tmp_path: Path, any_settings: Settings
) -> None:
    """The real directory's four PDFs: the import said "4 PDFs attached" while the Study's
    PDFs and full text said "0 with a PDF" (only the library's record knew the paper). Each
    is now linked in the paper's Study (how "zotero"); a library imported before gets them
    at its next import; a PDF a person linked there stays."""
    data = fixtures_dir / "zotero" / "zotero-6-papis"
    req = ZoteroImportRequest(data_dir=str(data), study="Papis")
    with open_app_sync(any_settings) as app:
        view = app.zotero.import_library(req, owner=app.owner)
        assert view.pdfs_attached == 4
        ft = app.studies.fulltext("Papis", owner=app.owner).to_dict()
        rows = [r for r in ft["papers"] if r["pdf"]]  # type: ignore[union-attr, index]
        assert len(rows) == 4
        assert {r["pdf"]["how"] for r in rows} == {"zotero"}  # type: ignore[index]
        assert all(r["pdf"]["detail"].startswith("Zotero attachment ") for r in rows)  # type: ignore[index]
        without = {r["id"] for r in ft["papers"] if not r["pdf"]}  # type: ignore[union-attr, index]
        assert len(without) == 1  # the item without an attachment
        # undo one link by hand: the next import does not put it back
        undone = rows[0]["id"]  # type: ignore[index]
        app.studies.undo_pdf(PdfLinkRequest("Papis", undone), owner=app.owner)
        app.zotero.import_library(req, owner=app.owner)
        ft = app.studies.fulltext("Papis", owner=app.owner).to_dict()
        linked = {r["id"] for r in ft["papers"] if r["pdf"] and r["pdf"]["state"] == "linked"}  # type: ignore[union-attr, index]
        assert len(linked) == 3 and undone not in linked
