"""The report wizard's use cases for the web face: what a build will make (before it runs),
the build itself as a resumable unit of work with progress per unit, and the built
reports (the same self-contained HTML file the CLI writes, under the data directory).

A web build writes to ``reports/web/<build id>/<date>_synthesis_report_<authors>.html``:
the file name is the CLI's, the folder keeps builds of one day apart.
"""

from __future__ import annotations

import re
import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from litdesk._errors import InputError, NotFoundError
from litdesk.adapters.pdfpages import DEFAULT_DPI
from litdesk.adapters.report_html import content_security_policy
from litdesk.adapters.store import LOCAL_OWNER
from litdesk.core.report import ReportUnit, UnitExcerpt
from litdesk.services.jobs import JobContext, Jobs, JobView
from litdesk.services.library import ChatService, Library

from ._build import ReportCancelled, UnitProgress, build_report
from ._write import write_report

__all__ = [
    "JOB_KIND",
    "LAYOUTS",
    "BuiltReport",
    "ReportDesk",
    "ReportNotFound",
    "ReportPlan",
    "WizardForm",
    "report_csp",
]

LAYOUTS: Final = ("column", "contents", "compare")
#: the background job that builds a wizard's report
JOB_KIND: Final = "report.build"
_BUILD_ID: Final = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


def report_csp() -> str:
    """The CSP a served report needs: its own (nothing external; its one inline script and
    style by hash), plus no framing."""
    return content_security_policy() + "; frame-ancestors 'none'"


class ReportNotFound(NotFoundError):
    default_code = "report_not_found"


class WizardInputError(InputError):
    default_code = "wizard"


@dataclass(frozen=True, slots=True)
class WizardForm:
    """The wizard's tabs: Documents, Questions, Summary, Synthesis, Layout, Language."""

    papers: tuple[str, ...] = ()
    whole_library: bool = False
    questions: tuple[str, ...] = ()
    summary: Literal["none", "bullets", "prose"] = "none"
    synthesis: bool = False
    layout: str = "column"
    language: str | None = None
    detail_mode: Literal["per-paper", "cross-paper"] = "per-paper"
    #: the paper chat whose answers the report reuses (its session id, not its token)
    chat_session: str | None = None

    def __post_init__(self) -> None:
        if self.whole_library and self.papers:
            raise WizardInputError("choose papers or the whole library, not both", code="scope")
        if not self.whole_library and not self.papers:
            raise WizardInputError("choose the papers (or the whole library)", code="scope")
        if self.layout not in LAYOUTS:
            raise WizardInputError("layout takes column, contents or compare", code="layout")

    def to_params(self) -> dict[str, Any]:
        return {
            "papers": list(self.papers),
            "whole_library": self.whole_library,
            "questions": list(self.questions),
            "summary": self.summary,
            "synthesis": self.synthesis,
            "layout": self.layout,
            "language": self.language,
            "detail_mode": self.detail_mode,
            "chat_session": self.chat_session,
        }

    @classmethod
    def from_params(cls, p: dict[str, Any]) -> WizardForm:
        return cls(
            tuple(p.get("papers") or ()), bool(p.get("whole_library")),
            tuple(p.get("questions") or ()), p.get("summary", "none"),
            bool(p.get("synthesis")), p.get("layout", "column"), p.get("language"),
            p.get("detail_mode", "per-paper"), p.get("chat_session"),
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class ReportPlan:
    """What a build will make, said before it runs."""

    model: str | None
    papers: int
    units: int
    extractive: tuple[str, ...]
    not_made: tuple[str, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model or "none (extractive)",
            "papers": self.papers,
            "units": self.units,
            "extractive": list(self.extractive),
            "not_made": list(self.not_made),
            "notes": list(self.notes),
        }


@dataclass(frozen=True, slots=True)
class BuiltReport:
    """A report built from the wizard: where it is and what it is called."""

    build_id: str
    file_name: str
    path: Path
    warnings: tuple[str, ...]
    layout: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "build_id": self.build_id,
            "file_name": self.file_name,
            "open": f"/reports/view/{self.build_id}",
            "download": f"/reports/download/{self.build_id}",
            "warnings": list(self.warnings),
            "layout": self.layout,
        }


