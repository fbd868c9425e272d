"""Row-level operations on the workspace tables. Callers pass a transaction's connection.

Saved papers, their identity keys and the papers a Study holds live here; Study rows
(names, roles, listing, renaming, search runs) in ``_studies``, re-exported here with the
stored documents of ``_documents``.

Every read of a stored document validates it: papers through ``read_paper`` (once per
stored text, ``_memo``); annotations, evidence and traces are returned as parsed JSON for
their own readers.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Connection

from litdesk._errors import InputError, IntegrityError, NotFoundError
from litdesk.core.records import Paper, split_arxiv

from ._accounts import LOCAL_OWNER, member_studies, visible_papers
from ._documents import (
    DocumentRow,
    count_documents,
    get_document,
    import_ids_by_digest,
    insert_document,
    list_documents,
    replace_document,
    set_import_source,
    study_imports,
)
from ._engine import StoredDataInvalid, dump_json, rows_loaded, sources_changed
from ._memo import stored_paper
from ._schema import (
    evidence,
    notes,
    paper_keys,
    paper_savers,
    papers,
    study_papers,
)
from ._studies import (
    AmbiguousStudy,
    StudyRow,
    add_study_search_run,
    get_study,
    get_study_role,
    insert_study,
    list_studies,
    mark_run_papers,
    owned_study_names,
    rename_study,
    runs_without_papers,
    study_run_ids,
    study_with_role,
)
from ._trash import deleted_studies

__all__ = [
    "READING_STATUSES",
    "AmbiguousStudy",
    "DocumentRow",
    "PaperRow",
    "StudyRow",
    "add_paper_keys",
    "add_study_paper",
    "add_study_papers",
    "link_study_papers",
    "add_study_search_run",
    "count_study_papers",
    "mark_run_papers",
    "runs_without_papers",
    "count_documents",
    "count_papers",
    "find_paper_ids",
    "find_study_paper_ids",
    "find_visible_ids",
    "own_rows_by_key",
    "get_document",
    "get_paper",
    "get_papers",
    "get_study",
    "get_study_role",
    "study_with_role",
    "identity_keys",
    "import_ids_by_digest",
    "insert_document",
    "insert_paper",
    "insert_papers",
    "insert_study",
    "list_documents",
    "list_papers_reusing",
    "list_papers",
    "list_studies",
    "own_papers",
    "owned_study_names",
    "record_owners",
    "rename_study",
    "replace_document",
    "set_import_source",
    "set_status",
    "study_imports",
    "study_run_ids",
    "study_totals",
    "update_paper",
    "update_papers",
]

READING_STATUSES: Final = ("to-read", "reading", "read")


#: values bound in one ``IN (…)`` list on SQLite (it allows 32,766 at most)
_PER_QUERY: Final = 500
#: values in one PostgreSQL array (one parameter, no limit of its own: this bounds a
#: statement's size)
_PER_ARRAY: Final = 5_000


@dataclass(frozen=True, slots=True)
class PaperRow:
    paper: Paper
    status: str | None
    created_at: str
    updated_at: str


def identity_keys(paper: Paper) -> list[str]:
    """The keys under which a paper is known: its id and each identifier it has."""
    keys = [f"id:{paper.id}"]
    if paper.doi:
        keys.append(f"doi:{paper.doi}")
    if paper.pmid:
        keys.append(f"pmid:{paper.pmid}")
    if paper.pmcid:
        keys.append(f"pmcid:{paper.pmcid}")
    if paper.openalex_id:
        keys.append(f"openalex:{paper.openalex_id}")
    if paper.arxiv_id:
        arx = split_arxiv(paper.arxiv_id)
        keys.append(f"arxiv:{arx.base if arx else paper.arxiv_id}")
    return keys


def _chunks(conn: Connection, values: Iterable[str]) -> Iterator[list[str]]:
    """The distinct ``values`` in order, in the lists one lookup binds (:func:`_among`)."""
    wanted = list(dict.fromkeys(values))
    size = _PER_ARRAY if conn.dialect.name == "postgresql" else _PER_QUERY
    for i in range(0, len(wanted), size):
        yield wanted[i : i + size]


def _among(
    conn: Connection, column: sa.ColumnElement[str], values: list[str]
) -> sa.ColumnElement[bool]:
    """``column IN (values)``. On PostgreSQL ``column = ANY(:array)``: one parameter, so one
    statement text whatever the number of values (the server parses and plans one, and
    psycopg prepares it once it recurs) where ``IN`` binds a parameter per value and makes
    a new text for each length; the same rows and the same index scans."""
    if conn.dialect.name == "postgresql":
        return column == sa.any_(sa.bindparam(None, values, type_=ARRAY(column.type)))
    return column.in_(values)


def find_paper_ids(conn: Connection, keys: Iterable[str], *, owner: str) -> dict[str, str]:
    """``{key: paper id}`` for the keys ``owner``'s records are stored under (any number of
    keys: one query per 500 on SQLite, per 5,000 on PostgreSQL). Another owner's records are never named."""
    out: dict[str, str] = {}
    for chunk in _chunks(conn, keys):
        rows = conn.execute(
            sa.select(paper_keys.c.key, paper_keys.c.paper_id).where(
                paper_keys.c.owner == owner, _among(conn, paper_keys.c.key, chunk)
            )
        )
        out.update((r.key, r.paper_id) for r in rows)
    return out


