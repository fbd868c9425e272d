"""adapters.zotero: the real Zotero 6 data directory, and libraries built from Zotero's own
schema files (current layout, other versions, WAL, trash, collections, notes, linked
files) — always read from a private read-only copy."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from tests._zotero_lib import LibraryBuilder

from litdesk.adapters.zotero import (
    NoZoteroLibrary,
    UnknownZoteroSchema,
    read_full_text,
    read_library,
    resolve_attachment,
)

pytestmark = pytest.mark.fixtures


def test_real_zotero6_directory(fixtures_dir: Path) -> None:
    data = fixtures_dir / "zotero" / "zotero-6-papis"
    before = {p: p.stat().st_mtime_ns for p in data.iterdir()}
    lib = read_library(data)
    assert lib.userdata == 121
    assert lib.library == "user"
    assert len(lib.items) == 5
    assert {i.item_type for i in lib.items} == {"journalArticle"}
    assert all(i.identifiers.doi for i in lib.items)
    assert lib.collections == () and lib.standalone_notes == ()
    files = [resolve_attachment(data, a) for i in lib.items for a in i.attachments]
    assert len(files) == 4
    assert all(f.problem is None and f.path is not None and f.path.is_file() for f in files)
    assert all(f.full_text is not None for f in files)
    text = read_full_text(files[0].full_text)  # type: ignore[arg-type]
    assert text and len(text) > 1000
    # nothing was written beside the live database (no -wal, -shm, journal)
    assert {p: p.stat().st_mtime_ns for p in data.iterdir()} == before


def _built(fixtures_dir: Path, tmp_path: Path, **kw: object) -> LibraryBuilder:
    return LibraryBuilder(fixtures_dir / "zotero" / "schema-sql", tmp_path / "Zotero", **kw)  # type: ignore[arg-type]


def test_built_library_current_layout(fixtures_dir: Path, tmp_path: Path) -> None:
    b = _built(fixtures_dir, tmp_path)
    top = b.collection("Review")
    sub = b.collection("Included", top)
    a = b.item(
        fields={
            "title": "Malaria vaccines",
            "DOI": "10.1000/mal.1",
            "date": "2021-05-00 May 2021",
            "extra": "PMID: 33333333\nCitation Key: mal2021",
            "language": "en",
        },
        creators=[("author", "Smith", "Jane"), ("editor", "Ed", "Itor")],
        tags=["vaccine", "include"],
        collections=[top, sub],
    )
    b.item("book", fields={"title": "Old book"}, trashed=True, collections=[top])
    b.note("<p>child <b>note</b></p>", a)
    b.note("<p>standalone</p>")
    b.attachment(a, name="a.pdf", full_text="extracted text")
    b.attachment(a, mode=1, content_type="text/html", name="page.html", data=b"<html>")
    b.attachment(a, mode=2, path="/nowhere/missing.pdf", data=None)
    b.attachment(a, mode=2, path="attachments:sub/linked.pdf", data=None)
    b.close()
    lib = read_library(b.data_dir)
    assert lib.userdata == 129 and lib.trashed == 1
    (item,) = lib.items
    assert item.identifiers.pmid == "33333333" and item.citation_key == "mal2021"
    assert item.fields["language"] == "en"
    assert [c.role for c in item.creators] == ["author", "editor"]
    assert set(item.tags) == {"vaccine", "include"}
    assert set(item.collections) == {top, sub}
    assert {c.name: c.parent_key for c in lib.collections} == {"Review": None, "Included": top}
    assert lib.collection_items[top] == (a,)  # the trashed book is left out
    assert [n.parent_key for n in item.notes] == [a]
    assert [n.parent_key for n in lib.standalone_notes] == [None]
    files = [resolve_attachment(b.data_dir, att) for att in item.attachments]
    problems = [f.problem for f in files]
    assert problems[0] is None and files[0].full_text is not None
    assert "snapshot" in (problems[1] or "")
    assert "missing" in (problems[2] or "")
    assert "base directory" in (problems[3] or "")
    base = tmp_path / "linked"
    (base / "sub").mkdir(parents=True)
    (base / "sub" / "linked.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    again = resolve_attachment(b.data_dir, item.attachments[3], base_dir=base)
    assert again.problem is None and again.path == base / "sub" / "linked.pdf"


def test_wal_layout_reads_recent_writes_from_the_wal(fixtures_dir: Path, tmp_path: Path) -> None:
    b = _built(fixtures_dir, tmp_path, wal=True)
    b.item(fields={"title": "Only in the WAL"})
    b.close()
    wal = b.data_dir / "zotero.sqlite-wal"
    assert wal.stat().st_size > 0
    # the main file alone does not have the item yet
    main_only = tmp_path / "main-only.sqlite"
    main_only.write_bytes((b.data_dir / "zotero.sqlite").read_bytes())
    with sqlite3.connect(main_only) as conn:
        assert conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
    lib = read_library(b.data_dir)
    assert [i.title for i in lib.items] == ["Only in the WAL"]
    assert sorted(os.listdir(b.data_dir)) == ["zotero.sqlite", "zotero.sqlite-wal"]


@pytest.mark.parametrize("version", [112, 130, 200])
def test_unknown_schema_versions_are_refused_with_the_version(
    fixtures_dir: Path, tmp_path: Path, version: int
) -> None:
    b = _built(fixtures_dir, tmp_path, userdata=version)
    b.close()
    with pytest.raises(UnknownZoteroSchema) as err:
        read_library(b.data_dir)
    assert str(version) in err.value.message
    assert err.value.details["version"] == version


def test_older_known_version_is_read(fixtures_dir: Path, tmp_path: Path) -> None:
    b = _built(fixtures_dir, tmp_path, userdata=121)
    b.item(fields={"title": "x"})
    b.close()
    assert read_library(b.data_dir).userdata == 121


def test_no_library_is_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(NoZoteroLibrary) as err:
        read_library(tmp_path)
    assert "zotero.sqlite" in err.value.message


def test_group_library_is_read_on_its_own(fixtures_dir: Path, tmp_path: Path) -> None:
    b = _built(fixtures_dir, tmp_path)
    b.item(fields={"title": "Mine"})
    b.conn.execute(
        "INSERT INTO libraries (libraryID, type, editable, filesEditable) VALUES (2, 'group', 1, 1)"
    )
    b.conn.execute(
        "INSERT INTO groups (groupID, libraryID, name, description, version)"
        " VALUES (4242, 2, 'Lab', '', 1)"
    )
    b.conn.execute(
        "INSERT INTO items (itemID, itemTypeID, libraryID, key, version) VALUES (900, ?, 2, ?, 3)",
        (b.types["journalArticle"], "GROUPKEY"),
    )
    b.close()
    assert [i.title for i in read_library(b.data_dir).items] == ["Mine"]
    group = read_library(b.data_dir, group=4242)
    assert group.library == "group:4242" and [i.key for i in group.items] == ["GROUPKEY"]
