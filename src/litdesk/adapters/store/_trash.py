"""A Study's trash (migration 0020_study_trash): deleted work kept as a snapshot of its
rows until it is restored or the trash is emptied.

A deletion *takes* rows (reads them into a snapshot and deletes them, in the caller's
transaction); a restore *puts back* a snapshot (rows whose key is present again are left
as they are). A deleted Study keeps its rows and is hidden by its ``kind = 'study'`` entry
(:func:`deleted_studies`); emptying that entry deletes the Study for good."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from litdesk._errors import NotFoundError

from ._engine import dump_json, load_json, sources_changed
from ._schema import (
    evidence,
    evidence_subjects,
    imports,
    metadata,
    notes,
    papers,
    studies,
    study_papers,
    study_search_runs,
)

__all__ = [
    "TrashRow",
    "add_trash",
    "deleted_studies",
    "deleted_study_entries",
    "drop_trash",
    "get_trash",
    "list_trash",
    "purge_study",
    "put_back",
    "study_deleted",
    "take_document",
    "take_import",
    "take_search_run",
    "take_study_paper",
    "study_trash",
]

study_trash = sa.Table(
    "study_trash",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column(
        "study_id",
        sa.String(64),
        sa.ForeignKey("studies.id", ondelete="CASCADE"),
        nullable=True,
    ),
    sa.Column("owner", sa.String(64), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("target", sa.String(200), nullable=False),
    sa.Column("label", sa.Text, nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("deleted_at", sa.String(40), nullable=False),
    sa.Index("ix_study_trash_study", "study_id", "kind"),
    sa.Index("ix_study_trash_owner", "owner"),
)

#: the tables a snapshot holds rows of, in the order they are put back (links first)
_TABLES: Final[dict[str, sa.Table]] = {
    "study_papers": study_papers,
    "study_search_runs": study_search_runs,
    "imports": imports,
    "notes": notes,
    "evidence": evidence,
    "evidence_subjects": evidence_subjects,
}


@dataclass(frozen=True, slots=True)
class TrashRow:
    id: str
    study_id: str | None
    owner: str
    kind: str
    target: str
    label: str
    deleted_at: str
    data: dict[str, list[dict[str, Any]]]


def deleted_studies() -> sa.Select[Any]:
    """Ids of deleted Studies (a subquery for ``NOT IN``)."""
    return sa.select(study_trash.c.study_id).where(
        study_trash.c.kind == "study", study_trash.c.study_id.is_not(None)
    )


def study_deleted(conn: Connection, study_id: str) -> bool:
    found = conn.execute(
        sa.select(study_trash.c.id).where(
            study_trash.c.kind == "study", study_trash.c.study_id == study_id
        )
    ).first()
    return found is not None


#: the tables whose rows are a Study's sources (its records come and go with them)
_SOURCES: Final = frozenset({"study_papers", "study_search_runs", "imports"})


def _take(conn: Connection, table: sa.Table, where: sa.ColumnElement[bool]) -> list[dict[str, Any]]:
    rows = [dict(r._mapping) for r in conn.execute(sa.select(table).where(where))]
    if rows:
        conn.execute(sa.delete(table).where(where))
        if table.name in _SOURCES:
            for sid in {r.get("study_id") for r in rows}:
                if isinstance(sid, str):
                    sources_changed(conn, sid)
    return rows


def _take_evidence(
    conn: Connection, where: sa.ColumnElement[bool]
) -> dict[str, list[dict[str, Any]]]:
    """Take evidence records with their subject links (put back after the records)."""
    links = _take(
        conn,
        evidence_subjects,
        evidence_subjects.c.evidence_id.in_(sa.select(evidence.c.id).where(where)),
    )
    return {"evidence": _take(conn, evidence, where), "evidence_subjects": links}


def take_document(conn: Connection, kind: str, doc_id: str) -> dict[str, list[dict[str, Any]]]:
    """Take one note or evidence record (``kind``: ``notes``/``evidence``; an evidence
    record with its subject links)."""
    table = _TABLES[kind]
    if kind == "evidence":
        taken = _take_evidence(conn, table.c.id == doc_id)
        rows = taken["evidence"]
    else:
        rows = _take(conn, table, table.c.id == doc_id)
        taken = {kind: rows}
    if not rows:
        raise NotFoundError(f"no {kind} record {doc_id[:80]}", code="record_not_found")
    return taken


def take_study_paper(
    conn: Connection, study_id: str, paper_id: str
) -> dict[str, list[dict[str, Any]]]:
    """Take a paper's membership of a Study with the notes and evidence made on it in
    that Study (empty lists when it is not there)."""
    return {
        "study_papers": _take(
            conn,
            study_papers,
            sa.and_(study_papers.c.study_id == study_id, study_papers.c.paper_id == paper_id),
        ),
        "notes": _take(
            conn, notes, sa.and_(notes.c.study_id == study_id, notes.c.paper_id == paper_id)
        ),
        **_take_evidence(
            conn, sa.and_(evidence.c.study_id == study_id, evidence.c.paper_id == paper_id)
        ),
    }


def take_import(
    conn: Connection, import_id: str, study_id: str, paper_ids: Sequence[str]
) -> dict[str, list[dict[str, Any]]]:
    """Take an import of a Study and the papers only it brought (``paper_ids``) with their
    work in the Study."""
    out: dict[str, list[dict[str, Any]]] = {
        "imports": _take(conn, imports, imports.c.id == import_id)
    }
    if not out["imports"]:
        raise NotFoundError(f"no import {import_id[:80]}", code="record_not_found")
    return out | _take_study_papers(conn, study_id, paper_ids)


def take_search_run(
    conn: Connection, run_id: str, study_id: str, paper_ids: Sequence[str]
) -> dict[str, list[dict[str, Any]]]:
    """Take a search run's link to a Study (the run itself stays: it is the search's
    record) and the papers only it brought (``paper_ids``) with their work in the Study."""
    link = sa.and_(study_search_runs.c.study_id == study_id, study_search_runs.c.run_id == run_id)
    out: dict[str, list[dict[str, Any]]] = {
        "study_search_runs": _take(conn, study_search_runs, link)
    }
    if not out["study_search_runs"]:
        raise NotFoundError(f"no search run {run_id[:80]} in this Study", code="record_not_found")
    return out | _take_study_papers(conn, study_id, paper_ids)


#: papers (or keys) named in one ``IN`` of a trash statement
_PER_STATEMENT: Final = 500


def _take_study_papers(
    conn: Connection, study_id: str, paper_ids: Sequence[str]
) -> dict[str, list[dict[str, Any]]]:
    """:func:`take_study_paper` of each of ``paper_ids`` (in that order), in a few
    statements per 500 papers, not five a paper (an import of 3,000 papers removed: 15,000
    statements); nothing (no key) when there are no papers, as before."""
    out: dict[str, list[dict[str, Any]]] = {}
    ids = list(dict.fromkeys(paper_ids))
    for at in range(0, len(ids), _PER_STATEMENT):
        chunk = ids[at : at + _PER_STATEMENT]
        taken = {
            "study_papers": _take(
                conn,
                study_papers,
                sa.and_(study_papers.c.study_id == study_id, study_papers.c.paper_id.in_(chunk)),
            ),
            "notes": _take(
                conn, notes, sa.and_(notes.c.study_id == study_id, notes.c.paper_id.in_(chunk))
            ),
            **_take_evidence(
                conn, sa.and_(evidence.c.study_id == study_id, evidence.c.paper_id.in_(chunk))
            ),
        }
        for key, rows in taken.items():
            out.setdefault(key, []).extend(rows)
    # each paper's rows together, in the order of ``paper_ids`` (an evidence record's
    # subject links with its record's paper), as one paper at a time took them
    order = {pid: i for i, pid in enumerate(ids)}
    paper_of = {str(r.get("id")): str(r.get("paper_id")) for r in out.get("evidence", [])}

    def rank(row: dict[str, Any], links: bool) -> int:
        pid = paper_of.get(str(row.get("evidence_id"))) if links else str(row.get("paper_id"))
        return order.get(pid or "", len(order))

    for key, rows in out.items():
        rows.sort(key=partial(rank, links=key == "evidence_subjects"))
    return out


def put_back(conn: Connection, data: dict[str, list[dict[str, Any]]]) -> int:
    """Insert a snapshot's rows again (those whose key is taken are left); the count put
    back. A row whose Study or paper is gone is left too. Each table's rows are checked
    and inserted in a few statements per 500 rows (a restored import of 3,000 papers took
    four statements a row)."""
    done = 0
    for name, table in _TABLES.items():
        rows = data.get(name, [])
        if not rows:
            continue
        keys = list(table.primary_key.columns)
        values = [{c.name: row.get(c.name) for c in table.columns if c.name in row} for row in rows]
        held = _present(conn, keys, [tuple(v.get(k.name) for k in keys) for v in values])
        records: set[tuple[object, ...]] = set()
        if name == "evidence_subjects":  # a link whose record was not put back is left
            records = _present(conn, [evidence.c.id], [(v.get("evidence_id"),) for v in values])
        owned: set[tuple[object, ...]] = set()
        if name == "study_papers":
            owned = _present(
                conn,
                [papers.c.id, papers.c.owner],
                [(v.get("paper_id"), v["paper_owner"]) for v in values
                 if v.get("paper_owner") is not None],
            )  # fmt: skip
        sids = [(sid,) for sid in {v.get("study_id") for v in values} if sid is not None]
        alive = {sid for (sid,) in _present(conn, [studies.c.id], sids)}
        todo: list[dict[str, Any]] = []
        for v in values:
            key = tuple(v.get(k.name) for k in keys)
            if key in held:
                continue
            if name == "evidence_subjects" and (v.get("evidence_id"),) not in records:
                continue
            if name == "study_papers" and not (
                (v.get("paper_id"), v["paper_owner"]) in owned
                if v.get("paper_owner") is not None
                else _paper_owner(conn, v)
            ):
                continue  # no record of the paper left to hold
            sid = v.get("study_id")
            if sid is not None and sid not in alive:
                continue
            held.add(key)  # the same key again in the snapshot is left, as it was
            todo.append(v)
        by_columns: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for v in todo:
            by_columns.setdefault(tuple(v), []).append(v)
        for group in by_columns.values():
            conn.execute(sa.insert(table), group)
        if name in _SOURCES:
            for sid in sorted({v["study_id"] for v in todo if isinstance(v.get("study_id"), str)}):
                sources_changed(conn, sid)
        done += len(todo)
    return done


def _present(
    conn: Connection, columns: Sequence[sa.Column[Any]], wanted: Sequence[tuple[object, ...]]
) -> set[tuple[object, ...]]:
    """Which of the ``wanted`` values of ``columns`` (a key) a row of their table holds."""
    out: set[tuple[object, ...]] = set()
    todo = list(dict.fromkeys(w for w in wanted if None not in w))
    for at in range(0, len(todo), _PER_STATEMENT):
        chunk = todo[at : at + _PER_STATEMENT]
        if len(columns) == 1:
            where = columns[0].in_([w[0] for w in chunk])
        else:
            where = sa.tuple_(*columns).in_(chunk)
        out |= {tuple(r) for r in conn.execute(sa.select(*columns).where(where))}
    return out


def _paper_owner(conn: Connection, values: dict[str, Any]) -> bool:
    """A Study link put back names an existing record: the one it held, else (a snapshot
    taken before 0026_paper_owners) the Study owner's record, else the oldest record."""
    pid = values.get("paper_id")
    owner = values.get("paper_owner")
    query = sa.select(papers.c.owner).where(papers.c.id == pid)
    if owner is not None:
        return conn.execute(query.where(papers.c.owner == owner)).first() is not None
    creator = sa.select(studies.c.owner).where(studies.c.id == values.get("study_id"))
    row = conn.execute(
        query.order_by((papers.c.owner == creator.scalar_subquery()).desc(), papers.c.created_at)
    ).first()
    if row is None:
        return False
    values["paper_owner"] = row.owner
    return True


