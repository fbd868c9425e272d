"""One allowance, in the store: every provider call is reserved atomically before it is
sent (daily per provider and per owner; the OpenAlex semantic lane keeps a 1 s gap for
every process sharing the store). Any refusal or store failure fails closed: the lane
ends ``budget_exhausted`` (or ``rate_limited`` for the gap) and no request is made."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Final

from litdesk._settings import Settings
from litdesk.adapters.http import TransportRefused
from litdesk.adapters.store import Store, reserve
from litdesk.adapters.store._gates import give_back, take_gate
from litdesk.core.search import LaneStatus

__all__ = ["SEMANTIC_GAP_SECONDS", "StoreMeter"]

SEMANTIC_GAP_SECONDS: Final = 1.0
_SEMANTIC_LANE: Final = "openalex-semantic"


class StoreMeter:
    """The transport's meter, counting in the store (replaces the file meter)."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        *,
        owner: str = "local",
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.store = store
        self.owner = owner
        self.settings = settings
        self._now = now or (lambda: datetime.now(UTC))

    def limits(self, provider: str) -> tuple[int, int]:
        owner = self.settings.owner_daily_requests
        if provider == "openalex":
            return self.settings.openalex_daily_requests, owner
        return owner, owner

    def reserve(self, provider: str, *, lane: str = "") -> None:
        when = self._now()
        gate = None
        if lane == _SEMANTIC_LANE:
            gate = take_gate(self.store, _SEMANTIC_LANE, SEMANTIC_GAP_SECONDS, now=when.timestamp())
            if not gate.allowed:
                status: LaneStatus = (
                    "rate_limited" if gate.reason == "rate_limited" else "budget_exhausted"
                )
                raise TransportRefused(
                    f"{provider}: the semantic lane allows one call per second"
                    if gate.reason == "rate_limited"
                    else f"{provider}: the shared allowance could not be checked",
                    lane_status=status,
                    provider=provider,
                    reason=gate.reason,
                    retry_after=gate.retry_after,
                )
        global_limit, owner_limit = self.limits(provider)
        answer = reserve(
            self.store, provider, self.owner, when.date(), global_limit, owner_limit, now=when
        )
        if answer.allowed:
            return
        if gate is not None:
            give_back(self.store, _SEMANTIC_LANE, gate)
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