def _study_links(viewer: str) -> sa.ColumnElement[bool]:
    """A ``study_papers`` row of a live Study ``viewer`` may read (``local``: any)."""
    live = study_papers.c.study_id.not_in(deleted_studies())
    if viewer == LOCAL_OWNER:
        return live
    return sa.and_(live, study_papers.c.study_id.in_(member_studies(viewer)))


def own_rows_by_key(
    conn: Connection, keys: Sequence[str], *, viewer: str
) -> dict[str, tuple[str, PaperRow | None]]:
    """``{key: (paper id, record)}`` of ``viewer``'s own records stored under ``keys``,
    with its reading status — one statement: the key's lookup and the record's read at
    once (what :func:`find_paper_ids` then :func:`get_paper` answer for a record of the
    viewer's own). The record is ``None`` when its stored text is invalid (:func:`get_paper`
    says why). Another owner's records are never named."""
    out: dict[str, tuple[str, PaperRow | None]] = {}
    on = sa.and_(paper_keys.c.owner == papers.c.owner, paper_keys.c.paper_id == papers.c.id)
    for chunk in _chunks(conn, keys):
        query = (
            _select_papers(viewer)
            .add_columns(paper_keys.c.key.label("paper_key"))
            .join(paper_keys, on)
            .where(paper_keys.c.owner == viewer, _among(conn, paper_keys.c.key, chunk))
        )
        for row in conn.execute(query):
            try:
                out[row.paper_key] = (row.id, _paper_row(row))
            except IntegrityError:
                out[row.paper_key] = (row.id, None)
    return out


