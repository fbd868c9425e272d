"""Papers from PDFs, offline: title, authors, year, venue and identifiers read from the
first pages' layout (font size, position), the PDF's own metadata where sane, and
patterns — each with a confidence and the source "read from the PDF". Pure: no I/O."""

from ._read import normalise_title, read_meta
from ._types import SOURCE, Found, PdfHead, PdfMeta, TextLine

__all__ = ["SOURCE", "Found", "PdfHead", "PdfMeta", "TextLine", "normalise_title", "read_meta"]
