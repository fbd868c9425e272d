"""Paper-chat history per account (migration 0022_chat_history): one row per chat session
with rounds, so an account lists, reopens and deletes its chats from any browser, after a
server or a browser restart.

The rounds themselves (answer cards) stay in the session's folder under the data dir
(``library/chat-sessions/<id>/``, written by the chat service; with an object store shared
by several hosts, under that key in the store); this table is the account's
index of them: the session id (a hash, never the browser's token), the owner, a title (the
first question), the round count and the time of the latest round. Every function takes
the acting ``owner`` and touches that owner's rows only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ._schema import metadata

__all__ = ["ChatRow", "chat_histories", "drop_chat", "get_chat", "list_chats", "touch_chat"]

#: the longest title kept (the first question, cut)
TITLE_CHARS: Final = 300

chat_histories = sa.Table(
    "chat_histories",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("owner", sa.String(64), nullable=False),
    sa.Column("title", sa.String(TITLE_CHARS), nullable=False),
    sa.Column("rounds", sa.Integer, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("updated_at", sa.String(40), nullable=False),
    sa.Column("study_id", sa.String(64), nullable=True),
    sa.Index("ix_chat_histories_owner", "owner", "updated_at"),
)


@dataclass(frozen=True, slots=True)
class ChatRow:
    """One chat of an account's history."""

    id: str
    owner: str
    title: str
    rounds: int
    created_at: str
    updated_at: str
    study_id: str | None = None


def _row(r: sa.Row[tuple[str, str, str, int, str, str, str | None]]) -> ChatRow:
    return ChatRow(r.id, r.owner, r.title, int(r.rounds), r.created_at, r.updated_at, r.study_id)


def touch_chat(
    conn: Connection,
    session_id: str,
    owner: str,
    *,
    title: str,
    rounds: int,
    when: str,
    study_id: str | None = None,
) -> None:
    """Record that ``owner``'s chat ``session_id`` has ``rounds`` rounds now (a new chat
    takes ``title``; an existing one keeps its own). A row of another owner is left as it
    is (a session id is the hash of the owner and the token: it never collides)."""
    t = chat_histories
    found = conn.execute(sa.select(t.c.owner).where(t.c.id == session_id)).first()
    if found is None:
        conn.execute(
            t.insert().values(
                id=session_id,
                owner=owner,
                title=title[:TITLE_CHARS] or "(no question)",
                rounds=rounds,
                created_at=when,
                updated_at=when,
                study_id=study_id,
            )  # fmt: skip
        )
    elif found.owner == owner:
        values = {"rounds": rounds, "updated_at": when, "study_id": study_id}
        conn.execute(t.update().where(t.c.id == session_id).values(**values))


def list_chats(
    conn: Connection, owner: str, *, study_id: str | None = None, limit: int = 200
) -> list[ChatRow]:
    """``owner``'s chats (those over one Study's PDFs with ``study_id``), the latest first."""
    t = chat_histories
    query = sa.select(t).where(t.c.owner == owner)
    if study_id is not None:
        query = query.where(t.c.study_id == study_id)
    rows = conn.execute(query.order_by(t.c.updated_at.desc(), t.c.id).limit(limit))
    return [_row(r) for r in rows]


def get_chat(conn: Connection, session_id: str, owner: str) -> ChatRow | None:
    """``owner``'s chat ``session_id`` (``None``: none, or another account's)."""
    t = chat_histories
    r = conn.execute(sa.select(t).where(t.c.id == session_id, t.c.owner == owner)).first()
    return _row(r) if r is not None else None


def drop_chat(conn: Connection, session_id: str, owner: str) -> bool:
    """Delete ``owner``'s chat ``session_id`` from the history; whether there was one."""
    t = chat_histories
    done = conn.execute(t.delete().where(t.c.id == session_id, t.c.owner == owner))
    return bool(done.rowcount)
