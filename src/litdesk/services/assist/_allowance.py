"""The AI-assistance allowance, in the store (per owner and in total per UTC day, one
call in flight per owner, a minimum spacing per owner; failed calls count; fails closed)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from litdesk._errors import RefusedError
from litdesk._settings import Settings
from litdesk.adapters.store import (
    CallStatus,
    Store,
    allowance_owner,
    assist_finish,
    assist_release,
    assist_reserve,
)

__all__ = ["AllowanceRefused", "AssistAllowance", "Ticket"]

#: An in-flight reservation older than the call timeout times this no longer blocks.
_STALE_FACTOR: Final = 2.0


class AllowanceRefused(RefusedError):
    """No model call now: a daily allowance is spent, a call is in flight, too soon after
    the last call, or the allowance could not be checked (the store failed)."""

    default_code = "allowance"


@dataclass(frozen=True, slots=True)
class Ticket:
    """One reserved model call."""

    id: str
    owner: str
    feature: str


class AssistAllowance:
    """Reserve, finish and release model calls in the store."""

    def __init__(
        self, store: Store, settings: Settings, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.settings = settings
        self._clock = clock

    def reserve(self, owner: str, feature: str) -> Ticket:
        """Reserve one call of ``feature`` for ``owner`` (an account's allowance is kept under
        the SHA-256 of its id, as the provider allowances are; ``local`` stays ``local``)."""
        s = self.settings
        owner = allowance_owner(owner)
        answer = assist_reserve(
            self.store,
            owner,
            feature,
            total_limit=s.assist_daily_requests,
            owner_limit=s.assist_owner_daily_requests,
            spacing=s.assist_spacing_seconds,
            stale_after=s.assist_timeout_seconds * _STALE_FACTOR,
            now=self._clock(),
        )
        if answer.allowed and answer.id is not None:
            return Ticket(answer.id, owner, feature)
        owner_limit = min(s.assist_owner_daily_requests, s.assist_daily_requests)
        messages = {
            "daily_limit": f"today's AI-assistance allowance of {s.assist_daily_requests} "
            "calls is spent (UTC day)",
            "owner_daily_limit": f"today's AI-assistance allowance of {owner_limit} calls for "
            "this owner is spent (UTC day)",
            "in_flight": "another AI-assistance call of this owner is still running; wait for it",
            "too_soon": f"AI-assistance calls are at least {s.assist_spacing_seconds:g} s apart",
            "store_unavailable": "the AI-assistance allowance could not be checked (the store "
            "failed), so no call is made",
        }
        raise AllowanceRefused(
            messages.get(answer.reason, answer.reason),
            code=answer.reason,
            retry_after=answer.retry_after,
        )

    def finish(self, ticket: Ticket, status: CallStatus) -> None:
        assist_finish(self.store, ticket.id, status, now=self._clock())

    def release(self, ticket: Ticket) -> None:
        assist_release(self.store, ticket.id)
