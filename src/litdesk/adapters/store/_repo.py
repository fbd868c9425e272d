"""Row-level operations on the workspace tables. Callers pass a transaction's connection.

Every read of a stored document validates it: papers through ``read_paper`` (once per
stored text, ``_memo``); annotations, evidence and traces are returned as parsed JSON for
their own readers.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from litdesk._errors import InputError, NotFoundError
from litdesk.core.records import Paper, split_arxiv

from ._accounts import (
    LOCAL_OWNER,
    member_studies,
    visible_documents,
    visible_papers,
    visible_studies,
)
from ._engine import StoredDataInvalid, dump_json, load_json, sources_changed
from ._memo import stored_paper
from ._schema import (
    evidence,
    imports,
    notes,
    paper_keys,
    paper_savers,
    papers,
    search_runs,
    studies,
    study_papers,
    study_search_runs,
)
from ._subject_links import evidence_linked_to
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
    "add_study_search_run",
    "count_documents",
    "count_papers",
    "find_paper_ids",
    "get_document",
    "get_paper",
    "get_papers",
    "get_study",
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
    "owned_study_names",
    "rename_study",
    "replace_document",
    "set_status",
    "study_run_ids",
    "update_paper",
    "update_papers",
]

READING_STATUSES: Final = ("to-read", "reading", "read")
DOCUMENT_TABLES: Final = {"notes": notes, "evidence": evidence, "imports": imports}


#: values bound in one ``IN (…)`` list (SQLite allows 32,766 at most, PostgreSQL 65,535)
_PER_QUERY: Final = 500

#: advisory-lock namespace of the name checks of one owner's Studies (PostgreSQL)
_NAMES_LOCK: Final = 1_909_102_032


class AmbiguousStudy(InputError):
    """A Study name matches several Studies shared with the account (none of its own):
    the id must be given (``details["ids"]``: the candidates, all visible to it)."""

    default_code = "study_ambiguous"


@dataclass(frozen=True, slots=True)
class PaperRow:
    paper: Paper
    status: str | None
    created_at: str
    updated_at: str


@dataclass(frozen=True, slots=True)
class StudyRow:
    id: str
    name: str
    description: str | None
    created_at: str


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


def _chunks(values: Iterable[str]) -> Iterator[list[str]]:
    wanted = list(dict.fromkeys(values))
    for i in range(0, len(wanted), _PER_QUERY):
        yield wanted[i : i + _PER_QUERY]


def find_paper_ids(conn: Connection, keys: Iterable[str]) -> dict[str, str]:
    """``{key: paper id}`` for the keys already stored (any number of keys: one query per
    500)."""
    out: dict[str, str] = {}
    for chunk in _chunks(keys):
        rows = conn.execute(
            sa.select(paper_keys.c.key, paper_keys.c.paper_id).where(paper_keys.c.key.in_(chunk))
        )
        out.update((r.key, r.paper_id) for r in rows)
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


def get_paper(conn: Connection, paper_id: str, *, status_of: str | None = None) -> PaperRow:
    row = conn.execute(_select_papers(status_of).where(papers.c.id == paper_id)).first()
    if row is None:
        raise NotFoundError(f"no saved paper {paper_id}", code="paper_not_found")
    return _paper_row(row)


def get_papers(conn: Connection, paper_ids: Iterable[str]) -> dict[str, Paper]:
    """The saved papers of these ids (validated like :func:`get_paper`; an unknown id is
    left out)."""
    out: dict[str, Paper] = {}
    for chunk in _chunks(paper_ids):
        for row in conn.execute(_select_papers(None).where(papers.c.id.in_(chunk))):
            out[row.id] = _paper_row(row).paper
    return out


def _add_keys(conn: Connection, paper: Paper) -> None:
    have = find_paper_ids(conn, identity_keys(paper))
    fresh = [k for k in identity_keys(paper) if k not in have]
    if fresh:
        conn.execute(sa.insert(paper_keys), [{"key": k, "paper_id": paper.id} for k in fresh])


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
    _add_keys(conn, paper)


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


def update_papers(conn: Connection, changed: Sequence[Paper], now: str) -> None:
    """:func:`update_paper` of several saved papers in one statement; their identity keys
    are the caller's (:func:`add_paper_keys`)."""
    if changed:
        stmt = (
            sa.update(papers)
            .where(papers.c.id == sa.bindparam("p_id"))
            .values(data=sa.bindparam("p_data"), updated_at=sa.bindparam("p_now"))
        )
        conn.execute(
            stmt,
            [{"p_id": p.id, "p_data": dump_json(p.to_dict()), "p_now": now} for p in changed],
        )


