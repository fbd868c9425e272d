"""Live searches of the search page: start a search as a task, follow its lanes as they
finish, cancel it, and show its finished run in the ordinary result view.

The state lives in the desk's :class:`~._progress.LiveRegistry` (in memory, per process:
the live search is followed on the worker that runs it); its finished run is kept among
the owner's recent runs in the store, so actions on it work from any worker."""

from __future__ import annotations

import asyncio
from typing import Any, Final

from litdesk.core.runs import LaneResult
from litdesk.services.search import plan_search

from ._desk import Desk, SearchForm
from ._progress import LiveSearch, ProgressView
from ._views import SearchView

__all__ = [
    "cancel_search",
    "live_result",
    "search_progress",
    "start_search",
    "watch_search",
]

#: Longest one wait for a change lasts (seconds); the stream then sends a keep-alive.
WAIT_SECONDS: Final = 10.0


def start_search(desk: Desk, form: SearchForm) -> ProgressView:
    """Validate ``form`` (errors as :meth:`Desk.search` raises them) and start the search;
    the planned lanes show as ``running`` until each finishes."""
    definition = desk.definition(form)
    plan = plan_search(definition, form.cursor)
    lanes: list[dict[str, Any]] = [
        {
            "lane": lane.lane,
            "provider": lane.provider,
            "status": "running",
            "returned": 0,
            "total": None,
            "message": "",
        }
        for lane in plan.lanes
    ]

    async def work(item: LiveSearch) -> None:
        def on_lane(lane: LaneResult) -> None:
            item.lane_done(lane)

        run = await desk.runtime.fused_search(
            definition, cursor=form.cursor, owner=desk.owner, on_lane=on_lane, stop_alone=True
        )
        await asyncio.to_thread(desk._remember, run)
        for lane in run.lanes:  # a reused run's lanes arrive with the run
            if any(r["lane"] == lane.lane and r["status"] == "running" for r in item.lanes):
                item.lane_done(lane)
        item.result = SearchView(
            run, page=form.page, cursor=form.cursor, studies=desk.studies().studies
        )
        item.run_id = run.id
        item.end("done")

    return desk.live.start(desk.owner, lanes, work).view()


def search_progress(desk: Desk, live_id: str) -> ProgressView:
    return desk.live.get(live_id, desk.owner).view()


async def watch_search(
    desk: Desk, live_id: str, after: int, timeout: float = WAIT_SECONDS
) -> ProgressView:
    """The live search's state once it changes after version ``after`` (or at ``timeout``)."""
    return await desk.live.watch(live_id, desk.owner, after, timeout)


def cancel_search(desk: Desk, live_id: str) -> ProgressView:
    """Cancel a running search: its lanes stop (unless another caller waits for the very
    same search, which then finishes for that caller)."""
    return desk.live.cancel(live_id, desk.owner)


def live_result(desk: Desk, live_id: str) -> SearchView | None:
    """The finished search's result view (``None`` while it runs, or when it failed or was
    cancelled)."""
    return desk.live.get(live_id, desk.owner).result
