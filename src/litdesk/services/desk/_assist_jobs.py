"""AI-assistance model calls as jobs of the store's queue (issue 17): an evidence
suggestion (kind ``assist.extract``), a Study's summary (``assist.summary``) and a
search-strategy suggestion (``assist.strategy``), run by any worker of any process.

The job belongs to the account that asked (another account does not find it). Its
parameters name what to send (a paper and its source, a Study and its selection, a
question) and the consent token — never the text itself and never a credential.

* At submit the text is built exactly as the call will build it and the consent token is
  checked against it (a stale token is refused at once), the owner's rights are checked
  (an evidence suggestion drafts evidence: write on the paper; a summary is the owner's
  own draft of a Study they read), and the allowance is asked whether a call would be allowed now (nothing is
  reserved): a refusal is the submit's answer, with its ``retry_after``.
* In the job the text is built again and the call checks the token against *that* text
  (:meth:`litdesk.services.assist.Assistant.call`): what is sent is exactly what was
  consented to, or nothing is sent. The allowance reservation is keyed by the job's id:
  a job claimed again after its worker died finds its reservation and fails with
  :class:`~litdesk.services.assist.CallInterrupted` (the call counted once and is not
  made again), unless the earlier attempt already stored its draft — then that draft is
  the result. A cancel stops waiting for the model (the call still counts).
* The result is what the request answered before: the draft (stored as before, under an
  id derived from the job's), the summary draft, or the suggestion; a failure keeps the
  error's class, code and ``retry_after`` (see :func:`litdesk.services.jobs.failure`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, Final, Literal

from litdesk._errors import NotFoundError, RefusedError
from litdesk.adapters.store import accounts as access
from litdesk.adapters.store import assist_get_draft
from litdesk.core.assist import check_consent
from litdesk.core.summary import Focus
from litdesk.services.assist import (
    CANCELLED_NOTICE,
    Assistant,
    EvidenceAssistant,
    ExtractionSource,
    SuggestionDraft,
)
from litdesk.services.jobs import Handler, JobContext, JobNotFound, JobRunner, Jobs, JobView
from litdesk.services.strategy import FEATURE as STRATEGY_FEATURE
from litdesk.services.strategy import suggest_strategy, suggestion_notice
from litdesk.services.summary import FEATURE as SUMMARY_FEATURE
from litdesk.services.summary import summarise_study, summary_notice

from ._desk import Desk

__all__ = [
    "ASSIST_KINDS",
    "EXTRACT_KIND",
    "STRATEGY_KIND",
    "SUMMARY_KIND",
    "AssistDesk",
    "AssistJob",
    "assist_handlers",
    "extract_draft_id",
    "summary_draft_id",
]

EXTRACT_KIND: Final = "assist.extract"
SUMMARY_KIND: Final = "assist.summary"
STRATEGY_KIND: Final = "assist.strategy"
ASSIST_KINDS: Final = (EXTRACT_KIND, SUMMARY_KIND, STRATEGY_KIND)
_EXTRACT_FEATURE: Final = "extract"
#: Seconds between two looks at a stop request while the model call runs.
_POLL_SECONDS: Final = 0.2
AssistState = Literal["queued", "running", "done", "failed", "cancelled"]


def extract_draft_id(job_id: str) -> str:
    """The evidence draft an ``assist.extract`` job stores (one per job)."""
    return f"ad-{job_id}"


def summary_draft_id(job_id: str) -> str:
    """The summary draft an ``assist.summary`` job stores (one per job)."""
    return f"sd_{job_id[:24]}"


@dataclass(frozen=True, slots=True)
class AssistJob:
    """A model call's job as pages show it: its state, then its result (``done``) or
    its error (``failed``, ``cancelled``)."""

    id: str
    kind: str
    status: AssistState
    result: dict[str, Any] | None
    error: dict[str, Any] | None
    created: str
    finished: str | None
    attempts: int
    cancel_requested: bool

    @property
    def active(self) -> bool:
        return self.status in ("queued", "running")

    @classmethod
    def from_view(cls, view: JobView) -> AssistJob:
        result = view.result if view.status == "done" else None
        error: dict[str, Any] | None = None
        if view.status == "failed":
            found = (view.result or {}).get("error")
            error = dict(found) if isinstance(found, dict) else None
            if error is None:  # failed by the queue itself (too many attempts)
                error = {
                    "error": "LitdeskError",
                    "code": "job_failed",
                    "category": "error",
                    "message": view.message or "the job failed",
                    "retry_after": None,
                    "warnings": [],
                }
        elif view.status == "cancelled":
            error = {
                "error": "RefusedError",
                "code": "cancelled",
                "category": "refused",
                "message": CANCELLED_NOTICE,
                "retry_after": None,
                "warnings": [],
            }
        return cls(
            view.id, view.kind, view.status, result, error, view.created, view.finished,
            view.attempts, view.cancel_requested and view.active,
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
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


class AssistDesk:
    """The AI-assistance calls of one desk's owner as jobs (``wake``: tell this process's
    job runner that a job was queued)."""

    def __init__(self, desk: Desk, jobs: Jobs, *, wake: Callable[[], None] | None = None) -> None:
        self.desk = desk
        self.jobs = jobs
        self._wake = wake

    def _submit(self, kind: str, params: dict[str, Any], feature: str) -> AssistJob:
        with Assistant(self.desk.store, self.desk.settings, clock=self.desk.clock) as assistant:
            assistant.allowance.check(self.desk.owner, feature)
        view = self.jobs.submit(kind, params, owner=self.desk.owner)
        if self._wake is not None:
            self._wake()
        return AssistJob.from_view(view)

    async def suggest_evidence(
        self,
        paper_ref: str,
        *,
        consent: str,
        source: ExtractionSource = "abstract",
        section: str | None = None,
    ) -> AssistJob:
        """Queue an evidence suggestion for the saved paper (the owner writes its evidence),
        after the consent token was checked against the text it sends."""
        ea = EvidenceAssistant(self.desk.providers, owner=self.desk.owner, clock=self.desk.clock)
        try:
            prev = await ea.preview(paper_ref, source=source, section=section)
            check_consent(consent, prev.notice)
        finally:
            ea.close()
        params = {"paper_id": prev.paper.id, "source": source, "section": section}
        return await asyncio.to_thread(
            self._submit, EXTRACT_KIND, params | {"consent": consent}, _EXTRACT_FEATURE
        )

    def _summary_submit(
        self, study: str, focus: Focus, deselected: Sequence[str], consent: str
    ) -> AssistJob:
        row = self.desk.workspace.study(study)
        with Assistant(self.desk.store, self.desk.settings, clock=self.desk.clock) as assistant:
            _packet, notice = summary_notice(
                assistant, row.id, focus=focus, deselected=deselected, owner=self.desk.owner
            )
        check_consent(consent, notice)
        params = {
            "study_id": row.id,
            "focus": focus,
            "deselected": list(deselected),
            "consent": consent,
        }
        return self._submit(SUMMARY_KIND, params, SUMMARY_FEATURE)

    async def summarise(
        self, study: str, *, focus: Focus, deselected: Sequence[str] = (), consent: str
    ) -> AssistJob:
        """Queue a summary of the Study as the owner reads it, after the consent check (a
        viewer drafts for themself; saving the draft as a Study report needs an editor)."""
        return await asyncio.to_thread(self._summary_submit, study, focus, deselected, consent)

    def _strategy_submit(self, question: str, consent: str) -> AssistJob:
        with Assistant(self.desk.store, self.desk.settings, clock=self.desk.clock) as assistant:
            check_consent(consent, suggestion_notice(assistant, question))
        params = {"question": question, "consent": consent}
        return self._submit(STRATEGY_KIND, params, STRATEGY_FEATURE)

    async def suggest_strategy(self, question: str, *, consent: str) -> AssistJob:
        """Queue a search-strategy suggestion for ``question``, after the consent check."""
        return await asyncio.to_thread(self._strategy_submit, question, consent)

    # --- watching ------------------------------------------------------------------

    def _find(self, job_id: str) -> JobView:
        """The owner's assistance job whose paper or Study the owner may still read."""
        view = self.jobs.get(job_id, owner=self.desk.owner)
        if view.kind not in ASSIST_KINDS:
            raise JobNotFound(f"no assistance job {job_id[:40]!r}", job=job_id[:40])
        try:
            if view.kind == SUMMARY_KIND:
                self.desk.workspace.study(str(view.params.get("study_id", "")))
            elif view.kind == EXTRACT_KIND:
                with self.desk.store.read() as conn:
                    paper = str(view.params.get("paper_id", ""))
                    access.require_paper(conn, self.desk.owner, paper, "read")
        except (NotFoundError, RefusedError):
            raise JobNotFound(f"no assistance job {job_id[:40]!r}", job=job_id[:40]) from None
        return view

    def job(self, job_id: str) -> AssistJob:
        return AssistJob.from_view(self._find(job_id))

    def cancel(self, job_id: str) -> AssistJob:
        """Stop waiting for the model (a queued job is cancelled at once; a sent call
        still counts against the allowance)."""
        view = self._find(job_id)
        if view.active:
            view = self.jobs.cancel(job_id, owner=self.desk.owner)
        return AssistJob.from_view(view)

    def work(self, job_id: str) -> AssistJob:
        """Run queued assistance jobs in this thread until ``job_id`` has ended or none can
        be claimed here (tests; a server's runner does this itself). The app's event
        loop must be running in another thread."""
        runner = JobRunner(
            self.jobs, assist_handlers(self.desk), lease_s=self.desk.settings.jobs_lease_seconds
        )
        while self.job(job_id).active and runner.run_once():
            pass
        return self.job(job_id)