def add_paper_keys(conn: Connection, keys: Mapping[str, str]) -> None:
    """Store ``{key: paper id}``, leaving out the keys stored already (under any paper),
    as :func:`insert_paper` and :func:`update_paper` do for one paper's keys."""
    have = find_paper_ids(conn, keys)
    fresh = [{"key": k, "paper_id": pid} for k, pid in keys.items() if k not in have]
    if fresh:
        conn.execute(sa.insert(paper_keys), fresh)


def update_paper(conn: Connection, paper: Paper, now: str) -> None:
    conn.execute(
        sa.update(papers)
        .where(papers.c.id == paper.id)
        .values(data=dump_json(paper.to_dict()), updated_at=now)
    )
    _add_keys(conn, paper)


def set_status(
    conn: Connection,
    paper_id: str,
    status: str | None,
    now: str,
    *,
    status_of: str | None = None,
) -> None:
    """Set a paper's reading status; a team account's (``status_of``) is its own."""
    if status is not None and status not in READING_STATUSES:
        raise InputError(
            f"reading status must be one of {', '.join(READING_STATUSES)}", code="bad_status"
        )
    if _team(status_of):
        exists = conn.execute(sa.select(papers.c.id).where(papers.c.id == paper_id)).first()
        if exists is None:
            raise NotFoundError(f"no saved paper {paper_id}", code="paper_not_found")
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
    done = conn.execute(
        sa.update(papers).where(papers.c.id == paper_id).values(status=status, updated_at=now)
    )
    if done.rowcount != 1:
        raise NotFoundError(f"no saved paper {paper_id}", code="paper_not_found")


