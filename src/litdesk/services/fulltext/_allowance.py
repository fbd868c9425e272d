"""The store's daily allowance as the reading services' :class:`Allowance`.

Each call is reserved in the store (``adapters.store.reserve``: atomic, per provider, per
owner, per UTC day) before it is sent. A refusal — the day's limit, the owner's limit or
a store that cannot be reached — raises :class:`AllowanceRefused`; nothing is sent and
there is no fallback (fail closed). The transport's own meter still counts the call too.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Final

from litdesk._errors import RefusedError
from litdesk._settings import Settings

__all__ = ["LOCAL_OWNER", "AllowanceRefused", "StoreAllowance"]

LOCAL_OWNER: Final = "local"


class AllowanceRefused(RefusedError):
    """The store refused the reservation (limit reached or store unavailable)."""

    default_code = "budget_exhausted"


class StoreAllowance:
    """Reserve every provider call in the store before it is sent."""

    def __init__(
        self,
        store: Any,
        settings: Settings,
        *,
        owner: str = LOCAL_OWNER,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self._store = store
        self._settings = settings
        self._owner = owner
        self._now = now or (lambda: datetime.now(UTC))

    def close(self) -> None:
        """Release the store's connections (when this allowance opened it)."""
        dispose = getattr(self._store, "dispose", None)
        if callable(dispose):
            dispose()

    def reserve(self, provider: str) -> None:
        from litdesk.adapters.store import reserve

        owner_limit = self._settings.owner_daily_requests
        global_limit = (
            self._settings.openalex_daily_requests if provider == "openalex" else owner_limit
        )
        now = self._now()
        answer = reserve(
            self._store, provider, self._owner, now.date(), global_limit, owner_limit, now=now
        )
        if answer.allowed:
            return
        why = {
            "daily_limit": f"today's {provider} allowance ({global_limit} calls) is spent",
            "owner_daily_limit": f"your daily {provider} allowance ({owner_limit} calls) is spent",
            "store_unavailable": "the allowance could not be checked (the store is unavailable)",
        }.get(answer.reason, f"the allowance refused ({answer.reason})")
        retry = f"; retry in {answer.retry_after} s" if answer.retry_after else ""
        raise AllowanceRefused(
            f"{provider}: {why}{retry}; nothing was sent",
            provider=provider,
            reason=answer.reason,
            retry_after=answer.retry_after,
        )
