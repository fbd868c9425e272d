"""PDF text with pypdfium2: page texts, exclusion reasons, passage boxes.

A PDF is *excluded* (raised as :class:`PdfExcluded`, with a ``code`` naming the
reason) when it is encrypted, broken, too large, or has no text layer (a scan
without OCR: fewer than half its pages carry more than 100 characters).
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pypdfium2 as pdfium

from litdesk._errors import InputError, NotFoundError
from litdesk.adapters.files import FileRefused, read_bounded
from litdesk.core.evidence import find_pdf_passage
from litdesk.core.library import (
    FoundIds,
    cut_references,
    find_ids,
    normalise_text,
    strip_running_lines,
)

from ._page_cache import PAGE_TEXTS

__all__ = [
    "MAX_PDF_BYTES",
    "MAX_PAGES",
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

MAX_PDF_BYTES: Final = 200_000_000
MAX_PAGES: Final = 2_000
TEXT_PAGE_CHARS: Final = 100


class PdfExcluded(InputError):
    """The PDF cannot be indexed; ``code`` is encrypted, broken, no_text, too_large or empty."""

    default_code = "pdf_excluded"


@dataclass(frozen=True, slots=True)
class PdfText:
    """What the library keeps of one PDF's text."""

    page_count: int
    text_layer: bool
    pages: tuple[str, ...]  # normalised page texts, reference list removed
    references_cut: tuple[int, int] | None  # (1-based page, offset in raw text)
    ids: FoundIds
    head: tuple[str, ...]  # normalised text of the first two pages (before the cut)


def file_kind(mode: int) -> str:
    """What a non-regular ``st_mode`` is, in words (for a skip or refusal reason)."""
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: Path) -> tuple[int, os.stat_result]:
    """A read-only descriptor of ``path`` and its status, only when it is a regular file.

    Opened with ``O_NONBLOCK`` (a FIFO does not wait for a writer) and checked with
    ``fstat`` on the descriptor itself, so a file swapped for a FIFO or device after an
    earlier ``stat`` is refused, never read. Raises :class:`PdfExcluded` (``not_regular``
    or ``unreadable``); the caller closes the descriptor.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise PdfExcluded(f"{path.name}: cannot read ({exc.strerror})", code="unreadable") from None
    try:
        st = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise PdfExcluded(f"{path.name}: cannot read ({exc.strerror})", code="unreadable") from None
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise PdfExcluded(
            f"{path.name}: {file_kind(st.st_mode)}, not a regular file", code="not_regular"
        )
    return fd, st


def file_sha256(path: Path, *, block: int = 1 << 20) -> str:
    """Hex SHA-256 of a regular file's bytes (streamed; see :func:`open_regular`)."""
    fd, _ = open_regular(path)
    h = hashlib.sha256()
    with os.fdopen(fd, "rb") as fh:
        while chunk := fh.read(block):
            h.update(chunk)
    return h.hexdigest()


def _read_pdf_bytes(path: Path) -> bytes:
    """The PDF's bytes through the one bounded reader of input files (regular files only,
    opened non-blocking, at most :data:`MAX_PDF_BYTES`)."""
    try:
        data = read_bounded(path, limit=MAX_PDF_BYTES, label="the PDF")
    except FileRefused as exc:
        raise PdfExcluded(f"{path.name}: {exc.message}", code=exc.code) from None
    except NotFoundError:
        raise PdfExcluded(f"{path.name}: cannot read (no such file)", code="unreadable") from None
    if not data:
        raise PdfExcluded(f"{path.name}: empty file", code="empty")
    return data


def open_pdf(path: Path) -> pdfium.PdfDocument:
    """The PDF at ``path`` (a regular file within :data:`MAX_PDF_BYTES`), or
    :class:`PdfExcluded` naming why not (not_regular, unreadable, empty, too_large,
    encrypted, broken)."""
    return _open(path)


def _open(path: Path) -> pdfium.PdfDocument:
    # read through one checked descriptor (never a FIFO or device), then parsed from memory
    return _parse(path, _read_pdf_bytes(path))


def _parse(path: Path, data: bytes) -> pdfium.PdfDocument:
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        msg = str(exc)
        if "password" in msg.lower():
            raise PdfExcluded(
                f"{path.name}: encrypted (needs a password)", code="encrypted"
            ) from None
        raise PdfExcluded(f"{path.name}: broken PDF ({msg})", code="broken") from None