# --- the handlers -------------------------------------------------------------------------


def _await(
    desk: Desk, ctx: JobContext, coro: Coroutine[object, object, dict[str, Any]]
) -> dict[str, Any] | None:
    """Run the call on the app's loop; ``None`` (stopped) when the job must stop."""
    if not ctx.progress(0, 1, "asking the model"):
        coro.close()
        return None
    future = desk.providers.from_thread(coro)
    while True:
        try:
            return future.result(timeout=_POLL_SECONDS)
        except FutureTimeout:
            if ctx.should_stop:  # cancelled, server stopping, or taken over
                future.cancel()  # the call is cancelled; its reservation ends "cancelled"
                return None
        except FutureCancelled:
            return None


def _extract(desk: Desk, ctx: JobContext) -> dict[str, Any] | None:
    p = ctx.params
    draft_id = extract_draft_id(ctx.job.id)
    ea = EvidenceAssistant(desk.providers, owner=desk.owner, clock=desk.clock)
    try:
        try:
            return ea.draft(draft_id).to_dict()  # an earlier attempt stored it
        except NotFoundError:
            pass

        async def call() -> dict[str, Any]:
            draft: SuggestionDraft = await ea.suggest(
                str(p["paper_id"]), consent=str(p["consent"]), source=p["source"],
                section=p.get("section"), key=ctx.job.id, draft_id=draft_id,
            )  # fmt: skip
            return draft.to_dict()

        return _await(desk, ctx, call())
    finally:
        ea.close()


