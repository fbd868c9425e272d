"""What the reports area's use cases return: typed, frozen, each with a JSON-ready
``to_dict()`` for both faces."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from litdesk.core.report import DEFAULT_LABELS, label_language_names
from litdesk.services.jobs import JobView
from litdesk.services.library import Answer, ChatJob

from ._build import SynthesisReport

__all__ = [
    "BuiltReport",
    "ChatAnswers",
    "ChatDraft",
    "ChatRoundsJob",
    "ReportFile",
    "ReportJob",
    "ReportList",
    "ReportPlan",
    "ReportResult",
    "WizardView",
]


@dataclass(frozen=True, slots=True)
class ReportPlan:
    """What a build will make, said before it runs."""

    model: str | None
    papers: int
    units: int
    extractive: tuple[str, ...]
    not_made: tuple[str, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, object]:
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
    """A report built by a ``report.build`` job: where it is and what it is called."""

    build_id: str
    file_name: str
    path: Path
    warnings: tuple[str, ...]
    layout: str

    def to_dict(self) -> dict[str, object]:
        return {
            "build_id": self.build_id,
            "file_name": self.file_name,
            "open": f"/reports/view/{self.build_id}",
            "download": f"/reports/download/{self.build_id}",
            "warnings": list(self.warnings),
            "layout": self.layout,
        }


@dataclass(frozen=True, slots=True)
class ReportList:
    """An owner's built reports, newest first."""

    reports: tuple[BuiltReport, ...]

    def to_dict(self) -> dict[str, object]:
        return {"reports": [r.to_dict() for r in self.reports]}


@dataclass(frozen=True, slots=True)
class ReportFile:
    """A built report's file and the name it is downloaded under (the CLI's)."""

    build_id: str
    path: Path
    file_name: str

    def html(self) -> str:
        return self.path.read_text(encoding="utf-8")

    def to_dict(self) -> dict[str, object]:
        return {"build_id": self.build_id, "file_name": self.file_name}


@dataclass(frozen=True, slots=True)
class ReportJob:
    """A ``report.build`` job and the page that watches it."""

    job: JobView

    @property
    def id(self) -> str:
        return self.job.id

    def to_dict(self) -> dict[str, object]:
        return {**self.job.to_dict(), "page": f"/reports/job/{self.job.id}"}


@dataclass(frozen=True, slots=True)
class ReportResult:
    """A report built synchronously (the CLI) and the file it was written to, if any."""

    report: SynthesisReport
    path: Path | None

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(self.report.warnings)

    def to_dict(self) -> dict[str, object]:
        return {**self.report.to_dict(), "path": str(self.path) if self.path else None}


@dataclass(frozen=True, slots=True)
class ChatDraft:
    """What the wizard takes from a browser's paper chat: its scope, the questions asked
    (oldest first) and whether any was answered."""

    papers: tuple[str, ...]
    whole_library: bool
    questions: tuple[str, ...]
    answered: bool


@dataclass(frozen=True, slots=True)
class WizardView:
    """The wizard prefilled from the chat (its scope and questions; the defaults for the
    rest), the library's PDFs and the plan of those choices (``None`` while the library
    is empty)."""

    draft: ChatDraft
    detail_mode: str
    library: tuple[str, ...]
    plan: ReportPlan | None

    def to_dict(self) -> dict[str, object]:
        d = self.draft
        return {
            "form": {
                "papers": [] if d.whole_library else list(d.papers),
                "whole_library": d.whole_library,
                "questions": list(d.questions),
                "summary": "none",
                "synthesis": False,
                "layout": "column",
                "language": None,
                "detail_mode": self.detail_mode,
                "labels": DEFAULT_LABELS,
                "output": "html",
            },
            "label_languages": label_language_names(),
            "library": list(self.library),
            "plan": self.plan.to_dict() if self.plan is not None else None,
            "from_chat": d.answered,
        }


@dataclass(frozen=True, slots=True)
class ChatRoundsJob:
    """The wizard's "answer in the chat only" (the web): the questions queued as rounds of
    the browser's paper chat (one chat job), and the chat page that shows them."""

    job: ChatJob

    @property
    def id(self) -> str:
        return self.job.id

    def to_dict(self) -> dict[str, object]:
        return {**self.job.to_dict(), "output": "chat", "page": "/chat"}


@dataclass(frozen=True, slots=True)
class ChatAnswers:
    """``litdesk report --chat-only``: each question's grounded answer, as ``litdesk ask``
    gives it (each also in the protocol); ``unanswered`` and ``stopped`` (the refusal, as
    the error's JSON) when a question was refused and the rest were not asked."""

    answers: tuple[Answer, ...]
    unanswered: tuple[str, ...] = ()
    stopped: dict[str, object] | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "output": "chat",
            "answers": [a.to_dict() for a in self.answers],
            "unanswered": list(self.unanswered),
            "stopped": self.stopped,
        }
