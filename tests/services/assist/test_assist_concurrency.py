"""50 concurrent AI-assistance requests on SQLite and PostgreSQL: the store's allowance
is never over-spent (in total, per owner, one in flight per owner), and exactly the
reserved calls reach the model server."""

from __future__ import annotations

import asyncio
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest
from tests._model_servers import Scripted, assist_settings, model_server
from tests._store_template import sqlite_url_at_head

from litdesk._errors import LitdeskError
from litdesk.adapters.store import assist_reserve, assist_usage, open_store
from litdesk.services.assist import AllowanceRefused, Assistant, ModelCall

N = 50
SCHEMA = {"type": "object", "properties": {}, "additionalProperties": False}


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path) -> str:
    if request.param == "sqlite":  # at the newest migration: a copy of the template
        return sqlite_url_at_head(
            request.getfixturevalue("sqlite_template"), tmp_path / "store.sqlite3"
        )
    return request.getfixturevalue("pg_schema")


def _run_one(url: str, server, tmp_path, owner: str, **limits) -> str:
    """One request as a separate client would make it: its own store connection pool."""
    settings = assist_settings(server, tmp_path / "data", database_url=url, **limits)
    store = open_store(settings)
    try:
        with Assistant(store, settings) as a:
            call = ModelCall("test", "rules", '{"x": 1}', SCHEMA, "answer", 100, 1_000)
            try:
                asyncio.run(a.call(call, owner=owner, consent=a.notice(call.user).token))
            except AllowanceRefused as exc:
                return exc.code
            except LitdeskError as exc:
                return f"error:{exc.code}"
            return "ok"
    finally:
        store.dispose()


def test_fifty_concurrent_requests_never_overspend(database_url, tmp_path):
    open_store(database_url).dispose()  # migrate once before the crowd arrives
    with model_server("openai") as server:
        server.respond_with(lambda body: Scripted("{}", delay=0.05))
        owners = [f"owner-{i % 10}" for i in range(N)]  # 10 owners, 5 requests each
        with ThreadPoolExecutor(max_workers=N) as pool:
            outcomes = list(
                pool.map(
                    lambda o: _run_one(
                        database_url,
                        server,
                        tmp_path,
                        o,
                        assist_daily_requests=12,
                        assist_owner_daily_requests=2,
                    ),
                    owners,
                )
            )
        tally = Counter(outcomes)
        print(f"\n{database_url.split(':')[0]}: {dict(tally)}")
        assert set(tally) <= {"ok", "daily_limit", "owner_daily_limit", "in_flight"}
        assert 1 <= tally["ok"] <= 12  # never over the total
        assert len(server.requests) == tally["ok"]  # only reserved calls were sent
        per_owner = Counter(o for o, r in zip(owners, outcomes, strict=True) if r == "ok")
        assert max(per_owner.values()) <= 2  # never over an owner's allowance
        store = open_store(database_url)
        try:
            usage = assist_usage(store, datetime.now(UTC).date().isoformat())
        finally:
            store.dispose()
        assert sum(sum(v.values()) for v in usage.values()) == tally["ok"]


def test_fifty_concurrent_reservations_of_one_owner_one_in_flight(database_url):
    store = open_store(database_url)
    try:

        def take(_: int) -> str:
            return assist_reserve(
                store, "ann", "test", total_limit=1000, owner_limit=1000, spacing=0,
                stale_after=300,
            ).reason  # fmt: skip

        with ThreadPoolExecutor(max_workers=N) as pool:
            reasons = Counter(pool.map(take, range(N)))
        assert reasons == {"ok": 1, "in_flight": N - 1}

        def other(i: int) -> str:
            return assist_reserve(
                store, f"o{i}", "test", total_limit=20, owner_limit=5, spacing=0,
                stale_after=300,
            ).reason  # fmt: skip

        with ThreadPoolExecutor(max_workers=N) as pool:
            others = Counter(pool.map(other, range(N)))
        assert others == {"ok": 19, "daily_limit": N - 19}  # 20 in total with ann's
    finally:
        store.dispose()


def test_a_crashed_call_stops_blocking_but_still_counts(database_url):
    store = open_store(database_url)
    try:
        kw = {"total_limit": 10, "owner_limit": 2, "spacing": 0, "stale_after": 160}
        first = assist_reserve(store, "ann", "test", now=1_000_000.0, **kw)
        assert first.allowed  # …and the process dies: no finish
        assert assist_reserve(store, "ann", "test", now=1_000_100.0, **kw).reason == "in_flight"
        later = assist_reserve(store, "ann", "test", now=1_000_200.0, **kw)
        assert later.allowed  # the stale row no longer blocks
        assert assist_reserve(store, "ann", "test", now=1_000_500.0, **kw).reason == (
            "owner_daily_limit"  # but it counted
        )
    finally:
        store.dispose()
