"""Study summary use cases: the numbered sources of a Study, the consent notice, one
guarded model call giving a verified draft, and reviewed drafts saved as Study reports."""

from ._packet import study_packet
from ._summary import (
    DRAFT_FEATURE,
    FEATURE,
    REPORT_FEATURE,
    ReportListing,
    SummaryView,
    report_file,
    save_report,
    study_reports,
    summarise_study,
    summary_call,
    summary_notice,
)

__all__ = [
    "DRAFT_FEATURE",
    "FEATURE",
    "REPORT_FEATURE",
    "ReportListing",
    "SummaryView",
    "report_file",
    "save_report",
    "study_packet",
    "study_reports",
    "summarise_study",
    "summary_call",
    "summary_notice",
]
