"""AI assistance in the store (migration 0006_assist).

* ``assist_calls`` — the allowance: one row per reserved model call. A reservation is
  taken in one write transaction serialised across processes (SQLite ``BEGIN IMMEDIATE``,
  a PostgreSQL advisory lock): daily per owner and in total, one call in flight per
  owner, a minimum spacing per owner. Failed and cancelled calls keep their row (they
  count); a reservation that a later check refuses is released (its row deleted). Any
  store failure refuses (``store_unavailable``): the allowance fails closed. The daily
  counts and the spacing may be limited to a *pool* of features (the paper chat's and
  the report builds' model calls are pools of their own beside the assistance's); one
  call in flight per owner holds across every feature. A reservation may carry its own
  id (a job's key): a second reservation under that id is refused (``reserved_before``)
  and the first one's unfinished row is settled as failed, so a job claimed again after
  its worker died never reserves — nor makes — its call twice.
* ``assist_drafts`` — model suggestions waiting for a person's review.
* ``assist_provenance`` — how a saved evidence record was assisted.
"""

from __future__ import annotations

import math
import re
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from litdesk._errors import InputError, LitdeskError, NotFoundError

from ._engine import Store, dump_json, load_json

__all__ = [
    "AssistDraftRow",
    "AssistReservation",
    "CallStatus",
    "assist_calls",
    "assist_drafts",
    "assist_finish",
    "assist_get_draft",
    "assist_get_provenance",
    "assist_insert_draft",
    "assist_insert_provenance",
    "assist_mark_draft_saved",
    "assist_provenance",
    "assist_release",
    "assist_reserve",
    "assist_usage",
]

_ASSIST_LOCK: Final = 1909102031
_OWNER_MAX: Final = 200
CallStatus = Literal["in_flight", "ok", "failed", "cancelled"]
_FINAL: Final = frozenset({"ok", "failed", "cancelled"})
_CALL_ID: Final = re.compile(r"^[A-Za-z0-9_-]{8,64}$")

_meta = sa.MetaData()

assist_calls = sa.Table(
    "assist_calls",
    _meta,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("owner", sa.String(200), nullable=False),
    sa.Column("day", sa.String(10), nullable=False),
    sa.Column("feature", sa.String(40), nullable=False),
    sa.Column("started_at", sa.Float, nullable=False),
    sa.Column("finished_at", sa.Float, nullable=True),
    sa.Column("status", sa.String(16), nullable=False),
)

assist_drafts = sa.Table(
    "assist_drafts",
    _meta,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("owner", sa.String(200), nullable=False),
    sa.Column("feature", sa.String(40), nullable=False),
    sa.Column("paper_id", sa.String(130), nullable=True),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("saved_as", sa.String(64), nullable=True),
)