class ReportDesk:
    """Plan, build and serve the wizard's reports over ``library``."""

    def __init__(self, library: Library, jobs: Jobs, chat: ChatService | None = None) -> None:
        self.library = library
        self.jobs = jobs
        self.chat = chat
        self.folder = library.data_dir / "reports" / "web"
        self._lock = threading.Lock()  # one build at a time per library (its caches)

    def plan(self, form: WizardForm) -> ReportPlan:
        """What will be extractive and what cannot be made, before anything runs."""
        names = self.library.corpus().select(list(form.papers) or None)
        backend = self.library.backend()
        n = len(names)
        qs = [q for q in form.questions if q.strip()]
        extractive: list[str] = []
        not_made: list[str] = []
        notes: list[str] = []
        if not backend.is_model:
            if qs:
                extractive.append(
                    "the answers to the questions (the best sentences of the excerpts)"
                )
            if form.summary != "none":
                extractive.append("the summaries (extracts along the six facets)")
        if form.synthesis and n < 2:
            not_made.append("the synthesis: it needs two or more papers")
        elif form.synthesis and not backend.is_model:
            not_made.append(
                "the synthesis: it needs a model (set LITDESK_LLM_BACKEND and a chat model)"
            )
        if not qs and form.summary == "none" and not (form.synthesis and n >= 2):
            notes.append("nothing to report yet: add a question, a summary or a synthesis")
        cross = form.detail_mode == "cross-paper" or n == 1
        units = len(qs) * (1 if cross else n) + (6 * n if form.summary != "none" else 0)
        units += int(form.synthesis and n >= 2 and backend.is_model)
        return ReportPlan(
            backend.model if backend.is_model else None, n, units, tuple(extractive),
            tuple(not_made), tuple(notes),
        )  # fmt: skip

    # --- the build as a background job ------------------------------------------------
    def submit(self, form: WizardForm, *, owner: str) -> JobView:
        """Check the choices (unknown papers are refused with the real list; an empty
        report is refused) and queue the build as a ``report.build`` job."""
        plan = self.plan(form)
        if plan.units == 0:
            raise WizardInputError(
                "nothing to report: add a question, a summary or (with a model and two or "
                "more papers) a synthesis",
                code="empty_report",
            )
        return self.jobs.submit(JOB_KIND, form.to_params(), owner=owner)

    def job(self, job_id: str, *, owner: str) -> JobView:
        """The build job ``job_id`` of ``owner`` (another kind's job is not found)."""
        view = self.jobs.get(job_id, owner=owner)
        if view.kind != JOB_KIND:
            raise ReportNotFound("no such report build")
        return view

    def cancel(self, job_id: str, *, owner: str) -> JobView:
        self.job(job_id, owner=owner)
        return self.jobs.cancel(job_id, owner=owner)

    def run_job(self, ctx: JobContext) -> dict[str, Any] | None:
        """The ``report.build`` handler: the build id is the job's id, so a job claimed
        again after its worker died finds a finished file or builds it anew."""
        form = WizardForm.from_params(ctx.params)
        units = [0]

        def progress(done: int, total: int, current: str | None) -> bool:
            units[0] = total + 1  # the last unit: writing the HTML file
            return ctx.progress(done, total + 1, current or "writing the HTML file")

        try:
            built = self.build(ctx.job.id, form, progress=progress, owner=ctx.job.owner)
        except ReportCancelled:  # a cancel, or the server stopping: the runner records which
            return None
        if units[0]:
            ctx.progress(units[0], units[0], None, message="the report is written")
        return built.to_dict()

    def new_build_id(self) -> str:
        return secrets.token_urlsafe(18)

    def build(
        self,
        build_id: str,
        form: WizardForm,
        *,
        progress: UnitProgress | None = None,
        owner: str = LOCAL_OWNER,
    ) -> BuiltReport:
        """Build and write the report (idempotent per ``build_id``: a finished build is
        returned as it is, an unfinished one starts again); its model calls count against
        ``owner``'s report-build allowance."""
        folder = self._folder(build_id)
        done = self._find(folder)
        if done is not None:
            return BuiltReport(build_id, done.name, done, (), form.layout)
        reuse = self._chat_answers(form)
        with self._lock:
            report = build_report(
                self.library,
                papers=list(form.papers) or None,
                questions=list(form.questions),
                summary=form.summary,
                synthesis=form.synthesis,
                language=form.language,
                detail_mode=form.detail_mode,
                progress=progress,
                reuse=reuse,
                owner=owner,
            )
            folder.mkdir(parents=True, exist_ok=True)
            path = write_report(report, folder, default_dir=folder, force=True, dpi=DEFAULT_DPI)
        return BuiltReport(build_id, path.name, path, tuple(report.warnings), form.layout)

    def _chat_answers(self, form: WizardForm) -> dict[str, ReportUnit]:
        """The chat's answers over exactly the report's papers, as report units."""
        if self.chat is None or not form.chat_session:
            return {}
        names = [f.name for f in self.library.corpus().select(list(form.papers) or None)]
        found = self.chat.answers_for(form.chat_session, names, whole_library=form.whole_library)
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

    def _folder(self, build_id: str) -> Path:
        if not _BUILD_ID.match(build_id):
            raise ReportNotFound("no such report")
        return self.folder / build_id

    @staticmethod
    def _find(folder: Path) -> Path | None:
        if not folder.is_dir():
            return None
        found = sorted(p for p in folder.glob("*_synthesis_report_*.html") if p.is_file())
        return found[0] if found else None

    def report(self, build_id: str, *, owner: str) -> tuple[Path, str]:
        """The built report's file and its (CLI) file name; only its owner's build."""
        folder = self._folder(build_id)
        try:
            self.job(build_id, owner=owner)
        except NotFoundError:
            raise ReportNotFound("no such report") from None
        path = self._find(folder)
        if path is None:
            raise ReportNotFound("no such report (not built, or not finished)")
        return path, path.name

    def reports(self, *, owner: str) -> list[dict[str, Any]]:
        """``owner``'s reports built from the wizard, newest first."""
        out = []
        for job in self.jobs.list(owner=owner, kinds=[JOB_KIND], limit=200):
            path = self._find(self.folder / job.id) if job.status == "done" else None
            if path is not None:
                out.append(BuiltReport(job.id, path.name, path, (), "column").to_dict())
        return out
