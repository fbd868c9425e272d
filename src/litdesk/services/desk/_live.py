"""Live searches of the search page: start a search as a task, follow its lanes as they
finish, cancel it, and show its finished run in the ordinary result view.

The state is in the store (:class:`~._progress.LiveRegistry`): any worker of a team server
follows or cancels a search another worker runs; its finished run is kept among the
owner's recent runs in the store, so its result view (and actions on it) open on any
worker too."""

from __future__ import annotations

import asyncio
from typing import Any, Final

from litdesk._errors import NotFoundError
from litdesk.adapters.store import get_recent_run
from litdesk.core.runs import LaneResult, read_run
from litdesk.services.search import plan_search

from ._desk import Desk, SearchForm, study_dicts
from ._progress import LiveSearch, ProgressView, lane_dict
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


async def start_search(desk: Desk, form: SearchForm) -> ProgressView:
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

        run = await desk.providers.fused_search(
            definition, cursor=form.cursor, owner=desk.owner, on_lane=on_lane, stop_alone=True
        )
        await asyncio.to_thread(desk._remember, run)
        item.final_lanes = [lane_dict(lane) for lane in run.lanes]  # a reused run's too
        item.run_id = run.id

    context = {"page": form.page, "cursor": form.cursor}
    return await desk.live.start(desk.owner, lanes, work, context=context)


def search_progress(desk: Desk, live_id: str) -> ProgressView:
    """The live search's state now (blocking: the face runs it in its thread pool)."""
    return ProgressView.of(desk.live.get(live_id, desk.owner), desk.live.clock.now())


async def watch_search(
    desk: Desk, live_id: str, after: int, timeout: float = WAIT_SECONDS
) -> ProgressView:
    """The live search's state once it changes after version ``after`` (or at ``timeout``)."""
    return await desk.live.watch(live_id, desk.owner, after, timeout)


async def cancel_search(desk: Desk, live_id: str) -> ProgressView:
    """Cancel a running search: its lanes stop (unless another caller waits for the very
    same search, which then finishes for that caller)."""
    return await desk.live.cancel(live_id, desk.owner)


def live_result(desk: Desk, live_id: str) -> SearchView | None:
    """The finished search's result view, from the owner's recent runs in the store
    (``None`` while it runs, when it failed or was cancelled, or when its run was not kept:
    no lane succeeded, or it expired). Blocking: the face runs it in its thread pool."""
    row = desk.live.get(live_id, desk.owner)
    if row.state != "done" or row.run_id is None:
        return None
    try:
        run = read_run(get_recent_run(desk.store, desk.owner, row.run_id, now=desk.clock.now()))
    except NotFoundError:
        return None
    page = row.context.get("page")
    cursor = row.context.get("cursor")
    return SearchView(
        run,
        page=page if isinstance(page, int) and page >= 1 else 1,
        cursor=cursor if isinstance(cursor, str) else None,
        studies=study_dicts(desk.workspace),
    )
