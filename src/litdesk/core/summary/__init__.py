"""Study summary (pure): numbered sources from explicit projections of a Study (limits,
deselection, omissions disclosed), the strict parser that keeps a point only when every
citation names a supplied source and quotes it, and the saved report (re-checked on
read; printable offline HTML)."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._parse import (
        MAX_CITATIONS,
        MAX_POINT_CHARS,
        MAX_POINTS,
        MIN_QUOTE_CHARS,
        SECTIONS,
        SUMMARY_SCHEMA,
        SUMMARY_SYSTEM,
        Citation,
        Point,
        Section,
        SummaryDraft,
        SummaryRefused,
        parse_summary,
    )
    from ._report import REPORT_VERSION, ReportInvalid, StudyReport, read_report, report_html
    from ._sources import (
        EXCLUDED_KINDS,
        FOCUSES,
        MAX_SOURCE_CHARS,
        MAX_SOURCES,
        MAX_TOTAL_CHARS,
        Focus,
        Packet,
        Source,
        SourceKind,
        SummaryInputError,
        check_source_id,
        evidence_source,
        make_packet,
        note_source,
        paper_source,
        run_source,
        study_source,
    )

__all__ = [
    "EXCLUDED_KINDS",
    "FOCUSES",
    "MAX_CITATIONS",
    "MAX_POINTS",
    "MAX_POINT_CHARS",
    "MAX_SOURCES",
    "MAX_SOURCE_CHARS",
    "MAX_TOTAL_CHARS",
    "MIN_QUOTE_CHARS",
    "REPORT_VERSION",
    "SECTIONS",
    "SUMMARY_SCHEMA",
    "SUMMARY_SYSTEM",
    "Citation",
    "Focus",
    "Packet",
    "Point",
    "ReportInvalid",
    "Section",
    "Source",
    "SourceKind",
    "StudyReport",
    "SummaryDraft",
    "SummaryInputError",
    "SummaryRefused",
    "check_source_id",
    "evidence_source",
    "make_packet",
    "note_source",
    "paper_source",
    "parse_summary",
    "read_report",
    "report_html",
    "run_source",
    "study_source",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
