"""A memory budget shared by the imports running at once in one server process (Study ZIP
recoveries and file imports): each holds an estimate of what it will use while it runs;
one that does not fit waits a bounded time for room, then is refused with
:class:`ImportsBusy` (429 on the web, "try again"). An import larger than the whole budget
still runs, alone. Memory is a process's, so the budget is too: each server process (each
``--workers`` worker) has its own."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Final

from litdesk._errors import RefusedError

__all__ = ["ImportsBusy", "MemoryBudget", "zip_cost", "upload_cost"]

#: what reading an upload of n bytes may hold at its peak (the text, the parsed records,
#: their traces): measured about 20 per byte of RIS/BibTeX/JSON
_UPLOAD_FACTOR: Final = 24
#: a Study ZIP of n bytes: its members are inflated (deflate ratios of 3-15) and parsed as
#: JSON (Python values of 8-100 bytes each); issue 29 measured about 250 MB for 1.2 MB
_ZIP_FACTOR: Final = 200
_MB: Final = 1 << 20


class ImportsBusy(RefusedError):
    """The imports running in this server hold its memory budget; try again shortly."""

    default_code = "imports_busy"


def upload_cost(size: int) -> int:
    """The memory (bytes) to hold for reading uploads of ``size`` bytes."""
    return max(_MB, size * _UPLOAD_FACTOR)


def zip_cost(size: int) -> int:
    """The memory (bytes) to hold for recovering a Study ZIP of ``size`` bytes."""
    return max(_MB, size * _ZIP_FACTOR)


class MemoryBudget:
    """``total`` bytes shared by the imports of this process (thread-safe)."""

    def __init__(
        self,
        total: int,
        *,
        wait_s: float = 10.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        if total <= 0:
            raise ValueError("a memory budget is positive")
        self.total = total
        self.wait_s = wait_s
        self._used = 0
        self._cond = threading.Condition()
        self._monotonic = monotonic

    @property
    def used(self) -> int:
        with self._cond:
            return self._used

    def _take(self, cost: int, wait_s: float) -> int:
        cost = min(max(cost, 1), self.total)  # larger than the budget: runs alone
        deadline = self._monotonic() + wait_s
        with self._cond:
            while self._used + cost > self.total:
                left = deadline - self._monotonic()
                if left <= 0:
                    raise ImportsBusy(
                        f"the imports running on this server hold its memory budget "
                        f"({self.total // _MB:,} MB); try again in a minute",
                        needed_mb=cost // _MB,
                        retry_after=30,
                    )
                self._cond.wait(left)
            self._used += cost
        return cost

    def _give(self, cost: int) -> None:
        with self._cond:
            self._used -= cost
            self._cond.notify_all()

    @contextmanager
    def hold(self, cost: int, *, wait_s: float | None = None) -> Iterator[None]:
        """Hold ``cost`` bytes while the block runs; :class:`ImportsBusy` when no room was
        made within ``wait_s`` (default: the budget's)."""
        taken = self._take(cost, self.wait_s if wait_s is None else wait_s)
        try:
            yield
        finally:
            self._give(taken)
