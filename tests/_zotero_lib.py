"""Build Zotero data directories for tests from Zotero's own schema files
(``$LITDESK_FIXTURES/zotero/schema-sql``): ``system.sql`` + ``userdata.sql`` +
``triggers.sql`` give an empty library of the current layout; item types, fields and
creator types are inserted from ``schema.json`` as Zotero does at start-up. Then
:class:`LibraryBuilder` adds collections, items (fields, creators, tags), notes,
attachments (stored and linked files), trash — and can leave the database in WAL mode
with its recent writes only in ``zotero.sqlite-wal`` (Zotero 10's layout)."""

from __future__ import annotations

import json
import random
import sqlite3
import string
from pathlib import Path

PDF_BYTES = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
)


def new_key(rng: random.Random) -> str:
    return "".join(rng.choice("23456789ABCDEFGHIJKLMNPQRSTUVWXYZ") for _ in range(8))


class LibraryBuilder:
    """A Zotero data directory under construction (``close()`` writes it out)."""

    def __init__(
        self,
        schema_dir: Path,
        data_dir: Path,
        *,
        userdata: int | None = None,
        wal: bool = False,
        seed: int = 1,
    ) -> None:
        self.data_dir = data_dir
        data_dir.mkdir(parents=True, exist_ok=True)
        self.rng = random.Random(seed)
        self.conn = sqlite3.connect(data_dir / "zotero.sqlite")
        self.wal = wal
        if wal:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA wal_autocheckpoint=0")
        # the schema in one transaction (statement by statement, each of its ~240 statements
        # was a transaction of its own with its journal's syncs: 0.4-1.2 s of wall a library)
        scripts = (
            (schema_dir / name).read_text(encoding="utf-8")
            for name in ("system.sql", "userdata.sql", "triggers.sql")
        )
        self.conn.executescript("BEGIN;\n" + "\n".join(scripts) + "\nCOMMIT;")
        version = int(
            (schema_dir / "userdata.sql").read_text(encoding="utf-8").split("\n", 1)[0][3:]
        )
        self.conn.execute(
            "INSERT INTO version VALUES ('userdata', ?)", (userdata if userdata else version,)
        )
        self.conn.execute("INSERT INTO version VALUES ('system', 32)")
        self._global(json.loads((schema_dir / "schema.json").read_text(encoding="utf-8")))
        self.conn.execute(
            "INSERT INTO libraries (libraryID, type, editable, filesEditable) VALUES (1, 'user', 1, 1)"
        )
        self._ids = 0
        self.item_ids: dict[str, int] = {}
        self.collection_ids: dict[str, int] = {}

    @classmethod
    def reopen(cls, built: LibraryBuilder) -> LibraryBuilder:
        """The same library opened again for changes (keys and ids kept)."""
        again = cls.__new__(cls)
        again.__dict__.update(built.__dict__)
        again.conn = sqlite3.connect(built.data_dir / "zotero.sqlite")
        again._ids = again.conn.execute("SELECT max(itemID) FROM items").fetchone()[0]
        return again

    def _global(self, schema: dict[str, object]) -> None:
        item_types = schema["itemTypes"]
        assert isinstance(item_types, list)
        fields: dict[str, int] = {}
        roles: dict[str, int] = {}
        for type_id, t in enumerate(item_types, start=1):
            self.conn.execute(
                "INSERT INTO itemTypes VALUES (?, ?, NULL, 1)", (type_id, t["itemType"])
            )
            self.conn.execute(
                "INSERT INTO itemTypesCombined VALUES (?, ?, 1, 0)", (type_id, t["itemType"])
            )
            for f in t["fields"]:
                for name in (f["field"], f.get("baseField")):
                    if name and name not in fields:
                        fields[name] = len(fields) + 1
            for c in t["creatorTypes"]:
                if c["creatorType"] not in roles:
                    roles[c["creatorType"]] = len(roles) + 1
        for name, fid in fields.items():
            self.conn.execute("INSERT INTO fields VALUES (?, ?, NULL)", (fid, name))
            self.conn.execute(
                "INSERT INTO fieldsCombined VALUES (?, ?, NULL, NULL, 0)", (fid, name)
            )
        for name, rid in roles.items():
            self.conn.execute("INSERT INTO creatorTypes VALUES (?, ?)", (rid, name))
        self.types = {t["itemType"]: i for i, t in enumerate(item_types, start=1)}
        self.fields = fields
        self.roles = roles

    def _item(
        self, item_type: str, key: str | None, version: int, modified: str
    ) -> tuple[int, str]:
        self._ids += 1
        key = key or new_key(self.rng)
        self.conn.execute(
            "INSERT INTO items (itemID, itemTypeID, dateAdded, dateModified, clientDateModified,"
            " libraryID, key, version) VALUES (?, ?, ?, ?, ?, 1, ?, ?)",
            (self._ids, self.types[item_type], modified, modified, modified, key, version),
        )
        self.item_ids[key] = self._ids
        return self._ids, key

    def _value(self, item_id: int, name: str, value: str) -> None:
        row = self.conn.execute(
            "SELECT valueID FROM itemDataValues WHERE value = ?", (value,)
        ).fetchone()
        if row is None:
            vid = self.conn.execute(
                "INSERT INTO itemDataValues (value) VALUES (?)", (value,)
            ).lastrowid
        else:
            vid = row[0]
        self.conn.execute(
            "INSERT INTO itemData VALUES (?, ?, ?)", (item_id, self.fields[name], vid)
        )

    def collection(self, name: str, parent: str | None = None, *, key: str | None = None) -> str:
        key = key or new_key(self.rng)
        cur = self.conn.execute(
            "INSERT INTO collections (collectionName, parentCollectionID, libraryID, key)"
            " VALUES (?, ?, 1, ?)",
            (name, self.collection_ids[parent] if parent else None, key),
        )
        assert cur.lastrowid is not None
        self.collection_ids[key] = cur.lastrowid
        return key

    def item(
        self,
        item_type: str = "journalArticle",
        *,
        key: str | None = None,
        fields: dict[str, str] | None = None,
        creators: list[tuple[str, str, str]] = (),  # type: ignore[assignment]
        tags: list[str] = (),  # type: ignore[assignment]
        collections: list[str] = (),  # type: ignore[assignment]
        version: int = 1,
        modified: str = "2025-01-02 03:04:05",
        trashed: bool = False,
    ) -> str:
        """An item; ``creators``: (role, last, first) — first ``""`` for a single field."""
        item_id, key = self._item(item_type, key, version, modified)
        for name, value in (fields or {}).items():
            self._value(item_id, name, value)
        for order, (role, last, first) in enumerate(creators):
            mode = 0 if first else 1
            row = self.conn.execute(
                "SELECT creatorID FROM creators WHERE lastName = ? AND firstName = ?"
                " AND fieldMode = ?",
                (last, first, mode),
            ).fetchone()
            cid = (
                row[0]
                if row
                else self.conn.execute(
                    "INSERT INTO creators (firstName, lastName, fieldMode) VALUES (?, ?, ?)",
                    (first, last, mode),
                ).lastrowid
            )
            self.conn.execute(
                "INSERT INTO itemCreators VALUES (?, ?, ?, ?)",
                (item_id, cid, self.roles[role], order),
            )
        for tag in tags:
            row = self.conn.execute("SELECT tagID FROM tags WHERE name = ?", (tag,)).fetchone()
            tid = (
                row[0]
                if row
                else self.conn.execute("INSERT INTO tags (name) VALUES (?)", (tag,)).lastrowid
            )
            self.conn.execute("INSERT INTO itemTags VALUES (?, ?, 0)", (item_id, tid))
        for coll in collections:
            self.conn.execute(
                "INSERT INTO collectionItems VALUES (?, ?, 0)",
                (self.collection_ids[coll], item_id),
            )
        if trashed:
            self.conn.execute("INSERT INTO deletedItems (itemID) VALUES (?)", (item_id,))
        return key

    def note(self, html: str, parent: str | None = None, *, version: int = 1) -> str:
        item_id, key = self._item("note", None, version, "2025-01-02 03:04:05")
        self.conn.execute(
            "INSERT INTO itemNotes VALUES (?, ?, ?, ?)",
            (item_id, self.item_ids[parent] if parent else None, html, ""),
        )
        return key

    def attachment(
        self,
        parent: str,
        *,
        mode: int = 0,
        content_type: str = "application/pdf",
        name: str = "paper.pdf",
        data: bytes | None = PDF_BYTES,
        path: str | None = None,
        full_text: str | None = None,
    ) -> str:
        """A stored (mode 0/1: ``storage/<key>/<name>``, written when ``data``) or linked
        (mode 2: ``path`` as given) file attached to ``parent``."""
        item_id, key = self._item("attachment", None, 1, "2025-01-02 03:04:05")
        stored = path if path is not None else f"storage:{name}"
        self.conn.execute(
            "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path)"
            " VALUES (?, ?, ?, ?, ?)",
            (item_id, self.item_ids[parent], mode, content_type, stored),
        )
        folder = self.data_dir / "storage" / key
        if mode in (0, 1) and data is not None:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
        if full_text is not None:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / ".zotero-ft-cache").write_text(full_text, encoding="utf-8")
        return key

    def relate(self, a: str, b: str) -> None:
        """Relate two items (Zotero's "Related": a ``dc:relation`` row each way)."""
        self.conn.execute(
            "INSERT OR IGNORE INTO relationPredicates (predicate) VALUES ('dc:relation')"
        )
        (pid,) = self.conn.execute(
            "SELECT predicateID FROM relationPredicates WHERE predicate = 'dc:relation'"
        ).fetchone()
        for one, other in ((a, b), (b, a)):
            self.conn.execute(
                "INSERT INTO itemRelations VALUES (?, ?, ?)",
                (self.item_ids[one], pid, f"http://zotero.org/users/local/AbCdEfGh/items/{other}"),
            )

    def set_version(self, key: str, version: int, modified: str) -> None:
        self.conn.execute(
            "UPDATE items SET version = ?, dateModified = ? WHERE key = ?",
            (version, modified, key),
        )

    def set_field(self, key: str, name: str, value: str) -> None:
        item_id = self.item_ids[key]
        self.conn.execute(
            "DELETE FROM itemData WHERE itemID = ? AND fieldID = ?", (item_id, self.fields[name])
        )
        self._value(item_id, name, value)

    def trash(self, key: str) -> None:
        self.conn.execute("INSERT INTO deletedItems (itemID) VALUES (?)", (self.item_ids[key],))

    def commit(self) -> None:
        self.conn.commit()

    def close(self) -> None:
        """Commit; in WAL mode leave the writes in ``-wal`` (the connection is kept open
        elsewhere by Zotero: here the file is copied before the checkpoint)."""
        self.conn.commit()
        if self.wal:
            wal = self.data_dir / "zotero.sqlite-wal"
            kept = wal.read_bytes()
            main = (self.data_dir / "zotero.sqlite").read_bytes()
            self.conn.close()  # closing checkpoints and deletes the -wal: put both back
            (self.data_dir / "zotero.sqlite").write_bytes(main)
            wal.write_bytes(kept)
        else:
            self.conn.close()


def random_title(rng: random.Random, words: int = 8) -> str:
    return " ".join(
        "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 10)))
        for _ in range(words)
    ).capitalize()
