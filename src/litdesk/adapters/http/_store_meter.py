"""One allowance, in the store: every provider call is reserved atomically before it is
sent (daily per provider and per owner; the OpenAlex semantic lane keeps a 1 s gap for
every process sharing the store). Any refusal or store failure fails closed: the lane
ends ``budget_exhausted`` (or ``rate_limited`` for the gap) and no request is made."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import Final

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import LitdeskError
from litdesk._settings import Settings
from litdesk.adapters.providers import ADAPTERS, SEMANTIC_GAP_SECONDS
from litdesk.adapters.store import Store, give_back, reserve, take_gate, usage
from litdesk.core.search import LaneStatus

from ._errors import TransportRefused

__all__ = ["SEMANTIC_GAP_SECONDS", "StoreMeter"]

#: lane → the minimum gap (seconds) between its calls across processes, as declared.
_LANE_GAPS: Final = {lane: gap for adapter in ADAPTERS.values() for lane, gap in adapter.lane_gaps}
#: lane → its role in its provider (``openalex-semantic`` → ``semantic``), for messages.
_ROLES: Final = {
    lane.name: lane.role for adapter in ADAPTERS.values() for lane in adapter.spec.lanes
}


def _one_call(gap: float) -> str:
    return "one call per second" if gap == 1 else f"one call every {gap:g} s"


class StoreMeter:
    """The transport's one meter, counting in the store.

    ``store`` may be a callable returning the store, opened on the first reservation
    (so building a transport opens no database)."""

    def __init__(
        self,
        store: Store | Callable[[], Store],
        settings: Settings,
        *,
        owner: str = "local",
        now: Callable[[], datetime] | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        """``clock``: what the day boundaries and the semantic lane's gap read (``now``, a
        callable returning an aware datetime, is the older way to say the same and wins)."""
        self._store = store
        self._opened = False
        # lanes reserve from worker threads at once: the store is opened by one of them
        self._open_lock = threading.Lock()
        self.owner = owner
        self.settings = settings
        self._now = now or clock.utcnow
        self.clock = clock

    @property
    def store(self) -> Store:
        with self._open_lock:
            if not isinstance(self._store, Store):
                self._store = self._store()
                self._opened = True
            return self._store

    @classmethod
    def from_settings(
        cls, settings: Settings, *, owner: str = "local", clock: Clock = SYSTEM_CLOCK
    ) -> StoreMeter:
        """A meter on the settings' store, opened when first needed."""

        def _open() -> Store:
            from litdesk.adapters.store import open_store

            return open_store(settings)

        return cls(_open, settings, owner=owner, clock=clock)

    def close(self) -> None:
        """Release the store if this meter opened it."""
        if isinstance(self._store, Store) and self._opened:
            self._store.dispose()

    def used(self, provider: str) -> int:
        """Calls reserved today (UTC) for ``provider`` by this meter's owner."""
        return usage(self.store, provider, self._now().date()).get(self.owner, 0)

    def limits(self, provider: str) -> tuple[int, int]:
        """``(lab-wide, per-account)`` daily calls to ``provider`` (separate caps: one
        account spends at most its share of the lab's day)."""
        adapter = ADAPTERS.get(provider)
        own = None
        if adapter is not None and adapter.daily_limit_setting is not None:
            own = int(getattr(self.settings, adapter.daily_limit_setting))
        return self.settings.provider_limits(provider, own)

    def reserve(self, provider: str, *, lane: str = "") -> None:
        when = self._now()
        try:
            store = self.store
        except LitdeskError:
            raise TransportRefused(
                f"{provider}: the shared allowance could not be checked (the store did not open)",
                lane_status="budget_exhausted",
                provider=provider,
                reason="store_unavailable",
            ) from None
        gate = None
        gap = _LANE_GAPS.get(lane)
        if gap is not None:
            gate = take_gate(store, lane, gap, now=when.timestamp())
            if not gate.allowed:
                status: LaneStatus = (
                    "rate_limited" if gate.reason == "rate_limited" else "budget_exhausted"
                )
                raise TransportRefused(
                    f"{provider}: the {_ROLES.get(lane, lane)} lane allows {_one_call(gap)}"
                    if gate.reason == "rate_limited"
                    else f"{provider}: the shared allowance could not be checked",
                    lane_status=status,
                    provider=provider,
                    reason=gate.reason,
                    retry_after=gate.retry_after,
                )
        global_limit, owner_limit = self.limits(provider)
        answer = reserve(
            store, provider, self.owner, when.date(), global_limit, owner_limit, now=when
        )
        if answer.allowed:
            return
        if gate is not None:
            give_back(store, lane, gate)
        messages = {
            "daily_limit": f"today's allowance of {global_limit} calls is spent",
            "owner_daily_limit": f"today's allowance of {owner_limit} calls for this owner is spent",
            "store_unavailable": "the shared allowance could not be checked",
        }
        raise TransportRefused(
            f"{provider}: {messages[answer.reason]} (UTC day {when.date().isoformat()})",
            lane_status="budget_exhausted",
            provider=provider,
            reason=answer.reason,
            retry_after=answer.retry_after,
        )
