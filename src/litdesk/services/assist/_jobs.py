"""AI-assistance model calls as jobs of the store's queue (issue 17): an evidence
suggestion (kind ``assist.extract``), a Study's summary (``assist.summary``) and a
search-strategy suggestion (``assist.strategy``), run by any worker of any process.
This module holds the kinds, the job's view and the wait on the app's loop; the
submit, watch and handler logic is :class:`~._area.AssistArea`'s.

The job belongs to the account that asked (another account does not find it). Its
parameters name what to send (a paper and its source, a Study and its selection, a
question) and the consent token — never the text itself and never a credential.

* At submit the text is built exactly as the call will build it and the consent token is
  checked against it (a stale token is refused at once), the owner's rights are checked
  (an evidence suggestion drafts evidence: write on the paper; a summary is the owner's
  own draft of a Study they read), and the allowance is asked whether a call would be
  allowed now (nothing is reserved): a refusal is the submit's answer, with its
  ``retry_after``.
* In the job the text is built again and the call checks the token against *that* text
  (:meth:`~._call.Assistant.call`): what is sent is exactly what was consented to, or
  nothing is sent. The allowance reservation is keyed by the job's id: a job claimed
  again after its worker died finds its reservation and fails with
  :class:`~._allowance.CallInterrupted` (the call counted once and is not made again),
  unless the earlier attempt already stored its draft — then that draft is the result. A
  cancel stops waiting for the model (the call still counts).
* The result is what the request answered before: the draft (stored as before, under an
  id derived from the job's), the summary draft, or the suggestion; a failure keeps the
  error's class, code and ``retry_after`` (see :func:`litdesk.services.jobs.failure`).
"""

from __future__ import annotations

from collections.abc import Coroutine, Mapping
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from litdesk.services.jobs import JobContext, JobView

from ._call import CANCELLED_NOTICE

if TYPE_CHECKING:
    from litdesk.services.providers import Providers

__all__ = [
    "ASSIST_KINDS",
    "EXTRACT_KIND",
    "STRATEGY_KIND",
    "SUMMARY_KIND",
    "AssistJob",
    "JobResult",
    "await_call",
    "extract_draft_id",
    "summary_draft_id",
]

EXTRACT_KIND: Final = "assist.extract"
SUMMARY_KIND: Final = "assist.summary"
STRATEGY_KIND: Final = "assist.strategy"
ASSIST_KINDS: Final = (EXTRACT_KIND, SUMMARY_KIND, STRATEGY_KIND)
#: Seconds between two looks at a stop request while the model call runs.
_POLL_SECONDS: Final = 0.2
AssistState = Literal["queued", "running", "done", "failed", "cancelled"]
#: A job's result as stored (JSON).
JobResult = dict[str, object]


def extract_draft_id(job_id: str) -> str:
    """The evidence draft an ``assist.extract`` job stores (one per job)."""
    return f"ad-{job_id}"


def summary_draft_id(job_id: str) -> str:
    """The summary draft an ``assist.summary`` job stores (one per job)."""
    return f"sd_{job_id[:24]}"


def _error(
    error: str, code: str, category: str, message: str, retry_after: int | None = None
) -> JobResult:
    return {
        "error": error,
        "code": code,
        "category": category,
        "message": message,
        "retry_after": retry_after,
        "warnings": [],
    }


@dataclass(frozen=True, slots=True)
class AssistJob:
    """A model call's job as pages show it: its state, then its result (``done``) or
    its error (``failed``, ``cancelled``)."""

    id: str
    kind: str
    status: AssistState
    result: JobResult | None
    error: JobResult | None
    created: str
    finished: str | None
    attempts: int
    cancel_requested: bool

    @property
    def active(self) -> bool:
        return self.status in ("queued", "running")

    @classmethod
    def from_view(cls, view: JobView) -> AssistJob:
        result: JobResult | None = (
            dict(view.result) if view.status == "done" and view.result is not None else None
        )
        error: JobResult | None = None
        if view.status == "failed":
            found = (view.result or {}).get("error")
            error = dict(found) if isinstance(found, Mapping) else None
            if error is None:  # failed by the queue itself (too many attempts)
                error = _error(
                    "LitdeskError", "job_failed", "error", view.message or "the job failed"
                )
        elif view.status == "cancelled":
            error = _error("RefusedError", "cancelled", "refused", CANCELLED_NOTICE)
        return cls(
            view.id, view.kind, view.status, result, error, view.created, view.finished,
            view.attempts, view.cancel_requested and view.active,
        )  # fmt: skip

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "kind": self.kind,
            "status": self.status,
            "active": self.active,
            "result": self.result,
            "error": self.error,
            "created": self.created,
            "finished": self.finished,
            "attempts": self.attempts,
            "cancel_requested": self.cancel_requested,
        }


def await_call(
    providers: Providers, ctx: JobContext, coro: Coroutine[object, object, JobResult]
) -> JobResult | None:
    """Run the call on the app's loop; ``None`` (stopped) when the job must stop."""
    if not ctx.progress(0, 1, "asking the model"):
        coro.close()
        return None
    future = providers.from_thread(coro)
    while True:
        try:
            return future.result(timeout=_POLL_SECONDS)
        except FutureTimeout:
            if ctx.should_stop:  # cancelled, server stopping, or taken over
                future.cancel()  # the call is cancelled; its reservation ends "cancelled"
                return None
        except FutureCancelled:
            return None
