"""Papers from PDFs, offline: a PDF's title, authors, year, venue and identifiers read
from its first pages (see :mod:`litdesk.core.pdfmeta`)."""

from ._service import read_pdf_meta

__all__ = ["read_pdf_meta"]
