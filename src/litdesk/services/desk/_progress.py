"""Live progress of searches: each running search's lanes (status, totals, message) as
they start and finish, its end state, and cancellation.

The registry is in memory, bounded (:data:`MAX_LIVE` searches, finished ones kept for
:data:`KEEP_SECONDS`) and per process, which is enough for single-user mode. Team mode
(issue 17) moves it to the store so that every worker process sees every search. Each
search is keyed by an unguessable id and carries its owner; a lookup by another owner is
answered as if the id did not exist. Like the searches it follows, the registry belongs to
the event loop: call it from the loop's thread only (a face's async handlers), never from a
worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from litdesk._errors import LitdeskError, NotFoundError, RefusedError
from litdesk.core.runs import LaneResult

from ._views import SearchView

__all__ = [
    "KEEP_SECONDS",
    "MAX_LIVE",
    "LiveRegistry",
    "LiveSearch",
    "ProgressView",
]

MAX_LIVE: Final = 100
KEEP_SECONDS: Final = 600.0
State = Literal["running", "done", "failed", "cancelled"]
_log = logging.getLogger(__name__)


def _lane_dict(lane: LaneResult) -> dict[str, Any]:
    return {
        "lane": lane.lane,
        "provider": lane.provider,
        "status": lane.status,
        "returned": lane.returned,
        "total": lane.total,
        "message": lane.message,
    }


@dataclass(slots=True)
class LiveSearch:
    """One search the page follows: planned lanes first ("running"), then each lane's
    result as it finishes, then the end state with the run id (or the failure)."""

    id: str
    owner: str
    lanes: list[dict[str, Any]]
    state: State = "running"
    message: str = ""
    code: str = ""
    run_id: str | None = None
    result: SearchView | None = None  # the finished search's view
    version: int = 0
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    task: asyncio.Task[None] | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def touch(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    def lane_done(self, lane: LaneResult) -> None:
        """A lane finished: its row takes the result (rows are matched by lane name)."""
        row = _lane_dict(lane)
        for i, old in enumerate(self.lanes):
            if old["lane"] == lane.lane:
                self.lanes[i] = row
                break
        else:
            self.lanes.append(row)
        self.touch()

    def end(self, state: State, *, message: str = "", code: str = "") -> None:
        if self.state != "running":
            return
        self.state = state
        self.message = message
        self.code = code
        self.finished = time.monotonic()
        if state == "cancelled":
            for row in self.lanes:
                if row["status"] == "running":
                    row["status"] = "cancelled"
                    row["message"] = "stopped: the search was cancelled"
        self.touch()

    def view(self) -> ProgressView:
        return ProgressView(
            self.id,
            self.state,
            [dict(row) for row in self.lanes],
            self.message,
            self.code,
            self.run_id,
            self.version,
            round(time.monotonic() - self.started, 3),
        )


@dataclass(frozen=True, slots=True)
class ProgressView:
    """What the page shows while (and after) a search runs."""

    id: str
    state: State
    lanes: list[dict[str, Any]]
    message: str
    code: str
    run_id: str | None
    version: int
    seconds: float

    @property
    def final(self) -> bool:
        return self.state != "running"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "state": self.state,
            "final": self.final,
            "lanes": self.lanes,
            "finished": sum(1 for row in self.lanes if row["status"] != "running"),
            "message": self.message,
            "code": self.code,
            "run_id": self.run_id,
            "version": self.version,
            "seconds": self.seconds,
        }


class LiveRegistry:
    """The bounded set of live searches of one process (see the module text)."""

    def __init__(self, *, limit: int = MAX_LIVE, keep_seconds: float = KEEP_SECONDS) -> None:
        self._items: OrderedDict[str, LiveSearch] = OrderedDict()
        self._limit = limit
        self._keep = keep_seconds

    def __len__(self) -> int:
        return len(self._items)

    def _prune(self) -> None:
        now = time.monotonic()
        for key in [k for k, s in self._items.items() if s.finished is not None]:
            item = self._items[key]
            if item.finished is not None and now - item.finished > self._keep:
                del self._items[key]
        while len(self._items) >= self._limit:
            oldest = next((k for k, s in self._items.items() if s.state != "running"), None)
            if oldest is None:
                raise RefusedError(
                    f"{self._limit} searches are running already; wait for one or cancel one",
                    code="live_full",
                )
            del self._items[oldest]

    def start(
        self,
        owner: str,
        lanes: list[dict[str, Any]],
        work: Callable[[LiveSearch], Coroutine[Any, Any, None]],
    ) -> LiveSearch:
        """Register a search and start ``work`` (which records lanes and the result on the
        entry) as a task of the running loop."""
        self._prune()
        item = LiveSearch(secrets.token_urlsafe(24), owner, lanes)
        self._items[item.id] = item
        item.task = asyncio.get_running_loop().create_task(self._run(item, work))
        return item

    @staticmethod
    async def _run(
        item: LiveSearch, work: Callable[[LiveSearch], Coroutine[Any, Any, None]]
    ) -> None:
        try:
            await work(item)
        except asyncio.CancelledError:
            item.end("cancelled", message="The search was cancelled; its lanes were stopped.")
        except LitdeskError as exc:
            item.end("failed", message=exc.message, code=exc.code)
        except Exception:  # noqa: BLE001 - a background task: the page is told, the log has the rest
            _log.exception("live search %s failed", item.id[:8])
            item.end("failed", message="the search failed unexpectedly", code="internal")

    def get(self, live_id: str, owner: str) -> LiveSearch:
        item = self._items.get(live_id)
        if item is None or not secrets.compare_digest(item.owner, owner):
            raise NotFoundError(
                "that live search is not open here (finished long ago, or never started)",
                code="live_not_found",
            )
        return item

    async def watch(self, live_id: str, owner: str, after: int, timeout: float) -> ProgressView:
        """The search's state once its version passes ``after`` (or at ``timeout``)."""
        item = self.get(live_id, owner)
        if item.version <= after and item.state == "running":
            changed = item._changed
            with contextlib.suppress(TimeoutError):  # no change: the caller keeps alive
                await asyncio.wait_for(changed.wait(), timeout)
        return item.view()

    def cancel(self, live_id: str, owner: str) -> ProgressView:
        """Cancel a running search (its lanes stop); a finished one is left as it is."""
        item = self.get(live_id, owner)
        if item.state == "running" and item.task is not None:
            item.task.cancel()
            item.end("cancelled", message="The search was cancelled; its lanes were stopped.")
        return item.view()

    def close(self) -> None:
        """Cancel every running search (the desk is closing)."""
        for item in self._items.values():
            if item.task is not None and not item.task.done():
                item.task.cancel()
