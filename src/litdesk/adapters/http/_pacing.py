"""Per-provider pacing: at most one request start per interval, with an injectable clock.

The intervals are declared with each provider (``litdesk.adapters.providers.ADAPTERS``):
arXiv one request per 3 s; NCBI 3/s (10/s with an API key); Crossref from its
``x-rate-limit-limit`` / ``x-rate-limit-interval`` response headers (default 50 per second,
the public pool); OpenAlex 10/s; Semantic Scholar 1/s; Europe PMC 10/s.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import Final

from litdesk.adapters.providers import ADAPTERS, crossref_interval

__all__ = ["DEFAULT_INTERVALS", "Pacer", "crossref_interval"]

#: provider → seconds between request starts, from the providers' declarations.
DEFAULT_INTERVALS: Final[Mapping[str, float]] = MappingProxyType(
    {name: adapter.interval for name, adapter in ADAPTERS.items()}
)
_MAX_INTERVAL: Final = 60.0


class Pacer:
    """Spaces request starts per provider. ``clock`` returns monotonic seconds; ``sleep``
    waits (both injectable for tests). Concurrent callers for one provider queue in order."""

    def __init__(
        self,
        intervals: Mapping[str, float] | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.intervals: dict[str, float] = dict(DEFAULT_INTERVALS)
        if intervals:
            self.intervals.update(intervals)
        self._clock = clock
        self._sleep = sleep
        self._next: dict[str, float] = {}
        self._last: dict[str, float] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self.waits: list[tuple[str, float]] = []  # (provider, seconds waited): evidence

    def set_interval(self, provider: str, seconds: float) -> None:
        """Change ``provider``'s interval; the next start is re-timed from the last one."""
        self.intervals[provider] = min(max(seconds, 0.0), _MAX_INTERVAL)
        if provider in self._last:
            self._next[provider] = self._last[provider] + self.intervals[provider]

    async def acquire(self, provider: str) -> float:
        """Wait until ``provider`` may be called; return the seconds waited."""
        lock = self._locks.setdefault(provider, asyncio.Lock())
        async with lock:
            now = self._clock()
            start = self._next.get(provider, now)
            wait = max(0.0, start - now)
            if wait > 0:
                self.waits.append((provider, wait))
                await self._sleep(wait)
            self._last[provider] = max(now, start)
            self._next[provider] = self._last[provider] + self.intervals.get(provider, 1.0)
            return wait
