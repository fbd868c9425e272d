"""The clock every time-based decision reads: job leases and heartbeats, allowances' days,
sessions and login throttling, live searches' staleness, retention.

Code that decides by time takes a ``clock: Clock = SYSTEM_CLOCK`` keyword and reads
:meth:`Clock.now` (epoch seconds, stored and compared across processes),
:meth:`Clock.monotonic` (intervals inside one process) or :meth:`Clock.utcnow` (an aware
UTC datetime, for ISO timestamps and day boundaries) — never :func:`time.time` directly.
The application passes one clock to all of them; tests pass a :class:`ManualClock` and
:meth:`~ManualClock.advance` it instead of sleeping until a lease or a window runs out.

Durations measured only for logs and figures (``time.perf_counter``) stay on real time.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from typing import Final, Protocol, runtime_checkable

from litdesk._errors import InputError

__all__ = ["SYSTEM_CLOCK", "Clock", "ManualClock", "SystemClock"]


@runtime_checkable
class Clock(Protocol):
    """Where the time comes from."""

    def now(self) -> float:
        """Seconds since the epoch (UTC), as :func:`time.time`."""
        ...

    def monotonic(self) -> float:
        """Seconds that never go back, as :func:`time.monotonic` (differences only)."""
        ...

    def utcnow(self) -> datetime:
        """The current time as an aware UTC datetime (the same instant as :meth:`now`)."""
        ...


class SystemClock:
    """The host's clock (the default everywhere)."""

    __slots__ = ()

    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def utcnow(self) -> datetime:
        return datetime.now(UTC)

    def __repr__(self) -> str:
        return "SystemClock()"


#: The one system clock (stateless; share it freely).
SYSTEM_CLOCK: Final = SystemClock()


class ManualClock:
    """A clock that moves only when told (tests; thread-safe).

    It starts at ``start`` (epoch seconds, or an aware datetime; by default the host's time
    when it is made, so rows it stamps sort among real ones) and its monotonic reading at
    ``monotonic_start``; :meth:`advance` moves both forward together, :meth:`set` jumps the
    wall time only (a monotonic clock never goes back).
    """

    __slots__ = ("_lock", "_mono", "_now")

    def __init__(self, start: float | datetime | None = None, *, monotonic_start: float = 0.0):
        if isinstance(start, datetime):
            if start.tzinfo is None:
                raise InputError("a ManualClock's start datetime must be timezone-aware")
            start = start.timestamp()
        self._now = float(time.time() if start is None else start)
        self._mono = float(monotonic_start)
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return self._now

    def monotonic(self) -> float:
        with self._lock:
            return self._mono

    def utcnow(self) -> datetime:
        return datetime.fromtimestamp(self.now(), UTC)

    def advance(self, seconds: float) -> float:
        """Move the clock ``seconds`` forward (not backward); the new :meth:`now`."""
        if not seconds >= 0:
            raise InputError(f"a ManualClock only moves forward, not by {seconds!r} seconds")
        with self._lock:
            self._now += seconds
            self._mono += seconds
            return self._now

    def set(self, when: float | datetime) -> None:
        """Set the wall time (either way: a host's clock may be corrected); the monotonic
        reading is left as it is."""
        if isinstance(when, datetime):
            if when.tzinfo is None:
                raise InputError("a ManualClock's time must be timezone-aware")
            when = when.timestamp()
        with self._lock:
            self._now = float(when)

    def __repr__(self) -> str:
        return f"ManualClock({self.utcnow().isoformat()})"