def list_papers(
    conn: Connection,
    *,
    study_id: str | None = None,
    status: str | None = None,
    limit: int = 500,
    visible_to: str | None = None,
    status_of: str | None = None,
) -> list[PaperRow]:
    """Saved papers (newest first); ``visible_to``: only those the account may see, with
    its own reading status; ``status_of``: every paper, with that account's status."""
    who = status_of or visible_to
    query = _papers_where(_select_papers(who), study_id, status, visible_to, who)
    query = query.order_by(papers.c.updated_at.desc(), papers.c.id).limit(limit)
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
    and to the papers account ``visible_to`` may see (``None``: all of them)."""
    if visible_to is not None and visible_to != LOCAL_OWNER:
        query = query.where(visible_papers(papers.c.id, visible_to))
    if study_id is None:  # a deleted Study's papers are in its trash with it
        query = query.where(_not_only_in_deleted_studies(papers.c.id))
    if study_id is not None:
        query = query.join(study_papers, study_papers.c.paper_id == papers.c.id).where(
            study_papers.c.study_id == study_id
        )
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
    query = _papers_where(
        sa.select(sa.func.count()).select_from(papers), study_id, status, visible_to
    )
    return int(conn.execute(query).scalar_one())


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
    query = _papers_where(_select_papers(visible_to), study_id, status, visible_to)
    query = query.order_by(papers.c.updated_at.desc(), papers.c.id).limit(limit).offset(offset)
    out = []
    for r in conn.execute(query):
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


def insert_study(
    conn: Connection,
    study_id: str,
    name: str,
    description: str | None,
    now: str,
    *,
    owner: str = LOCAL_OWNER,
) -> StudyRow:
    """A new Study of ``owner``; names are unique per owner (another account's Study of the
    same name is neither refused nor revealed)."""
    _lock_names(conn, owner)
    if _name_taken(conn, owner, name):
        raise InputError(f"a Study named {name!r} already exists", code="study_exists")
    conn.execute(
        sa.insert(studies).values(
            id=study_id, name=name, description=description, created_at=now, owner=owner
        )
    )
    return StudyRow(study_id, name, description, now)


def owned_study_names(conn: Connection, owner: str) -> set[str]:
    """The names of ``owner``'s own Studies (where a new Study's name must be new)."""
    return set(conn.execute(sa.select(studies.c.name).where(studies.c.owner == owner)).scalars())


def _lock_names(conn: Connection, owner: str) -> None:
    """Serialise the name checks of one owner's Studies for the rest of the transaction
    (PostgreSQL: an advisory lock; SQLite's ``BEGIN IMMEDIATE`` already serialises writers).
    No constraint of the database does it (0014_study_name_index): see :func:`rename_study`."""
    if conn.dialect.name == "postgresql":
        conn.execute(
            sa.text("SELECT pg_advisory_xact_lock(:ns, hashtext(:key))"),
            {"ns": _NAMES_LOCK, "key": owner},
        )


def _name_taken(
    conn: Connection,
    owner: str,
    name: str,
    *,
    besides: str | None = None,
    seen_by: str | None = None,
) -> bool:
    """Whether ``owner`` has another Study named ``name`` — among those account
    ``seen_by`` may see, when given."""
    query = sa.select(studies.c.id).where(studies.c.owner == owner, studies.c.name == name)
    if besides is not None:
        query = query.where(studies.c.id != besides)
    if seen_by is not None and seen_by not in (LOCAL_OWNER, owner):
        query = query.where(studies.c.id.in_(member_studies(seen_by)))
    return conn.execute(query).first() is not None


def get_study(conn: Connection, ref: str, *, account: str) -> StudyRow:
    """A Study by id, else by name among the Studies ``account`` may see: its own first
    (one at most: names are unique per owner), then those shared with it (``local``, the
    single-user owner, sees every Study). A name shared by several of those is refused
    (:class:`AmbiguousStudy`, asking for the id); a name only others' private Studies carry
    is not found, like any unknown name. Whether the account may use the Study is the
    caller's check (``require_study``)."""
    alive = studies.c.id.not_in(deleted_studies())  # a deleted Study is in its trash
    row = conn.execute(sa.select(studies).where(studies.c.id == ref, alive)).first()
    if row is None:
        named = sa.select(studies).where(studies.c.name == ref, alive)
        order = (studies.c.created_at, studies.c.id)
        own = conn.execute(named.where(studies.c.owner == account).order_by(*order)).all()
        if len(own) > 1:  # a co-owner named one of them like another (see rename_study)
            ids = [r.id for r in own]
            raise AmbiguousStudy(
                f"{len(own)} of your Studies are named {ref[:200]!r}: "
                f"name the one you mean by its id ({', '.join(ids[:10])})",
                ids=ids,
            )
        row = own[0] if own else None
        if row is None:
            if account != LOCAL_OWNER:
                named = named.where(studies.c.id.in_(member_studies(account)))
            rows = conn.execute(named.order_by(studies.c.created_at, studies.c.id)).all()
            if len(rows) > 1:
                ids = [r.id for r in rows]
                raise AmbiguousStudy(
                    f"{len(rows)} Studies shared with you are named {ref[:200]!r}: "
                    f"name the one you mean by its id ({', '.join(ids[:10])})",
                    ids=ids,
                )
            row = rows[0] if rows else None
    if row is None:
        # a team account reads the words of require_study's refusal: an unknown Study and
        # another account's look the same (the single-user owner sees what it typed)
        what = f"no Study {ref[:200]!r}" if account == LOCAL_OWNER else "no such Study"
        raise NotFoundError(what, code="study_not_found")
    return StudyRow(row.id, row.name, row.description, row.created_at)


def _study_list() -> sa.Select[Any]:
    counts = (
        sa.select(study_papers.c.study_id, sa.func.count().label("n"))
        .group_by(study_papers.c.study_id)
        .subquery()
    )
    query = sa.select(studies, sa.func.coalesce(counts.c.n, 0).label("papers")).outerjoin(
        counts, counts.c.study_id == studies.c.id
    )
    return query.where(studies.c.id.not_in(deleted_studies()))


#: built once: constructing the subqueries cost more than running the statement (every
#: listing page shows the Studies; SQLAlchemy's compiled cache then serves it)
_STUDY_LIST: Final = _study_list()


def list_studies(conn: Connection, *, visible_to: str | None = None) -> list[tuple[StudyRow, int]]:
    """Studies with their paper counts (those account ``visible_to`` belongs to)."""
    query = _STUDY_LIST
    if visible_to is not None and visible_to != LOCAL_OWNER:
        query = query.where(visible_studies(studies.c.id, visible_to))
    rows = conn.execute(query.order_by(studies.c.created_at, studies.c.name))
    return [(StudyRow(r.id, r.name, r.description, r.created_at), int(r.papers)) for r in rows]


def rename_study(conn: Connection, ref: str, name: str, *, account: str) -> StudyRow:
    """Rename a Study (by id or name, resolved as ``account`` sees them); names stay unique
    among the Studies of the Study's owner that ``account`` may see.

    A co-owner's rename to a name the owner gives only Studies the co-owner cannot see is
    made: refusing it would tell the co-owner that such a private Study exists. The owner
    then has two Studies of that name (its lists show both; a lookup by that name asks for
    the id)."""
    study = get_study(conn, ref, account=account)
    owner = conn.execute(sa.select(studies.c.owner).where(studies.c.id == study.id)).scalar_one()
    _lock_names(conn, owner)
    if _name_taken(conn, owner, name, besides=study.id, seen_by=account):
        raise InputError(f"a Study named {name!r} already exists", code="study_exists")
    conn.execute(sa.update(studies).where(studies.c.id == study.id).values(name=name))
    return StudyRow(study.id, name, study.description, study.created_at)


def add_study_paper(conn: Connection, study_id: str, paper_id: str, now: str) -> bool:
    """Add a paper to a Study; ``False`` when it was already there."""
    have = conn.execute(
        sa.select(study_papers.c.paper_id).where(
            study_papers.c.study_id == study_id, study_papers.c.paper_id == paper_id
        )
    ).first()
    if have is not None:
        return False
    conn.execute(sa.insert(study_papers).values(study_id=study_id, paper_id=paper_id, added_at=now))
    sources_changed(conn, study_id)
    return True


def add_study_papers(conn: Connection, study_id: str, paper_ids: Iterable[str], now: str) -> int:
    """:func:`add_study_paper` of several papers in one statement; how many were new to
    the Study."""
    fresh: list[str] = []
    for chunk in _chunks(paper_ids):
        have = set(
            conn.execute(
                sa.select(study_papers.c.paper_id).where(
                    study_papers.c.study_id == study_id, study_papers.c.paper_id.in_(chunk)
                )
            ).scalars()
        )
        fresh += [pid for pid in chunk if pid not in have]
    if fresh:
        conn.execute(
            sa.insert(study_papers),
            [{"study_id": study_id, "paper_id": pid, "added_at": now} for pid in fresh],
        )
        sources_changed(conn, study_id)
    return len(fresh)


def studies_holding(conn: Connection, paper_id: str) -> set[str]:
    """The ids of the Studies a paper is in."""
    rows = conn.execute(
        sa.select(study_papers.c.study_id).where(study_papers.c.paper_id == paper_id)
    )
    return {str(r[0]) for r in rows}


def add_study_search_run(conn: Connection, study_id: str, run_id: str) -> None:
    have = conn.execute(
        sa.select(study_search_runs.c.run_id).where(
            study_search_runs.c.study_id == study_id, study_search_runs.c.run_id == run_id
        )
    ).first()
    if have is None:
        conn.execute(sa.insert(study_search_runs).values(study_id=study_id, run_id=run_id))
        sources_changed(conn, study_id)


def study_run_ids(conn: Connection, study_id: str) -> list[str]:
    rows = conn.execute(
        sa.select(study_search_runs.c.run_id)
        .join(search_runs, search_runs.c.id == study_search_runs.c.run_id)
        .where(study_search_runs.c.study_id == study_id)
        .order_by(search_runs.c.executed_at, search_runs.c.id)
    )
    return [r.run_id for r in rows]


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
