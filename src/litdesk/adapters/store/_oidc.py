"""Single sign-on in the store: identities (issuer, subject) linked to accounts, and the
sign-ins under way.

A sign-in under way is kept under the SHA-256 of its ``state`` with the SHA-256 of the
pre-login cookie it is bound to, the nonce and the PKCE verifier, where to go afterwards and
when it expires. :func:`take_flow` deletes it as it reads it (single use: of two callbacks
with one state, exactly one gets it, on SQLite and PostgreSQL alike).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from litdesk._errors import InputError, NotFoundError

from ._schema import accounts, oidc_flows, oidc_links

__all__ = [
    "FLOW_LIMIT",
    "FlowRow",
    "LinkRow",
    "count_flows",
    "count_flows_bound",
    "delete_link",
    "find_link",
    "insert_flow",
    "insert_link",
    "list_links",
    "purge_flows",
    "take_flow",
]

#: sign-ins under way kept at most (the oldest are dropped first): a flood of started but
#: never finished sign-ins cannot grow the table without bound
FLOW_LIMIT: Final = 10_000


@dataclass(frozen=True, slots=True)
class FlowRow:
    binding_hash: str
    nonce: str
    verifier: str
    next_path: str
    created_at: float
    expires_at: float


@dataclass(frozen=True, slots=True)
class LinkRow:
    issuer: str
    subject: str
    account_id: str
    username: str
    email: str | None
    linked_at: str


# --- sign-ins under way -------------------------------------------------------------------


def insert_flow(
    conn: Connection,
    state_hash: str,
    binding_hash: str,
    nonce: str,
    verifier: str,
    next_path: str,
    now: float,
    expires_at: float,
) -> None:
    conn.execute(
        sa.insert(oidc_flows).values(
            state_hash=state_hash,
            binding_hash=binding_hash,
            nonce=nonce,
            verifier=verifier,
            next_path=next_path[:500],
            created_at=now,
            expires_at=expires_at,
        )
    )


def take_flow(conn: Connection, state_hash: str) -> FlowRow | None:
    """The sign-in under way with this state, deleted as it is read (``None``: unknown or
    already taken). Expiry is the caller's check (an expired one is consumed too)."""
    row = conn.execute(sa.select(oidc_flows).where(oidc_flows.c.state_hash == state_hash)).first()
    if row is None:
        return None
    gone = conn.execute(sa.delete(oidc_flows).where(oidc_flows.c.state_hash == state_hash))
    if gone.rowcount != 1:  # a concurrent callback took it first
        return None
    return FlowRow(
        row.binding_hash, row.nonce, row.verifier, row.next_path, row.created_at, row.expires_at
    )


def purge_flows(conn: Connection, now: float, *, keep: int = FLOW_LIMIT) -> int:
    """Drop expired sign-ins, and the oldest beyond ``keep``."""
    gone = int(conn.execute(sa.delete(oidc_flows).where(oidc_flows.c.expires_at <= now)).rowcount)
    if count_flows(conn) > keep:
        cutoff = conn.execute(
            sa.select(oidc_flows.c.created_at)
            .order_by(oidc_flows.c.created_at.desc())
            .offset(keep)
            .limit(1)
        ).scalar()
        if cutoff is not None:
            gone += int(
                conn.execute(
                    sa.delete(oidc_flows).where(oidc_flows.c.created_at <= cutoff)
                ).rowcount
            )
    return gone


def count_flows(conn: Connection) -> int:
    return int(conn.execute(sa.select(sa.func.count()).select_from(oidc_flows)).scalar_one())


def count_flows_bound(conn: Connection, binding_hash: str, now: float) -> int:
    """The live (unexpired) sign-ins under way bound to one pre-login cookie."""
    query = (
        sa.select(sa.func.count())
        .select_from(oidc_flows)
        .where(oidc_flows.c.binding_hash == binding_hash, oidc_flows.c.expires_at > now)
    )
    return int(conn.execute(query).scalar_one())


# --- linked identities --------------------------------------------------------------------


def _link(row: sa.Row[tuple[str, ...]]) -> LinkRow:
    return LinkRow(row.issuer, row.subject, row.account_id, row.username, row.email, row.linked_at)


def _links() -> sa.Select[tuple[str, ...]]:
    return sa.select(
        oidc_links.c.issuer,
        oidc_links.c.subject,
        oidc_links.c.account_id,
        accounts.c.username,
        oidc_links.c.email,
        oidc_links.c.linked_at,
    ).join(accounts, accounts.c.id == oidc_links.c.account_id)


def find_link(conn: Connection, issuer: str, subject: str) -> LinkRow | None:
    row = conn.execute(
        _links().where(oidc_links.c.issuer == issuer, oidc_links.c.subject == subject)
    ).first()
    return _link(row) if row is not None else None


def insert_link(
    conn: Connection,
    issuer: str,
    subject: str,
    account_id: str,
    email: str | None,
    now: str,
) -> None:
    """Link (issuer, subject) to the account; an identity links to one account only."""
    have = find_link(conn, issuer, subject)
    if have is not None:
        raise InputError(
            f"that identity is already linked to the account {have.username!r}",
            code="identity_linked",
        )
    conn.execute(
        sa.insert(oidc_links).values(
            issuer=issuer,
            subject=subject,
            account_id=account_id,
            email=email[:320] if email else None,
            linked_at=now,
        )
    )


def delete_link(conn: Connection, account_id: str, issuer: str, subject: str) -> None:
    gone = conn.execute(
        sa.delete(oidc_links).where(
            oidc_links.c.account_id == account_id,
            oidc_links.c.issuer == issuer,
            oidc_links.c.subject == subject,
        )
    )
    if gone.rowcount != 1:
        raise NotFoundError("that identity is not linked to this account", code="link_not_found")


def list_links(conn: Connection, account_id: str | None = None) -> list[LinkRow]:
    query = _links().order_by(accounts.c.username, oidc_links.c.issuer, oidc_links.c.subject)
    if account_id is not None:
        query = query.where(oidc_links.c.account_id == account_id)
    return [_link(r) for r in conn.execute(query)]