def read_pages(path: Path) -> list[str]:
    """Raw text of every page (line breaks kept), in page order."""
    return _page_texts(path, _open(path))


def read_pages_digest(path: Path) -> tuple[str, list[str]]:
    """The hex SHA-256 of the PDF's bytes and the raw text of every page, both from the
    one read of those bytes (the digest names exactly the file whose text was read).

    The bytes are read and hashed on every call; the pages' text of bytes with that
    digest parsed lately is reused (:data:`PAGE_TEXTS`, a few PDFs, bounded)."""
    data = _read_pdf_bytes(path)
    digest = hashlib.sha256(data).hexdigest()
    cached = PAGE_TEXTS.get(digest)
    if cached is not None:
        return digest, cached
    pages = _page_texts(path, _parse(path, data))
    PAGE_TEXTS.put(digest, pages)
    return digest, pages


def _page_texts(path: Path, doc: pdfium.PdfDocument) -> list[str]:
    try:
        n = len(doc)
        if n > MAX_PAGES:
            raise PdfExcluded(
                f"{path.name}: {n} pages is over the limit of {MAX_PAGES}", code="too_large"
            )
        out: list[str] = []
        for i in range(n):
            page = doc[i]
            try:
                tp = page.get_textpage()
                try:
                    out.append(tp.get_text_range())
                finally:
                    tp.close()
            except pdfium.PdfiumError:
                out.append("")
            finally:
                page.close()
        return out
    finally:
        doc.close()


def extract(path: Path) -> PdfText:
    """Pages, text layer, ids and the reference-free normalised text of one PDF."""
    raw = read_pages(path)
    if not raw:
        raise PdfExcluded(f"{path.name}: no pages", code="empty")
    with_text = sum(1 for p in raw if len(p.strip()) > TEXT_PAGE_CHARS)
    text_layer = with_text * 2 >= len(raw)
    if not text_layer:
        raise PdfExcluded(
            f"{path.name}: no text layer ({with_text} of {len(raw)} pages have text; a scan?)",
            code="no_text",
            pages=len(raw),
        )
    head = tuple(normalise_text(p) for p in raw[:2])
    ids = find_ids(head)
    kept, cut = cut_references(strip_running_lines(raw))
    pages = tuple(normalise_text(p) for p in kept)
    return PdfText(len(raw), text_layer, pages, (cut[0] + 1, cut[1]) if cut else None, ids, head)


Box = tuple[float, float, float, float]


#: the one strict matcher (kept under its old name for the adapter's callers and tests)
_find_passage = find_pdf_passage


def passage_boxes(path: Path, page: int, passage: str) -> list[Box]:
    """Boxes (left, bottom, right, top in PDF points) of ``passage`` on 1-based ``page``.

    Matching ignores whitespace differences, ligatures, typographic quotes and dashes,
    and hyphenated line breaks (:func:`_find_passage`); one box per text line. Raises
    ``PdfExcluded(code=not_found)`` when the passage is not on that page.
    """
    doc = _open(path)
    try:
        if not 1 <= page <= len(doc):
            raise PdfExcluded(f"{path.name}: no page {page}", code="no_page")
        pg = doc[page - 1]
        tp = pg.get_textpage()
        try:
            span = _find_passage(tp.get_text_range(), passage)
            if span is None:
                raise PdfExcluded(
                    f"{path.name}: passage not found on page {page}", code="not_found"
                )
            return _line_boxes(tp, span[0], span[1])
        finally:
            tp.close()
            pg.close()
    finally:
        doc.close()


def _line_boxes(tp: pdfium.PdfTextPage, start: int, end: int) -> list[Box]:
    boxes: list[Box] = []
    cur: list[float] | None = None
    for i in range(start, end + 1):
        left, bottom, right, top = tp.get_charbox(i)
        if right <= left and top <= bottom:
            continue  # generated char (space, line break) without a box
        if cur is not None and bottom < cur[3] and top > cur[1] and left >= cur[0] - 2:
            cur[0], cur[1] = min(cur[0], left), min(cur[1], bottom)
            cur[2], cur[3] = max(cur[2], right), max(cur[3], top)
        else:
            if cur is not None:
                boxes.append((cur[0], cur[1], cur[2], cur[3]))
            cur = [left, bottom, right, top]
    if cur is not None:
        boxes.append((cur[0], cur[1], cur[2], cur[3]))
    return boxes
