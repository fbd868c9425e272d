"""Daily allowances: every network call is metered before it is sent.

A :class:`DailyMeter` counts calls per provider per UTC day. OpenAlex calls are limited by
``openalex_daily_requests`` and every provider by ``owner_daily_requests`` (a local install
has one owner). With a ``path`` the counts persist across runs (a small JSON file written
atomically); without one they live in memory. Every accepted reservation counts, including
calls that then fail upstream. Replays and evidence-cache hits send nothing and are free.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from litdesk._settings import Settings

from ._errors import TransportRefused

__all__ = ["DailyMeter", "Meter"]


class Meter(Protocol):
    """Reserves one call before it is sent, or raises ``TransportRefused``
    (``budget_exhausted`` / ``rate_limited``). :class:`DailyMeter` counts in memory or a
    file; the search service's store meter counts in the store (one allowance for all
    processes sharing it)."""

    def reserve(self, provider: str, *, lane: str = "") -> None: ...


def _lock(fd: int) -> None:
    """An exclusive advisory lock released when the file closes (POSIX; a no-op elsewhere)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: single-process counting only
        return
    fcntl.flock(fd, fcntl.LOCK_EX)


class DailyMeter:
    def __init__(
        self,
        limits: dict[str, int],
        *,
        path: Path | None = None,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.limits = dict(limits)
        self.path = path
        self._now = now or (lambda: datetime.now(UTC))
        self._day = ""
        self._counts: dict[str, int] = {}

    @classmethod
    def from_settings(
        cls, settings: Settings, *, persist: bool = True, now: Callable[[], datetime] | None = None
    ) -> Meter:
        """The persistent allowance is the store's (one allowance for every process and
        every service); ``persist=False`` gives an in-memory meter (tests, dry runs)."""
        if persist:
            from ._store_meter import StoreMeter

            return StoreMeter.from_settings(settings)
        return cls.in_memory(settings, now=now)

    @classmethod
    def in_memory(
        cls, settings: Settings, *, now: Callable[[], datetime] | None = None
    ) -> DailyMeter:
        owner = settings.owner_daily_requests
        limits = {
            p: owner
            for p in ("europepmc", "openalex", "semanticscholar", "crossref", "pubmed", "arxiv")
        }
        limits["openalex"] = min(settings.openalex_daily_requests, owner)
        return cls(limits, now=now)

    def _load(self, day: str) -> dict[str, int]:
        if self.path is None or not self.path.is_file():
            return dict(self._counts) if self._day == day else {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("day") != day:
            return {}
        counts = data.get("counts")
        if not isinstance(counts, dict):
            return {}
        return {str(k): int(v) for k, v in counts.items() if isinstance(v, int) and v >= 0}

    def _save(self, day: str, counts: dict[str, int]) -> None:
        self._day, self._counts = day, dict(counts)
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".calls-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"day": day, "counts": counts}, fh)
        os.replace(tmp, self.path)

    def used(self, provider: str) -> int:
        day = self._now().date().isoformat()
        return self._load(day).get(provider, 0)

    def reserve(self, provider: str, *, lane: str = "") -> None:
        """Count one call to ``provider`` or refuse (``budget_exhausted``) when the day's
        allowance is spent. With a file, the read-count-write holds an exclusive lock so
        two litdesk processes cannot both take the last call."""
        if self.path is None:
            self._reserve(provider)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_suffix(".lock"), "a+b") as lock:
            _lock(lock.fileno())
            self._reserve(provider)

    def _reserve(self, provider: str) -> None:
        day = self._now().date().isoformat()
        counts = self._load(day)
        limit = self.limits.get(provider, 0)
        used = counts.get(provider, 0)
        if used >= limit:
            raise TransportRefused(
                f"{provider}: today's allowance of {limit} calls is spent (UTC day {day}); "
                "raise LITDESK_OWNER_DAILY_REQUESTS"
                + (" / LITDESK_OPENALEX_DAILY_REQUESTS" if provider == "openalex" else "")
                + " or try tomorrow",
                lane_status="budget_exhausted",
                provider=provider,
            )
        counts[provider] = used + 1
        self._save(day, counts)
