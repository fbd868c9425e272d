"""The index pool's worker processes (``litdesk._workers.pool_context``, issue 26): on Linux
forked by multiprocessing's fork server, started once per process with the indexer
imported, instead of spawned (a fresh interpreter importing litdesk per worker per pool).
What spawn gave is kept: the caller's environment at each pool's start, one BLAS thread, no
thread of the caller, and a worker that crashes breaks its pool, not the caller (the next
pool works). The kill -9 of the caller: ``tests/faces/test_cli_library_hostile.py``."""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import pytest

from litdesk._workers import limited_threads, pool_context, worker_init
from litdesk.services.library import _indexer

MARK = "LITDESK_TEST_POOL_MARK"


def _pool() -> tuple[ProcessPoolExecutor, int]:
    """A pool started as ``_indexer._run_pool`` starts it; and its workers' parent."""
    with limited_threads():
        ctx, parent = pool_context([_indexer.__name__])
        pool = ProcessPoolExecutor(
            max_workers=2,
            mp_context=ctx,
            initializer=worker_init,
            initargs=(parent, dict(os.environ)),
        )
        for _ in pool.map(_indexer._ready, range(2)):
            pass
    return pool, parent


def test_pool_workers_have_the_callers_environment_and_none_of_its_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stop = threading.Event()
    caller_thread = threading.Thread(target=stop.wait, name="caller-thread", daemon=True)
    caller_thread.start()
    try:
        for value in ("first", "second"):  # the second after the fork server started
            monkeypatch.setenv(MARK, value)
            monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
            pool, parent = _pool()
            try:
                assert pool.submit(os.getenv, MARK).result() == value
                assert pool.submit(os.getenv, "OMP_NUM_THREADS").result() == "1"
                assert pool.submit(os.getppid).result() == parent
                if sys.platform.startswith("linux"):
                    assert parent != os.getpid()  # forked by the fork server
                    tasks = pool.submit(os.listdir, "/proc/self/task").result()
                    assert len(tasks) == 2  # its own thread and its parent watchdog
            finally:
                pool.shutdown()
            assert "OMP_NUM_THREADS" not in os.environ  # the caller's is restored
    finally:
        stop.set()
        caller_thread.join()


def test_a_crashing_worker_breaks_its_pool_not_the_caller() -> None:
    pool, _ = _pool()
    try:
        with pytest.raises(BrokenProcessPool):
            pool.submit(os._exit, 70).result()  # dies as a crashed PDF reader would
    finally:
        pool.shutdown()
    pool, parent = _pool()  # the next pool works (the fork server survived)
    try:
        assert pool.submit(os.getppid).result() == parent
    finally:
        pool.shutdown()
