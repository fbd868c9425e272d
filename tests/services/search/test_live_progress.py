"""Live searches and citation listings in the store (issue 17), on SQLite and on PostgreSQL
(a fresh schema per test): unguessable ids with an owner check, bounds (finished searches
make room, running ones are never dropped) and expiry, the cancel request seen by the
worker running the search (two registries over two store handles: no shared memory), a
running search whose worker went silent reported failed, a failing search's end state; the
citation listings' owner check, bound, age and size limit."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._store_template import ensure_sqlite_at_head

from litdesk import ManualClock
from litdesk._errors import ExternalError, InputError, NotFoundError, RefusedError
from litdesk.adapters.store import (
    LIVE_STOPPED,
    Store,
    count_listings,
    count_live,
    get_listing,
    live_beat,
    live_cancel,
    live_create,
    live_finish,
    live_lane,
    live_read,
    live_should_stop,
    open_store,
    remember_listing,
)
from litdesk.core.records import make_paper
from litdesk.core.runs import LaneResult
from litdesk.services.reader import Listings
from litdesk.services.search import LiveRegistry, LiveSearch

T0 = 1_800_000_000.0


def _lanes() -> list[dict[str, object]]:
    return [
        {"lane": n, "provider": n.split("-")[0], "status": "running", "returned": 0,
         "total": None, "message": ""}
        for n in ("europepmc-keyword", "openalex-keyword")
    ]  # fmt: skip


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'store' / 'litdesk.sqlite3'}"
        ensure_sqlite_at_head(url)  # a copy of the migrated template
        return url
    return str(request.getfixturevalue("pg_schema"))


@pytest.fixture
def stores(url: str) -> Iterator[tuple[Store, Store]]:
    """Two handles on one store: two workers."""
    first, second = open_store(url), open_store(url)
    try:
        yield first, second
    finally:
        first.dispose()
        second.dispose()


def test_rows_are_owned_bounded_and_expire(stores: tuple[Store, Store]) -> None:
    a, b = stores
    first = live_create(a, "alice", _lanes(), context={"page": 2}, now=T0, limit=2)
    second = live_create(a, "alice", _lanes(), now=T0 + 1, limit=2)
    assert len(first.id) >= 32 and first.id != second.id
    seen = live_read(b, first.id, "alice", now=T0 + 2)
    assert (seen.state, seen.version, seen.context) == ("running", 0, {"page": 2})
    for op in (
        lambda: live_read(b, first.id, "mallory", now=T0 + 2),
        lambda: live_cancel(b, first.id, "mallory", now=T0 + 2),
        lambda: live_read(b, "A" * 32, "alice", now=T0 + 2),
    ):
        with pytest.raises(NotFoundError) as gone:
            op()
        assert gone.value.code == "live_not_found"
    with pytest.raises(RefusedError) as full:  # both slots hold running searches
        live_create(b, "alice", _lanes(), now=T0 + 2, limit=2)
    assert full.value.code == "live_full"
    live_create(b, "bob", _lanes(), now=T0 + 2, limit=2)  # the bound is per owner

    assert (
        live_lane(a, first.id, {"lane": "europepmc-keyword", "status": "ok"}, now=T0 + 3) is False
    )
    done = live_finish(a, first.id, "done", run_id="run-1", now=T0 + 4)
    assert done is not None and done.state == "done" and done.run_id == "run-1"
    assert done.version == 2 and [x["status"] for x in done.lanes] == ["ok", "running"]
    again = live_finish(a, first.id, "failed", message="late", now=T0 + 5)
    assert again is not None and again.state == "done"  # a finished one is left as it is

    third = live_create(b, "alice", _lanes(), now=T0 + 6, limit=2)  # the finished made room
    with pytest.raises(NotFoundError):
        live_read(a, first.id, "alice", now=T0 + 6)
    assert count_live(a, "alice") == 2
    # finished rows are deleted KEEP seconds after they finished, on the next write
    live_finish(a, third.id, "failed", message="down", code="down", now=T0 + 7)
    live_create(a, "cyd", _lanes(), now=T0 + 7 + 601)
    assert count_live(a, "alice") == 1  # the running one stays
    assert live_read(b, second.id, "alice", now=T0 + 10).state == "running"


def test_cancel_sets_the_flag_the_running_worker_reads(stores: tuple[Store, Store]) -> None:
    a, b = stores
    row = live_create(a, "alice", _lanes(), now=T0)
    assert live_should_stop(a, row.id) is False
    assert live_beat(a, row.id, now=T0 + 1) is False
    cancelled = live_cancel(b, row.id, "alice", now=T0 + 2)  # from the other worker
    assert cancelled.state == "cancelled" and cancelled.cancel_requested
    assert [x["status"] for x in cancelled.lanes] == ["cancelled", "cancelled"]
    assert live_should_stop(a, row.id) is True
    assert live_beat(a, row.id, now=T0 + 3) is True
    # the running worker's late lane and end change nothing
    assert live_lane(a, row.id, {"lane": "openalex-keyword", "status": "ok"}, now=T0 + 3)
    end = live_finish(a, row.id, "done", run_id="run-1", now=T0 + 3)
    assert end is not None and end.state == "cancelled" and end.run_id is None
    assert live_read(b, row.id, "alice", now=T0 + 4).version == cancelled.version
    with pytest.raises(InputError):
        live_finish(a, row.id, "running")


def test_a_search_whose_worker_went_silent_is_reported_failed(
    stores: tuple[Store, Store],
) -> None:
    a, b = stores
    row = live_create(a, "alice", _lanes(), now=T0)
    live_lane(a, row.id, {"lane": "europepmc-keyword", "status": "ok"}, now=T0 + 1)
    live_beat(a, row.id, now=T0 + 20)
    assert live_read(b, row.id, "alice", now=T0 + 45).state == "running"  # beat 25 s ago
    dead = live_read(b, row.id, "alice", now=T0 + 51)
    assert (dead.state, dead.code, dead.message) == ("failed", "live_stopped", LIVE_STOPPED)
    assert [x["status"] for x in dead.lanes] == ["ok", "failed"]
    assert live_read(a, row.id, "alice", now=T0 + 60).version == dead.version  # once
    assert live_should_stop(a, row.id) is True


def test_a_cancel_on_one_worker_stops_the_lanes_on_the_other(
    stores: tuple[Store, Store],
) -> None:
    a, b = stores

    async def scenario() -> None:
        runner = LiveRegistry(a, poll_seconds=0.05, beat_seconds=0.2)
        other = LiveRegistry(b, poll_seconds=0.05)
        release = asyncio.Event()
        stopped = asyncio.Event()

        async def work(item: LiveSearch) -> None:
            item.lane_done(LaneResult("europepmc-keyword", "europepmc", "ok", returned=3))
            try:
                await release.wait()
            except asyncio.CancelledError:
                stopped.set()
                raise

        view = await runner.start("alice", _lanes(), work)
        seen = await other.watch(view.id, "alice", after=0, timeout=30)  # polls the store
        assert seen.lanes[0]["status"] == "ok" and seen.lanes[1]["status"] == "running"
        unchanged = await other.watch(view.id, "alice", after=seen.version, timeout=0.2)
        assert unchanged.version == seen.version and unchanged.state == "running"
        with pytest.raises(NotFoundError):
            await other.cancel(view.id, "mallory")
        cancelled = await other.cancel(view.id, "alice")
        assert cancelled.state == "cancelled" and cancelled.lanes[1]["status"] == "cancelled"
        await asyncio.wait_for(stopped.wait(), 30)  # the runner saw the request
        for _ in range(600):
            if not len(runner):
                break
            await asyncio.sleep(0.05)
        assert len(runner) == 0
        final = await runner.read(view.id, "alice")
        assert final.state == "cancelled" and final.run_id is None
        assert not release.is_set()

    asyncio.run(scenario())


def test_beats_and_staleness_follow_the_registry_s_clock(stores: tuple[Store, Store]) -> None:
    """A running search beats on its registry's clock, so it stays running however far the
    clock moves; one whose worker stops beating is reported failed by another worker once
    that clock passes the stale bound — no test waits the 40 s out."""
    a, b = stores

    async def until(check: Any) -> None:
        for _ in range(1200):
            if await asyncio.to_thread(check):
                return
            await asyncio.sleep(0.02)
        raise AssertionError("the condition never held")

    async def scenario() -> None:
        clock = ManualClock()
        kw: dict[str, Any] = {"stale_seconds": 40.0, "clock": clock}
        runner = LiveRegistry(a, poll_seconds=0.02, beat_seconds=5, **kw)
        silent = LiveRegistry(a, poll_seconds=3600, **kw)  # never gets round to beating
        other = LiveRegistry(b, poll_seconds=0.02, **kw)
        release = asyncio.Event()

        async def work(item: LiveSearch) -> None:
            await release.wait()

        alive = await runner.start("alice", _lanes(), work)
        quiet = await silent.start("alice", _lanes(), work)
        assert other.get(quiet.id, "alice").started_at == clock.now()
        for _ in range(3):  # 90 s in all: more than twice the stale bound
            clock.advance(30)
            now = clock.now()
            await until(lambda t=now: other.get(alive.id, "alice").updated_at == t)  # it beat
            assert other.get(alive.id, "alice").state == "running"
        dead = other.get(quiet.id, "alice")
        assert (dead.state, dead.code) == ("failed", "live_stopped")
        progress = await other.read(alive.id, "alice")
        assert progress.state == "running" and progress.seconds == 90.0  # counted on the clock
        release.set()
        await runner.aclose()
        await silent.aclose()

    asyncio.run(scenario())


def test_a_search_ends_done_or_failed_with_its_message(stores: tuple[Store, Store]) -> None:
    a, b = stores

    async def scenario() -> None:
        runner = LiveRegistry(a, poll_seconds=0.05)
        other = LiveRegistry(b, poll_seconds=0.05)

        async def ok(item: LiveSearch) -> None:
            item.lane_done(LaneResult("europepmc-keyword", "europepmc", "ok", returned=3))
            item.final_lanes = [
                {"lane": "openalex-keyword", "provider": "openalex", "status": "failed",
                 "returned": 0, "total": None, "message": "HTTP 500"},
            ]  # fmt: skip
            item.run_id = "run-ok"

        async def typed(item: LiveSearch) -> None:
            raise ExternalError("the provider is down", code="down")

        async def crash(item: LiveSearch) -> None:
            raise RuntimeError("secret internals")

        views = [await runner.start("local", _lanes(), w) for w in (ok, typed, crash)]
        ends = [await other.watch(v.id, "local", after=10**6, timeout=30) for v in views]
        done, failed, crashed = ends
        assert done.state == "done" and done.run_id == "run-ok"
        assert [x["status"] for x in done.lanes] == ["ok", "failed"]
        assert (failed.state, failed.code, failed.message) == (
            "failed",
            "down",
            "the provider is down",
        )
        assert crashed.state == "failed" and crashed.code == "internal"
        assert "secret" not in crashed.message
        assert (await other.cancel(done.id, "local")).state == "done"  # finished: as it is

    asyncio.run(scenario())


def test_citation_listings_are_owned_bounded_aged_and_sized(stores: tuple[Store, Store]) -> None:
    a, b = stores
    paper = make_paper(openalex_id="W1", title="One")
    shown, saver = Listings(a, limit=2), Listings(b, limit=2)
    first = shown.remember("alice", [paper])
    assert len(first) >= 24
    got = saver.papers(first, "alice")  # the other worker reads it
    assert set(got) == {paper.id} and got[paper.id] == paper
    with pytest.raises(NotFoundError) as stranger:
        saver.papers(first, "mallory")
    assert stranger.value.code == "listing_not_open"
    shown.remember("bob", [])
    shown.remember("alice", [])
    shown.remember("alice", [])
    with pytest.raises(NotFoundError):  # the oldest was dropped
        saver.papers(first, "alice")
    assert count_listings(a, "alice") == 2 and count_listings(a, "bob") == 1

    old = remember_listing(a, "cyd", [paper.to_dict()], now=T0)
    assert get_listing(b, "cyd", old, now=T0 + 86_000)[0]["id"] == paper.id
    with pytest.raises(NotFoundError):
        get_listing(b, "cyd", old, now=T0 + 86_401)  # expired
    with pytest.raises(InputError) as big:
        remember_listing(a, "cyd", [paper.to_dict()] * 50, max_bytes=10_000)
    assert big.value.code == "too_large"
    remember_listing(a, "dan", [], now=T0 + 86_401)  # a write drops everyone's expired
    assert count_listings(a, "cyd") == 0  # the refused one was not stored either
