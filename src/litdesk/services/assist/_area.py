"""``app.assist``: AI assistance with consent, as one area — evidence suggestions from a
saved paper, a Study's summary (and the reports saved from it), search-strategy
suggestions and the concept-group builder, and a live check of the model.

Every model call shows first what it sends and where (a *notice* or *preview* with its
consent token) and is made only with that token. The web's calls run as jobs of the
store's queue (:meth:`AssistArea.suggest_evidence`, :meth:`~AssistArea.summarise`,
:meth:`~AssistArea.suggest_strategy`: answered at once with the job, see :mod:`._jobs`);
the CLI awaits the same call in its own process (the ``*_now`` methods). Each method
takes the owner it acts for; access is checked as that owner."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Final

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import ConfigError, NotFoundError, RefusedError
from litdesk._settings import Settings
from litdesk.adapters.store import Store, assist_get_draft
from litdesk.adapters.store import accounts as access
from litdesk.core.assist import ConsentNotice, check_consent
from litdesk.core.summary import StudyReport
from litdesk.services.jobs import Handler, JobContext, JobNotFound, JobRunner, Jobs, JobView
from litdesk.services.workspace import Workspace

from ._call import Assistant, Role
from ._check import CHECK_CALL, check_model
from ._extract import EvidenceAssistant
from ._jobs import (
    ASSIST_KINDS,
    EXTRACT_KIND,
    STRATEGY_KIND,
    SUMMARY_KIND,
    AssistJob,
    JobResult,
    await_call,
    extract_draft_id,
    summary_draft_id,
)
from ._packet import study_packet
from ._requests import (
    BuildStrategy,
    CheckModel,
    EvidenceSource,
    SaveEvidence,
    SaveFormEvidence,
    SaveSummaryReport,
    StrategyRequest,
    SuggestEvidence,
    SummaryRequest,
)
from ._strategy import FEATURE as STRATEGY_FEATURE
from ._strategy import suggest_strategy, suggestion_notice
from ._strategy_build import build_strategy
from ._summary import FEATURE as SUMMARY_FEATURE
from ._summary import (
    report_file,
    save_report,
    study_reports,
    summarise_study,
    summary_notice,
)
from ._views import (
    AssistedEvidence,
    ExtractionPreview,
    ModelCheck,
    PaperProvenance,
    ProvenanceView,
    ReportFile,
    ReportListing,
    StrategyView,
    SuggestionDraft,
    SuggestionView,
    SummaryNotice,
    SummarySources,
    SummaryView,
)

if TYPE_CHECKING:
    from litdesk.services.providers import Providers

__all__ = ["AssistArea"]

_EXTRACT_FEATURE: Final = "extract"


class AssistArea:
    """AI assistance over the app's store, settings, providers and job queue (built once
    by the app as ``app.assist``; ``wake`` tells this process's assist runner that a
    job was queued — called, not bound, as the app builds its runners after its areas)."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        providers: Providers,
        jobs: Jobs,
        *,
        clock: Clock = SYSTEM_CLOCK,
        wake: Callable[[], None] | None = None,
    ) -> None:
        self._store = store
        self._settings = settings
        self._providers = providers
        self._jobs = jobs
        self._clock = clock
        self._wake = wake

    # -- parts ----------------------------------------------------------------------------

    def _assistant(self, role: Role = "generation") -> Assistant:
        return Assistant(self._store, self._settings, role=role, clock=self._clock)

    def _evidence(self, owner: str) -> EvidenceAssistant:
        return EvidenceAssistant(self._providers, owner=owner, clock=self._clock)

    def _submit(self, kind: str, params: dict[str, object], feature: str, owner: str) -> AssistJob:
        """Queue the job after asking the allowance whether a call is allowed now."""
        with self._assistant() as assistant:
            assistant.allowance.check(owner, feature)
        view = self._jobs.submit(kind, params, owner=owner)
        if self._wake is not None:
            self._wake()
        return AssistJob.from_view(view)

    # -- evidence suggestions -------------------------------------------------------------

    async def evidence_preview(self, request: EvidenceSource, *, owner: str) -> ExtractionPreview:
        """The bounded text an evidence suggestion sends, the host and model, and the
        consent token (no model call; the owner must be able to write the paper)."""
        ea = self._evidence(owner)
        try:
            return await ea.preview(
                request.paper, source=request.source, section=request.section,
                study=request.study,
            )  # fmt: skip
        finally:
            ea.close()

    async def suggest_evidence(self, request: SuggestEvidence, *, owner: str) -> AssistJob:
        """Queue an evidence suggestion (a job), after the consent token was checked
        against the text it sends and the allowance was asked."""
        prev = await self.evidence_preview(request.what, owner=owner)
        check_consent(request.consent, prev.notice)
        params: dict[str, object] = {
            "paper_id": prev.paper.id,
            "source": request.source,
            "section": request.section,
            "consent": request.consent,
            "study": prev.study_id,
        }
        return await asyncio.to_thread(self._submit, EXTRACT_KIND, params, _EXTRACT_FEATURE, owner)

    async def suggest_evidence_now(
        self, request: SuggestEvidence, *, owner: str
    ) -> SuggestionDraft:
        """The same suggestion awaited here (the CLI): one guarded model call; a verified
        draft is stored for review."""
        ea = self._evidence(owner)
        try:
            return await ea.suggest(
                request.paper, consent=request.consent, source=request.source,
                section=request.section, study=request.study,
            )  # fmt: skip
        finally:
            ea.close()

    def evidence_draft(self, draft_id: str, *, owner: str) -> SuggestionDraft:
        """A stored draft of suggested evidence."""
        ea = self._evidence(owner)
        try:
            return ea.draft(draft_id)
        finally:
            ea.close()

    def save_evidence(self, request: SaveEvidence, *, owner: str) -> AssistedEvidence:
        """Save a reviewed draft as evidence with its assistance provenance (one
        transaction)."""
        ea = self._evidence(owner)
        try:
            return ea.save(
                request.draft_id, reviewed=request.reviewed, values=request.values,
                study=request.study,
            )  # fmt: skip
        finally:
            ea.close()

    def save_form_evidence(self, request: SaveFormEvidence, *, owner: str) -> AssistedEvidence:
        """Record a reviewed form draft in its Study: the suggested values as the owner
        accepted or edited them, checked again against the Study's form, with the
        assistance provenance (one transaction)."""
        ea = self._evidence(owner)
        try:
            return ea.save_form(request.draft_id, reviewed=request.reviewed, values=request.values)
        finally:
            ea.close()

    def evidence_provenance(self, evidence_id: str, *, owner: str) -> ProvenanceView:
        """How an evidence record was assisted; every stored quote re-checked now."""
        ea = self._evidence(owner)
        try:
            return ea.provenance(evidence_id)
        finally:
            ea.close()

    def paper_provenance(self, paper: str, *, owner: str) -> PaperProvenance:
        """The provenance of every assisted evidence record of a saved paper."""
        ea = self._evidence(owner)
        try:
            return PaperProvenance(tuple(ea.paper_provenance(paper)))
        finally:
            ea.close()

    # -- the Study summary ----------------------------------------------------------------

    def summary_sources(self, request: SummaryRequest, *, owner: str) -> SummarySources:
        """The numbered sources the summary would send (after deselection), and whether a
        model is configured (nothing is sent)."""
        packet = study_packet(self._store, request.study, owner=owner)
        if request.deselected:
            packet = packet.select(list(request.deselected))
        with self._assistant() as assistant:
            try:
                b = assistant.backend
            except ConfigError as exc:
                return SummarySources(packet, unavailable=exc.message)
            return SummarySources(packet, host=b.host, model=b.model, backend=b.name)

    def summary_notice(self, request: SummaryRequest, *, owner: str) -> SummaryNotice:
        """What the summary sends (as the owner reads the Study), where, and its token."""
        with self._assistant() as assistant:
            packet, notice = summary_notice(
                assistant, request.study, focus=request.chosen,
                deselected=request.deselected, owner=owner,
            )  # fmt: skip
        return SummaryNotice(notice, packet)

    def _summary_submit(self, request: SummaryRequest, owner: str) -> AssistJob:
        row = Workspace(self._store, owner=owner).study(request.study)
        with self._assistant() as assistant:
            _packet, notice = summary_notice(
                assistant, row.id, focus=request.chosen, deselected=request.deselected,
                owner=owner,
            )  # fmt: skip
        check_consent(request.consent, notice)
        params: dict[str, object] = {
            "study_id": row.id,
            "focus": request.chosen,
            "deselected": list(request.deselected),
            "consent": request.consent,
        }
        return self._submit(SUMMARY_KIND, params, SUMMARY_FEATURE, owner)

    async def summarise(self, request: SummaryRequest, *, owner: str) -> AssistJob:
        """Queue a summary of the Study as the owner reads it (a job), after the consent
        check (a viewer drafts for themself; saving it as a report needs an editor)."""
        return await asyncio.to_thread(self._summary_submit, request, owner)

    async def summarise_now(self, request: SummaryRequest, *, owner: str) -> SummaryView:
        """The same summary awaited here (the CLI): the verified draft, stored for review."""
        assistant = self._assistant()
        try:
            return await summarise_study(
                assistant, request.study, focus=request.chosen, deselected=request.deselected,
                owner=owner, consent=request.consent,
            )  # fmt: skip
        finally:
            assistant.close()

    def save_summary_report(self, request: SaveSummaryReport, *, owner: str) -> StudyReport:
        """Save the owner's reviewed summary draft as a Study report (editor right; every
        kept citation checked again; one transaction)."""
        return save_report(
            self._store, request.study, request.draft_id, owner=owner,
            reviewed=request.reviewed, drop=request.drop,
        )  # fmt: skip

    def study_reports(self, study: str, *, owner: str) -> ReportListing:
        """The owner's saved reports of a Study, each re-checked on read."""
        return study_reports(self._store, study, owner=owner)

    def study_report_file(self, study: str, report_id: str, *, owner: str) -> ReportFile:
        """One saved report of a Study as offline HTML (re-checked on read)."""
        name, html = report_file(self._store, study, report_id, owner=owner)
        return ReportFile(name, html)

    # -- search strategy ------------------------------------------------------------------

    def build_strategy(self, request: BuildStrategy) -> StrategyView:
        """Concept groups → one query, compiled for every provider as a search would
        (refusals named; nothing is sent and nothing of anyone's is read: no owner)."""
        return build_strategy(request.groups)

    def strategy_notice(self, request: StrategyRequest, *, owner: str) -> ConsentNotice:
        """What a strategy suggestion sends, where, and its token (the question is the
        owner's own text: nothing stored is read)."""
        with self._assistant() as assistant:
            return suggestion_notice(assistant, request.question)

    def _strategy_submit(self, request: StrategyRequest, owner: str) -> AssistJob:
        check_consent(request.consent, self.strategy_notice(request, owner=owner))
        params: dict[str, object] = {"question": request.question, "consent": request.consent}
        return self._submit(STRATEGY_KIND, params, STRATEGY_FEATURE, owner)

    async def suggest_strategy(self, request: StrategyRequest, *, owner: str) -> AssistJob:
        """Queue a search-strategy suggestion (a job), after the consent check."""
        return await asyncio.to_thread(self._strategy_submit, request, owner)

    async def suggest_strategy_now(self, request: StrategyRequest, *, owner: str) -> SuggestionView:
        """The same suggestion awaited here (the CLI): concept groups, unverified."""
        assistant = self._assistant()
        try:
            return await suggest_strategy(
                assistant, request.question, owner=owner, consent=request.consent
            )
        finally:
            assistant.close()

    # -- the model check ------------------------------------------------------------------

    def check_notice(self, request: CheckModel) -> ConsentNotice:
        """What the live check sends to the backend of the request's role, and its token."""
        with self._assistant(_role(request.role)) as assistant:
            return assistant.notice(CHECK_CALL.user)

    async def check_model(self, request: CheckModel, *, owner: str) -> ModelCheck:
        """Send the short fixed check (after consent; it counts against the allowance)."""
        with self._assistant(_role(request.role)) as assistant:
            return await check_model(assistant, owner=owner, consent=request.consent)

    # -- watching the jobs ----------------------------------------------------------------

    def _find(self, job_id: str, owner: str) -> JobView:
        """The owner's assistance job whose paper or Study the owner may still read."""
        view = self._jobs.get(job_id, owner=owner)
        if view.kind not in ASSIST_KINDS:
            raise JobNotFound(f"no assistance job {job_id[:40]!r}", job=job_id[:40])
        try:
            if view.kind == SUMMARY_KIND:
                Workspace(self._store, owner=owner).study(str(view.params.get("study_id", "")))
            elif view.kind == EXTRACT_KIND:
                with self._store.read() as conn:
                    paper = str(view.params.get("paper_id", ""))
                    access.require_paper(conn, owner, paper, "read")
        except (NotFoundError, RefusedError):
            raise JobNotFound(f"no assistance job {job_id[:40]!r}", job=job_id[:40]) from None
        return view

    def job(self, job_id: str, *, owner: str) -> AssistJob:
        """The owner's assistance job: its state, then its result or error."""
        return AssistJob.from_view(self._find(job_id, owner))

    def cancel(self, job_id: str, *, owner: str) -> AssistJob:
        """Stop waiting for the model (a queued job is cancelled at once; a sent call
        still counts against the allowance)."""
        view = self._find(job_id, owner)
        if view.active:
            view = self._jobs.cancel(job_id, owner=owner)
        return AssistJob.from_view(view)

    def work(self, job_id: str, *, owner: str) -> AssistJob:
        """Run queued assistance jobs in this thread until ``job_id`` has ended or none can
        be claimed here (tests; a server's runner does this itself). The app's event loop
        must be running in another thread."""
        runner = JobRunner(self._jobs, self.handlers(), lease_s=self._settings.jobs_lease_seconds)
        while self.job(job_id, owner=owner).active and runner.run_once():
            pass
        return self.job(job_id, owner=owner)

    # -- the handlers (each job runs as its owner) ----------------------------------------

    def handlers(self) -> dict[str, Handler]:
        """The assistance job handlers by kind, for the app's assist runner."""
        return {
            EXTRACT_KIND: self._run_extract,
            SUMMARY_KIND: self._run_summary,
            STRATEGY_KIND: self._run_strategy,
        }

    def _await(
        self, ctx: JobContext, coro: Coroutine[object, object, JobResult]
    ) -> JobResult | None:
        return await_call(self._providers, ctx, coro)

    def _run_extract(self, ctx: JobContext) -> JobResult | None:
        p = ctx.params
        draft_id = extract_draft_id(ctx.job.id)
        ea = self._evidence(ctx.job.owner)
        try:
            try:
                return ea.draft(draft_id).to_dict()  # an earlier attempt stored it
            except NotFoundError:
                pass

            async def call() -> JobResult:
                draft = await ea.suggest(
                    str(p["paper_id"]), consent=str(p["consent"]), source=p["source"],
                    section=p.get("section"), key=ctx.job.id, draft_id=draft_id,
                    study=p.get("study"),
                )  # fmt: skip
                return draft.to_dict()

            return self._await(ctx, call())
        finally:
            ea.close()

    def _stored_summary(self, draft_id: str, owner: str) -> JobResult | None:
        with self._store.read() as conn:
            try:
                row = assist_get_draft(conn, draft_id, owner=owner)
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

    def _run_summary(self, ctx: JobContext) -> JobResult | None:
        p = ctx.params
        owner = ctx.job.owner
        draft_id = summary_draft_id(ctx.job.id)
        found = self._stored_summary(draft_id, owner)
        if found is not None:
            return found
        study_id = Workspace(self._store, owner=owner).study(str(p["study_id"])).id  # a member
        assistant = self._assistant()

        async def call() -> JobResult:
            view = await summarise_study(
                assistant, study_id, focus=p["focus"], deselected=list(p.get("deselected") or ()),
                owner=owner, consent=str(p["consent"]), key=ctx.job.id, draft_id=draft_id,
            )  # fmt: skip
            return view.to_dict()

        try:
            return self._await(ctx, call())
        finally:
            assistant.close()

    def _run_strategy(self, ctx: JobContext) -> JobResult | None:
        kept = (ctx.checkpoint or {}).get("result")
        if isinstance(kept, dict):  # an earlier attempt had the answer
            return kept
        p = ctx.params
        assistant = self._assistant()

        async def call() -> JobResult:
            view = await suggest_strategy(
                assistant, str(p["question"]), owner=ctx.job.owner, consent=str(p["consent"]),
                key=ctx.job.id,
            )  # fmt: skip
            return view.to_dict()

        try:
            result = self._await(ctx, call())
        finally:
            assistant.close()
        if result is not None:
            ctx.progress(1, 1, "answered", checkpoint={"result": result})
        return result


def _role(role: str) -> Role:
    return "chat" if role == "chat" else "generation"
