"""The Zotero identity links in the store (migration ``0015_zotero_links``): what each
imported Zotero item or note became, with the version and ``dateModified`` imported.

:func:`read_links` reads one owner's links of one library; :func:`write_links` upserts
links in one transaction, :func:`write_links_in` inside the caller's (an import's)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg
from sqlalchemy.dialects import sqlite as sq
from sqlalchemy.engine import Connection

from litdesk.adapters.store import Store, StoredDataInvalid, study_records

__all__ = [
    "LINK_FIELDS",
    "ZoteroLink",
    "add_study_items",
    "read_links",
    "study_libraries",
    "zotero_source_name",
    "write_links",
    "write_links_in",
    "study_zotero_items",
    "zotero_links",
]

_BATCH: Final = 500
_MAX_FIELD: Final = 2_000
#: Item fields a paper has no place for, kept with the item's link (``fields``).
LINK_FIELDS: Final = ("language", "citation_key")
_meta = sa.MetaData()

zotero_links = sa.Table(
    "zotero_links",
    _meta,
    sa.Column("owner", sa.String(200), primary_key=True),
    sa.Column("library", sa.String(80), primary_key=True),
    sa.Column("item_key", sa.String(32), primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("target", sa.Text, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("date_modified", sa.String(40), nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("imported_at", sa.String(40), nullable=False),
)


#: which Zotero import brought a paper into which Study (migration 0029_zipreview_study_zotero)
study_zotero_items = sa.Table(
    "study_zotero_items",
    _meta,
    sa.Column("study_id", sa.String(64), primary_key=True),
    sa.Column("paper_id", sa.String(130), primary_key=True),
    sa.Column("library", sa.String(80), primary_key=True),
    sa.Column("owner", sa.String(200), nullable=False),
    sa.Column("imported_at", sa.String(40), nullable=False),
)


@dataclass(frozen=True, slots=True)
class ZoteroLink:
    """One imported item (``kind`` ``item``: ``target`` a paper id) or note (``note``:
    ``target`` the note ids, comma-separated); ``collections``: the item's collection keys
    as imported."""

    library: str
    item_key: str
    kind: str
    target: str
    version: int
    date_modified: str
    collections: tuple[str, ...] = ()
    title: str = ""
    tags: tuple[str, ...] = ()
    #: the item's fields litdesk's Paper has no place for (:data:`LINK_FIELDS`)
    fields: Mapping[str, str] = field(default_factory=dict)

    def same_version(self, version: int, date_modified: str) -> bool:
        return self.version == version and self.date_modified == date_modified


def read_links(store: Store, *, owner: str, library: str) -> dict[str, ZoteroLink]:
    """``{item key: link}`` of ``owner``'s imports of ``library``."""
    t = zotero_links
    out: dict[str, ZoteroLink] = {}
    with store.read() as conn:
        rows = conn.execute(sa.select(t).where(t.c.owner == owner, t.c.library == library))
        for r in rows:
            try:
                data = json.loads(r.data)
            except ValueError:
                raise StoredDataInvalid(f"stored Zotero link {r.item_key} is not JSON") from None
            if not isinstance(data, dict):
                raise StoredDataInvalid(f"stored Zotero link {r.item_key} is not an object")
            colls = data.get("collections", [])
            tags = data.get("tags", [])
            out[r.item_key] = ZoteroLink(
                library=r.library,
                item_key=r.item_key,
                kind=r.kind,
                target=r.target,
                version=int(r.version),
                date_modified=r.date_modified,
                collections=tuple(str(c) for c in colls) if isinstance(colls, list) else (),
                title=str(data.get("title", "")),
                tags=tuple(str(t) for t in tags) if isinstance(tags, list) else (),
                fields={k: str(data[k]) for k in LINK_FIELDS if isinstance(data.get(k), str)},
            )
    return out


