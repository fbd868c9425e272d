"""Read a Zotero data directory offline (no Zotero running needed, nothing written).

``zotero.sqlite`` is never opened where it lies: Zotero holds it open and, from version 10,
keeps recent writes in ``zotero.sqlite-wal``. :func:`read_library` copies the database
together with its ``-wal`` file into a temporary folder (again when either changed while
being copied), opens the copy read-only, names the schema version it read and refuses a
version it does not know (naming it). It returns every regular item outside the trash
with all its fields, creators with roles, tags, collections, child notes and attachments;
standalone notes with the items they are related to (``dc:relation``); the collection tree; and each attachment's file resolved to a path
(``storage:`` files under ``storage/<key>/``, linked files absolute or relative to the
linked-attachment base directory) with its problem when it cannot be used.
"""

from __future__ import annotations

import shutil
import sqlite3
import stat
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

import platformdirs

from litdesk._errors import InputError, IntegrityError, NotFoundError, RefusedError
from litdesk.core.zotero import (
    SKIPPED_TYPES,
    ZoteroAttachment,
    ZoteroCollection,
    ZoteroCreator,
    ZoteroItem,
    ZoteroNote,
    item_identifiers,
)

__all__ = [
    "KNOWN_USERDATA",
    "AttachmentFile",
    "NoZoteroLibrary",
    "UnknownZoteroSchema",
    "ZoteroLibrary",
    "ZoteroUnreadable",
    "default_data_dir",
    "read_full_text",
    "read_library",
    "resolve_attachment",
]

#: The ``userdata`` schema versions whose layout this reader knows: Zotero 6 (113) to
#: Zotero 10 (129). Every table and column read is in all of them.
KNOWN_USERDATA: Final = range(113, 130)
DB_NAME: Final = "zotero.sqlite"
FULL_TEXT_CACHE: Final = ".zotero-ft-cache"
#: A full-text cache larger than this is not read (Zotero caps its own at a few MB).
MAX_FULL_TEXT_BYTES: Final = 20 * 1024 * 1024
_COPY_TRIES: Final = 3


class NoZoteroLibrary(NotFoundError):
    """No Zotero data directory (with a ``zotero.sqlite``) where one was looked for."""

    default_code = "no_zotero_library"
    hint = "Give the folder that holds zotero.sqlite (Zotero: Settings → Advanced → Files and Folders)."


class UnknownZoteroSchema(RefusedError):
    """The database's schema version is not one this reader knows."""

    default_code = "zotero_schema_unknown"


class ZoteroUnreadable(IntegrityError):
    """The database copy cannot be read as a Zotero library."""

    default_code = "zotero_unreadable"
    hint = (
        "Give Zotero's data directory, the folder that holds zotero.sqlite and storage/ "
        "(Zotero: Settings → Advanced → Files and Folders); litdesk reads a copy and "
        "changes nothing."
    )


@dataclass(frozen=True, slots=True)
class AttachmentFile:
    """An attachment's file: where it is (``None``: none), the problem with it (``None``:
    a readable PDF) and whether Zotero's extracted full text is beside it."""

    attachment: ZoteroAttachment
    path: Path | None
    problem: str | None
    full_text: Path | None = None


@dataclass(frozen=True, slots=True)
class ZoteroLibrary:
    """What one read of a data directory found."""

    data_dir: Path
    schema: dict[str, int]
    library: str
    items: tuple[ZoteroItem, ...]
    collections: tuple[ZoteroCollection, ...]
    standalone_notes: tuple[ZoteroNote, ...]
    trashed: int
    collection_items: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def userdata(self) -> int:
        return self.schema.get("userdata", 0)


