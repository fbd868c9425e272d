"""``app.reports``: synthesis reports over the PDF library, one code path for both faces.

A :class:`ReportRequest` is planned (what will be extractive, what cannot be made), then
built — by the CLI synchronously (:meth:`ReportsArea.build`, written where ``-o`` says) or
by the web as a ``report.build`` job (:meth:`ReportsArea.submit`; the job runs the same
:meth:`ReportsArea._make`) into ``reports/web/<build id>/<date>_synthesis_report_<authors>.html``
(the CLI's file name; the folder keeps builds of one day apart). :func:`write_report` is
the one function that writes the HTML.

The paper chat's answers are reused through :class:`ChatLink`, the little the area needs
from the chat, handed in by the App.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Final, Protocol, TypedDict

from litdesk._errors import InputError, LitdeskError, NotFoundError
from litdesk.adapters.pdfpages import DEFAULT_DPI
from litdesk.adapters.report_html import content_security_policy
from litdesk.core.report import ReportUnit, UnitExcerpt
from litdesk.services.jobs import Handler, JobContext, Jobs, JobView
from litdesk.services.library import Answer, ChatJob, Library, Lookup

from ._build import (
    MAX_QUESTIONS,
    DetailMode,
    ReportCancelled,
    ReportInputError,
    SynthesisReport,
    UnitProgress,
    build_report,
)
from ._requests import ReportRequest
from ._views import (
    BuiltReport,
    ChatAnswers,
    ChatDraft,
    ChatRoundsJob,
    ReportFile,
    ReportJob,
    ReportList,
    ReportPlan,
    ReportResult,
    WizardView,
)
from ._write import check_target, write_report

__all__ = [
    "JOB_KIND",
    "ChatAnswer",
    "ChatCitation",
    "ChatLink",
    "ReportNotFound",
    "ReportsArea",
    "report_csp",
]

#: the background job that builds a report for the web
JOB_KIND: Final = "report.build"
_BUILD_ID: Final = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
_REPORT_GLOB: Final = "*_synthesis_report_*.html"


def report_csp() -> str:
    """The CSP a served report needs: its own (nothing external; its one inline script and
    style by hash), plus no framing."""
    return content_security_policy() + "; frame-ancestors 'none'"


class ReportNotFound(NotFoundError):
    default_code = "report_not_found"


class ReportEmpty(InputError):
    default_code = "empty_report"


class ChatCitation(TypedDict):
    label: int | str
    file: str
    page: int | str
    text: str


class ChatAnswer(TypedDict):
    """A grounded chat answer as the chat keeps it (the keys the report reads)."""

    answer: str
    citations: list[ChatCitation]
    extractive: bool
    warnings: list[str]


class ChatLink(Protocol):
    """What the reports area needs from the paper chat (``owner``: whose chat; in team
    mode the signed-in account's)."""

    def session_id(self, token: str, *, owner: str) -> str:
        """The chat session's id (its name on disk) for a browser's token."""
        ...

    def draft(self, token: str, *, owner: str) -> ChatDraft:
        """The session's scope and questions, to prefill the wizard."""
        ...

    def answers(
        self, session_id: str, papers: Sequence[str], *, whole_library: bool
    ) -> Mapping[str, ChatAnswer]:
        """The session's latest grounded answer per question asked over exactly
        ``papers`` (or the whole library)."""
        ...

    def ask_rounds(
        self,
        token: str,
        questions: Sequence[str],
        papers: Sequence[str],
        *,
        whole_library: bool,
        owner: str,
        study: str | None = None,
    ) -> ChatJob:
        """Queue ``questions`` as rounds of the chat session ``token`` over ``papers`` (or
        the whole library), which becomes the session's scope (one chat job; refused while
        a question of the session is in flight); ``study`` (id or name): ``papers`` are its
        PDFs, and the chat names it."""
        ...


class StudyPdfs(Protocol):
    """The Study's name and the library PDFs attached to its papers (members only)."""

    def __call__(self, study: str, *, owner: str) -> tuple[str, tuple[str, ...]]: ...


class ReportsArea:
    """Plan, build (CLI: now; web: as a job) and serve reports over the app's library."""

    def __init__(
        self,
        pdfs: Library,
        jobs: Jobs,
        *,
        chat: ChatLink | None = None,
        study_pdfs: StudyPdfs | None = None,
        lookup: Callable[[str], Lookup] | None = None,
    ) -> None:
        """``lookup(owner)``: the adoption lookup through the app's transport in
        ``owner``'s allowance (refused when the app has no event loop: then no lookup)."""
        self.pdfs = pdfs
        self.jobs = jobs
        self.chat = chat
        self._study_pdfs = study_pdfs
        self._lookup = lookup
        #: the CLI's default folder, and the web's builds under it
        self.folder = pdfs.data_dir / "reports"
        self.web_folder = self.folder / "web"
        self._lock = threading.Lock()  # one build at a time per library (its caches)

    # --- use cases ------------------------------------------------------------------------
    def scoped(self, request: ReportRequest, *, owner: str) -> ReportRequest:
        """``request`` with a Study scope resolved to the PDFs attached to its papers (a
        Study ``owner`` is not a member of is not found)."""
        if request.study is None:
            return request
        if self._study_pdfs is None:
            raise ReportInputError("a Study scope needs the PDF library", code="scope")
        _name, names = self._study_pdfs(request.study, owner=owner)
        return replace(request, papers=names, study=None)

    def plan(self, request: ReportRequest, *, owner: str) -> ReportPlan:
        """What will be extractive and what cannot be made, before anything runs (unknown
        papers are refused with the library's real list)."""
        request = self.scoped(request, owner=owner)
        names = self.pdfs.corpus().select(list(request.papers) or None)
        backend = self.pdfs.backend()
        n = len(names)
        qs = request.questions
        extractive: list[str] = []
        not_made: list[str] = []
        notes: list[str] = []
        if not backend.is_model:
            if qs:
                extractive.append(
                    "the answers to the questions (the best sentences of the excerpts)"
                )
            if request.summary != "none":
                extractive.append("the summaries (extracts along the six facets)")
        if request.synthesis and n < 2:
            not_made.append("the synthesis: it needs two or more papers")
        elif request.synthesis and not backend.is_model:
            not_made.append(
                "the synthesis: it needs a model (set LITDESK_LLM_BACKEND and a chat model)"
            )
        if request.chat_only:
            what = f"{len(qs)} question{'' if len(qs) == 1 else 's'}"
            notes.append(
                f"answered in the chat only: the {what} become rounds of your paper chat over "
                "these papers, one after the other; no HTML report is written"
            )
            return ReportPlan(
                backend.model if backend.is_model else None, n, len(qs), tuple(extractive),
                (), tuple(notes),
            )  # fmt: skip
        if not qs and request.summary == "none" and not (request.synthesis and n >= 2):
            notes.append("nothing to report yet: add a question, a summary or a synthesis")
        cross = request.detail_mode in ("cross-paper", "both") or n == 1
        each = request.detail_mode in ("per-paper", "both") and n > 1
        units = len(qs) * (int(cross) + (n if each else 0))
        units += 6 * n if request.summary != "none" else 0
        units += int(request.synthesis and n >= 2 and backend.is_model)
        return ReportPlan(
            backend.model if backend.is_model else None, n, units, tuple(extractive),
            tuple(not_made), tuple(notes),
        )  # fmt: skip

    def wizard(self, chat_token: str, *, owner: str) -> WizardView:
        """The wizard prefilled from ``owner``'s chat session ``chat_token`` (its scope and
        questions) with the plan of those choices."""
        draft = (
            self.chat.draft(chat_token, owner=owner)
            if self.chat is not None
            else ChatDraft((), True, (), False)
        )
        several = draft.whole_library or len(draft.papers) > 1
        # the chat answered each question once across its scope: so does the report, which
        # then reuses those answers
        detail: DetailMode = "cross-paper" if draft.answered and several else "per-paper"
        library = tuple(self.pdfs.corpus().names())
        plan = None
        if library:
            request = ReportRequest(
                () if draft.whole_library else draft.papers,
                draft.whole_library,
                draft.questions[:MAX_QUESTIONS],
                detail_mode=detail,
            )
            plan = self.plan(request, owner=owner)
        return WizardView(draft, detail, library, plan)

    def submit(self, request: ReportRequest, *, owner: str) -> ReportJob:
        """Check the choices (unknown papers are refused with the real list; an empty
        report is refused) and queue the build as a ``report.build`` job of ``owner``."""
        if request.chat_only:
            raise ReportInputError(
                "answering in the chat only is queued as chat rounds, not as a report build",
                code="chat_only",
            )
        plan = self.plan(request, owner=owner)
        if plan.units == 0:
            raise ReportEmpty(
                "nothing to report: add a question, a summary or (with a model and two or "
                "more papers) a synthesis"
            )
        request = self.scoped(request, owner=owner)
        session = None
        if request.chat_token is not None and self.chat is not None:
            session = self.chat.session_id(request.chat_token, owner=owner)
        return ReportJob(self.jobs.submit(JOB_KIND, request.to_params(session), owner=owner))

    def submit_chat(self, request: ReportRequest, *, owner: str) -> ChatRoundsJob:
        """The wizard's "answer in the chat only" (the web): the questions queued as rounds
        of the browser's paper chat (``request.chat_token``) over the report's scope, which
        becomes the chat's; one chat job, its model calls in ``owner``'s paper-chat
        allowance and its queue caps (:class:`~litdesk.services.library.ChatBusy` while a
        question of the chat is in flight). No HTML file is built."""
        if not request.chat_only:
            raise ReportInputError("this request writes the HTML report", code="chat_only")
        if self.chat is None or request.chat_token is None:
            raise ReportInputError(
                "answering in the chat needs this browser's paper chat", code="session"
            )
        token, study = request.chat_token, request.study
        request = self.scoped(request, owner=owner)
        job = self.chat.ask_rounds(
            token, request.questions,
            () if request.whole_library else request.papers,
            whole_library=request.whole_library, owner=owner, study=study,
        )  # fmt: skip
        return ChatRoundsJob(job)

    def answer(self, request: ReportRequest, *, owner: str) -> ChatAnswers:
        """``litdesk report --chat-only``: each question answered now over the scope as
        ``litdesk ask`` answers it (grounded, page-exact citations, the protocol entry; the
        model calls in ``owner``'s paper-chat allowance), no HTML file. A refused question
        stops there: the answers so far are returned with the questions not asked."""
        if not request.chat_only:
            raise ReportInputError("this request writes the HTML report", code="chat_only")
        request = self.scoped(request, owner=owner)
        papers = list(request.papers) or None
        self.pdfs.corpus().select(papers)  # unknown papers refused before any question
        answers: list[Answer] = []
        for i, question in enumerate(request.questions):
            try:
                answers.append(
                    self.pdfs.ask(question, papers=papers, top_k=request.top_k, owner=owner)
                )
            except LitdeskError as exc:
                if not answers:
                    raise
                return ChatAnswers(tuple(answers), request.questions[i:], exc.to_dict())
        return ChatAnswers(tuple(answers))

    def build(self, request: ReportRequest, *, owner: str) -> ReportResult:
        """Build the report now (the CLI) — the same build a job runs — and write it when
        ``request.write`` (a wrong ``output`` is refused before the build)."""
        if request.chat_only:
            raise ReportInputError(
                "answering in the chat only builds no report (the CLI: ReportsArea.answer)",
                code="chat_only",
            )
        if request.write:
            check_target(request.output, force=request.force)
        request = self.scoped(request, owner=owner)
        report = self._make(request, owner=owner)
        path = None
        if request.write:
            path = write_report(
                report, request.output, default_dir=self.folder, force=request.force,
                dpi=request.dpi, labels=request.labels,
            )  # fmt: skip
        return ReportResult(report, path)

    def job(self, job_id: str, *, owner: str) -> ReportJob:
        """The build job ``job_id`` of ``owner`` (another kind's job is not found)."""
        return ReportJob(self._job(job_id, owner=owner))

    def cancel(self, job_id: str, *, owner: str) -> ReportJob:
        self._job(job_id, owner=owner)
        return ReportJob(self.jobs.cancel(job_id, owner=owner))

    def report(self, build_id: str, *, owner: str) -> ReportFile:
        """The built report's file and its (CLI) file name; only its owner's build."""
        folder = self._folder(build_id)
        try:
            self._job(build_id, owner=owner)
        except NotFoundError:
            raise ReportNotFound("no such report") from None
        path = self._find(folder)
        if path is None:
            raise ReportNotFound("no such report (not built, or not finished)")
        return ReportFile(build_id, path, path.name)

    def reports(self, *, owner: str) -> ReportList:
        """``owner``'s reports built as jobs, newest first."""
        built: dict[str, str] = {}  # build id -> its HTML file's name (one listing)
        self.catch_up()
        for rel in self.pdfs.shelf.tree(self.web_folder):
            build, _, file = rel.partition("/")
            if "/" not in file and Path(file).match(_REPORT_GLOB):
                built.setdefault(build, file)
        out = []
        for job in self.jobs.list(owner=owner, kinds=[JOB_KIND], limit=200):
            name = built.get(job.id) if job.status == "done" else None
            if name is not None:
                path = self.web_folder / job.id / name
                out.append(BuiltReport(job.id, name, path, (), "column"))
        return ReportList(tuple(out))

    # --- the job ------------------------------------------------------------------------
    def handlers(self) -> dict[str, Handler]:
        """The job handlers this area runs (the App registers them)."""
        return {JOB_KIND: self.run_job}

    def run_job(self, ctx: JobContext) -> dict[str, object] | None:
        """The ``report.build`` handler: the build id is the job's id, so a job claimed
        again after its worker died finds a finished file or builds it anew."""
        request, session = ReportRequest.from_params(ctx.params)
        units = [0]

        def progress(done: int, total: int, current: str | None) -> bool:
            units[0] = total + 1  # the last unit: writing the HTML file
            return ctx.progress(done, total + 1, current or "writing the HTML file")

        try:
            built = self.build_job(
                ctx.job.id, request, chat_session=session, progress=progress, owner=ctx.job.owner
            )
        except ReportCancelled:  # a cancel, or the server stopping: the runner records which
            return None
        if units[0]:
            ctx.progress(units[0], units[0], None, message="the report is written")
        return built.to_dict()

    def build_job(
        self,
        build_id: str,
        request: ReportRequest,
        *,
        owner: str,
        chat_session: str | None = None,
        progress: UnitProgress | None = None,
    ) -> BuiltReport:
        """The job's build, written to its folder (idempotent per ``build_id``: a finished
        build is returned as it is, an unfinished one starts again); its model calls count
        against ``owner``'s report-build allowance."""
        folder = self._folder(build_id)
        done = self._find(folder)
        if done is not None:
            return BuiltReport(build_id, done.name, done, (), request.layout)
        report = self._make(request, owner=owner, chat_session=chat_session, progress=progress)
        folder.mkdir(parents=True, exist_ok=True)
        path = write_report(
            report, folder, default_dir=folder, force=True, dpi=DEFAULT_DPI, links="workspace",
            labels=request.labels,
        )  # fmt: skip
        self.pdfs.shelf.publish(path)  # for every host (a shared object store)
        return BuiltReport(build_id, path.name, path, tuple(report.warnings), request.layout)

    # --- the one build ------------------------------------------------------------------
    def _make(
        self,
        request: ReportRequest,
        *,
        owner: str,
        chat_session: str | None = None,
        progress: UnitProgress | None = None,
    ) -> SynthesisReport:
        reuse = self._chat_answers(request, chat_session)
        with self._lock:
            adoption = self._adopt(request, owner)
            report = build_report(
                self.pdfs,
                papers=list(request.papers) or None,
                questions=list(request.questions),
                summary=request.summary,
                synthesis=request.synthesis,
                language=request.language,
                detail_mode=request.detail_mode,
                top_k=request.top_k,
                progress=progress,
                reuse=reuse,
                owner=owner,
            )
        report.warnings.extend(adoption)
        return report

    def _adopt(self, request: ReportRequest, owner: str) -> list[str]:
        """Adoption tried for the scope's PDFs without metadata (disclosed in the report)."""
        if self._lookup is None:
            return []
        try:
            lookup = self._lookup(owner)
        except LitdeskError:
            return []  # no event loop here (the CLI's store-only app): nothing is looked up
        return self.pdfs.adopt_scope(list(request.papers) or None, lookup)

    def _chat_answers(
        self, request: ReportRequest, chat_session: str | None
    ) -> dict[str, ReportUnit]:
        """The chat's answers over exactly the report's papers, as report units."""
        if self.chat is None or not chat_session:
            return {}
        names = [f.name for f in self.pdfs.corpus().select(list(request.papers) or None)]
        found = self.chat.answers(chat_session, names, whole_library=request.whole_library)
        out: dict[str, ReportUnit] = {}
        for question, data in found.items():
            excerpts = tuple(
                UnitExcerpt(int(c["label"]), c["file"], int(c["page"]), c["text"], int(c["label"]))
                for c in data["citations"]
            )
            out[" ".join(question.split())] = ReportUnit(
                "question", question, data["answer"], excerpts, None, None, True,
                bool(data.get("extractive")), tuple(data["warnings"]),
            )  # fmt: skip
        return out

    def _job(self, job_id: str, *, owner: str) -> JobView:
        view = self.jobs.get(job_id, owner=owner)
        if view.kind != JOB_KIND:
            raise ReportNotFound("no such report build")
        return view

    def catch_up(self) -> None:
        """Store the builds kept here before the object store was shared (once per
        process: at the server's start, else before the first build is listed or read)."""
        self.pdfs.shelf.catch_up(self.web_folder)

    def _folder(self, build_id: str) -> Path:
        if not _BUILD_ID.match(build_id):
            raise ReportNotFound("no such report")
        self.catch_up()
        return self.web_folder / build_id

    def _find(self, folder: Path) -> Path | None:
        """The build's HTML file in ``folder`` (with a shared object store: the store's,
        fetched here when another host built it)."""
        found = self.pdfs.shelf.names(folder, _REPORT_GLOB)
        if not found:
            return None
        path = folder / found[0]
        return path if self.pdfs.shelf.fetch(path) else None
