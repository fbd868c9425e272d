"""Papers from PDFs, offline: a PDF's title, authors, year, venue and identifiers read
from its first pages (see :mod:`litdesk.core.pdfmeta`)."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._service import read_pdf_meta

__all__ = ["read_pdf_meta"]

__getattr__ = lazy_exports(__name__, __file__, globals())
