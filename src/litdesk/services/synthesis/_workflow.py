"""``litdesk report`` as one service call: a typed request (scope checked), the report
built over the library and, when asked, written as one HTML file by :func:`write_report`
(the one place that writes it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from litdesk._errors import InputError
from litdesk._settings import Settings
from litdesk.adapters.pdfpages import DEFAULT_DPI
from litdesk.services.library import Library

from ._build import DetailMode, SummaryMode, SynthesisReport, build_report
from ._write import check_target, write_report

__all__ = ["ReportRequest", "ReportResult", "make_report"]


class ReportScopeRefused(InputError):
    default_code = "scope"


@dataclass(frozen=True, slots=True)
class ReportRequest:
    """What to report over which PDFs of the library.

    ``papers`` are exact file names; ``whole_library`` is every PDF (one of the two).
    ``write`` writes the HTML to ``output`` (a file, or a folder for the default name;
    ``None``: the data directory's ``reports`` folder), replacing a file only with ``force``.
    """

    papers: tuple[str, ...] = ()
    whole_library: bool = False
    questions: tuple[str, ...] = ()
    summary: str = "none"
    synthesis: bool = False
    language: str | None = None
    detail_mode: str = "per-paper"
    top_k: int = 8
    write: bool = True
    output: Path | None = None
    force: bool = False
    dpi: int = DEFAULT_DPI

    def __post_init__(self) -> None:
        if self.whole_library and self.papers:
            raise ReportScopeRefused("use either --papers or --all")
        if not self.whole_library and not self.papers:
            raise ReportScopeRefused("choose the papers: --papers A.pdf,B.pdf or --all")


@dataclass(frozen=True, slots=True)
class ReportResult:
    report: SynthesisReport
    path: Path | None

    @property
    def warnings(self) -> list[str]:
        return list(self.report.warnings)

    def to_dict(self) -> dict[str, Any]:
        return self.report.to_dict() | {"path": str(self.path) if self.path else None}


def make_report(settings: Settings, request: ReportRequest, *, library: Library) -> ReportResult:
    """Build the report from the caller's open library (the app's; left open) and write
    it when ``request.write``."""
    if request.write:
        check_target(request.output, force=request.force)  # a wrong -o fails before the build
    report = build_report(
        library,
        papers=list(request.papers) or None,
        questions=list(request.questions),
        summary=cast(SummaryMode, request.summary),
        synthesis=request.synthesis,
        language=request.language,
        detail_mode=cast(DetailMode, request.detail_mode),
        top_k=request.top_k,
    )
    path = None
    if request.write:
        path = write_report(
            report,
            request.output,
            default_dir=settings.resolved_data_dir() / "reports",
            force=request.force,
            dpi=request.dpi,
        )
    return ReportResult(report, path)
