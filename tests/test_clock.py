"""The injectable clock: the system's reads the host, a manual one moves only when told
(from any thread), and both satisfy the protocol every time-based service takes."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from litdesk import SYSTEM_CLOCK, Clock, InputError, ManualClock, SystemClock


def test_the_system_clock_reads_the_host() -> None:
    assert isinstance(SYSTEM_CLOCK, SystemClock) and isinstance(SYSTEM_CLOCK, Clock)
    before = time.time()
    now = SYSTEM_CLOCK.now()
    assert before <= now <= time.time()
    assert abs(SYSTEM_CLOCK.utcnow().timestamp() - time.time()) < 5
    assert SYSTEM_CLOCK.utcnow().tzinfo is UTC
    a = SYSTEM_CLOCK.monotonic()
    assert SYSTEM_CLOCK.monotonic() >= a


def test_a_manual_clock_moves_only_when_told() -> None:
    start = datetime(2030, 1, 1, 23, 59, 59, tzinfo=UTC)
    clock = ManualClock(start, monotonic_start=100.0)
    assert isinstance(clock, Clock)
    assert clock.now() == start.timestamp() and clock.utcnow() == start
    assert clock.monotonic() == 100.0
    assert clock.advance(1.5) == start.timestamp() + 1.5
    assert clock.utcnow() == start + timedelta(seconds=1.5)  # the next UTC day
    assert clock.utcnow().date().isoformat() == "2030-01-02"
    assert clock.monotonic() == 101.5
    clock.set(start - timedelta(hours=1))  # a corrected wall clock may go back...
    assert clock.utcnow() == start - timedelta(hours=1)
    assert clock.monotonic() == 101.5  # ...the monotonic reading never does
    assert "2030-01-01T22:59:59" in repr(clock)


def test_a_manual_clock_starts_at_the_host_time_by_default() -> None:
    before = time.time()
    clock = ManualClock()
    assert before <= clock.now() <= time.time()
    later = clock.now()
    time.sleep(0.01)
    assert clock.now() == later  # it does not follow the host


def test_a_manual_clock_refuses_going_back_and_naive_times() -> None:
    clock = ManualClock(1_000.0)
    with pytest.raises(InputError):
        clock.advance(-1)
    with pytest.raises(InputError):
        clock.advance(float("nan"))
    with pytest.raises(InputError):
        ManualClock(datetime(2030, 1, 1))  # naive on purpose
    with pytest.raises(InputError):
        clock.set(datetime(2030, 1, 1))  # naive on purpose
    assert clock.now() == 1_000.0


def test_advances_from_many_threads_all_count() -> None:
    clock = ManualClock(0.0)

    def move() -> None:
        for _ in range(1_000):
            clock.advance(0.5)

    threads = [threading.Thread(target=move) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert clock.now() == 4_000.0 and clock.monotonic() == 4_000.0
