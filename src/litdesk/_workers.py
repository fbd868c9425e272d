"""Start-up of litdesk's worker processes (the PDF index pool).

Kept apart from the library package: a spawned worker unpickles :func:`worker_init`
first, and this module imports nothing heavy. The BLAS thread limits must be in a worker's
environment before numpy loads there; where the parent's ``__main__`` already imports numpy
(a console script, a bench script) only the parent's environment at spawn time does that,
so the pool starts its workers inside :func:`limited_threads` as well.

On Linux the workers are forked by multiprocessing's fork server (:func:`pool_context`):
one fresh, single-threaded interpreter per process, started once (inside
:func:`limited_threads`) with the pool's module imported, instead of a fresh interpreter
importing litdesk for every worker of every pool (issue 26). A worker gets no thread of
the caller (the fork server has one), its environment is the caller's at the pool's start
(:func:`worker_init` sets it: the fork server's own is that of its start), and it still
dies with the caller: the fork server exits when the caller is gone (its "alive" pipe,
whose copy each worker closes) and the worker with the fork server (parent-death signal,
watchdog).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import multiprocessing.context
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from typing import Final

__all__ = [
    "WATCHDOG_SECONDS",
    "WORKER_ENV",
    "die_with_parent",
    "limited_threads",
    "pool_context",
    "watch_parent",
    "worker_init",
]

#: One thread per worker for BLAS and the tokenizer: the workers are the parallelism
#: (oversubscribed thread pools made two workers no faster than one).
WORKER_ENV: Final = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "TOKENIZERS_PARALLELISM": "false",
}
#: Seconds between a worker's checks that its parent is still alive (the fallback where
#: the kernel's parent-death signal is not available).
WATCHDOG_SECONDS = 0.5
_PR_SET_PDEATHSIG: Final = 1
_ENV_LOCK = threading.Lock()


@contextmanager
def limited_threads() -> Iterator[None]:
    """:data:`WORKER_ENV` in ``os.environ`` while workers are spawned, restored after.

    One pool start at a time per process (a lock), so two threads starting pools cannot
    leave the environment changed for good.
    """
    with _ENV_LOCK:
        saved = {k: os.environ.get(k) for k in WORKER_ENV}
        os.environ.update(WORKER_ENV)
        try:
            yield
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


def die_with_parent() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies (``prctl PR_SET_PDEATHSIG``).

    ``False`` where that is not available (not Linux, no libc); the watchdog still runs.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def watch_parent(parent: int) -> None:
    """Exit as soon as this process is re-parented (its parent ``parent`` is gone)."""
    while True:
        if os.getppid() != parent:
            os._exit(70)
        time.sleep(WATCHDOG_SECONDS)


def pool_context(
    preload: Sequence[str],
) -> tuple[multiprocessing.context.BaseContext, int]:
    """The start method of a worker pool and the pid its workers' parent has: on Linux
    multiprocessing's fork server with ``preload`` imported in it (started here, so under
    the caller's :func:`limited_threads`); elsewhere spawn, the workers' parent being this
    process. Call inside :func:`limited_threads`."""
    if sys.platform.startswith("linux"):
        from multiprocessing import forkserver

        server = getattr(forkserver, "_forkserver", None)
        if server is not None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(list(preload))
            server.ensure_running()
            pid = getattr(server, "_forkserver_pid", None)
            if isinstance(pid, int):
                return ctx, pid
    return multiprocessing.get_context("spawn"), os.getpid()


def _drop_forkserver_pipe() -> None:
    """A worker forked by the fork server holds a copy of the caller's end of the fork
    server's "alive" pipe: closed, so that the caller's death alone ends the fork server
    (and so this worker, :func:`worker_init`)."""
    forkserver = sys.modules.get("multiprocessing.forkserver")
    server = getattr(forkserver, "_forkserver", None)
    fd = getattr(server, "_forkserver_alive_fd", None)
    if isinstance(fd, int):
        with suppress(OSError):
            os.close(fd)
        server._forkserver_alive_fd = None  # type: ignore[union-attr]


def worker_init(parent: int, env: Mapping[str, str] | None = None) -> None:
    """Pool worker start-up: the caller's environment ``env`` (as spawn would have given
    it), single-threaded BLAS/tokenizer, Ctrl-C left to the main process (which stops the
    run cleanly), and death with ``parent`` — the main process, or the fork server that
    dies with it — also when it is killed with SIGKILL, by the kernel's parent-death
    signal plus a watchdog thread."""
    _drop_forkserver_pipe()
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    os.environ.update(WORKER_ENV)  # this worker's own environment (its later imports)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(70)
    threading.Thread(
        target=watch_parent, args=(parent,), daemon=True, name="litdesk-parent"
    ).start()