def _stored_summary(desk: Desk, draft_id: str) -> dict[str, Any] | None:
    with desk.store.read() as conn:
        try:
            row = assist_get_draft(conn, draft_id, owner=desk.owner)
        except NotFoundError:
            return None
    d = row.data
    return dict(d["draft"]) | {
        "draft_id": row.id,
        "study_id": d["study_id"],
        "focus": d["focus"],
        "sources": d["sources"],
        "omissions": d["omissions"],
        "record": d["record"],
    }


def _summary(desk: Desk, ctx: JobContext) -> dict[str, Any] | None:
    p = ctx.params
    draft_id = summary_draft_id(ctx.job.id)
    found = _stored_summary(desk, draft_id)
    if found is not None:
        return found
    study_id = desk.workspace.study(str(p["study_id"])).id  # still a member
    assistant = Assistant(desk.store, desk.settings, clock=desk.clock)

    async def call() -> dict[str, Any]:
        view = await summarise_study(
            assistant, study_id, focus=p["focus"], deselected=list(p.get("deselected") or ()),
            owner=desk.owner, consent=str(p["consent"]), key=ctx.job.id, draft_id=draft_id,
        )  # fmt: skip
        return view.to_dict()

    try:
        return _await(desk, ctx, call())
    finally:
        assistant.close()


def _strategy(desk: Desk, ctx: JobContext) -> dict[str, Any] | None:
    kept = (ctx.checkpoint or {}).get("result")
    if isinstance(kept, dict):  # an earlier attempt had the answer
        return kept
    p = ctx.params
    assistant = Assistant(desk.store, desk.settings, clock=desk.clock)

    async def call() -> dict[str, Any]:
        view = await suggest_strategy(
            assistant, str(p["question"]), owner=desk.owner, consent=str(p["consent"]),
            key=ctx.job.id,
        )  # fmt: skip
        return view.to_dict()

    try:
        result = _await(desk, ctx, call())
    finally:
        assistant.close()
    if result is not None:
        ctx.progress(1, 1, "answered", checkpoint={"result": result})
    return result


def assist_handlers(desk: Desk) -> dict[str, Handler]:
    """The assistance job handlers by kind over the desk's providers, for a job runner; each
    job runs as its owner."""

    def bind(run: Callable[[Desk, JobContext], dict[str, Any] | None]) -> Handler:
        def handler(ctx: JobContext) -> dict[str, Any] | None:
            return run(desk.for_owner(ctx.job.owner), ctx)

        return handler

    return {
        EXTRACT_KIND: bind(_extract),
        SUMMARY_KIND: bind(_summary),
        STRATEGY_KIND: bind(_strategy),
    }
