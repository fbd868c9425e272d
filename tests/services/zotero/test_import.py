"""ZoteroArea.import_library: the real Zotero 6 directory, and a built library imported,
changed in "Zotero" and imported again (updated, added, removed, moved; never duplicated);
notes (a note changed in Zotero updated in place, never added twice), PDFs into the PDF
library with per-item problems; team-mode owner."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests._zotero_lib import LibraryBuilder

from litdesk.adapters.zotero import read_library
from litdesk.services.app import open_app_sync
from litdesk.services.zotero import (
    UNFILED_STUDY,
    UnknownCollection,
    ZoteroImportRequest,
    ZoteroInputError,
)

pytestmark = pytest.mark.fixtures


def test_real_directory_imports_into_one_study(fixtures_dir: Path, tmp_settings) -> None:
    data = fixtures_dir / "zotero" / "zotero-6-papis"
    with open_app_sync(tmp_settings) as app:
        view = app.zotero.import_library(
            ZoteroImportRequest(data_dir=str(data), study="Papis"), owner=app.owner
        )
        assert view.schema_version == 121
        assert (view.added, view.updated, view.unchanged) == (5, 0, 0)
        assert (view.pdfs_attached, view.pdfs_new, view.full_text_caches) == (4, 4, 4)
        assert view.problems == ()
        (study,) = view.studies
        assert study.name == "Papis" and study.papers == 5 and study.created
        papers = app.workspace().papers(study="Papis")
        assert len(papers) == 5 and all(r.paper.doi for r in papers)
        assert {r.paper.publication_types for r in papers} == {("Journal Article",)}
        files = app.pdfs.corpus().files
        assert len(files) == 4
        meta = app.pdfs.catalogue.metadata()
        assert {m["doi"] for m in meta.values()} <= {r.paper.doi for r in papers}
        assert len(meta) == 1 or len(meta) == 4  # the four fixture PDFs may share bytes
        again = app.zotero.import_library(
            ZoteroImportRequest(data_dir=str(data), study="Papis"), owner=app.owner
        )
        assert (again.added, again.updated, again.unchanged) == (0, 0, 5)
        assert (again.pdfs_attached, again.pdfs_new) == (4, 0)  # the total, none new
        assert len(app.workspace().papers(study="Papis")) == 5
        assert len(app.pdfs.corpus().files) == 4


def _library(fixtures_dir: Path, root: Path) -> tuple[LibraryBuilder, dict[str, str]]:
    b = LibraryBuilder(fixtures_dir / "zotero" / "schema-sql", root / "Zotero", wal=True)
    review = b.collection("Review")
    sub = b.collection("Screened", review)
    other = b.collection("Other")
    keys = {
        "a": b.item(
            fields={"title": "Alpha trial", "DOI": "10.1000/alpha", "date": "2020"},
            creators=[("author", "Smith", "Jane")],
            tags=["rct"],
            collections=[review],
        ),
        "b": b.item(
            "preprint",
            fields={"title": "Beta preprint", "archiveID": "arXiv:2101.00001"},
            collections=[sub],
        ),
        "c": b.item("book", fields={"title": "Gamma book"}, collections=[other]),
        "d": b.item(fields={"title": "Unfiled delta"}),
        "t": b.item(fields={"title": "In the trash"}, collections=[review], trashed=True),
    }
    keys["review"], keys["sub"], keys["other"] = review, sub, other
    keys["note"] = b.note("<p>Important <b>finding</b></p>", keys["a"])
    b.note("<p>standalone</p>")
    b.attachment(keys["a"], name="alpha.pdf", full_text="alpha text")
    b.attachment(keys["b"], mode=1, content_type="text/html", name="snap.html", data=b"<html>")
    b.attachment(keys["c"], mode=2, path=str(root / "gone.pdf"), data=None)
    return b, keys


def test_collections_studies_notes_pdfs_and_reimport(fixtures_dir: Path, tmp_path: Path,
                                                     tmp_settings) -> None:  # fmt: skip
    b, k = _library(fixtures_dir, tmp_path)
    b.close()
    req = ZoteroImportRequest(data_dir=str(b.data_dir))
    with open_app_sync(tmp_settings) as app:
        view = app.zotero.import_library(req, owner=app.owner)
        names = {s.name: s.papers for s in view.studies}
        assert names == {"Other": 1, "Review": 2, UNFILED_STUDY: 1}
        assert view.added == 4 and view.trashed_left_out == 1
        assert view.notes_added == 1 and view.pdfs_attached == 1
        problems = " | ".join(p.problem for p in view.problems)
        assert "snapshot" in problems and "missing" in problems and "standalone" in problems
        ws = app.workspace()
        notes, _ = ws.notes(study="Review")
        assert [n.annotation.comment for n in notes] == ["Important finding"]
        beta = next(r.paper for r in ws.papers(study="Review") if r.paper.title == "Beta preprint")
        assert beta.arxiv_id == "2101.00001" and beta.publication_types == ("Preprint",)

        # Zotero changes: alpha edited (new version), beta moved, gamma trashed, a new item
        b2 = LibraryBuilder.reopen(b)
        b2.set_field(k["a"], "title", "Alpha trial, corrected")
        b2.set_version(k["a"], 2, "2025-02-01 00:00:00")
        b2.conn.execute(
            "UPDATE collectionItems SET collectionID = ? WHERE itemID = ?",
            (b.collection_ids[k["other"]], b.item_ids[k["b"]]),
        )
        b2.trash(k["c"])
        b2.conn.execute(
            "UPDATE itemNotes SET note = '<p>Important finding, revised</p>' WHERE itemID = ?",
            (b.item_ids[k["note"]],),
        )
        b2.set_version(k["note"], 2, "2025-02-01 00:00:00")
        b2.item(fields={"title": "Epsilon new", "DOI": "10.1000/eps"}, collections=[k["review"]])
        b2.close()
        again = app.zotero.import_library(req, owner=app.owner)
        assert (again.added, again.updated) == (1, 1)
        assert [r.key for r in again.removed] == [k["c"]]
        assert [m.key for m in again.moved] == [k["b"]]
        # the note changed in Zotero is updated in place (matched by its link and version)
        assert (again.notes_added, again.notes_changed, again.notes_unchanged) == (0, 1, 0)
        titles = sorted(r.paper.title for r in ws.papers())
        assert titles == [
            "Alpha trial, corrected",
            "Beta preprint",
            "Epsilon new",
            "Gamma book",
            "Unfiled delta",
        ]  # one paper per item: nothing duplicated
        (revised,) = ws.notes()[0]  # never added again
        assert (
            revised.id == notes[0].id and revised.annotation.comment == "Important finding, revised"
        )
        third = app.zotero.import_library(req, owner=app.owner)
        assert (third.added, third.updated, third.notes_added) == (0, 0, 0)


def test_collection_choice_and_errors(fixtures_dir: Path, tmp_path: Path, tmp_settings) -> None:
    b, k = _library(fixtures_dir, tmp_path)
    b.close()
    with open_app_sync(tmp_settings) as app:
        view = app.zotero.import_library(
            ZoteroImportRequest(data_dir=str(b.data_dir), collections=("Review",), pdfs=False),
            owner=app.owner,
        )
        assert [(s.name, s.papers) for s in view.studies] == [("Review", 2)]
        with pytest.raises(UnknownCollection) as err:
            app.zotero.import_library(
                ZoteroImportRequest(data_dir=str(b.data_dir), collections=("Nope",)),
                owner=app.owner,
            )
        assert "Review" in err.value.message and "Other" in err.value.message
        split = app.zotero.import_library(
            ZoteroImportRequest(data_dir=str(b.data_dir), sub_studies=True, pdfs=False),
            owner=app.owner,
        )
        assert sorted((s.name, s.papers) for s in split.studies) == [
            ("Other", 1),
            ("Review", 1),
            ("Review / Screened", 1),
            (UNFILED_STUDY, 1),
        ]
        assert (split.added, split.unchanged) == (2, 2)  # Review's two were linked already
    with pytest.raises(ZoteroInputError):
        ZoteroImportRequest(study="  ")
    with pytest.raises(ZoteroInputError):
        ZoteroImportRequest(study="S", sub_studies=True)


def test_standalone_notes_related_to_an_imported_item_become_its_notes(
    fixtures_dir: Path, tmp_path: Path, tmp_settings
) -> None:
    b = LibraryBuilder(fixtures_dir / "zotero" / "schema-sql", tmp_path / "Zotero")
    chosen, left = b.collection("Chosen"), b.collection("Left")
    x = b.item(fields={"title": "Xeno trial", "DOI": "10.1000/x"}, collections=[chosen])
    y = b.item(fields={"title": "Ypsilon trial", "DOI": "10.1000/y"}, collections=[left])
    gone = b.item(fields={"title": "Trashed"}, collections=[chosen], trashed=True)
    both = b.note("<p>Search strategy: <i>MEDLINE</i> only</p>")
    b.relate(both, y)
    b.relate(both, x)
    to_trash = b.note("<p>About the trashed one</p>")
    b.relate(to_trash, gone)
    alone = b.note("<p>Unrelated thoughts</p>")
    b.close()
    lib = read_library(b.data_dir)
    related = {n.key: n.related for n in lib.standalone_notes}
    assert related == {both: tuple(sorted((x, y))), to_trash: (), alone: ()}
    req = ZoteroImportRequest(data_dir=str(b.data_dir), collections=("Chosen",))
    with open_app_sync(tmp_settings) as app:
        view = app.zotero.import_library(req, owner=app.owner)
        assert view.notes_added == 1
        reported = {p.key for p in view.problems if "standalone" in p.problem}
        assert reported == {to_trash, alone}
        notes, _ = app.workspace().notes(study="Chosen")
        assert [(n.annotation.comment, n.annotation.paper_id) for n in notes] == [
            ("Search strategy: MEDLINE only", app.workspace().paper("10.1000/x").paper.id)
        ]
        again = app.zotero.import_library(req, owner=app.owner)
        assert (again.notes_added, again.notes_unchanged) == (0, 1)
        assert len(app.workspace().notes(study="Chosen")[0]) == 1
