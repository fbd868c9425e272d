"""Keyed and peeked allowance reservations (``assist_reserve``), on SQLite and PostgreSQL:
one reservation ever under a key — the second is refused and settles the first one's
unfinished row as failed — and a peek answers without writing anything."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from litdesk._errors import InputError
from litdesk.adapters.store import Store, assist_finish, assist_reserve
from litdesk.adapters.store._assist import assist_calls

LIMITS = {"total_limit": 5, "owner_limit": 2, "spacing": 0.0, "stale_after": 600.0}


def _rows(store: Store) -> list[tuple[str, str]]:
    c = assist_calls.c
    with store.read() as conn:
        return [(r.id, r.status) for r in conn.execute(sa.select(c.id, c.status).order_by(c.id))]


def test_one_reservation_per_key(store: Store) -> None:
    first = assist_reserve(store, "ana", "extract", call_id="job-abc12345", now=100.0, **LIMITS)
    assert first.allowed and first.id == "job-abc12345"
    # the same key again (the job claimed after its worker died mid-call): refused, and the
    # unfinished row is settled as failed, still counting once
    again = assist_reserve(store, "ana", "extract", call_id="job-abc12345", now=101.0, **LIMITS)
    assert not again.allowed and again.reason == "reserved_before" and again.id == "job-abc12345"
    assert _rows(store) == [("job-abc12345", "failed")]
    # no longer in flight: another call of the owner is allowed
    other = assist_reserve(store, "ana", "extract", now=102.0, **LIMITS)
    assert other.allowed and other.id is not None and other.id != "job-abc12345"
    assist_finish(store, other.id, "ok", now=103.0)
    # a finished keyed call is refused the same way and keeps its status
    ok = assist_reserve(store, "bob", "summary", call_id="job-def67890", now=104.0, **LIMITS)
    assert ok.allowed and ok.id is not None
    assist_finish(store, ok.id, "ok", now=105.0)
    twice = assist_reserve(store, "bob", "summary", call_id="job-def67890", now=106.0, **LIMITS)
    assert twice.reason == "reserved_before"
    assert dict(_rows(store))["job-def67890"] == "ok"
    with pytest.raises(InputError):
        assist_reserve(store, "ana", "extract", call_id="bad id!", **LIMITS)


def test_a_peek_writes_nothing_and_refuses_as_a_reservation_would(store: Store) -> None:
    assert assist_reserve(store, "ana", "extract", peek=True, now=100.0, **LIMITS).allowed
    assert _rows(store) == []
    held = assist_reserve(store, "ana", "extract", now=100.0, **LIMITS)
    assert held.allowed
    busy = assist_reserve(store, "ana", "extract", peek=True, now=101.0, **LIMITS)
    assert not busy.allowed and busy.reason == "in_flight"
    assert held.id is not None
    assist_finish(store, held.id, "ok", now=102.0)
    second = assist_reserve(store, "ana", "extract", now=103.0, **LIMITS)
    assert second.allowed and second.id is not None
    assist_finish(store, second.id, "failed", now=103.5)
    spent = assist_reserve(store, "ana", "extract", peek=True, now=104.0, **LIMITS)
    assert not spent.allowed and spent.reason == "owner_daily_limit"  # 2 a day for ana
    assert spent.retry_after is not None and spent.retry_after > 0
    assert len(_rows(store)) == 2
