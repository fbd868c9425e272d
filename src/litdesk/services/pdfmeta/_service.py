"""Read one PDF's description from its first pages, without a network."""

from __future__ import annotations

from pathlib import Path

from litdesk.adapters.pdfhead import read_head
from litdesk.core.pdfmeta import PdfMeta, read_meta

__all__ = ["read_pdf_meta"]


def read_pdf_meta(path: Path) -> PdfMeta:
    """Title, authors, year, venue, DOI and arXiv id of the PDF at ``path``, each with a
    confidence and marked "read from the PDF".

    Raises :class:`~litdesk.InputError` (``PdfExcluded``: encrypted, broken, not a
    regular file, too large, unreadable) when the file cannot be read as a PDF.
    """
    return read_meta(read_head(path))
