"""The live-search registry: unguessable ids with an owner check, bounds (finished searches
make room, running ones are never dropped), cancellation, waiting for a change, and a
failing search's end state; the citation listings' owner check and bound."""

from __future__ import annotations

import asyncio

import pytest

from litdesk._errors import ExternalError, NotFoundError, RefusedError
from litdesk.core.records import make_paper
from litdesk.core.runs import LaneResult
from litdesk.services.desk._listings import Listings
from litdesk.services.desk._progress import LiveRegistry, LiveSearch


def _lanes() -> list[dict[str, object]]:
    return [
        {"lane": n, "provider": n.split("-")[0], "status": "running", "returned": 0,
         "total": None, "message": ""}
        for n in ("europepmc-keyword", "openalex-keyword")
    ]  # fmt: skip


def test_owner_check_bounds_cancel_and_watch() -> None:
    async def scenario() -> None:
        registry = LiveRegistry(limit=2)
        release = asyncio.Event()

        async def work(item: LiveSearch) -> None:
            item.lane_done(LaneResult("europepmc-keyword", "europepmc", "ok", returned=3))
            await release.wait()
            item.end("done")

        first = registry.start("alice", _lanes(), work)
        assert len(first.id) >= 32 and first.id != registry.start("alice", _lanes(), work).id
        with pytest.raises(NotFoundError):
            registry.get(first.id, "mallory")  # another owner: as if it did not exist
        with pytest.raises(NotFoundError):
            registry.cancel(first.id, "mallory")
        with pytest.raises(RefusedError):  # both slots hold running searches
            registry.start("alice", _lanes(), work)
        seen = await registry.watch(first.id, "alice", after=0, timeout=5)  # waits for a lane
        assert seen.lanes[0]["status"] == "ok" and seen.lanes[1]["status"] == "running"
        unchanged = await registry.watch(first.id, "alice", after=seen.version, timeout=0.05)
        assert unchanged.version == seen.version and unchanged.state == "running"
        cancelled = registry.cancel(first.id, "alice")
        assert cancelled.state == "cancelled" and cancelled.lanes[1]["status"] == "cancelled"
        assert first.task is not None
        await asyncio.wait([first.task], timeout=5)
        assert first.task.done()
        third = registry.start("alice", _lanes(), work)  # the finished one made room
        with pytest.raises(NotFoundError):
            registry.get(first.id, "alice")
        release.set()
        for _ in range(20):
            await asyncio.sleep(0)
        assert registry.get(third.id, "alice").state == "done"
        assert registry.cancel(third.id, "alice").state == "done"  # finished: left as it is

    asyncio.run(scenario())


def test_a_failing_search_ends_failed_with_its_message() -> None:
    async def scenario() -> None:
        registry = LiveRegistry()

        async def typed(item: LiveSearch) -> None:
            raise ExternalError("the provider is down", code="down")

        async def crash(item: LiveSearch) -> None:
            raise RuntimeError("secret internals")

        a = registry.start("local", _lanes(), typed)
        b = registry.start("local", _lanes(), crash)
        await asyncio.sleep(0.01)
        assert (a.state, a.code, a.message) == ("failed", "down", "the provider is down")
        assert b.state == "failed" and b.code == "internal" and "secret" not in b.message

    asyncio.run(scenario())


def test_citation_listings_check_the_owner_and_stay_bounded() -> None:
    listings = Listings(limit=2)
    paper = make_paper(openalex_id="W1", title="One")
    first = listings.remember("alice", [paper])
    assert set(listings.papers(first, "alice")) == {paper.id}
    with pytest.raises(NotFoundError):
        listings.papers(first, "mallory")
    listings.remember("alice", [])
    listings.remember("alice", [])
    with pytest.raises(NotFoundError):  # the oldest was dropped
        listings.papers(first, "alice")
