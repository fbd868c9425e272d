"""Papers from PDFs, offline: title, authors, year, venue and identifiers read from the
first pages' layout (font size, position), the PDF's own metadata where sane, and
patterns — each with a confidence and the source "read from the PDF"; and which library
PDF is a paper's (by identifier, or a verified title). Pure: no I/O."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._match import (
        DOUBT_PREFIX,
        MIN_TITLE_WORDS,
        MatchHow,
        PdfFacts,
        PdfMatch,
        attach_doubt,
        find_pubmed_ids,
        link_doubt,
        match_paper,
        surname,
    )
    from ._read import normalise_title, read_meta
    from ._types import SOURCE, Found, PdfHead, PdfMeta, TextLine

__all__ = [
    "DOUBT_PREFIX",
    "MIN_TITLE_WORDS",
    "SOURCE",
    "Found",
    "MatchHow",
    "PdfFacts",
    "PdfHead",
    "PdfMatch",
    "attach_doubt",
    "PdfMeta",
    "TextLine",
    "find_pubmed_ids",
    "link_doubt",
    "match_paper",
    "normalise_title",
    "read_meta",
    "surname",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