def default_data_dir() -> Path:
    """The platform's Zotero data directory (``~/Zotero``; on Linux also the XDG data
    folder); :class:`NoZoteroLibrary` when none holds a ``zotero.sqlite``."""
    candidates = [Path.home() / "Zotero", Path(platformdirs.user_data_dir("Zotero"))]
    for cand in candidates:
        if (cand / DB_NAME).is_file():
            return cand
    raise NoZoteroLibrary(
        "no Zotero data directory found (looked in " + ", ".join(str(c) for c in candidates) + ")",
        looked_in=[str(c) for c in candidates],
    )


def _signature(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_size, st.st_mtime_ns


def _regular_file(path: Path) -> None:
    try:
        mode = path.stat().st_mode
    except OSError:
        raise NoZoteroLibrary(
            f"no {DB_NAME} in {path.parent}: not a Zotero data directory", path=str(path.parent)
        ) from None
    if not stat.S_ISREG(mode):
        raise InputError(f"{path} is not a regular file", code="not_regular")


@contextmanager
def _copied(data_dir: Path) -> Iterator[Path]:
    """A private copy of the database and its ``-wal`` file (removed on exit)."""
    db = data_dir / DB_NAME
    _regular_file(db)
    wal = data_dir / (DB_NAME + "-wal")
    with tempfile.TemporaryDirectory(prefix="litdesk-zotero-") as tmp:
        target = Path(tmp) / DB_NAME
        for _ in range(_COPY_TRIES):
            before = (_signature(db), _signature(wal))
            shutil.copyfile(db, target)
            target_wal = Path(tmp) / (DB_NAME + "-wal")
            target_wal.unlink(missing_ok=True)
            if before[1] is not None:
                shutil.copyfile(wal, target_wal)
            if (_signature(db), _signature(wal)) == before:
                break  # neither changed while copied: one consistent state
        else:
            raise RefusedError(
                f"{db} kept changing while it was copied; try again when Zotero is idle",
                code="zotero_busy",
            )
        yield target


def _open_read_only(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    return conn


def _schema(conn: sqlite3.Connection) -> dict[str, int]:
    try:
        rows = conn.execute("SELECT schema, version FROM version").fetchall()
    except sqlite3.DatabaseError as exc:
        raise ZoteroUnreadable(f"not a Zotero database (no version table: {exc})") from None
    out: dict[str, int] = {}
    for row in rows:
        try:
            out[str(row["schema"])] = int(row["version"])
        except (TypeError, ValueError):
            continue
    return out


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _names(conn: sqlite3.Connection, tables: set[str], combined: str, base: str, id_col: str,
           name_col: str) -> dict[int, str]:  # fmt: skip
    for table in (combined, base):
        if table in tables:
            rows = conn.execute(f"SELECT {id_col}, {name_col} FROM {table}").fetchall()
            if rows:
                return {int(r[0]): str(r[1]) for r in rows}
    raise ZoteroUnreadable(f"the database has no {base} rows")


def _library_name(conn: sqlite3.Connection, library_id: int, kind: str) -> str:
    if kind == "group":
        row = conn.execute(
            "SELECT groupID FROM groups WHERE libraryID = ?", (library_id,)
        ).fetchone()
        return f"group:{row[0]}" if row else f"group-library:{library_id}"
    return "user"


def read_library(data_dir: Path, *, group: int | None = None) -> ZoteroLibrary:
    """Read the data directory's library (the user's own, or the group ``group``'s) from
    a private copy (see the module docstring)."""
    data_dir = data_dir.expanduser()
    with _copied(data_dir) as copy, closing(_open_read_only(copy)) as conn:
        try:
            return _read(conn, data_dir, group)
        except sqlite3.DatabaseError as exc:
            raise ZoteroUnreadable(f"cannot read the Zotero database copy: {exc}") from None


def _read(conn: sqlite3.Connection, data_dir: Path, group: int | None) -> ZoteroLibrary:
    schema = _schema(conn)
    userdata = schema.get("userdata")
    if userdata is None or userdata not in KNOWN_USERDATA:
        raise UnknownZoteroSchema(
            f"Zotero schema version {userdata} (userdata) is not one litdesk knows "
            f"({KNOWN_USERDATA.start}–{KNOWN_USERDATA.stop - 1}); update litdesk or Zotero",
            version=userdata,
        )
    tables = _tables(conn)
    types = _names(conn, tables, "itemTypesCombined", "itemTypes", "itemTypeID", "typeName")
    fields = _names(conn, tables, "fieldsCombined", "fields", "fieldID", "fieldName")
    roles = _names(conn, tables, "creatorTypes", "creatorTypes", "creatorTypeID", "creatorType")
    if group is None:
        lib = conn.execute(
            "SELECT libraryID, type FROM libraries WHERE type = 'user' ORDER BY libraryID"
        ).fetchone()
    else:
        lib = conn.execute(
            "SELECT l.libraryID, l.type FROM libraries l JOIN groups g USING (libraryID)"
            " WHERE g.groupID = ?",
            (group,),
        ).fetchone()
    if lib is None:
        raise NotFoundError(
            "the database has no such library" + (f" (group {group})" if group else ""),
            code="no_zotero_group" if group else "no_zotero_library",
        )
    library_id = int(lib["libraryID"])
    library = _library_name(conn, library_id, str(lib["type"]))

    deleted = {
        int(r[0])
        for r in conn.execute(
            "SELECT d.itemID FROM deletedItems d JOIN items i USING (itemID) WHERE i.libraryID = ?",
            (library_id,),
        )
    }
    rows = conn.execute(
        "SELECT itemID, itemTypeID, key, version, dateAdded, dateModified FROM items"
        " WHERE libraryID = ? ORDER BY itemID",
        (library_id,),
    ).fetchall()
    key_of = {int(r["itemID"]): str(r["key"]) for r in rows}
    data: dict[int, dict[str, str]] = defaultdict(dict)
    for item_id, field_id, value in conn.execute(
        "SELECT d.itemID, d.fieldID, v.value FROM itemData d JOIN itemDataValues v USING (valueID)"
        " JOIN items i USING (itemID) WHERE i.libraryID = ?",
        (library_id,),
    ):
        name = fields.get(int(field_id))
        if name is not None and value is not None:
            data[int(item_id)][name] = str(value)
    creators: dict[int, list[ZoteroCreator]] = defaultdict(list)
    for r in conn.execute(
        "SELECT ic.itemID, ic.creatorTypeID, c.firstName, c.lastName, c.fieldMode"
        " FROM itemCreators ic JOIN creators c USING (creatorID) JOIN items i USING (itemID)"
        " WHERE i.libraryID = ? ORDER BY ic.itemID, ic.orderIndex",
        (library_id,),
    ):
        creators[int(r[0])].append(
            ZoteroCreator(
                role=roles.get(int(r[1]), "author"),
                last=str(r[3] or ""),
                first=str(r[2] or ""),
                single=bool(r[4]),
            )
        )
    tags: dict[int, list[str]] = defaultdict(list)
    for item_id, name in conn.execute(
        "SELECT it.itemID, t.name FROM itemTags it JOIN tags t USING (tagID)"
        " JOIN items i USING (itemID) WHERE i.libraryID = ? ORDER BY it.itemID, t.name",
        (library_id,),
    ):
        tags[int(item_id)].append(str(name))

    deleted_collections = (
        {int(r[0]) for r in conn.execute("SELECT collectionID FROM deletedCollections")}
        if "deletedCollections" in tables
        else set()
    )
    coll_rows = conn.execute(
        "SELECT collectionID, collectionName, parentCollectionID, key FROM collections"
        " WHERE libraryID = ? ORDER BY collectionName, collectionID",
        (library_id,),
    ).fetchall()
    coll_key = {int(r[0]): str(r[3]) for r in coll_rows}
    collections = tuple(
        ZoteroCollection(
            key=str(r[3]),
            name=str(r[1]),
            parent_key=coll_key.get(int(r[2])) if r[2] is not None else None,
        )
        for r in coll_rows
        if int(r[0]) not in deleted_collections
    )
    in_collections: dict[int, list[str]] = defaultdict(list)
    members: dict[str, list[str]] = defaultdict(list)
    for coll_id, item_id in conn.execute(
        "SELECT ci.collectionID, ci.itemID FROM collectionItems ci"
        " JOIN collections c USING (collectionID) WHERE c.libraryID = ?"
        " ORDER BY ci.collectionID, ci.orderIndex, ci.itemID",
        (library_id,),
    ):
        cid, iid = int(coll_id), int(item_id)
        if cid in deleted_collections or iid in deleted or iid not in key_of:
            continue
        in_collections[iid].append(coll_key[cid])
        members[coll_key[cid]].append(key_of[iid])

    info = {int(r["itemID"]): r for r in rows}
    related = _related(conn, tables, library_id)
    live_keys = {k for i, k in key_of.items() if i not in deleted}
    notes_of: dict[int, list[ZoteroNote]] = defaultdict(list)
    standalone: list[ZoteroNote] = []
    for item_id, parent_id, note in conn.execute(
        "SELECT n.itemID, n.parentItemID, n.note FROM itemNotes n JOIN items i USING (itemID)"
        " WHERE i.libraryID = ? ORDER BY n.itemID",
        (library_id,),
    ):
        iid = int(item_id)
        if iid in deleted or (parent_id is not None and int(parent_id) in deleted):
            continue
        r = info[iid]
        parent_key = key_of.get(int(parent_id)) if parent_id is not None else None
        made = ZoteroNote(
            key=str(r["key"]),
            html=str(note or ""),
            version=int(r["version"]),
            date_modified=str(r["dateModified"]),
            parent_key=parent_key,
        )
        if parent_id is None:
            linked = sorted(k for k in related.get(iid, ()) if k in live_keys)
            standalone.append(replace(made, related=tuple(linked)))
        else:
            notes_of[int(parent_id)].append(made)
    attachments_of: dict[int, list[ZoteroAttachment]] = defaultdict(list)
    for r in conn.execute(
        "SELECT a.itemID, a.parentItemID, a.linkMode, a.contentType, a.path"
        " FROM itemAttachments a JOIN items i USING (itemID) WHERE i.libraryID = ?"
        " ORDER BY a.itemID",
        (library_id,),
    ):
        iid = int(r[0])
        if r[1] is None or iid in deleted:
            continue  # a standalone file is not a record's attachment
        attachments_of[int(r[1])].append(
            ZoteroAttachment(
                key=key_of[iid],
                link_mode=int(r[2] if r[2] is not None else -1),
                content_type=str(r[3] or ""),
                path=str(r[4] or ""),
                title=data.get(iid, {}).get("title", ""),
                url=data.get(iid, {}).get("url", ""),
                parent_key=key_of.get(int(r[1])),
            )
        )

    items: list[ZoteroItem] = []
    for r in rows:
        iid = int(r["itemID"])
        item_type = types.get(int(r["itemTypeID"]), "")
        if iid in deleted or item_type in SKIPPED_TYPES or not item_type:
            continue
        item_fields = data.get(iid, {})
        items.append(
            ZoteroItem(
                library=library,
                key=str(r["key"]),
                item_type=item_type,
                version=int(r["version"]),
                date_added=str(r["dateAdded"]),
                date_modified=str(r["dateModified"]),
                fields=item_fields,
                creators=tuple(creators.get(iid, ())),
                tags=tuple(tags.get(iid, ())),
                collections=tuple(in_collections.get(iid, ())),
                notes=tuple(notes_of.get(iid, ())),
                attachments=tuple(attachments_of.get(iid, ())),
                identifiers=item_identifiers(item_fields),
            )
        )
    trashed = sum(
        1
        for iid in deleted
        if types.get(int(info[iid]["itemTypeID"]), "") not in SKIPPED_TYPES
    ) if deleted else 0  # fmt: skip
    return ZoteroLibrary(
        data_dir=data_dir,
        schema=schema,
        library=library,
        items=tuple(items),
        collections=collections,
        standalone_notes=tuple(standalone),
        trashed=trashed,
        collection_items={k: tuple(v) for k, v in members.items()},
    )


def _related(conn: sqlite3.Connection, tables: set[str], library_id: int) -> dict[int, set[str]]:
    """``{item id: keys of the items it is related to}`` (Zotero's "Related": predicate
    ``dc:relation``, object ``http://zotero.org/<library>/items/<key>``)."""
    if not {"itemRelations", "relationPredicates"} <= tables:
        return {}
    out: dict[int, set[str]] = defaultdict(set)
    for item_id, obj in conn.execute(
        "SELECT r.itemID, r.object FROM itemRelations r JOIN relationPredicates p"
        " USING (predicateID) JOIN items i USING (itemID)"
        " WHERE i.libraryID = ? AND p.predicate = 'dc:relation'",
        (library_id,),
    ):
        head, sep, key = str(obj).rpartition("/items/")
        if sep and head and key.isalnum():
            out[int(item_id)].add(key)
    return out


def resolve_attachment(
    data_dir: Path, att: ZoteroAttachment, *, base_dir: Path | None = None
) -> AttachmentFile:
    """Where ``att``'s file is and why it cannot go into the PDF library, if it cannot:
    a linked URL, a snapshot (saved web page), not a PDF, a relative linked file without a
    base directory, a missing file."""
    if not att.is_file:
        what = "an embedded image" if att.link_mode == 4 else "a link to a web page"
        return AttachmentFile(att, None, f"{what}, not a file")
    if att.is_snapshot:
        return AttachmentFile(att, None, "a web page snapshot, not a PDF")
    raw = att.path
    if raw.startswith("storage:"):
        folder = data_dir / "storage" / att.key
        path = folder / raw[len("storage:") :]
    elif raw.startswith("attachments:"):
        rel = raw[len("attachments:") :]
        if base_dir is None:
            return AttachmentFile(
                att,
                None,
                f"a linked file relative to the linked-attachment base directory ({rel}); "
                "give the base directory",
            )
        path = base_dir.expanduser() / rel
        folder = data_dir / "storage" / att.key
    elif raw:
        path = Path(raw)
        folder = data_dir / "storage" / att.key
    else:
        return AttachmentFile(att, None, "the attachment has no file path")
    if ".." in path.parts:
        return AttachmentFile(att, None, "the attachment's path leaves its folder")
    ft = folder / FULL_TEXT_CACHE
    full_text = ft if ft.is_file() else None
    looks_pdf = att.content_type == "application/pdf" or path.suffix.lower() == ".pdf"
    if not looks_pdf:
        kind = att.content_type or path.suffix or "unknown type"
        return AttachmentFile(att, path, f"not a PDF ({kind})", full_text)
    try:
        mode = path.stat().st_mode
    except OSError:
        return AttachmentFile(att, path, f"the file is missing: {path}", full_text)
    if not stat.S_ISREG(mode):
        return AttachmentFile(att, path, f"not a regular file: {path}", full_text)
    try:
        with path.open("rb") as fh:
            head = fh.read(1024)
    except OSError as exc:
        return AttachmentFile(att, path, f"cannot read the file: {exc.strerror}", full_text)
    if b"%PDF-" not in head:
        return AttachmentFile(att, path, "the file is not a PDF (no %PDF- header)", full_text)
    return AttachmentFile(att, path, None, full_text)


def read_full_text(path: Path) -> str | None:
    """Zotero's extracted full text (``.zotero-ft-cache``), or ``None`` when it is
    missing, too large or empty."""
    try:
        if path.stat().st_size > MAX_FULL_TEXT_BYTES:
            return None
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return text if text.strip() else None
