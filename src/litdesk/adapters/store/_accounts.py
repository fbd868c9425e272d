"""Team mode in the store: accounts, sessions, failed logins, Study roles, a Study's history,
who saved which paper, and the access rules every workspace read and write goes through.

A paper record is its owner's (``papers.owner``): one account's import or save never reads
or changes another's record; a Study holds its members' records (``study_papers.paper_owner``).
The access rules take the acting account as a parameter. ``local`` is the single-user owner
(and the administrator working from the CLI): it may do everything, so a workspace without
``--team`` behaves exactly as before. Any other account sees a paper it saved or one in a
Study it belongs to, its own notes/evidence/imports/runs and those of its Studies; an
invisible record is "not found" (its existence is not revealed), a visible one the account's
role does not allow changing is refused (403).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from litdesk._errors import InputError, NotFoundError, RefusedError

from ._engine import Store, _script_head, rows_loaded
from ._schema import (
    accounts,
    login_failures,
    paper_savers,
    papers,
    search_runs,
    sessions,
    studies,
    study_history,
    study_members,
    study_papers,
    study_search_runs,
)
from ._trash import deleted_studies

__all__ = [
    "LOCAL_OWNER",
    "ROLES",
    "AccountRow",
    "HistoryRow",
    "MemberRow",
    "Need",
    "NotPermitted",
    "add_failure",
    "allowance_owner",
    "add_history",
    "add_history_lines",
    "add_saver",
    "add_savers",
    "count_failures",
    "clear_failures",
    "clear_failures_under",
    "delete_failures",
    "failure_stats",
    "reserve_failures",
    "delete_session",
    "delete_sessions_of",
    "get_account",
    "find_account",
    "insert_account",
    "insert_session",
    "account_names",
    "list_accounts",
    "list_history",
    "list_members",
    "member_studies",
    "purge_sessions",
    "require_document",
    "require_paper",
    "require_run",
    "require_role",
    "require_study",
    "schema_state",
    "session_account",
    "set_disabled",
    "set_member",
    "set_password",
    "study_creator",
    "study_role",
    "visible_documents",
    "visible_papers",
    "visible_runs",
    "visible_studies",
]

LOCAL_OWNER: Final = "local"
ROLES: Final = ("viewer", "editor", "owner")
_RANK: Final = {role: i for i, role in enumerate(ROLES)}
Need = Literal["read", "write", "owner"]
_NEED_ROLE: Final[dict[str, str]] = {"read": "viewer", "write": "editor", "owner": "owner"}


class NotPermitted(RefusedError):
    """The account may see this record but its role does not allow the change."""

    default_code = "forbidden"


@dataclass(frozen=True, slots=True)
class AccountRow:
    id: str
    username: str
    password_hash: str
    disabled: bool
    created_at: str
    password_changed_at: str


@dataclass(frozen=True, slots=True)
class MemberRow:
    study_id: str
    account_id: str
    username: str | None
    role: str
    added_by: str
    added_at: str


@dataclass(frozen=True, slots=True)
class HistoryRow:
    seq: int
    study_id: str
    account_id: str
    username: str | None
    action: str
    target: str | None
    at: str


def allowance_owner(account_id: str) -> str:
    """The owner under which an account's provider allowance is kept: ``sha256:`` and the
    SHA-256 of the account id (``local`` stays ``local``)."""
    if account_id == LOCAL_OWNER or account_id.startswith("sha256:"):
        return account_id
    return "sha256:" + hashlib.sha256(account_id.encode("utf-8")).hexdigest()


def _account(row: Any) -> AccountRow:
    return AccountRow(
        row.id,
        row.username,
        row.password_hash,
        bool(row.disabled),
        row.created_at,
        row.password_changed_at,
    )


# --- accounts ---------------------------------------------------------------------------


def insert_account(
    conn: Connection, account_id: str, username: str, password_hash: str, now: str
) -> AccountRow:
    if find_account(conn, username) is not None:
        raise InputError(f"an account named {username!r} already exists", code="account_exists")
    conn.execute(
        sa.insert(accounts).values(
            id=account_id,
            username=username,
            password_hash=password_hash,
            disabled=False,
            created_at=now,
            password_changed_at=now,
        )
    )
    return AccountRow(account_id, username, password_hash, False, now, now)


def find_account(conn: Connection, username: str) -> AccountRow | None:
    row = conn.execute(sa.select(accounts).where(accounts.c.username == username)).first()
    return _account(row) if row is not None else None


def get_account(conn: Connection, account_id: str) -> AccountRow:
    row = conn.execute(sa.select(accounts).where(accounts.c.id == account_id)).first()
    if row is None:
        raise NotFoundError("no such account", code="account_not_found")
    return _account(row)


def account_names(conn: Connection, account_ids: Iterable[str]) -> dict[str, str]:
    """The user names of those of ``account_ids`` that are accounts (id → name)."""
    ids = sorted(set(account_ids))
    out: dict[str, str] = {}
    for start in range(0, len(ids), 500):  # bounded IN lists
        rows = conn.execute(
            sa.select(accounts.c.id, accounts.c.username).where(
                accounts.c.id.in_(ids[start : start + 500])
            )
        )
        out.update({str(r.id): str(r.username) for r in rows})
    return out


def list_accounts(conn: Connection) -> list[AccountRow]:
    rows = conn.execute(sa.select(accounts).order_by(accounts.c.username))
    return [_account(r) for r in rows]


def set_disabled(conn: Connection, account_id: str, disabled: bool) -> None:
    conn.execute(sa.update(accounts).where(accounts.c.id == account_id).values(disabled=disabled))
    if disabled:
        delete_sessions_of(conn, account_id)


def set_password(conn: Connection, account_id: str, password_hash: str, now: str) -> None:
    """A new password hash; every session of the account ends."""
    conn.execute(
        sa.update(accounts)
        .where(accounts.c.id == account_id)
        .values(password_hash=password_hash, password_changed_at=now)
    )
    delete_sessions_of(conn, account_id)


# --- sessions ---------------------------------------------------------------------------


def insert_session(
    conn: Connection, token_hash: str, account_id: str, now: float, expires_at: float
) -> None:
    conn.execute(
        sa.insert(sessions).values(
            token_hash=token_hash, account_id=account_id, created_at=now, expires_at=expires_at
        )
    )


def session_account(conn: Connection, token_hash: str, now: float) -> AccountRow | None:
    """The enabled account of an unexpired session, else ``None`` (no session)."""
    row = conn.execute(_SESSION_ACCOUNT, {"token_hash": token_hash, "now": now}).first()
    return _account(row) if row is not None else None


#: :func:`session_account`'s statement, built once (every team request runs it)
_SESSION_ACCOUNT: Final = (
    sa.select(accounts)
    .join(sessions, sessions.c.account_id == accounts.c.id)
    .where(
        sessions.c.token_hash == sa.bindparam("token_hash"),
        sessions.c.expires_at > sa.bindparam("now"),
        accounts.c.disabled.is_(False),
    )
)


def delete_session(conn: Connection, token_hash: str) -> None:
    conn.execute(sa.delete(sessions).where(sessions.c.token_hash == token_hash))


def delete_sessions_of(conn: Connection, account_id: str) -> None:
    conn.execute(sa.delete(sessions).where(sessions.c.account_id == account_id))


def purge_sessions(conn: Connection, now: float) -> int:
    return int(conn.execute(sa.delete(sessions).where(sessions.c.expires_at <= now)).rowcount)


# --- failed logins ----------------------------------------------------------------------


def add_failure(conn: Connection, scopes: list[str], now: float) -> None:
    conn.execute(sa.insert(login_failures), [{"scope": s, "at": now} for s in scopes])


def count_failures(conn: Connection, scope: str, since: float) -> int:
    query = (
        sa.select(sa.func.count())
        .select_from(login_failures)
        .where(login_failures.c.scope == scope, login_failures.c.at > since)
    )
    return int(conn.execute(query).scalar_one())


def reserve_failures(conn: Connection, scopes: list[str], now: float) -> list[int]:
    """One failure per scope, counted from now on; their row numbers (to take back with
    :func:`delete_failures` when the attempt succeeds)."""
    insert = sa.insert(login_failures).returning(login_failures.c.seq)
    return [int(conn.execute(insert.values(scope=s, at=now)).scalar_one()) for s in scopes]


def delete_failures(conn: Connection, seqs: list[int]) -> None:
    if seqs:
        conn.execute(sa.delete(login_failures).where(login_failures.c.seq.in_(seqs)))


def failure_stats(conn: Connection, scope: str, since: float) -> tuple[int, float | None]:
    """The failures of ``scope`` after ``since``: how many, and when the latest was."""
    query = sa.select(sa.func.count(), sa.func.max(login_failures.c.at)).where(
        login_failures.c.scope == scope, login_failures.c.at > since
    )
    count, latest = conn.execute(query).one()
    return int(count), float(latest) if latest is not None else None


def clear_failures(conn: Connection, scope: str, *, before: float | None = None) -> None:
    where = login_failures.c.scope == scope
    if before is not None:
        where = sa.and_(where, login_failures.c.at <= before)
    conn.execute(sa.delete(login_failures).where(where))


def clear_failures_under(conn: Connection, prefix: str) -> None:
    """Every failure whose scope starts with ``prefix`` (taken literally: no wildcards)."""
    where = login_failures.c.scope.startswith(prefix, autoescape=True)
    conn.execute(sa.delete(login_failures).where(where))


# --- Study roles and history ----------------------------------------------------------


def member_studies(account: str) -> sa.Select[Any]:
    """Ids of the Studies ``account`` created or is a member of (a subquery)."""
    return (
        sa.union(
            sa.select(studies.c.id.label("sid")).where(studies.c.owner == account),
            sa.select(study_members.c.study_id.label("sid")).where(
                study_members.c.account_id == account
            ),
        )
        .subquery()
        .select()
    )


#: built once, bound at execution (every access check reads them: constructing a statement
#: and its cache key cost more than running it)
_OWNER_OF: Final = sa.select(studies.c.owner).where(studies.c.id == sa.bindparam("study_id"))
_ROLE_OF: Final = sa.select(study_members.c.role).where(
    study_members.c.study_id == sa.bindparam("study_id"),
    study_members.c.account_id == sa.bindparam("account"),
)


def study_creator(conn: Connection, study_id: str) -> str:
    owner = conn.execute(_OWNER_OF, {"study_id": study_id}).scalar()
    if owner is None:
        raise NotFoundError("no such Study", code="study_not_found")
    return str(owner)


def study_role(conn: Connection, account: str, study_id: str) -> str | None:
    """``owner``, ``editor``, ``viewer`` or ``None`` (not a member)."""
    if account == LOCAL_OWNER:
        return "owner"
    owner = conn.execute(_OWNER_OF, {"study_id": study_id}).scalar()
    if owner is None:
        return None
    if owner == account:
        return "owner"
    role = conn.execute(_ROLE_OF, {"study_id": study_id, "account": account}).scalar()
    return str(role) if role is not None else None


def _allows(role: str | None, need: Need) -> bool:
    return role is not None and _RANK[role] >= _RANK[_NEED_ROLE[need]]


def require_study(conn: Connection, account: str, study_id: str, need: Need) -> str:
    """The account's role in the Study, when it allows ``need``; otherwise
    :class:`NotFoundError` (not a member) or :class:`NotPermitted` (role too low)."""
    return require_role(study_role(conn, account, study_id), need)


def require_role(role: str | None, need: Need) -> str:
    """:func:`require_study` of a role already read (``None``: not a member)."""
    if role is None:
        raise NotFoundError("no such Study", code="study_not_found")
    if not _allows(role, need):
        raise NotPermitted(f"your role in this Study ({role}) does not allow this")
    return role


def set_member(
    conn: Connection, study_id: str, account_id: str, role: str | None, by: str, now: str
) -> None:
    """Give ``account_id`` a role in the Study (``None`` removes it)."""
    if role is not None and role not in ROLES:
        raise InputError(f"a role is one of {', '.join(ROLES)}", code="bad_role")
    conn.execute(
        sa.delete(study_members).where(
            study_members.c.study_id == study_id, study_members.c.account_id == account_id
        )
    )
    if role is not None:
        conn.execute(
            sa.insert(study_members).values(
                study_id=study_id, account_id=account_id, role=role, added_by=by, added_at=now
            )
        )


def list_members(conn: Connection, study_id: str) -> list[MemberRow]:
    rows = conn.execute(
        sa.select(study_members, accounts.c.username)
        .outerjoin(accounts, accounts.c.id == study_members.c.account_id)
        .where(study_members.c.study_id == study_id)
        .order_by(study_members.c.added_at, study_members.c.account_id)
    )
    return [
        MemberRow(r.study_id, r.account_id, r.username, r.role, r.added_by, r.added_at)
        for r in rows
    ]


def add_history(
    conn: Connection, study_id: str, account: str, action: str, target: str | None, now: str
) -> None:
    """Record who did what in a Study, and when (append-only)."""
    add_history_lines(conn, study_id, account, action, [target], now)


def add_history_lines(
    conn: Connection,
    study_id: str,
    account: str,
    action: str,
    targets: Sequence[str | None],
    now: str,
) -> None:
    """:func:`add_history` of one action on several targets (in order) in one statement:
    the same lines as one call per target."""
    if not targets:
        return
    conn.execute(
        sa.insert(study_history),
        [
            {
                "study_id": study_id,
                "account_id": account,
                "action": action[:40],
                "target": target[:200] if target else None,
                "at": now,
            }
            for target in targets
        ],
    )


def list_history(conn: Connection, study_id: str, *, limit: int = 500) -> list[HistoryRow]:
    rows = conn.execute(
        sa.select(study_history, accounts.c.username)
        .outerjoin(accounts, accounts.c.id == study_history.c.account_id)
        .where(study_history.c.study_id == study_id)
        .order_by(study_history.c.seq.desc())
        .limit(limit)
    )
    return [
        HistoryRow(r.seq, r.study_id, r.account_id, r.username, r.action, r.target, r.at)
        for r in rows
    ]


# --- papers, documents, runs ------------------------------------------------------------


def add_saver(conn: Connection, paper_id: str, account: str, now: str) -> None:
    have = conn.execute(
        sa.select(paper_savers.c.paper_id).where(
            paper_savers.c.paper_id == paper_id, paper_savers.c.account_id == account
        )
    ).first()
    if have is None:
        conn.execute(
            sa.insert(paper_savers).values(paper_id=paper_id, account_id=account, saved_at=now)
        )


def add_savers(conn: Connection, paper_ids: Iterable[str], account: str, now: str) -> None:
    """:func:`add_saver` of several papers, in one statement."""
    wanted = list(dict.fromkeys(paper_ids))
    fresh: list[str] = []
    for i in range(0, len(wanted), 500):
        chunk = wanted[i : i + 500]
        have = set(
            conn.execute(
                sa.select(paper_savers.c.paper_id).where(
                    paper_savers.c.account_id == account, paper_savers.c.paper_id.in_(chunk)
                )
            ).scalars()
        )
        fresh += [pid for pid in chunk if pid not in have]
    if fresh:
        conn.execute(
            sa.insert(paper_savers),
            [{"paper_id": pid, "account_id": account, "saved_at": now} for pid in fresh],
        )
        rows_loaded(conn, paper_savers, len(fresh))


def visible_studies(column: sa.ColumnElement[Any], account: str) -> sa.ColumnElement[bool]:
    """``column`` (a Study id) names a Study the account belongs to."""
    return column.in_(member_studies(account))


def visible_papers(account: str) -> sa.ColumnElement[bool]:
    """A ``papers`` row the account reads in its own lists: its own record, or a record a
    (live) Study it belongs to holds whose id it has no record of itself."""
    sp = study_papers.c
    own = papers.c.owner == account
    mine = papers.alias("mine")
    held = (
        sa.select(sp.paper_id)
        .where(
            sp.paper_id == papers.c.id,
            sp.paper_owner == papers.c.owner,
            sp.study_id.in_(member_studies(account)),
            sp.study_id.not_in(deleted_studies()),
        )
        .exists()
    )
    shadowed = (
        sa.select(mine.c.id).where(mine.c.owner == account, mine.c.id == papers.c.id).exists()
    )
    return sa.or_(own, sa.and_(held, sa.not_(shadowed)))


def visible_documents(table: sa.Table, account: str) -> sa.ColumnElement[bool]:
    """A note, evidence record or import the account made, or one of its Studies."""
    return sa.or_(table.c.owner == account, visible_studies(table.c.study_id, account))


def visible_runs(account: str) -> sa.ColumnElement[bool]:
    return sa.or_(
        search_runs.c.owner == account,
        search_runs.c.id.in_(
            sa.select(study_search_runs.c.run_id).where(
                study_search_runs.c.study_id.in_(member_studies(account))
            )
        ),
    )


def _best_role(conn: Connection, account: str, study_ids: sa.Select[Any]) -> str | None:
    owned = conn.execute(
        sa.select(studies.c.id).where(studies.c.owner == account, studies.c.id.in_(study_ids))
    ).first()
    if owned is not None:
        return "owner"
    roles = conn.execute(
        sa.select(study_members.c.role).where(
            study_members.c.account_id == account, study_members.c.study_id.in_(study_ids)
        )
    ).scalars()
    best = None
    for role in roles:
        if role in _RANK and (best is None or _RANK[role] > _RANK[best]):
            best = role
    return best


def require_paper(conn: Connection, account: str, paper_id: str, need: Need) -> None:
    """A paper id the account may read (a record of its own, or one in one of its Studies)
    or change (its own, or editor in a Study holding it)."""
    if account == LOCAL_OWNER:
        return
    own = conn.execute(
        sa.select(papers.c.id).where(papers.c.owner == account, papers.c.id == paper_id)
    ).first()
    if own is not None:
        return
    holding = sa.select(study_papers.c.study_id).where(
        study_papers.c.paper_id == paper_id, study_papers.c.study_id.not_in(deleted_studies())
    )
    role = _best_role(conn, account, holding)
    if role is None:
        raise NotFoundError(f"no saved paper {paper_id[:120]}", code="paper_not_found")
    if not _allows(role, "write" if need == "owner" else need):
        raise NotPermitted(f"your role in this paper's Study ({role}) does not allow this")


def require_document(
    conn: Connection, account: str, owner: str, study_id: str | None, need: Need
) -> None:
    """A note/evidence/import row (its ``owner`` and ``study_id``): its author may do
    anything; in a Study, the account's role decides."""
    if account in (LOCAL_OWNER, owner):
        return
    role = study_role(conn, account, study_id) if study_id else None
    if role is None:
        raise NotFoundError("no such record", code="record_not_found")
    if not _allows(role, need):
        raise NotPermitted(f"your role in this Study ({role}) does not allow this")


def require_run(conn: Connection, account: str, run_id: str) -> None:
    """A saved search run the account may read (its own or one kept in its Studies)."""
    if account == LOCAL_OWNER:
        return
    row = conn.execute(
        sa.select(search_runs.c.id).where(search_runs.c.id == run_id, visible_runs(account))
    ).first()
    if row is None:
        raise NotFoundError(f"no saved search run {run_id[:80]!r}", code="run_not_found")


def schema_state(store: Store) -> tuple[str | None, str | None]:
    """``(applied revision, newest revision)`` of the store (readiness: equal)."""
    return store.revision(), _script_head()
