"""The one request of the reports area: what to report over which PDFs, built by the CLI
(``litdesk report``) and the web (the wizard's form and JSON) alike, and checked once,
here, for both."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal, cast, get_args

from litdesk.adapters.pdfpages import DEFAULT_DPI
from litdesk.core.library import MAX_TOP_K
from litdesk.core.report import DEFAULT_LABELS, check_label_language

from ._build import MAX_QUESTION_CHARS, MAX_QUESTIONS, DetailMode, ReportInputError, SummaryMode

__all__ = ["LAYOUTS", "Layout", "ReportRequest"]

Layout = Literal["column", "contents", "compare"]
#: how a report over several papers opens in the browser (the wizard's Layout tab)
LAYOUTS: Final = cast(tuple[str, ...], get_args(Layout))
_CHAT_TOKEN: Final = re.compile(r"^[A-Za-z0-9_-]{32,64}$")
_SESSION: Final = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True, slots=True)
class ReportRequest:
    """What to report over which PDFs of the library.

    ``papers`` are exact file names; ``whole_library`` is every PDF; ``study`` (a Study's
    id or name) is the PDFs attached to the Study's papers, for its members (one of the
    three; the area resolves a Study to its file names before anything runs).
    ``questions`` are answered per paper or once across them (``detail_mode``); blank ones
    are dropped. ``chat_token`` (the web: the browser's chat session) reuses that chat's
    answers over the same papers; it is resolved to the session's id when the build is
    queued and never stored.

    For :meth:`ReportsArea.build` (the CLI): ``write`` writes the HTML to ``output`` (a file,
    or a folder for the default name; ``None``: the data directory's ``reports`` folder),
    replacing a file only with ``force``; the web's builds write to their own folder.

    ``labels``: the language of the report page's fixed labels (``en``, ``de``, ``fr``,
    ``es``, or such a language's name; an unknown one is refused listing the known ones),
    apart from ``language``, the prose's. ``chat_only``: no HTML report — the questions are
    asked as rounds of the paper chat over the scope (the web: the browser's chat session,
    ``chat_token``; the CLI: printed as ``litdesk ask`` prints them), which takes no summary
    nor synthesis (those need the report) and no output file.
    """

    papers: tuple[str, ...] = ()
    whole_library: bool = False
    questions: tuple[str, ...] = ()
    summary: SummaryMode = "none"
    synthesis: bool = False
    layout: Layout = "column"
    language: str | None = None
    detail_mode: DetailMode = "per-paper"
    top_k: int = 8
    chat_token: str | None = None
    write: bool = True
    output: Path | None = None
    force: bool = False
    dpi: int = DEFAULT_DPI
    study: str | None = None
    labels: str = DEFAULT_LABELS
    chat_only: bool = False

    def __post_init__(self) -> None:
        study = " ".join((self.study or "").split())[:200] or None
        object.__setattr__(self, "study", study)
        if sum((bool(self.papers), self.whole_library, study is not None)) > 1:
            raise ReportInputError(
                "use either the papers (--papers), a Study (--study) or the whole library "
                "(--all): one of them",
                code="scope",
            )
        if not self.whole_library and not self.papers and study is None:
            raise ReportInputError(
                "choose the papers (--papers A.pdf,B.pdf), a Study (--study NAME) or the "
                "whole library (--all)",
                code="scope",
            )
        if self.summary not in get_args(SummaryMode):
            raise ReportInputError("--summary takes none, bullets or prose", code="summary")
        if self.detail_mode not in get_args(DetailMode):
            raise ReportInputError(
                "--detail-mode takes per-paper, cross-paper or both", code="detail_mode"
            )
        if self.layout not in LAYOUTS:
            raise ReportInputError("layout takes column, contents or compare", code="layout")
        if not 1 <= self.top_k <= MAX_TOP_K:
            raise ReportInputError(f"--top-k must be between 1 and {MAX_TOP_K}", code="top_k")
        asked = [q.strip() for q in self.questions if q.strip()]
        if len(asked) > MAX_QUESTIONS:
            raise ReportInputError(f"at most {MAX_QUESTIONS} questions", code="too_many_questions")
        if any(len(" ".join(q.split())) > MAX_QUESTION_CHARS for q in asked):
            raise ReportInputError(
                f"a question is over {MAX_QUESTION_CHARS} characters", code="question_too_long"
            )
        if self.chat_token is not None and not _CHAT_TOKEN.match(self.chat_token):
            raise ReportInputError("the chat session token is malformed", code="session")
        if self.dpi < 1:
            raise ReportInputError("--dpi must be a positive number", code="dpi")
        object.__setattr__(self, "questions", tuple(asked))
        object.__setattr__(self, "labels", check_label_language(self.labels))
        if self.chat_only:
            self._check_chat_only(asked)
        language = " ".join((self.language or "").split())
        object.__setattr__(self, "language", language or None)

    def _check_chat_only(self, asked: list[str]) -> None:
        needs = [
            what
            for what, chosen in (
                ("a summary", self.summary != "none"),
                ("a synthesis", self.synthesis),
            )
            if chosen
        ]
        if needs:
            raise ReportInputError(
                f"{' and '.join(needs).capitalize()} need{'s' if len(needs) == 1 else ''} the "
                "HTML report: choose “Write the HTML report”, or set Summary to No and leave "
                "Synthesis off to answer in the chat only",
                code="chat_only",
            )
        if not asked:
            raise ReportInputError(
                "answering in the chat only needs at least one question", code="chat_only"
            )
        if self.output is not None:
            raise ReportInputError(
                "answering in the chat only writes no file: leave out -o/--output",
                code="chat_only",
            )

    def to_params(self, chat_session: str | None = None) -> dict[str, object]:
        """The build job's parameters (the chat's session id, never its token)."""
        return {
            "papers": list(self.papers),
            "whole_library": self.whole_library,
            "questions": list(self.questions),
            "summary": self.summary,
            "synthesis": self.synthesis,
            "layout": self.layout,
            "language": self.language,
            "detail_mode": self.detail_mode,
            "top_k": self.top_k,
            "chat_session": chat_session,
            "labels": self.labels,
        }

    @classmethod
    def from_params(cls, p: Mapping[str, object]) -> tuple[ReportRequest, str | None]:
        """The request a build job was queued with, and its chat session id (if any)."""
        session = p.get("chat_session")
        if session is not None and not (isinstance(session, str) and _SESSION.match(session)):
            raise ReportInputError("the chat session id is malformed", code="session")
        language = p.get("language")
        labels = p.get("labels")
        top_k = p.get("top_k", 8)
        request = cls(
            papers=_strings(p.get("papers")),
            whole_library=bool(p.get("whole_library")),
            questions=_strings(p.get("questions")),
            summary=cast(SummaryMode, p.get("summary", "none")),
            synthesis=bool(p.get("synthesis")),
            layout=cast(Layout, p.get("layout", "column")),
            language=language if isinstance(language, str) else None,
            detail_mode=cast(DetailMode, p.get("detail_mode", "per-paper")),
            top_k=top_k if isinstance(top_k, int) else 8,
            labels=labels if isinstance(labels, str) else DEFAULT_LABELS,
        )
        return request, session


def _strings(value: object) -> tuple[str, ...]:
    if not isinstance(value, list | tuple):
        return ()
    return tuple(str(v) for v in value)
