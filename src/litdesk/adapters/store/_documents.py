"""Row-level operations on the stored documents: notes, evidence records and import traces
(one table each). Callers pass a transaction's connection; :meth:`DocumentRow.json` parses a
document, so one corrupt row never hides the others from a listing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from litdesk._errors import InputError, NotFoundError

from ._accounts import LOCAL_OWNER, visible_documents
from ._engine import dump_json, load_json, sources_changed
from ._schema import evidence, imports, notes
from ._subject_links import evidence_linked_to

__all__ = [
    "DOCUMENT_TABLES",
    "DocumentRow",
    "count_documents",
    "get_document",
    "import_ids_by_digest",
    "insert_document",
    "list_documents",
    "replace_document",
    "set_import_source",
    "study_imports",
]

DOCUMENT_TABLES: Final = {"notes": notes, "evidence": evidence, "imports": imports}


@dataclass(frozen=True, slots=True)
class DocumentRow:
    """One stored document; :meth:`json` parses it (raising on invalid JSON), so one
    corrupt row never hides the others from a listing."""

    id: str
    kind: str
    paper_id: str | None
    study_id: str | None
    text: str
    created_at: str
    owner: str = LOCAL_OWNER

    def json(self) -> Any:
        return load_json(self.text, what=self.kind)


def insert_document(
    conn: Connection,
    kind: str,
    doc_id: str,
    data: Any,
    now: str,
    *,
    paper_id: str | None = None,
    study_id: str | None = None,
    extra: dict[str, Any] | None = None,
    owner: str = LOCAL_OWNER,
) -> None:
    """Store one note, evidence record or import trace (``kind`` names the table)."""
    table = DOCUMENT_TABLES[kind]
    values: dict[str, Any] = {
        "id": doc_id,
        "study_id": study_id,
        "created_at": now,
        "owner": owner,
    }
    if kind == "imports":
        values["trace"] = dump_json(data)
        values.update(extra or {})
    else:
        values["paper_id"] = paper_id
        values["data"] = dump_json(data)
    conn.execute(sa.insert(table).values(**values))
    if kind == "imports" and study_id is not None:
        sources_changed(conn, study_id)


def get_document(conn: Connection, kind: str, doc_id: str) -> DocumentRow:
    table = DOCUMENT_TABLES[kind]
    r = conn.execute(sa.select(table).where(table.c.id == doc_id)).first()
    if r is None:
        raise NotFoundError(f"no {kind} record {doc_id}", code="record_not_found")
    return DocumentRow(
        id=r.id,
        kind=kind,
        paper_id=getattr(r, "paper_id", None),
        study_id=r.study_id,
        text=r.trace if kind == "imports" else r.data,
        created_at=r.created_at,
        owner=r.owner,
    )


def replace_document(conn: Connection, kind: str, doc_id: str, data: Any) -> None:
    """Replace a note's or evidence record's document (its links stay)."""
    if kind == "imports":
        raise InputError("import traces are never edited")
    table = DOCUMENT_TABLES[kind]
    done = conn.execute(sa.update(table).where(table.c.id == doc_id).values(data=dump_json(data)))
    if done.rowcount != 1:
        raise NotFoundError(f"no {kind} record {doc_id}", code="record_not_found")


def set_import_source(conn: Connection, import_id: str, source: dict[str, str]) -> None:
    """Name the source an import's records count under (its document's ``source``; the
    trace it holds is never edited)."""
    text = conn.execute(sa.select(imports.c.trace).where(imports.c.id == import_id)).scalar()
    if text is None:
        raise NotFoundError(f"no imports record {import_id}", code="record_not_found")
    doc = load_json(text, what="imports")
    if not isinstance(doc, dict):
        raise InputError(f"import {import_id} is not a stored import document")
    doc["source"] = source
    conn.execute(sa.update(imports).where(imports.c.id == import_id).values(trace=dump_json(doc)))


def list_documents(
    conn: Connection,
    kind: str,
    *,
    study_id: str | None = None,
    paper_ids: Sequence[str] | None = None,
    limit: int = 1_000,
    visible_to: str | None = None,
    subject: tuple[str, str] | None = None,
) -> list[DocumentRow]:
    """Stored documents of ``kind``, oldest first (parsed and checked by the caller); only
    those account ``visible_to`` made or may see through its Studies, when given; with
    ``subject`` (vocabulary, id) only the evidence records linked to it."""
    table = DOCUMENT_TABLES[kind]
    query = sa.select(table)
    if subject is not None:
        if kind != "evidence":
            raise InputError("only evidence is linked to subjects")
        query = query.where(table.c.id.in_(evidence_linked_to(*subject)))
    if visible_to is not None and visible_to != LOCAL_OWNER:
        query = query.where(visible_documents(table, visible_to))
    if study_id is not None:
        query = query.where(table.c.study_id == study_id)
    if paper_ids is not None:
        if kind == "imports":
            raise InputError("imports are not listed by paper")
        query = query.where(table.c.paper_id.in_(list(paper_ids)))
    query = query.order_by(table.c.created_at, table.c.id).limit(limit)
    out = []
    for r in conn.execute(query):
        out.append(
            DocumentRow(
                id=r.id,
                kind=kind,
                paper_id=getattr(r, "paper_id", None),
                study_id=r.study_id,
                text=r.trace if kind == "imports" else r.data,
                created_at=r.created_at,
                owner=r.owner,
            )
        )
    return out


def study_imports(
    conn: Connection, study_id: str, *, memo: dict[Any, Any] | None = None
) -> list[DocumentRow]:
    """A Study's import traces, oldest first (100,000 at most); with ``memo`` (the store's
    snapshot memo) read once per snapshot — a Study's page names them and lists them."""
    key = ("study imports", study_id)
    if memo is not None and key in memo:
        found: list[DocumentRow] = memo[key]
        return found
    rows = list_documents(conn, "imports", study_id=study_id, limit=100_000)
    if memo is not None:
        memo[key] = rows
    return rows


def count_documents(conn: Connection, kind: str, *, visible_to: str | None = None) -> int:
    """How many stored documents of ``kind`` account ``visible_to`` made or may see through
    its Studies (``None``: all of them) — the rows :func:`list_documents` would list."""
    table = DOCUMENT_TABLES[kind]
    query = sa.select(sa.func.count()).select_from(table)
    if visible_to is not None and visible_to != LOCAL_OWNER:
        query = query.where(visible_documents(table, visible_to))
    return int(conn.execute(query).scalar_one())


def import_ids_by_digest(conn: Connection, sha256: str, *, study_id: str | None) -> list[str]:
    """Ids of the stored imports of the same file (source digest), oldest first: in
    ``study_id``, or among the imports of no Study when it is ``None``."""
    where = imports.c.study_id == study_id if study_id is not None else imports.c.study_id.is_(None)
    query = (
        sa.select(imports.c.id)
        .where(imports.c.sha256 == sha256, where)
        .order_by(imports.c.created_at, imports.c.id)
        .limit(100)
    )
    return [r.id for r in conn.execute(query)]
