"""Synthesis reports over the PDF library: the reports area (``app.reports``: plan, build
now or as a job, the built reports), the build (gate-checked units) and the HTML writer."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._area import (
        JOB_KIND,
        ChatAnswer,
        ChatCitation,
        ChatLink,
        ReportNotFound,
        ReportsArea,
        report_csp,
    )
    from ._build import (
        DetailMode,
        ReportCancelled,
        ReportInputError,
        SummaryMode,
        SynthesisReport,
        UnitProgress,
        build_report,
        split_sections,
    )
    from ._chat_link import ChatServiceLink
    from ._requests import LAYOUTS, Layout, ReportRequest
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
    from ._write import report_html, target_path, write_report

__all__ = [
    "JOB_KIND",
    "LAYOUTS",
    "BuiltReport",
    "ChatAnswer",
    "ChatAnswers",
    "ChatCitation",
    "ChatDraft",
    "ChatRoundsJob",
    "ChatLink",
    "ChatServiceLink",
    "DetailMode",
    "Layout",
    "ReportCancelled",
    "ReportFile",
    "ReportInputError",
    "ReportJob",
    "ReportList",
    "ReportNotFound",
    "ReportPlan",
    "ReportRequest",
    "ReportResult",
    "ReportsArea",
    "SummaryMode",
    "SynthesisReport",
    "UnitProgress",
    "WizardView",
    "build_report",
    "report_csp",
    "report_html",
    "split_sections",
    "target_path",
    "write_report",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
