"""PDF reading (pypdfium2): page texts, exclusions, ids, passage boxes."""

from ._reader import (
    MAX_PAGES,
    MAX_PDF_BYTES,
    PdfExcluded,
    PdfText,
    extract,
    file_kind,
    file_sha256,
    open_pdf,
    open_regular,
    passage_boxes,
    read_pages,
    read_pages_digest,
)

__all__ = [
    "MAX_PAGES",
    "MAX_PDF_BYTES",
    "PdfExcluded",
    "PdfText",
    "extract",
    "file_kind",
    "file_sha256",
    "open_pdf",
    "open_regular",
    "passage_boxes",
    "read_pages",
    "read_pages_digest",
]
