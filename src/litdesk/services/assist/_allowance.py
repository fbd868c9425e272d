"""The model-call allowance, in the store (per owner and in total per UTC day, one
call in flight per owner, a minimum spacing per owner; failed calls count; fails closed).

Three daily pools share the store's table: the AI assistance (``assist_*`` settings), the
paper chat / ``litdesk ask`` (feature ``chat``, ``chat_*`` settings) and report builds
(feature ``report``, ``report_*`` settings). One call in flight per owner holds across
the pools; the spacing is the assistance's alone (a question or a report makes several
calls in a row)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import ExternalError, RefusedError
from litdesk._settings import Settings
from litdesk.adapters.store import (
    CallStatus,
    Store,
    allowance_owner,
    assist_finish,
    assist_release,
    assist_reserve,
)

__all__ = [
    "CHAT_FEATURE",
    "LIBRARY_FEATURES",
    "REPORT_BUILD_FEATURE",
    "AllowanceRefused",
    "AssistAllowance",
    "CallInterrupted",
    "Ticket",
]

#: An in-flight reservation older than the call timeout times this no longer blocks.
_STALE_FACTOR: Final = 2.0
#: The paper chat's and ``litdesk ask``'s model calls (their own daily pool).
CHAT_FEATURE: Final = "chat"
#: A report build's model calls (their own daily pool).
REPORT_BUILD_FEATURE: Final = "report"
#: The features outside the AI assistance's pool.
LIBRARY_FEATURES: Final = (CHAT_FEATURE, REPORT_BUILD_FEATURE)


@dataclass(frozen=True, slots=True)
class _Pool:
    label: str
    total: int
    owner: int
    spacing: float
    features: tuple[str, ...] | None
    other_than: tuple[str, ...]


class AllowanceRefused(RefusedError):
    """No model call now: a daily allowance is spent, a call is in flight, too soon after
    the last call, or the allowance could not be checked (the store failed)."""

    default_code = "allowance"


class CallInterrupted(ExternalError):
    """An earlier attempt of this job reserved its model call and stopped (its worker
    died) before recording the answer: the call counts once and is not made again."""

    default_code = "call_interrupted"


@dataclass(frozen=True, slots=True)
class Ticket:
    """One reserved model call."""

    id: str
    owner: str
    feature: str


class AssistAllowance:
    """Reserve, finish and release model calls in the store."""

    def __init__(self, store: Store, settings: Settings, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self.store = store
        self.settings = settings
        self._clock = clock

    def reserve(self, owner: str, feature: str, *, key: str | None = None) -> Ticket:
        """Reserve one call of ``feature`` for ``owner`` (an account's allowance is kept under
        the SHA-256 of its id, as the provider allowances are; ``local`` stays ``local``).
        ``key`` (a job's id): at most one reservation ever under it — a second one raises
        :class:`CallInterrupted` (the first attempt's call counts, once)."""
        return self._reserve(owner, feature, key=key, peek=False)

    def check(self, owner: str, feature: str) -> None:
        """Raise :class:`AllowanceRefused` when a call of ``feature`` would be refused now
        (a job's submit: refused at once rather than from the queue); nothing is reserved."""
        self._reserve(owner, feature, key=None, peek=True)

    def _reserve(self, owner: str, feature: str, *, key: str | None, peek: bool) -> Ticket:
        owner = allowance_owner(owner)
        pool = self._pool(feature)
        answer = assist_reserve(
            self.store,
            owner,
            feature,
            total_limit=pool.total,
            owner_limit=pool.owner,
            spacing=pool.spacing,
            stale_after=self.stale_after,
            now=self._clock.now(),
            features=pool.features,
            other_than=pool.other_than,
            call_id=None if key is None else f"job-{key}",
            peek=peek,
        )
        if answer.allowed:
            return Ticket(answer.id or "", owner, feature)
        if answer.reason == "reserved_before":
            raise CallInterrupted(
                "the worker making this model call stopped before its answer was recorded; "
                "the call counts against today's allowance and is not made again; nothing "
                "was saved — ask again",
            )
        owner_limit = min(pool.owner, pool.total)
        name = pool.label
        messages = {
            "daily_limit": f"today's {name} allowance of {pool.total} model calls is spent "
            "(UTC day)",
            "owner_daily_limit": f"today's {name} allowance of {owner_limit} model calls for "
            "this owner is spent (UTC day)",
            "in_flight": "another model call of this owner is still running; wait for it",
            "too_soon": f"{name} calls are at least {pool.spacing:g} s apart",
            "store_unavailable": f"the {name} allowance could not be checked (the store "
            "failed), so no call is made",
        }
        raise AllowanceRefused(
            messages.get(answer.reason, answer.reason),
            code=answer.reason,
            retry_after=answer.retry_after,
        )

    @property
    def stale_after(self) -> float:
        """Seconds after which an unfinished reservation (a crashed process) stops blocking."""
        return self.settings.assist_timeout_seconds * _STALE_FACTOR

    def _pool(self, feature: str) -> _Pool:
        s = self.settings
        if feature == CHAT_FEATURE:
            return _Pool(
                "paper-chat", s.chat_daily_requests, s.chat_owner_daily_requests, 0.0,
                (CHAT_FEATURE,), (),
            )  # fmt: skip
        if feature == REPORT_BUILD_FEATURE:
            return _Pool(
                "report-build", s.report_daily_requests, s.report_owner_daily_requests, 0.0,
                (REPORT_BUILD_FEATURE,), (),
            )  # fmt: skip
        return _Pool(
            "AI-assistance", s.assist_daily_requests,
            s.share_of(s.assist_daily_requests, s.assist_owner_daily_requests),
            s.assist_spacing_seconds, None, LIBRARY_FEATURES,
        )  # fmt: skip

    def finish(self, ticket: Ticket, status: CallStatus) -> None:
        assist_finish(self.store, ticket.id, status, now=self._clock.now())

    def abandon(self, ticket_id: str) -> bool:
        """Close a reservation whose process died during its call (a background job's
        earlier attempt): ``failed`` if it is still in flight (the call was sent, so it
        counts, once), else left as it ended; whether it was closed here."""
        return assist_finish(
            self.store, ticket_id, "failed", now=self._clock.now(), in_flight_only=True
        )

    def release(self, ticket: Ticket) -> None:
        assist_release(self.store, ticket.id)