def _upsert(conn: Connection, rows: list[dict[str, object]]) -> None:
    keys = ["owner", "library", "item_key"]
    for i in range(0, len(rows), _BATCH):
        chunk = rows[i : i + _BATCH]
        if conn.dialect.name == "postgresql":
            stmt_pg = pg.insert(zotero_links).values(chunk)
            conn.execute(
                stmt_pg.on_conflict_do_update(
                    index_elements=keys,
                    set_={c: stmt_pg.excluded[c] for c in chunk[0] if c not in keys},
                )
            )
        else:
            stmt_sq = sq.insert(zotero_links).values(chunk)
            conn.execute(
                stmt_sq.on_conflict_do_update(
                    index_elements=keys,
                    set_={c: stmt_sq.excluded[c] for c in chunk[0] if c not in keys},
                )
            )


def _rows(links: Sequence[ZoteroLink], owner: str) -> list[dict[str, object]]:
    now = datetime.now(UTC).isoformat(timespec="seconds")
    return [
        {
            "owner": owner,
            "library": link.library,
            "item_key": link.item_key,
            "kind": link.kind,
            "target": link.target,
            "version": link.version,
            "date_modified": link.date_modified,
            "data": json.dumps(
                {
                    "collections": list(link.collections),
                    "title": link.title[:300],
                    "tags": list(link.tags),
                    **{k: v[:_MAX_FIELD] for k, v in link.fields.items()},
                }
            ),
            "imported_at": now,
        }
        for link in links
    ]


def write_links_in(conn: Connection, links: Sequence[ZoteroLink], *, owner: str) -> None:
    """Upsert ``links`` inside the caller's transaction (an import writes its papers,
    Studies, notes and links together)."""
    rows = _rows(links, owner)
    if rows:
        _upsert(conn, rows)


def write_links(store: Store, links: Sequence[ZoteroLink], *, owner: str) -> None:
    """Upsert ``links`` in one transaction of their own (a push records what it wrote)."""
    with store.write() as conn:
        write_links_in(conn, links, owner=owner)


def zotero_source_name(library: str) -> str:
    """How a Study names the records a Zotero library brought (its PRISMA 2020 source, an
    import as a file import is named: ``Import: <what was read>``)."""
    if library.startswith("group:"):
        return f"Import: Zotero library (group {library.removeprefix('group:')})"
    if library == "user":
        return "Import: Zotero library (personal)"
    return f"Import: Zotero library ({library})"


def study_libraries(conn: Connection, study_id: str) -> dict[str, str]:
    """``{paper id: Zotero library}`` of the Study's saved papers that a Zotero import
    brought into this Study (:func:`add_study_items`), by the account that holds them in
    the Study (the first library by name when several did). A paper the account imported
    from Zotero into another Study only is not one of them."""
    owners = study_records.paper_owners(conn, study_id)
    t = study_zotero_items
    rows = conn.execute(
        sa.select(t.c.paper_id, t.c.library, t.c.owner).where(t.c.study_id == study_id)
    )
    out: dict[str, str] = {}
    for r in rows:
        pid, library = str(r.paper_id), str(r.library)
        if owners.get(pid) == r.owner and library < out.get(pid, "\uffff"):
            out[pid] = library
    return out


def add_study_items(
    conn: Connection, study_id: str, paper_ids: Sequence[str], *, library: str, owner: str
) -> None:
    """Record that a Zotero import of ``library`` brought ``paper_ids`` into the Study
    (inside the import's transaction; a paper recorded before stays as it is)."""
    t = study_zotero_items
    ids = sorted(set(paper_ids))
    now = datetime.now(UTC).isoformat(timespec="seconds")
    for i in range(0, len(ids), _BATCH):
        chunk = ids[i : i + _BATCH]
        have = set(
            conn.execute(
                sa.select(t.c.paper_id).where(
                    t.c.study_id == study_id, t.c.library == library, t.c.paper_id.in_(chunk)
                )
            ).scalars()
        )
        rows = [
            {"study_id": study_id, "paper_id": p, "library": library, "owner": owner,
             "imported_at": now}
            for p in chunk
            if p not in have
        ]  # fmt: skip
        if rows:
            conn.execute(sa.insert(t), rows)
