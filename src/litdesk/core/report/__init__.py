"""Synthesis reports (pure): the report model, citation labels and the file name rule."""

from ._model import (
    FACET_QUERIES,
    FACETS,
    SYNTHESIS_SECTIONS,
    CitedPassage,
    LabelledReport,
    Part,
    ReportPaper,
    ReportUnit,
    UnitExcerpt,
    assign_labels,
    label_sort_key,
    report_file_name,
    surname,
)

__all__ = [
    "FACETS",
    "FACET_QUERIES",
    "SYNTHESIS_SECTIONS",
    "CitedPassage",
    "LabelledReport",
    "Part",
    "ReportPaper",
    "ReportUnit",
    "UnitExcerpt",
    "assign_labels",
    "label_sort_key",
    "report_file_name",
    "surname",
]
