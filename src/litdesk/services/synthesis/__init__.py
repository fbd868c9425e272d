"""Synthesis reports over the PDF library: build (gate-checked units) and write (HTML)."""

from ._build import (
    DetailMode,
    ReportInputError,
    SummaryMode,
    SynthesisReport,
    build_report,
    split_sections,
)
from ._workflow import ReportRequest, ReportResult, make_report
from ._write import report_html, target_path, write_report

__all__ = [
    "DetailMode",
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