def add_trash(
    conn: Connection,
    entry_id: str,
    *,
    study_id: str | None,
    owner: str,
    kind: str,
    target: str,
    label: str,
    data: dict[str, list[dict[str, Any]]],
    now: str,
) -> None:
    conn.execute(
        sa.insert(study_trash).values(
            id=entry_id,
            study_id=study_id,
            owner=owner,
            kind=kind,
            target=target[:200],
            label=label[:2_000],
            data=dump_json(data),
            deleted_at=now,
        )
    )


def _row(r: Any) -> TrashRow:
    data = load_json(r.data, what="trash entry")
    if not isinstance(data, dict):
        data = {}
    return TrashRow(r.id, r.study_id, r.owner, r.kind, r.target, r.label, r.deleted_at, data)


def get_trash(conn: Connection, entry_id: str) -> TrashRow:
    r = conn.execute(sa.select(study_trash).where(study_trash.c.id == entry_id)).first()
    if r is None:
        raise NotFoundError("no such item in the trash", code="trash_not_found")
    return _row(r)


def list_trash(
    conn: Connection,
    *,
    study_id: str | None = None,
    owner: str | None = None,
    kind: str | None = None,
    limit: int = 1_000,
) -> list[TrashRow]:
    """Entries of a Study (newest first), or with ``study_id`` None those of no Study made
    by ``owner``; ``kind`` narrows."""
    query = sa.select(study_trash)
    if study_id is not None:
        query = query.where(study_trash.c.study_id == study_id)
    else:
        query = query.where(study_trash.c.study_id.is_(None), study_trash.c.owner == owner)
    if kind is not None:
        query = query.where(study_trash.c.kind == kind)
    rows = conn.execute(
        query.order_by(study_trash.c.deleted_at.desc(), study_trash.c.id.desc()).limit(limit)
    )
    return [_row(r) for r in rows]


def deleted_study_entries(conn: Connection) -> list[TrashRow]:
    """Every deleted Study's entry (the caller keeps those the account may see)."""
    rows = conn.execute(
        sa.select(study_trash)
        .where(study_trash.c.kind == "study")
        .order_by(study_trash.c.deleted_at.desc(), study_trash.c.id.desc())
    )
    return [_row(r) for r in rows]


def purge_study(conn: Connection, study_id: str) -> None:
    """Delete a Study for good: its notes, evidence and imports, its trash, the Study (its
    links, members and history go with it)."""
    conn.execute(
        sa.delete(evidence_subjects).where(
            evidence_subjects.c.evidence_id.in_(
                sa.select(evidence.c.id).where(evidence.c.study_id == study_id)
            )
        )
    )
    for table in (notes, evidence, imports, study_trash):
        conn.execute(sa.delete(table).where(table.c.study_id == study_id))
    conn.execute(sa.delete(studies).where(studies.c.id == study_id))


def drop_trash(conn: Connection, entry_id: str) -> None:
    conn.execute(sa.delete(study_trash).where(study_trash.c.id == entry_id))
