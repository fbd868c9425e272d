"""tests/_seconds.py: the wait ends in a later second of the wall clock, within ~1 s."""

from __future__ import annotations

import asyncio
import time

from tests._seconds import MARGIN, next_second_in, sleep_to_next_second, wait_to_next_second


def test_next_second_in_reaches_just_past_the_next_whole_second() -> None:
    for now in (100.0, 100.25, 100.999, 1_765_000_000.5):
        later = now + next_second_in(now)
        assert int(later) == int(now) + 1
        assert abs(later - (int(now) + 1 + MARGIN)) < 1e-6


def test_the_waits_end_in_a_later_second() -> None:
    before = time.time()
    sleep_to_next_second()
    after = time.time()
    assert int(after) > int(before) and after - before < 1.0 + MARGIN + 0.5

    async def go() -> tuple[float, float]:
        start = time.time()
        await wait_to_next_second()
        return start, time.time()

    start, end = asyncio.run(go())
    assert int(end) > int(start)
