"""The workers of ``litdesk serve --team --workers N`` forked from the supervisor after it
has imported the web face once (as gunicorn's ``--preload``), instead of uvicorn's spawn:
each spawned worker is a fresh interpreter that imports the whole web stack again (1.5–2.5
s of CPU and its own copy of every module's memory, for each worker and each replacement
of a crashed one); a forked one starts with it imported and builds only its app.

Forking is safe here because of what the supervisor is when it forks: one thread (checked
when the choice is made; uvicorn's supervisor adds none), no database connection (the
migrations' store is disposed before) and no app (each worker builds its own, with its
store, job runners and threads, after the fork). A worker gets the signal handlers the
process had before uvicorn's supervisor replaced them (as a fresh interpreter has them),
is watched, replaced when it dies and stopped by the supervisor as a spawned one is.

Linux only (elsewhere, or when the supervisor is not single-threaded, uvicorn spawns its
workers as before).
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.context
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import ClassVar

__all__ = ["forked_workers"]

#: a signal handler as :func:`signal.getsignal` returns it
_Handler = Callable[[int, FrameType | None], object] | int | signal.Handlers | None


class _ForkedWorker(multiprocessing.context.ForkProcess):
    """A worker process forked from the supervisor, started as a spawned one would be: the
    signal handlers from before uvicorn's supervisor set its own (those queue signals for
    the supervisor's loop), and the logging of a fresh interpreter (the CLI silences every
    log record while a command runs, or sends them all to stderr with ``--verbose``: a
    worker's own, its JSON access lines, are set up by the worker)."""

    handlers: ClassVar[dict[signal.Signals, _Handler]] = {}

    def run(self) -> None:
        for sig, handler in self.handlers.items():
            if handler is not None:
                signal.signal(sig, handler)
        logging.disable(logging.NOTSET)
        root = logging.getLogger()
        for added in list(root.handlers):
            root.removeHandler(added)
        root.setLevel(logging.WARNING)
        super().run()


class _Forking(multiprocessing.context.ForkContext):
    Process = _ForkedWorker


@contextmanager
def forked_workers() -> Iterator[bool]:
    """Import the web face here and, inside the block, make uvicorn fork its worker
    processes from this one; yields whether it does (``False``: not Linux, a uvicorn
    without the hook, or this process has other threads — uvicorn spawns them as before).
    Run ``uvicorn.run`` inside the block; uvicorn's own start method is back after it."""
    if not sys.platform.startswith("linux"):
        yield False
        return
    try:
        from uvicorn import _subprocess
        from uvicorn.supervisors.multiprocess import SIGNALS
    except ImportError:  # pragma: no cover - another uvicorn layout
        yield False
        return
    original = getattr(_subprocess, "spawn", None)
    import litdesk.faces.web  # noqa: F401 - the preload every worker is forked with

    if original is None or threading.active_count() != 1:
        yield False
        return
    _ForkedWorker.handlers = {signal.Signals(sig): signal.getsignal(sig) for sig in SIGNALS}
    _subprocess.spawn = _Forking()  # type: ignore[assignment]
    try:
        yield True
    finally:
        _subprocess.spawn = original