assist_provenance = sa.Table(
    "assist_provenance",
    _meta,
    sa.Column("evidence_id", sa.String(64), primary_key=True),
    sa.Column("draft_id", sa.String(64), nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
)


@dataclass(frozen=True, slots=True)
class AssistReservation:
    """``allowed`` with the call's ``id``; else ``reason`` (``daily_limit``,
    ``owner_daily_limit``, ``in_flight``, ``too_soon``, ``store_unavailable``, or
    ``reserved_before`` with the ``id`` given, whose call an earlier attempt reserved)
    and, when waiting helps, ``retry_after`` seconds."""

    allowed: bool
    reason: str
    id: str | None = None
    retry_after: int | None = None


def _check_owner(owner: str) -> None:
    if not isinstance(owner, str) or not owner or len(owner) > _OWNER_MAX:
        raise InputError(f"an owner is 1 to {_OWNER_MAX} characters", code="bad_argument")


def _until_tomorrow(now: float) -> int:
    when = datetime.fromtimestamp(now, UTC)
    tomorrow = datetime(when.year, when.month, when.day, tzinfo=UTC) + timedelta(days=1)
    return max(1, math.ceil(tomorrow.timestamp() - now))


def assist_reserve(
    store: Store,
    owner: str,
    feature: str,
    *,
    total_limit: int,
    owner_limit: int,
    spacing: float,
    stale_after: float,
    now: float | None = None,
    features: Sequence[str] | None = None,
    other_than: Sequence[str] = (),
    call_id: str | None = None,
    peek: bool = False,
) -> AssistReservation:
    """Reserve one model call for ``owner`` now, atomically, or say why not.

    ``stale_after``: an in-flight row older than this (a crashed process) no longer
    blocks the owner (it still counts). ``features`` / ``other_than``: the pool whose
    calls the daily limits and the spacing count (default: every feature); a call in
    flight of any feature blocks the owner. ``call_id``: the reservation's id (a job's
    key): when a row with it exists, nothing is reserved (``reserved_before``) and that
    row, if still in flight, is finished as ``failed`` (its call counts once). ``peek``:
    only say whether a reservation would be allowed now (nothing is written)."""
    _check_owner(owner)
    if call_id is not None and not _CALL_ID.match(call_id):
        raise InputError("a call id is 8 to 64 letters, digits, - or _", code="bad_argument")
    if total_limit < 1 or owner_limit < 1:
        raise InputError("limits must be at least 1", code="bad_argument")
    owner_limit = min(owner_limit, total_limit)
    t = time.time() if now is None else now
    day = datetime.fromtimestamp(t, UTC).date().isoformat()
    c = assist_calls.c
    pool: list[sa.ColumnElement[bool]] = []
    if features is not None:
        pool.append(c.feature.in_([f[:40] for f in features]))
    if other_than:
        pool.append(c.feature.not_in([f[:40] for f in other_than]))
    try:
        with store.write() as conn:
            store.lock(conn, _ASSIST_LOCK, "assist")
            if call_id is not None and _settle_earlier(conn, call_id, t):
                return AssistReservation(False, "reserved_before", id=call_id)
            total = conn.execute(
                sa.select(sa.func.count()).select_from(assist_calls).where(c.day == day, *pool)
            ).scalar_one()
            if total >= total_limit:
                return AssistReservation(False, "daily_limit", retry_after=_until_tomorrow(t))
            mine = conn.execute(
                sa.select(sa.func.count())
                .select_from(assist_calls)
                .where(c.day == day, c.owner == owner, *pool)
            ).scalar_one()
            if mine >= owner_limit:
                return AssistReservation(False, "owner_daily_limit", retry_after=_until_tomorrow(t))
            busy = conn.execute(
                sa.select(sa.func.count())
                .select_from(assist_calls)
                .where(c.owner == owner, c.status == "in_flight", c.started_at > t - stale_after)
            ).scalar_one()
            if busy:
                return AssistReservation(False, "in_flight")
            last = conn.execute(
                sa.select(sa.func.max(c.started_at)).where(c.owner == owner, *pool)
            ).scalar_one()
            if spacing > 0 and last is not None and t - float(last) < spacing:
                wait = max(1, math.ceil(spacing - (t - float(last))))
                return AssistReservation(False, "too_soon", retry_after=wait)
            if peek:
                return AssistReservation(True, "ok")
            call_id = call_id or f"ac-{time.time_ns():016x}{secrets.token_hex(4)}"
            conn.execute(
                sa.insert(assist_calls).values(
                    id=call_id,
                    owner=owner,
                    day=day,
                    feature=feature[:40],
                    started_at=t,
                    finished_at=None,
                    status="in_flight",
                )
            )
    except (LitdeskError, sa.exc.SQLAlchemyError):
        return AssistReservation(False, "store_unavailable")
    return AssistReservation(True, "ok", id=call_id)


def _settle_earlier(conn: Connection, call_id: str, now: float) -> bool:
    """Whether ``call_id`` was reserved before; its row, if still in flight (its process
    died during the call), is finished as failed: the call counts once and no longer
    blocks the owner."""
    found = conn.execute(
        sa.select(assist_calls.c.status).where(assist_calls.c.id == call_id)
    ).first()
    if found is None:
        return False
    if found.status == "in_flight":
        conn.execute(
            sa.update(assist_calls)
            .where(assist_calls.c.id == call_id, assist_calls.c.status == "in_flight")
            .values(status="failed", finished_at=now)
        )
    return True


def assist_finish(
    store: Store,
    call_id: str,
    status: CallStatus,
    *,
    now: float | None = None,
    in_flight_only: bool = False,
) -> bool:
    """Record how a reserved call ended (``ok``, ``failed``, ``cancelled``: all count);
    ``in_flight_only``: only if it has not ended yet. Whether a row was updated."""
    if status not in _FINAL:
        raise InputError(f"unknown call status {status!r}", code="bad_argument")
    t = time.time() if now is None else now
    where = [assist_calls.c.id == call_id]
    if in_flight_only:
        where.append(assist_calls.c.status == "in_flight")
    with store.write() as conn:
        done = conn.execute(
            sa.update(assist_calls).where(*where).values(status=status, finished_at=t)
        )
    return bool(done.rowcount)


def assist_release(store: Store, call_id: str) -> None:
    """Give back a reservation whose call was never made (a later check refused it)."""
    with store.write() as conn:
        store.lock(conn, _ASSIST_LOCK, "assist")
        conn.execute(
            sa.delete(assist_calls).where(
                assist_calls.c.id == call_id, assist_calls.c.status == "in_flight"
            )
        )


def assist_usage(store: Store, day: str) -> dict[str, dict[str, int]]:
    """Calls reserved on ``day`` (``YYYY-MM-DD``) by owner and status."""
    c = assist_calls.c
    out: dict[str, dict[str, int]] = {}
    with store.read() as conn:
        rows = conn.execute(
            sa.select(c.owner, c.status, sa.func.count())
            .where(c.day == day)
            .group_by(c.owner, c.status)
        )
        for owner, status, n in rows:
            out.setdefault(str(owner), {})[str(status)] = int(n)
    return out


# --- drafts and provenance --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AssistDraftRow:
    id: str
    owner: str
    feature: str
    paper_id: str | None
    data: Any
    created_at: str
    saved_as: str | None


def assist_insert_draft(
    conn: Connection,
    draft_id: str,
    *,
    owner: str,
    feature: str,
    paper_id: str | None,
    data: Any,
    created_at: str,
) -> None:
    _check_owner(owner)
    conn.execute(
        sa.insert(assist_drafts).values(
            id=draft_id,
            owner=owner,
            feature=feature[:40],
            paper_id=paper_id,
            data=dump_json(data),
            created_at=created_at,
            saved_as=None,
        )
    )


def assist_get_draft(conn: Connection, draft_id: str, *, owner: str) -> AssistDraftRow:
    """The owner's draft (another owner's draft is "not found", never shown)."""
    row = conn.execute(
        sa.select(assist_drafts).where(
            assist_drafts.c.id == draft_id, assist_drafts.c.owner == owner
        )
    ).first()
    if row is None:
        raise NotFoundError(f"no draft {draft_id[:80]!r}", code="draft_not_found")
    return AssistDraftRow(
        row.id,
        row.owner,
        row.feature,
        row.paper_id,
        load_json(row.data, what="assistance draft"),
        row.created_at,
        row.saved_as,
    )


def assist_mark_draft_saved(conn: Connection, draft_id: str, saved_as: str) -> bool:
    """Mark a draft saved once; False when it was already saved (a second save)."""
    done = conn.execute(
        sa.update(assist_drafts)
        .where(assist_drafts.c.id == draft_id, assist_drafts.c.saved_as.is_(None))
        .values(saved_as=saved_as)
    )
    return done.rowcount == 1


def assist_insert_provenance(
    conn: Connection, evidence_id: str, *, draft_id: str, data: Any, created_at: str
) -> None:
    conn.execute(
        sa.insert(assist_provenance).values(
            evidence_id=evidence_id, draft_id=draft_id, data=dump_json(data), created_at=created_at
        )
    )


def assist_get_provenance(conn: Connection, evidence_id: str) -> Any | None:
    """The stored provenance document of an evidence record, or ``None`` if unassisted."""
    row = conn.execute(
        sa.select(assist_provenance.c.data).where(assist_provenance.c.evidence_id == evidence_id)
    ).first()
    return None if row is None else load_json(row.data, what="assistance provenance")
