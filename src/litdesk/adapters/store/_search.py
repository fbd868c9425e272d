"""Store support for fused search: saved search runs, a shared result cache with
in-flight coalescing, and daily allowances reserved atomically (fail closed)."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, Final, Literal

import sqlalchemy as sa

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import InputError, LitdeskError, NotFoundError

from ._engine import Store, StoredDataInvalid, dump_json, load_json
from ._schema import allowances, search_cache, search_runs

__all__ = [
    "GLOBAL_OWNER",
    "MAX_RUN_BYTES",
    "CacheClaim",
    "Reservation",
    "SearchRunRow",
    "cache_abandon",
    "cache_claim",
    "cache_fill",
    "cache_get",
    "cache_purge",
    "coalesce",
    "get_search_run",
    "link_or_insert_run",
    "list_search_runs",
    "reserve",
    "save_search_run",
    "usage",
]

GLOBAL_OWNER: Final = "*"
MAX_RUN_BYTES: Final = 750_000
_ALLOWANCE_LOCK: Final = 1909102027
_CACHE_LOCK: Final = 1909102028


def _name(value: str, label: str, limit: int = 200) -> str:
    if (
        not isinstance(value, str)
        or not value.strip()
        or len(value) > limit
        or any(ord(c) < 32 for c in value)
    ):
        raise InputError(f"{label} must be 1 to {limit} characters", code="bad_argument")
    return value


_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,99}(?:\.[A-Za-z0-9_-]{1,20})?$")


def _run_id(value: str) -> str:
    """Run ids become file names in Study exports: letters, digits, ``_``, ``-``, one dot."""
    if not isinstance(value, str) or not _RUN_ID.match(value) or len(value) > 100:
        raise InputError(
            "a search run id is 1 to 100 letters, digits, '_' or '-' (one '.' allowed)",
            code="bad_argument",
        )
    return value


def _now() -> datetime:
    return datetime.now(UTC)


# --- search runs ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SearchRunRow:
    id: str
    owner: str
    definition: dict[str, Any]
    run: dict[str, Any]
    created_at: str
    executed_at: str


def _document(value: object, label: str) -> str:
    if not isinstance(value, dict):
        raise InputError(f"a search {label} must be a JSON object", code="bad_search_run")
    text = dump_json(value)
    if len(text.encode("utf-8")) > MAX_RUN_BYTES:
        raise InputError(f"a search {label} is over {MAX_RUN_BYTES:,} bytes", code="too_large")
    return text


def _read_document(text: object, label: str) -> dict[str, Any]:
    if isinstance(text, str) and len(text.encode("utf-8")) > MAX_RUN_BYTES:
        raise StoredDataInvalid(f"stored search {label} is over {MAX_RUN_BYTES:,} bytes")
    value = load_json(text, what=f"search {label}")
    if not isinstance(value, dict):
        raise StoredDataInvalid(f"stored search {label} is not an object")
    return value


def save_search_run(
    store: Store,
    run_id: str,
    owner: str,
    definition: dict[str, Any],
    run: dict[str, Any],
    *,
    executed_at: str,
    created_at: str | None = None,
) -> SearchRunRow:
    """Store one search run (immutable: saving an existing id is refused)."""
    _run_id(run_id)
    _name(owner, "owner")
    d_text, r_text = _document(definition, "definition"), _document(run, "run")
    created = created_at or _now().isoformat()
    with store.write() as conn:
        if conn.execute(sa.select(search_runs.c.id).where(search_runs.c.id == run_id)).first():
            raise InputError(f"search run {run_id} already exists", code="run_exists")
        conn.execute(
            sa.insert(search_runs).values(
                id=run_id,
                owner=owner,
                definition=d_text,
                run=r_text,
                created_at=created,
                executed_at=executed_at,
            )
        )
    return SearchRunRow(run_id, owner, dict(definition), dict(run), created, executed_at)


def link_or_insert_run(conn: Any, row: SearchRunRow) -> bool:
    """Inside a caller's transaction: store ``row`` unless its id exists (runs are
    immutable); ``True`` when inserted. Used by Study recovery."""
    _run_id(row.id)
    _name(row.owner, "owner")
    exists = conn.execute(sa.select(search_runs.c.id).where(search_runs.c.id == row.id)).first()
    if exists is not None:
        return False
    conn.execute(
        sa.insert(search_runs).values(
            id=row.id,
            owner=row.owner,
            definition=_document(row.definition, "definition"),
            run=_document(row.run, "run"),
            created_at=row.created_at,
            executed_at=row.executed_at,
        )
    )
    return True


def _run_row(r: Any) -> SearchRunRow:
    return SearchRunRow(
        r.id,
        r.owner,
        _read_document(r.definition, "definition"),
        _read_document(r.run, "run"),
        r.created_at,
        r.executed_at,
    )


def get_search_run(store: Store, run_id: str, *, owner: str | None = None) -> SearchRunRow:
    with store.read() as conn:
        query = sa.select(search_runs).where(search_runs.c.id == run_id)
        if owner is not None:
            query = query.where(search_runs.c.owner == owner)
        row = conn.execute(query).first()
    if row is None:
        raise NotFoundError(f"no search run {run_id}", code="run_not_found")
    return _run_row(row)


def list_search_runs(store: Store, owner: str, *, limit: int = 500) -> list[SearchRunRow]:
    with store.read() as conn:
        rows = conn.execute(
            sa.select(search_runs)
            .where(search_runs.c.owner == owner)
            .order_by(search_runs.c.executed_at.desc(), search_runs.c.id)
            .limit(limit)
        ).all()
    return [_run_row(r) for r in rows]


# --- cache with in-flight coalescing -------------------------------------------------


@dataclass(frozen=True, slots=True)
class CacheClaim:
    """``hit``: ``value`` is fresh; ``claimed``: the caller runs the search and fills or
    abandons; ``wait``: another caller is running it until ``until`` (epoch seconds)."""

    state: Literal["hit", "claimed", "wait"]
    value: Any = None
    until: float | None = None


def _epoch(now: float | None) -> float:
    return _now().timestamp() if now is None else now


def cache_get(store: Store, key: str, owner: str, *, now: float | None = None) -> Any:
    """The fresh cached value, or ``None``."""
    with store.read() as conn:
        row = conn.execute(
            sa.select(search_cache).where(search_cache.c.key == key, search_cache.c.owner == owner)
        ).first()
    if row is None or row.state != "ready" or row.expires_at <= _epoch(now):
        return None
    return load_json(row.value, what="cache value")


def cache_claim(
    store: Store, key: str, owner: str, *, lease_seconds: float = 60.0, now: float | None = None
) -> CacheClaim:
    """Atomically: a fresh hit, or a claim to run the search, or 'someone else is running it'.

    Entries are per owner and never cross owners. A claim whose runner died expires
    after ``lease_seconds`` and can be claimed again.
    """
    _name(key, "cache key")
    _name(owner, "owner")
    t = _epoch(now)
    with store.write() as conn:
        store.lock(conn, _CACHE_LOCK, f"{len(owner)}:{owner}:{key}")
        where = (search_cache.c.key == key, search_cache.c.owner == owner)
        row = conn.execute(sa.select(search_cache).where(*where)).first()
        if row is not None and row.expires_at > t:
            if row.state == "ready":
                return CacheClaim("hit", load_json(row.value, what="cache value"))
            return CacheClaim("wait", until=row.expires_at)
        values = {"state": "pending", "value": None, "expires_at": t + lease_seconds}
        if row is None:
            conn.execute(sa.insert(search_cache).values(key=key, owner=owner, **values))
        else:
            conn.execute(sa.update(search_cache).where(*where).values(**values))
    return CacheClaim("claimed", until=t + lease_seconds)


def cache_fill(
    store: Store, key: str, owner: str, value: Any, *, ttl_seconds: float, now: float | None = None
) -> None:
    """Store a finished result for ``ttl_seconds``."""
    t = _epoch(now)
    text = dump_json(value)
    with store.write() as conn:
        store.lock(conn, _CACHE_LOCK, f"{len(owner)}:{owner}:{key}")
        where = (search_cache.c.key == key, search_cache.c.owner == owner)
        values = {"state": "ready", "value": text, "expires_at": t + ttl_seconds}
        done = conn.execute(sa.update(search_cache).where(*where).values(**values))
        if done.rowcount == 0:
            conn.execute(sa.insert(search_cache).values(key=key, owner=owner, **values))


def cache_abandon(store: Store, key: str, owner: str) -> None:
    """Drop a pending claim (the run failed; nothing is cached)."""
    with store.write() as conn:
        conn.execute(
            sa.delete(search_cache).where(
                search_cache.c.key == key,
                search_cache.c.owner == owner,
                search_cache.c.state == "pending",
            )
        )


def cache_purge(store: Store, *, now: float | None = None) -> int:
    """Delete expired entries; returns how many."""
    with store.write() as conn:
        done = conn.execute(sa.delete(search_cache).where(search_cache.c.expires_at <= _epoch(now)))
    return int(done.rowcount)


def coalesce(
    store: Store,
    key: str,
    owner: str,
    produce: Callable[[], tuple[Any, bool]],
    *,
    ttl_seconds: float,
    lease_seconds: float = 60.0,
    poll_seconds: float = 0.1,
    clock: Clock = SYSTEM_CLOCK,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[Any, Literal["fresh", "cache", "coalesced"]]:
    """Run ``produce`` at most once per (key, owner) across processes sharing the store.

    ``produce`` returns ``(value, cacheable)``; only cacheable values are stored (for
    example: only runs in which every lane succeeded). A caller that finds the same
    search in flight waits for it ("coalesced"); if the runner fails or dies, the
    claim is dropped or its lease runs out and a waiter runs the search itself. Leases and
    the cache's age read ``clock``; the waits between polls are ``sleep``'s.
    """
    waited = False
    while True:
        claim = cache_claim(store, key, owner, lease_seconds=lease_seconds, now=clock.now())
        if claim.state == "hit":
            return claim.value, ("coalesced" if waited else "cache")
        if claim.state == "claimed":
            break
        waited = True
        sleep(poll_seconds)
    try:
        value, cacheable = produce()
    except BaseException:
        cache_abandon(store, key, owner)
        raise
    if cacheable:
        cache_fill(store, key, owner, value, ttl_seconds=ttl_seconds, now=clock.now())
    else:
        cache_abandon(store, key, owner)
    return value, "fresh"


# --- allowances ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reservation:
    """The answer to one reservation. ``retry_after`` is in seconds when refused."""

    allowed: bool
    reason: Literal["ok", "daily_limit", "owner_daily_limit", "store_unavailable"]
    retry_after: int | None = None


def _retry_after(day: date, now: datetime) -> int:
    next_day = datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(days=1)
    return max(1, math.ceil((next_day - now).total_seconds()))


def reserve(
    store: Store,
    provider: str,
    owner: str,
    day: date,
    global_limit: int,
    owner_limit: int,
    *,
    now: datetime | None = None,
) -> Reservation:
    """Reserve one call of ``provider`` for ``owner`` on ``day`` (UTC), atomically.

    The owner limit is capped at the global limit. Every accepted reservation counts.
    Any store failure refuses (``store_unavailable``): there is no fallback.
    """
    _name(provider, "provider", 100)
    _name(owner, "owner")
    if owner == GLOBAL_OWNER:
        raise InputError("owner '*' is reserved", code="bad_argument")
    if not (isinstance(global_limit, int) and isinstance(owner_limit, int)):
        raise InputError("limits must be integers", code="bad_argument")
    if global_limit < 1 or owner_limit < 1:
        raise InputError("limits must be at least 1", code="bad_argument")
    owner_limit = min(owner_limit, global_limit)
    when = now or _now()
    day_key = day.isoformat()
    try:
        with store.write() as conn:
            store.lock(conn, _ALLOWANCE_LOCK, provider)
            counts = _counts(conn, provider, (GLOBAL_OWNER, owner), day_key)
            if counts[GLOBAL_OWNER] >= global_limit:
                return Reservation(False, "daily_limit", _retry_after(day, when))
            if counts[owner] >= owner_limit:
                return Reservation(False, "owner_daily_limit", _retry_after(day, when))
            for who in (GLOBAL_OWNER, owner):
                _bump(conn, provider, who, day_key, counts[who])
    except LitdeskError:
        return Reservation(False, "store_unavailable")
    except sa.exc.SQLAlchemyError:
        return Reservation(False, "store_unavailable")
    return Reservation(True, "ok")


def _counts(conn: Any, provider: str, owners: tuple[str, ...], day_key: str) -> dict[str, int]:
    query = sa.select(allowances.c.owner, allowances.c.calls).where(
        allowances.c.provider == provider,
        allowances.c.day == day_key,
        allowances.c.owner.in_(owners),
    )
    if conn.dialect.name == "postgresql":
        query = query.with_for_update()
    found = {r.owner: int(r.calls) for r in conn.execute(query)}
    return {o: found.get(o, 0) for o in owners}


def _bump(conn: Any, provider: str, owner: str, day_key: str, calls: int) -> None:
    where = (
        allowances.c.provider == provider,
        allowances.c.owner == owner,
        allowances.c.day == day_key,
    )
    if calls == 0:
        conn.execute(
            sa.insert(allowances).values(provider=provider, owner=owner, day=day_key, calls=1)
        )
    else:
        conn.execute(sa.update(allowances).where(*where).values(calls=allowances.c.calls + 1))


def usage(store: Store, provider: str, day: date) -> dict[str, int]:
    """``{owner: calls}`` for a provider and day (``'*'`` is the total)."""
    with store.read() as conn:
        rows = conn.execute(
            sa.select(allowances.c.owner, allowances.c.calls).where(
                allowances.c.provider == provider, allowances.c.day == day.isoformat()
            )
        )
        return {r.owner: int(r.calls) for r in rows}
