"""Synthesis reports over the PDF library: build (gate-checked units) and write (HTML)."""

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
from ._desk import (
    JOB_KIND,
    LAYOUTS,
    BuiltReport,
    ReportDesk,
    ReportNotFound,
    ReportPlan,
    WizardForm,
    report_csp,
)
from ._workflow import ReportRequest, ReportResult, make_report
from ._write import report_html, target_path, write_report

__all__ = [
    "JOB_KIND",
    "LAYOUTS",
    "BuiltReport",
    "DetailMode",
    "ReportCancelled",
    "ReportDesk",
    "ReportNotFound",
    "ReportPlan",
    "UnitProgress",
    "WizardForm",
    "report_csp",
    "ReportInputError",
    "ReportRequest",
    "ReportResult",
    "SummaryMode",
    "SynthesisReport",
    "build_report",
    "make_report",
    "report_html",
    "split_sections",
    "target_path",
    "write_report",
]
