"""Cited PDF pages as images and the passage's highlight boxes (pypdfium2).

Each page is rendered once (moderate DPI, JPEG as a ``data:`` URI); the passage is
found in the page's text with whitespace-insensitive matching (hyphenated breaks
too) and its character boxes are merged into one rectangle per text line, given as
fractions of the page (top-left origin) so a viewer can draw them over the image.
"""

from __future__ import annotations

import base64
import io
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import pypdfium2 as pdfium

from litdesk._errors import InputError
from litdesk.adapters.pdf import PdfExcluded, open_pdf, passage_boxes

__all__ = [
    "DEFAULT_DPI",
    "PDFIUM_LOCK",
    "Highlight",
    "PageBitmap",
    "PageImage",
    "PageRenderError",
    "highlight",
    "render_page",
    "render_pages",
]

DEFAULT_DPI: Final = 80
JPEG_QUALITY: Final = 70
MAX_PAGE_PIXELS: Final = 4_000_000

Rect = tuple[float, float, float, float]  # x, y, w, h as fractions of the page

#: pdfium is not thread-safe: a long-running face (the web viewer's thread pool) holds this
#: around every call into it
PDFIUM_LOCK: Final = threading.RLock()


class PageRenderError(InputError):
    """A cited page could not be opened or rendered."""

    default_code = "page_render"


@dataclass(frozen=True, slots=True)
class PageImage:
    """One rendered page: a JPEG ``data:`` URI and its size in pixels and points."""

    file: str
    page: int
    data_uri: str
    width_px: int
    height_px: int
    width_pt: float
    height_pt: float


@dataclass(frozen=True, slots=True)
class Highlight:
    """Where a passage sits on its page; ``rects`` is empty when it was not found."""

    rects: tuple[Rect, ...]
    found: bool
    notes: tuple[str, ...] = field(default_factory=tuple)


def render_pages(
    wanted: Iterable[tuple[Path, int]], *, dpi: int = DEFAULT_DPI
) -> dict[tuple[Path, int], PageImage]:
    """Render each distinct ``(pdf path, 1-based page)`` once."""
    if not 30 <= dpi <= 300:
        raise InputError("dpi must be between 30 and 300", code="dpi")
    by_file: dict[Path, set[int]] = {}
    for path, page in wanted:
        by_file.setdefault(path, set()).add(page)
    out: dict[tuple[Path, int], PageImage] = {}
    for path, pages in by_file.items():
        with PDFIUM_LOCK:
            try:
                doc = open_pdf(path)  # a regular file only (never a FIFO or device)
            except PdfExcluded as exc:
                raise PageRenderError(f"{path.name}: cannot open ({exc.message})") from None
            try:
                for page in sorted(pages):
                    if not 1 <= page <= len(doc):
                        raise PageRenderError(f"{path.name}: no page {page}", code="no_page")
                    out[(path, page)] = _render(doc, path, page, dpi)
            finally:
                doc.close()
    return out


def _render(doc: pdfium.PdfDocument, path: Path, page: int, dpi: int) -> PageImage:
    pg = doc[page - 1]
    try:
        w_pt, h_pt = pg.get_size()
        scale = dpi / 72.0
        if w_pt * h_pt * scale * scale > MAX_PAGE_PIXELS:
            scale = (MAX_PAGE_PIXELS / (w_pt * h_pt)) ** 0.5
        bitmap = pg.render(scale=scale)
        try:
            image = bitmap.to_pil().convert("RGB")
        finally:
            bitmap.close()
    except pdfium.PdfiumError as exc:
        raise PageRenderError(f"{path.name}: page {page} cannot be rendered ({exc})") from None
    finally:
        pg.close()
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=JPEG_QUALITY, optimize=True)
    uri = "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
    return PageImage(path.name, page, uri, image.width, image.height, float(w_pt), float(h_pt))


@dataclass(frozen=True, slots=True)
class PageBitmap:
    """One page rendered for a viewer: JPEG bytes, its pixel and point sizes, the page count."""

    data: bytes
    width_px: int
    height_px: int
    width_pt: float
    height_pt: float
    pages: int


def render_page(path: Path, page: int, *, dpi: int = DEFAULT_DPI) -> PageBitmap:
    """Render one 1-based ``page`` of ``path`` as JPEG bytes (the web viewer's page image);
    the pixel count is capped at :data:`MAX_PAGE_PIXELS` like the reports' pages."""
    if not 30 <= dpi <= 300:
        raise InputError("dpi must be between 30 and 300", code="dpi")
    with PDFIUM_LOCK:
        try:
            doc = open_pdf(path)
        except PdfExcluded as exc:
            raise PageRenderError(f"{path.name}: cannot open ({exc.message})") from None
        try:
            count = len(doc)
            if not 1 <= page <= count:
                raise PageRenderError(f"{path.name}: no page {page}", code="no_page")
            pg = doc[page - 1]
            try:
                w_pt, h_pt = pg.get_size()
                scale = dpi / 72.0
                if w_pt * h_pt * scale * scale > MAX_PAGE_PIXELS:
                    scale = (MAX_PAGE_PIXELS / (w_pt * h_pt)) ** 0.5
                bitmap = pg.render(scale=scale)
                try:
                    image = bitmap.to_pil().convert("RGB")
                finally:
                    bitmap.close()
            except pdfium.PdfiumError as exc:
                raise PageRenderError(
                    f"{path.name}: page {page} cannot be rendered ({exc})"
                ) from None
            finally:
                pg.close()
        finally:
            doc.close()
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=80)
    return PageBitmap(buf.getvalue(), image.width, image.height, float(w_pt), float(h_pt), count)


def highlight(path: Path, page: int, passage: str, width_pt: float, height_pt: float) -> Highlight:
    """The passage's line rectangles on ``page`` as page fractions (top-left origin)."""
    try:
        with PDFIUM_LOCK:
            boxes = passage_boxes(path, page, passage)
    except PdfExcluded as exc:
        return Highlight((), False, (exc.message,))
    rects: list[Rect] = []
    for left, bottom, right, top in boxes:
        x = max(0.0, left / width_pt)
        y = max(0.0, (height_pt - top) / height_pt)
        w = min(1.0 - x, (right - left) / width_pt)
        h = min(1.0 - y, (top - bottom) / height_pt)
        if w > 0 and h > 0:
            rects.append((round(x, 5), round(y, 5), round(w, 5), round(h, 5)))
    if not rects:
        return Highlight((), False, (f"{path.name}: no character boxes on page {page}",))
    return Highlight(tuple(rects), True)
