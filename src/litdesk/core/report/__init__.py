"""Synthesis reports (pure): the report model, citation labels and the file name rule."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._labels import (
        DEFAULT_LABELS,
        LABEL_LANGUAGES,
        UnknownLabelLanguage,
        check_label_language,
        label_language_names,
        report_labels,
    )
    from ._matter import (
        MATTER_SHARE,
        SeenSentences,
        body_text,
        matter_kind,
        mostly_matter,
        sentences,
    )
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
    "DEFAULT_LABELS",
    "LABEL_LANGUAGES",
    "UnknownLabelLanguage",
    "check_label_language",
    "label_language_names",
    "report_labels",
    "MATTER_SHARE",
    "SeenSentences",
    "body_text",
    "matter_kind",
    "mostly_matter",
    "sentences",
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

__getattr__ = lazy_exports(__name__, __file__, globals())
