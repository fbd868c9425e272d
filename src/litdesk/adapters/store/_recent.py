"""The search runs each owner ran recently, in the store so every worker of a team server
sees them (issue 17): a selection made from a search that ran on another worker works.

A run is kept under its owner and id with the time it was last shown (epoch seconds).
Bounded: at most ``keep`` runs per owner (the newest) and none older than ``max_age``
seconds; a read never returns another owner's run nor an expired one.
"""

from __future__ import annotations

import json
import time
import weakref
from collections.abc import Iterator
from typing import Any, Final

import sqlalchemy as sa

from litdesk._errors import InputError, NotFoundError

from ._engine import Store, StoredDataInvalid, dump_json, load_json
from ._schema import recent_runs
from ._search import MAX_RUN_BYTES

__all__ = [
    "PRUNE_EVERY",
    "RECENT_MAX_AGE",
    "RECENT_PER_OWNER",
    "count_recent_runs",
    "get_recent_run",
    "recent_runs_holding",
    "remember_run",
]

#: newest runs kept per owner
RECENT_PER_OWNER: Final = 50
#: a run older than this (seconds since last shown) is dropped
RECENT_MAX_AGE: Final = 86_400.0
_RECENT_LOCK: Final = 1909102047
#: seconds between two drops of everyone's expired runs by one store (a search writes its
#: run each time; the expired ones are never served meanwhile: reads check the age)
PRUNE_EVERY: Final = 60.0
#: when each store last dropped the expired runs (the ``now`` of that write)
_PRUNED: weakref.WeakKeyDictionary[Store, float] = weakref.WeakKeyDictionary()


def _epoch(now: float | None) -> float:
    return time.time() if now is None else now


def _key(value: str, label: str, limit: int) -> str:
    if (
        not isinstance(value, str)
        or not value
        or len(value) > limit
        or any(ord(c) < 32 for c in value)
    ):
        raise InputError(f"{label} must be 1 to {limit} characters", code="bad_argument")
    return value


def remember_run(
    store: Store,
    owner: str,
    run_id: str,
    document: dict[str, Any] | str,
    *,
    now: float | None = None,
    keep: int = RECENT_PER_OWNER,
    max_age: float = RECENT_MAX_AGE,
) -> None:
    """Keep (or refresh) ``owner``'s run ``run_id``; then drop the owner's runs beyond the
    newest ``keep`` and everyone's runs older than ``max_age`` (the latter at most once per
    :data:`PRUNE_EVERY` seconds of ``now`` per store) — one transaction."""
    _key(owner, "owner", 200)
    _key(run_id, "search run id", 100)
    if keep < 1:
        raise InputError("keep at least one recent run", code="bad_argument")
    text = document if isinstance(document, str) else dump_json(document)  # str: dumped
    if len(text.encode("utf-8")) > MAX_RUN_BYTES:
        raise InputError(f"a search run is over {MAX_RUN_BYTES:,} bytes", code="too_large")
    t = _epoch(now)
    # the upsert of the store's dialect (imported when a run is kept, not at start-up)
    from sqlalchemy.dialects import postgresql, sqlite

    with store.write() as conn:
        store.lock(conn, _RECENT_LOCK, owner)  # concurrent workers keep the bound exact
        dialect = postgresql if store.is_postgres else sqlite
        insert = dialect.insert(recent_runs).values(owner=owner, id=run_id, run=text, seen_at=t)
        conn.execute(
            insert.on_conflict_do_update(
                index_elements=[recent_runs.c.owner, recent_runs.c.id],
                set_={"run": insert.excluded.run, "seen_at": insert.excluded.seen_at},
            )
        )
        last = _PRUNED.get(store)
        if last is None or abs(t - last) >= PRUNE_EVERY:
            conn.execute(sa.delete(recent_runs).where(recent_runs.c.seen_at < t - max_age))
            _PRUNED[store] = t
        newest = (
            sa.select(recent_runs.c.id)
            .where(recent_runs.c.owner == owner)
            .order_by(recent_runs.c.seen_at.desc(), recent_runs.c.id.desc())
            .limit(keep)
        )
        conn.execute(
            sa.delete(recent_runs).where(
                recent_runs.c.owner == owner, recent_runs.c.id.not_in(newest.scalar_subquery())
            )
        )


def _document(text: object) -> dict[str, Any]:
    value = load_json(text, what="recent search run")
    if not isinstance(value, dict):
        raise StoredDataInvalid("stored recent search run is not an object")
    return value


def get_recent_run(
    store: Store,
    owner: str,
    run_id: str,
    *,
    now: float | None = None,
    max_age: float = RECENT_MAX_AGE,
) -> dict[str, Any]:
    """``owner``'s recent run ``run_id`` (its stored document); another owner's run, an
    expired or an unknown one is not found."""
    with store.read() as conn:
        row = conn.execute(
            sa.select(recent_runs.c.run).where(
                recent_runs.c.owner == owner,
                recent_runs.c.id == run_id,
                recent_runs.c.seen_at >= _epoch(now) - max_age,
            )
        ).first()
    if row is None:
        raise NotFoundError(
            f"search run {run_id[:80]!r} is no longer open here; search again",
            code="run_not_open",
        )
    return _document(row.run)


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def recent_runs_holding(
    store: Store,
    owner: str,
    needle: str,
    *,
    now: float | None = None,
    max_age: float = RECENT_MAX_AGE,
    limit: int = RECENT_PER_OWNER,
) -> Iterator[dict[str, Any]]:
    """``owner``'s recent runs (newest first) whose stored text holds ``needle`` as a JSON
    string (for example a paper id): a narrowing only — the caller checks each run. Each
    document is parsed only when the caller reaches it (it usually stops at the first)."""
    pattern = "%" + _like(json.dumps(needle, ensure_ascii=False)) + "%"
    with store.read() as conn:
        rows = conn.execute(
            sa.select(recent_runs.c.run)
            .where(
                recent_runs.c.owner == owner,
                recent_runs.c.seen_at >= _epoch(now) - max_age,
                recent_runs.c.run.like(pattern, escape="\\"),
            )
            .order_by(recent_runs.c.seen_at.desc(), recent_runs.c.id.desc())
            .limit(limit)
        ).all()
    return (_document(r.run) for r in rows)


def count_recent_runs(store: Store, owner: str) -> int:
    """How many recent runs ``owner`` has stored (expired ones not yet dropped included)."""
    with store.read() as conn:
        return int(
            conn.execute(
                sa.select(sa.func.count())
                .select_from(recent_runs)
                .where(recent_runs.c.owner == owner)
            ).scalar_one()
        )
