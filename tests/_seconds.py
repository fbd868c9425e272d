"""Waiting until the wall clock's next whole second (issue 26).

Some things the product stamps to the second (a search round's start, a run's execution:
``isoformat(timespec="seconds")``, truncated) and a test needs the next one to fall in a
later second. Sleeping a fixed 1.1 s makes sure of it; sleeping until just past the next
whole second of :func:`time.time` (the clock :class:`litdesk._clock.SystemClock` reads)
makes as sure, in 0.55 s on average: everything stamped before the wait is in a second
that has ended when it returns.
"""

from __future__ import annotations

import asyncio
import time

__all__ = ["MARGIN", "next_second_in", "sleep_to_next_second", "wait_to_next_second"]

#: how far past the whole second the wait ends (a clock read just after is in it)
MARGIN = 0.02


def next_second_in(now: float) -> float:
    """Seconds from ``now`` (``time.time()``) to just past its next whole second."""
    return 1.0 - now % 1.0 + MARGIN


def sleep_to_next_second() -> None:
    """Sleep until just past the next whole second of the wall clock."""
    time.sleep(next_second_in(time.time()))


async def wait_to_next_second() -> None:
    """:func:`sleep_to_next_second` for a coroutine."""
    await asyncio.sleep(next_second_in(time.time()))