def find_visible_ids(
    conn: Connection,
    keys: Sequence[str],
    *,
    viewer: str,
    own: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """``{key: paper id}`` for the keys of the records ``viewer`` may read: its own first,
    then those of the Studies it belongs to (``local`` reads every record). ``own``: the
    viewer's own keys among ``keys`` when the caller has read them already."""
    out = dict(own) if own is not None else find_paper_ids(conn, keys, owner=viewer)
    rest = [k for k in dict.fromkeys(keys) if k not in out]
    for chunk in _chunks(conn, rest):
        query = (
            sa.select(paper_keys.c.key, paper_keys.c.paper_id)
            .join(
                study_papers,
                sa.and_(
                    study_papers.c.paper_id == paper_keys.c.paper_id,
                    study_papers.c.paper_owner == paper_keys.c.owner,
                ),
            )
            .where(_among(conn, paper_keys.c.key, chunk), _study_links(viewer))
            .order_by(paper_keys.c.owner)
        )
        for r in conn.execute(query):
            out.setdefault(r.key, r.paper_id)
    if viewer == LOCAL_OWNER:  # every record, Study or not (the owner of the workspace)
        rest = [k for k in rest if k not in out]
        for chunk in _chunks(conn, rest):
            query = (
                sa.select(paper_keys.c.key, paper_keys.c.paper_id)
                .where(_among(conn, paper_keys.c.key, chunk))
                .order_by(paper_keys.c.owner)
            )
            for r in conn.execute(query):
                out.setdefault(r.key, r.paper_id)
    return out


def find_study_paper_ids(conn: Connection, keys: Sequence[str], *, study_id: str) -> dict[str, str]:
    """``{key: paper id}`` for the keys of the records ``study_id`` holds (whoever's; the
    lowest id when several). The keys' records first (index on the key), then which of them
    the Study holds (its primary key): never a read of the whole Study per lookup."""
    sp = study_papers.c
    found: dict[str, set[str]] = {}
    for chunk in _chunks(conn, keys):
        named: dict[tuple[str, str], list[str]] = {}
        for r in conn.execute(
            sa.select(paper_keys.c.owner, paper_keys.c.key, paper_keys.c.paper_id).where(
                _among(conn, paper_keys.c.key, chunk)
            )
        ):
            named.setdefault((r.owner, r.paper_id), []).append(r.key)
        for ids in _chunks(conn, (pid for _owner, pid in named)):
            for link in conn.execute(
                sa.select(sp.paper_id, sp.paper_owner).where(
                    sp.study_id == study_id, _among(conn, sp.paper_id, ids)
                )
            ):
                for key in named.get((link.paper_owner, link.paper_id), ()):
                    found.setdefault(key, set()).add(link.paper_id)
    return {key: min(ids) for key, ids in found.items()}


def record_owners(
    conn: Connection, paper_ids: Iterable[str], *, viewer: str, study_id: str | None = None
) -> dict[str, str]:
    """``{paper id: owner}`` of the record ``viewer`` reads under each id: the one
    ``study_id`` holds (when given: the caller checked the viewer may read the Study), else
    its own, else one a Study it belongs to holds (``local``: else anyone's). An id the
    viewer may not read is left out."""
    out: dict[str, str] = {}
    wanted = list(dict.fromkeys(paper_ids))
    sp = study_papers.c
    if study_id is not None:
        for chunk in _chunks(conn, wanted):
            rows = conn.execute(
                sa.select(sp.paper_id, sp.paper_owner).where(
                    sp.study_id == study_id, _among(conn, sp.paper_id, chunk)
                )
            )
            out.update((r.paper_id, r.paper_owner) for r in rows)
    for chunk in _chunks(conn, (p for p in wanted if p not in out)):
        rows = conn.execute(
            sa.select(papers.c.id).where(papers.c.owner == viewer, _among(conn, papers.c.id, chunk))
        )
        out.update((r.id, viewer) for r in rows)
    for chunk in _chunks(conn, (p for p in wanted if p not in out)):
        rows = conn.execute(
            sa.select(sp.paper_id, sp.paper_owner)
            .where(_among(conn, sp.paper_id, chunk), _study_links(viewer))
            .order_by(sp.paper_owner)
        )
        for r in rows:
            out.setdefault(r.paper_id, r.paper_owner)
    if viewer == LOCAL_OWNER:
        for chunk in _chunks(conn, (p for p in wanted if p not in out)):
            rows = conn.execute(
                sa.select(papers.c.id, papers.c.owner)
                .where(_among(conn, papers.c.id, chunk))
                .order_by(papers.c.owner)
            )
            for r in rows:
                out.setdefault(r.id, r.owner)
    return out


def _paper_row(row: Any) -> PaperRow:
    paper = stored_paper(row.data)  # read once per use case (see read_once)
    if paper.id != row.id:
        raise StoredDataInvalid(f"stored paper {row.id} carries id {paper.id}")
    return PaperRow(paper, row.status, row.created_at, row.updated_at)


def _team(account: str | None) -> bool:
    return account is not None and account != LOCAL_OWNER


def _status_of(account: str | None) -> sa.ColumnElement[Any]:
    """The reading status shown to ``account``: a team account's own (kept with its saving),
    otherwise the paper's."""
    if not _team(account):
        return papers.c.status
    return (
        sa.select(paper_savers.c.status)
        .where(paper_savers.c.paper_id == papers.c.id, paper_savers.c.account_id == account)
        .scalar_subquery()
    )


def _select_papers(account: str | None) -> sa.Select[Any]:
    if not _team(account):
        return sa.select(papers)
    columns = [c for c in papers.c if c.name != "status"]
    return sa.select(*columns, _status_of(account).label("status"))


def get_paper(
    conn: Connection,
    paper_id: str,
    *,
    viewer: str,
    status_of: str | None = None,
    study_id: str | None = None,
) -> PaperRow:
    """The record ``viewer`` reads under ``paper_id`` (:func:`record_owners`), with the
    reading status of ``status_of`` (default: the viewer's)."""
    owner = record_owners(conn, [paper_id], viewer=viewer, study_id=study_id).get(paper_id)
    if owner is None:
        raise NotFoundError(f"no saved paper {paper_id[:120]}", code="paper_not_found")
    row = conn.execute(
        _select_papers(status_of or viewer).where(papers.c.owner == owner, papers.c.id == paper_id)
    ).first()
    if row is None:
        raise NotFoundError(f"no saved paper {paper_id[:120]}", code="paper_not_found")
    return _paper_row(row)


def get_papers(
    conn: Connection, paper_ids: Iterable[str], *, viewer: str, study_id: str | None = None
) -> dict[str, Paper]:
    """The records ``viewer`` reads under these ids (validated like :func:`get_paper`; an
    id it may not read is left out)."""
    owners = record_owners(conn, paper_ids, viewer=viewer, study_id=study_id)
    by_owner: dict[str, list[str]] = {}
    for pid, owner in owners.items():
        by_owner.setdefault(owner, []).append(pid)
    out: dict[str, Paper] = {}
    for owner, ids in by_owner.items():
        out.update(own_papers(conn, ids, owner=owner))
    return out


def own_papers(conn: Connection, paper_ids: Iterable[str], *, owner: str) -> dict[str, Paper]:
    """``owner``'s own records of these ids (an id it has no record of is left out)."""
    out: dict[str, Paper] = {}
    for chunk in _chunks(conn, paper_ids):
        query = sa.select(papers).where(papers.c.owner == owner, _among(conn, papers.c.id, chunk))
        for row in conn.execute(query):
            out[row.id] = _paper_row(row).paper
    return out


def _add_keys(conn: Connection, paper: Paper, owner: str) -> None:
    add_paper_keys(conn, dict.fromkeys(identity_keys(paper), paper.id), owner=owner)


def insert_paper(
    conn: Connection,
    paper: Paper,
    now: str,
    status: str | None = None,
    *,
    owner: str = LOCAL_OWNER,
) -> None:
    conn.execute(
        sa.insert(papers).values(
            id=paper.id,
            data=dump_json(paper.to_dict()),
            status=status,
            created_at=now,
            updated_at=now,
            owner=owner,
        )
    )
    _add_keys(conn, paper, owner)


def insert_papers(
    conn: Connection, new: Sequence[Paper], now: str, *, owner: str = LOCAL_OWNER
) -> None:
    """:func:`insert_paper` of papers known to be new (no status), in one statement; their
    identity keys are the caller's (:func:`add_paper_keys`)."""
    if new:
        conn.execute(
            sa.insert(papers),
            [
                {
                    "id": p.id,
                    "data": dump_json(p.to_dict()),
                    "status": None,
                    "created_at": now,
                    "updated_at": now,
                    "owner": owner,
                }
                for p in new
            ],
        )
        rows_loaded(conn, papers, len(new))


def update_papers(conn: Connection, changed: Sequence[Paper], now: str, *, owner: str) -> None:
    """:func:`update_paper` of several of ``owner``'s records in one statement; their
    identity keys are the caller's (:func:`add_paper_keys`)."""
    if changed:
        stmt = (
            sa.update(papers)
            .where(papers.c.owner == owner, papers.c.id == sa.bindparam("p_id"))
            .values(data=sa.bindparam("p_data"), updated_at=sa.bindparam("p_now"))
        )
        conn.execute(
            stmt,
            [{"p_id": p.id, "p_data": dump_json(p.to_dict()), "p_now": now} for p in changed],
        )


def add_paper_keys(conn: Connection, keys: Mapping[str, str], *, owner: str) -> None:
    """Store ``{key: paper id}`` for ``owner``'s records, leaving out the keys it has
    already (under any of its records), as :func:`insert_paper` and :func:`update_paper` do
    for one paper's keys."""
    have = find_paper_ids(conn, keys, owner=owner)
    fresh = [
        {"owner": owner, "key": k, "paper_id": pid} for k, pid in keys.items() if k not in have
    ]
    if fresh:
        conn.execute(sa.insert(paper_keys), fresh)
        rows_loaded(conn, paper_keys, len(fresh))


def update_paper(conn: Connection, paper: Paper, now: str, *, owner: str) -> None:
    conn.execute(
        sa.update(papers)
        .where(papers.c.owner == owner, papers.c.id == paper.id)
        .values(data=dump_json(paper.to_dict()), updated_at=now)
    )
    _add_keys(conn, paper, owner)


def set_status(
    conn: Connection,
    paper_id: str,
    status: str | None,
    now: str,
    *,
    status_of: str,
) -> None:
    """Set a paper's reading status: a team account's (``status_of``) is its own, kept
    with the id of the record it reads; ``local`` keeps it in the record it reads."""
    if status is not None and status not in READING_STATUSES:
        raise InputError(
            f"reading status must be one of {', '.join(READING_STATUSES)}", code="bad_status"
        )
    owner = record_owners(conn, [paper_id], viewer=status_of).get(paper_id)
    if owner is None:
        raise NotFoundError(f"no saved paper {paper_id[:120]}", code="paper_not_found")
    if _team(status_of):
        done = conn.execute(
            sa.update(paper_savers)
            .where(paper_savers.c.paper_id == paper_id, paper_savers.c.account_id == status_of)
            .values(status=status)
        )
        if done.rowcount != 1:
            conn.execute(
                sa.insert(paper_savers).values(
                    paper_id=paper_id, account_id=status_of, saved_at=now, status=status
                )
            )
        return
    conn.execute(
        sa.update(papers)
        .where(papers.c.owner == owner, papers.c.id == paper_id)
        .values(status=status, updated_at=now)
    )


def list_papers(
    conn: Connection,
    *,
    study_id: str | None = None,
    status: str | None = None,
    limit: int | None = 500,
    visible_to: str | None = None,
    status_of: str | None = None,
    offset: int = 0,
) -> list[PaperRow]:
    """Saved papers (newest first, ``limit`` of them — ``None``: all — from ``offset``; a
    Study's: the latest to join it first, so a paper an update round only enriched stays
    where it was and the round's new ones lead); ``visible_to``: only those the account may
    see, with its own reading status; ``status_of``: every paper, with that account's status."""
    who = status_of or visible_to
    query = _papers_where(_select_papers(who), study_id, status, visible_to, who)
    joined = () if study_id is None else (study_papers.c.added_at.desc(),)
    query = query.order_by(*joined, papers.c.updated_at.desc(), papers.c.id)
    query = query.limit(limit).offset(offset)
    return [_paper_row(r) for r in conn.execute(query)]


def _not_only_in_deleted_studies(column: sa.ColumnElement[Any]) -> sa.ColumnElement[bool]:
    """``column`` (a paper id) names a paper in no deleted Study, or also in a live one."""
    sp = study_papers.c
    deleted = sp.study_id.in_(deleted_studies())
    return sa.or_(
        column.not_in(sa.select(sp.paper_id).where(deleted)),
        column.in_(sa.select(sp.paper_id).where(sa.not_(deleted))),
    )


def _papers_where(
    query: sa.Select[Any],
    study_id: str | None,
    status: str | None,
    visible_to: str | None = None,
    status_of: str | None = None,
) -> sa.Select[Any]:
    """``query`` over saved papers narrowed to a Study and a reading status (each optional),
    and to the records account ``visible_to`` reads (``None``: all of them)."""
    team = visible_to is not None and visible_to != LOCAL_OWNER
    if study_id is None:  # a deleted Study's papers are in its trash with it
        query = query.where(_not_only_in_deleted_studies(papers.c.id))
        if team:
            assert visible_to is not None
            query = query.where(visible_papers(visible_to))
    else:  # the records the Study holds (whoever's they are)
        query = query.join(
            study_papers,
            sa.and_(
                study_papers.c.paper_id == papers.c.id,
                study_papers.c.paper_owner == papers.c.owner,
            ),
        ).where(study_papers.c.study_id == study_id)
        if team:
            assert visible_to is not None
            query = query.where(study_papers.c.study_id.in_(member_studies(visible_to)))
    if status is not None:
        query = query.where(_status_of(status_of or visible_to) == status)
    return query


def count_papers(
    conn: Connection,
    *,
    study_id: str | None = None,
    status: str | None = None,
    visible_to: str | None = None,
) -> int:
    """How many saved papers (in a Study, with a reading status)."""
    return int(conn.execute(_count_query(study_id, status, visible_to)).scalar_one())


def study_totals(conn: Connection, study_id: str) -> tuple[int, int, int]:
    """How many papers (as :func:`count_papers` counts them), notes and evidence records
    the Study holds, in one statement."""
    counted = [
        _count_query(study_id, None, None).scalar_subquery(),
        *(
            sa.select(sa.func.count()).select_from(t).where(t.c.study_id == study_id)
            .scalar_subquery()
            for t in (notes, evidence)
        ),
    ]  # fmt: skip
    row = conn.execute(sa.select(*counted)).one()
    return int(row[0]), int(row[1]), int(row[2])


#: the statements of the saved list, built once per shape and account (an immutable
#: statement is shared; building one is most of the Python a team request's list costs)
@lru_cache(maxsize=512)
def _count_query(study_id: str | None, status: str | None, visible_to: str | None) -> Any:
    query = sa.select(sa.func.count()).select_from(papers)
    return _papers_where(query, study_id, status, visible_to)


@lru_cache(maxsize=512)
def _page_query(
    study_id: str | None, status: str | None, visible_to: str | None, limit: int, offset: int
) -> Any:
    query = _papers_where(_select_papers(visible_to), study_id, status, visible_to)
    return query.order_by(papers.c.updated_at.desc(), papers.c.id).limit(limit).offset(offset)


def list_papers_reusing(
    conn: Connection,
    reuse: dict[str, tuple[str, PaperRow]],
    *,
    study_id: str | None = None,
    status: str | None = None,
    limit: int = 500,
    offset: int = 0,
    visible_to: str | None = None,
) -> list[PaperRow]:
    """:func:`list_papers` (from ``offset``), validating only records whose stored text
    changed: ``reuse``
    maps an id to ``(stored text, row)`` from an earlier call and is updated in place (an
    app-lifetime caller keeps it; validation is most of the cost of a long list)."""
    out = []
    for r in conn.execute(_page_query(study_id, status, visible_to, limit, offset)):
        known = reuse.get(r.id)
        if known is not None and known[0] == r.data:
            row = known[1]
            if row.status != r.status or row.updated_at != r.updated_at:
                row = PaperRow(row.paper, r.status, r.created_at, r.updated_at)
        else:
            row = _paper_row(r)
        reuse[r.id] = (r.data, row)
        out.append(row)
    return out


def count_study_papers(conn: Connection, study_id: str) -> int:
    """How many papers the Study holds."""
    query = sa.select(sa.func.count()).where(study_papers.c.study_id == study_id)
    return int(conn.execute(query).scalar_one())


def add_study_paper(
    conn: Connection, study_id: str, paper_id: str, now: str, *, paper_owner: str
) -> bool:
    """Add ``paper_owner``'s record to a Study; ``False`` when the Study holds a paper of
    that id already (its record stays)."""
    return add_study_papers(conn, study_id, [paper_id], now, paper_owner=paper_owner) == 1


def add_study_papers(
    conn: Connection, study_id: str, paper_ids: Iterable[str], now: str, *, paper_owner: str
) -> int:
    """:func:`add_study_paper` of several of ``paper_owner``'s records in one statement;
    how many were new to the Study."""
    return len(link_study_papers(conn, study_id, paper_ids, now, paper_owner=paper_owner))


def link_study_papers(
    conn: Connection, study_id: str, paper_ids: Iterable[str], now: str, *, paper_owner: str
) -> list[str]:
    """:func:`add_study_papers`, answering the ids new to the Study (in order, once each)."""
    fresh: list[str] = []
    for chunk in _chunks(conn, paper_ids):
        have = set(
            conn.execute(
                sa.select(study_papers.c.paper_id).where(
                    study_papers.c.study_id == study_id,
                    _among(conn, study_papers.c.paper_id, chunk),
                )
            ).scalars()
        )
        fresh += [pid for pid in chunk if pid not in have]
    if fresh:
        conn.execute(
            sa.insert(study_papers),
            [
                {"study_id": study_id, "paper_id": pid, "added_at": now, "paper_owner": paper_owner}
                for pid in fresh
            ],
        )
        rows_loaded(conn, study_papers, len(fresh))
        sources_changed(conn, study_id)
    return fresh


def studies_holding(conn: Connection, paper_id: str) -> set[str]:
    """The ids of the Studies holding a paper of this id (anyone's record)."""
    rows = conn.execute(
        sa.select(study_papers.c.study_id).where(study_papers.c.paper_id == paper_id)
    )
    return {str(r[0]) for r in rows}
