"""Study rows: create one (names unique per owner), find one by id or name with the
account's role, list, rename, and the search runs a Study holds.

The papers a Study holds (``study_papers``) are read and linked with the papers, in
``_repo``, which re-exports these names (``store.repo.get_study`` and the like).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from litdesk._errors import InputError, NotFoundError

from ._accounts import LOCAL_OWNER, Need, member_studies, require_role, visible_studies
from ._engine import sources_changed
from ._schema import search_runs, studies, study_members, study_papers, study_search_runs
from ._trash import deleted_studies

__all__ = [
    "AmbiguousStudy",
    "StudyRow",
    "add_study_search_run",
    "get_study",
    "mark_run_papers",
    "runs_without_papers",
    "get_study_role",
    "study_with_role",
    "insert_study",
    "list_studies",
    "owned_study_names",
    "rename_study",
    "study_run_ids",
]

#: advisory-lock namespace of the name checks of one owner's Studies (PostgreSQL)
_NAMES_LOCK: Final = 1_909_102_032


class AmbiguousStudy(InputError):
    """A Study name matches several Studies shared with the account (none of its own):
    the id must be given (``details["ids"]``: the candidates, all visible to it)."""

    default_code = "study_ambiguous"


@dataclass(frozen=True, slots=True)
class StudyRow:
    id: str
    name: str
    description: str | None
    created_at: str


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
    caller's check (``require_study``, or :func:`get_study_role`'s role)."""
    return get_study_role(conn, ref, account=account)[0]


def _member_role(local: bool) -> sa.ColumnElement[Any]:
    """The membership role in the row's Study of the account bound as ``:account``
    (``NULL``: none), as a column; the single-user owner's (``local``) is always ``NULL``."""
    if local:
        return sa.null().label("member_role")
    return (
        sa.select(study_members.c.role)
        .where(
            study_members.c.study_id == studies.c.id,
            study_members.c.account_id == sa.bindparam("account"),
        )
        .scalar_subquery()
        .label("member_role")
    )


def _chosen(local: bool) -> tuple[sa.Select[Any], sa.Select[Any]]:
    """The Study with the role column, and that of the live Study whose id is ``:ref``."""
    alive = studies.c.id.not_in(deleted_studies())  # a deleted Study is in its trash
    chosen = sa.select(studies, _member_role(local))
    return chosen, chosen.where(studies.c.id == sa.bindparam("ref"), alive)


#: built once (the by-id read runs on nearly every use case: constructing it and its cache
#: key cost more than running it), the account and the id bound at execution
_CHOSEN: Final = {local: _chosen(local) for local in (True, False)}


def study_with_role(
    conn: Connection, ref: str, *, account: str, need: Need
) -> tuple[StudyRow, str]:
    """The Study ``ref`` (its id or name) and the account's role in it, when that role
    allows ``need``: :func:`get_study_role` checked by :func:`~._accounts.require_role`
    (``NotFoundError`` when the account is not a member, ``NotPermitted`` when the role
    does not allow it). Every use case that reads a Study for an account starts here."""
    row, granted = get_study_role(conn, ref, account=account)
    return row, require_role(granted, need)


def get_study_role(conn: Connection, ref: str, *, account: str) -> tuple[StudyRow, str | None]:
    """:func:`get_study` with the account's role in the Study (``owner``, ``editor``,
    ``viewer``; ``None``: not a member), read in the same statement: the role
    ``require_study`` would read in two more."""
    local = account == LOCAL_OWNER
    binds: dict[str, Any] = {} if local else {"account": account}
    chosen, by_id = _CHOSEN[local]
    row = conn.execute(by_id, {**binds, "ref": ref}).first()
    if row is None:
        alive = studies.c.id.not_in(deleted_studies())
        named = chosen.where(studies.c.name == ref, alive)
        order = (studies.c.created_at, studies.c.id)
        own = conn.execute(named.where(studies.c.owner == account).order_by(*order), binds).all()
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
            rows = conn.execute(named.order_by(studies.c.created_at, studies.c.id), binds).all()
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
    role = "owner" if account in (LOCAL_OWNER, row.owner) else row.member_role
    return StudyRow(row.id, row.name, row.description, row.created_at), role


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


@lru_cache(maxsize=512)
def _studies_query(visible_to: str | None) -> Any:
    query = _STUDY_LIST
    if visible_to is not None and visible_to != LOCAL_OWNER:
        query = query.where(visible_studies(studies.c.id, visible_to))
    return query.order_by(studies.c.created_at, studies.c.name)


def list_studies(conn: Connection, *, visible_to: str | None = None) -> list[tuple[StudyRow, int]]:
    """Studies with their paper counts (those account ``visible_to`` belongs to)."""
    rows = conn.execute(_studies_query(visible_to))
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


def add_study_search_run(
    conn: Connection,
    study_id: str,
    run_id: str,
    *,
    at: str | None = None,
    papers_at: str | None = None,
) -> bool:
    """Link a run to a Study (once), joined ``at`` (ISO; now when not given): the time
    that places a kept run in the Study's round (:class:`litdesk.core.runs.StudyRounds`);
    ``papers_at``: when its hits became the Study's papers (``None``: not yet, the
    Study's reconcile adds them). Whether the link is new."""
    have = conn.execute(
        sa.select(study_search_runs.c.run_id).where(
            study_search_runs.c.study_id == study_id, study_search_runs.c.run_id == run_id
        )
    ).first()
    if have is not None:
        return False
    joined = at or datetime.now(UTC).isoformat(timespec="seconds")
    conn.execute(
        sa.insert(study_search_runs).values(
            study_id=study_id, run_id=run_id, added_at=joined, papers_at=papers_at
        )
    )
    sources_changed(conn, study_id)
    return True


def runs_without_papers(conn: Connection, study_id: str) -> list[tuple[str, str]]:
    """``(run id, the run's owner)`` of each run linked to the Study whose hits are not
    its papers yet (kept before migration 0031, or linked by a path that leaves them to
    the reconcile), oldest link first."""
    rows = conn.execute(
        sa.select(study_search_runs.c.run_id, search_runs.c.owner)
        .join(search_runs, search_runs.c.id == study_search_runs.c.run_id)
        .where(study_search_runs.c.study_id == study_id, study_search_runs.c.papers_at.is_(None))
        .order_by(study_search_runs.c.added_at, study_search_runs.c.run_id)
    )
    return [(r.run_id, r.owner) for r in rows]


def mark_run_papers(conn: Connection, study_id: str, run_id: str, *, at: str) -> None:
    """Note that the linked run's hits became the Study's papers ``at``."""
    conn.execute(
        sa.update(study_search_runs)
        .where(study_search_runs.c.study_id == study_id, study_search_runs.c.run_id == run_id)
        .values(papers_at=at)
    )


def study_run_ids(conn: Connection, study_id: str) -> list[str]:
    rows = conn.execute(
        sa.select(study_search_runs.c.run_id)
        .join(search_runs, search_runs.c.id == study_search_runs.c.run_id)
        .where(study_search_runs.c.study_id == study_id)
        .order_by(search_runs.c.executed_at, search_runs.c.id)
    )
    return [r.run_id for r in rows]
