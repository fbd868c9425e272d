"""Live progress of searches: each running search's lanes (status, totals, message) as
they start and finish, its end state, and cancellation.

The state is in the store (``live_searches``, issue 17), so every worker of a team server
serves a search's progress, its event stream and its cancel, whichever worker runs it. The
worker running a search writes each lane's result and the end state, and while the lanes
run it polls the cancel request (every :data:`POLL_SECONDS`) and beats (every
:data:`BEAT_SECONDS`); a search whose worker has been silent for the setting
``live_stale_seconds`` is reported failed. Bounded per owner
(:data:`MAX_LIVE`); finished searches are kept :data:`KEEP_SECONDS`. Each search is keyed
by an unguessable id and carries its owner; a lookup by another owner is answered as if
the id did not exist.

A search running in this process is also known to the registry (its task and a change
event): cancel stops its lanes at once and a watcher here wakes on each change instead of
at its next poll — an optimisation only; every answer comes from the store. The registry
belongs to the event loop: call its async methods from the loop's thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import LitdeskError
from litdesk.adapters.store import (
    LIVE_KEEP_SECONDS,
    LIVE_PER_OWNER,
    LIVE_STALE_SECONDS,
    LiveRow,
    LiveState,
    Store,
    live_beat,
    live_cancel,
    live_create,
    live_finish,
    live_lane,
    live_read,
    live_should_stop,
)
from litdesk.core.runs import LaneResult

from ._views import LaneProgress, ProgressView, lane_progress

__all__ = [
    "BEAT_SECONDS",
    "KEEP_SECONDS",
    "MAX_LIVE",
    "POLL_SECONDS",
    "LiveRegistry",
    "LiveSearch",
]

MAX_LIVE: Final = LIVE_PER_OWNER
KEEP_SECONDS: Final = LIVE_KEEP_SECONDS
#: how often a watcher reads the store, and the running worker reads the cancel request
POLL_SECONDS: Final = 0.25
#: how often the running worker records that it is alive
BEAT_SECONDS: Final = 2.0
#: longest a closing app waits for its searches to record their end
CLOSE_SECONDS: Final = 5.0
CANCELLED: Final = "The search was cancelled; its lanes were stopped."
_log = logging.getLogger(__name__)


@dataclass(slots=True)
class LiveSearch:
    """The running side of one search: ``work`` reports each finished lane with
    :meth:`lane_done` and sets :attr:`run_id` (the kept run) and :attr:`final_lanes`. Lane writes go to the
    store in order, off the event loop."""

    id: str
    owner: str
    store: Store
    clock: Clock = SYSTEM_CLOCK
    run_id: str | None = None
    final_lanes: list[LaneProgress] | None = None  # the finished run's lanes
    task: asyncio.Task[None] | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    _last: asyncio.Task[None] | None = None

    def notify(self) -> None:
        """Wake the watchers of this process (they read the store again)."""
        old, self.changed = self.changed, asyncio.Event()
        old.set()

    def lane_done(self, lane: LaneResult) -> None:
        """A lane finished: its row takes the result (rows are matched by lane name)."""
        self._last = asyncio.get_running_loop().create_task(
            self._write(lane_progress(lane), self._last)
        )

    async def _write(self, row: LaneProgress, previous: asyncio.Task[None] | None) -> None:
        if previous is not None:
            with contextlib.suppress(BaseException):
                await asyncio.shield(previous)
        try:
            await asyncio.to_thread(live_lane, self.store, self.id, row, now=self.clock.now())
        except LitdeskError as exc:  # the end state still tells the page; the log the rest
            _log.warning("live search %s: a lane was not recorded: %s", self.id[:8], exc.code)
        self.notify()

    async def flush(self) -> None:
        """Wait until every lane reported so far is in the store."""
        if self._last is not None:
            with contextlib.suppress(BaseException):
                await asyncio.shield(self._last)


Work = Callable[[LiveSearch], Coroutine[Any, Any, None]]


class LiveRegistry:
    """The live searches of a store, and the ones this process runs (see the module text)."""

    def __init__(
        self,
        store: Store,
        *,
        limit: int = MAX_LIVE,
        keep_seconds: float = KEEP_SECONDS,
        poll_seconds: float = POLL_SECONDS,
        beat_seconds: float = BEAT_SECONDS,
        stale_seconds: float = LIVE_STALE_SECONDS,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        """``clock``: what the stored times (started, beats, staleness, retention) and the
        beats' schedule read; the polls themselves wait real time."""
        self.store = store
        self.clock = clock
        self._local: dict[str, LiveSearch] = {}
        self._limit = limit
        self._keep = keep_seconds
        self._poll = poll_seconds
        self._beat = min(beat_seconds, stale_seconds / 4)  # several beats per stale bound
        self._stale = stale_seconds

    def __len__(self) -> int:
        """Searches running in this process."""
        return len(self._local)

    async def start(
        self,
        owner: str,
        lanes: list[LaneProgress],
        work: Work,
        *,
        context: Mapping[str, Any] | None = None,
    ) -> ProgressView:
        """Record a search (``running``) and start ``work`` as a task of the running loop."""
        row = await asyncio.to_thread(
            live_create,
            self.store,
            owner,
            lanes,
            context=context,
            limit=self._limit,
            keep=self._keep,
            stale=self._stale,
            now=self.clock.now(),
        )
        item = LiveSearch(row.id, owner, self.store, self.clock)
        self._local[row.id] = item
        item.task = asyncio.get_running_loop().create_task(self._run(item, work))
        return ProgressView.of(row, self.clock.now())

    async def _run(self, item: LiveSearch, work: Work) -> None:
        task = item.task
        monitor = asyncio.get_running_loop().create_task(self._monitor(item, task))
        end: tuple[LiveState, str, str] = ("done", "", "")
        try:
            await work(item)
        except asyncio.CancelledError:
            end = ("cancelled", CANCELLED, "")
        except LitdeskError as exc:
            end = ("failed", exc.message, exc.code)
        except Exception:  # noqa: BLE001 - a background task: the page is told, the log has the rest
            _log.exception("live search %s failed", item.id[:8])
            end = ("failed", "the search failed unexpectedly", "internal")
        finally:
            monitor.cancel()
        await item.flush()
        state, message, code = end
        try:
            await asyncio.to_thread(
                live_finish,
                self.store,
                item.id,
                state,
                message=message,
                code=code,
                run_id=item.run_id if state == "done" else None,
                lanes=item.final_lanes if state == "done" else None,
                now=self.clock.now(),
            )
        except LitdeskError as exc:  # the row goes stale: another reader reports it failed
            _log.warning("live search %s: its end was not recorded: %s", item.id[:8], exc.code)
        finally:
            self._local.pop(item.id, None)
            item.notify()

    async def _monitor(self, item: LiveSearch, task: asyncio.Task[None] | None) -> None:
        """While the lanes run: stop them when a cancel is requested (from any worker), and
        beat so that other workers know this one is alive."""
        beat_at = self.clock.monotonic() + self._beat
        while True:
            await asyncio.sleep(self._poll)
            try:
                if self.clock.monotonic() >= beat_at:
                    beat_at = self.clock.monotonic() + self._beat
                    now = self.clock.now()
                    stop = await asyncio.to_thread(live_beat, self.store, item.id, now=now)
                else:
                    stop = await asyncio.to_thread(live_should_stop, self.store, item.id)
            except LitdeskError as exc:
                _log.warning("live search %s: the store did not answer: %s", item.id[:8], exc.code)
                continue
            if stop:
                if task is not None:
                    task.cancel()
                return

    def get(self, live_id: str, owner: str) -> LiveRow:
        """The stored search (blocking: call from a thread, or through :meth:`read`)."""
        return live_read(self.store, live_id, owner, stale=self._stale, now=self.clock.now())

    async def read(self, live_id: str, owner: str) -> ProgressView:
        return ProgressView.of(await asyncio.to_thread(self.get, live_id, owner), self.clock.now())

    async def watch(self, live_id: str, owner: str, after: int, timeout: float) -> ProgressView:
        """The search's state once its version passes ``after`` or it is final (or at
        ``timeout``), read from the store every :data:`POLL_SECONDS` (at once on a change
        of a search this process runs)."""
        ends = time.monotonic() + timeout
        while True:
            local = self._local.get(live_id)
            changed = local.changed if local is not None else None
            row = await asyncio.to_thread(self.get, live_id, owner)
            left = ends - time.monotonic()
            if row.version > after or row.final or left <= 0:
                return ProgressView.of(row, self.clock.now())
            wait = min(self._poll, left)
            if changed is None:
                await asyncio.sleep(wait)
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), wait)

    async def cancel(self, live_id: str, owner: str) -> ProgressView:
        """Cancel a running search: it shows ``cancelled`` at once; its lanes stop here at
        once, on another worker when that worker next polls. A finished one is left as it
        is."""
        row = await asyncio.to_thread(live_cancel, self.store, live_id, owner, now=self.clock.now())
        local = self._local.get(live_id)
        if local is not None and local.task is not None and not local.task.done():
            local.task.cancel()
            local.notify()
        return ProgressView.of(row, self.clock.now())

    def close(self) -> None:
        """Cancel every search this process runs (the app is closing)."""
        for item in list(self._local.values()):
            if item.task is not None and not item.task.done():
                item.task.cancel()

    async def aclose(self, timeout: float = CLOSE_SECONDS) -> None:
        """Cancel every search this process runs and wait (a bounded time) until each has
        recorded its end, so that no other worker waits for a beat that never comes."""
        tasks = [i.task for i in self._local.values() if i.task is not None]
        self.close()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)
