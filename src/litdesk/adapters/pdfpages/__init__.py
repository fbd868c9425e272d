"""Cited PDF pages for reports and the web viewer: page images and passage highlight boxes
(pypdfium2)."""

from ._pages import (
    DEFAULT_DPI,
    PDFIUM_LOCK,
    Highlight,
    PageBitmap,
    PageImage,
    PageRenderError,
    highlight,
    render_page,
    render_pages,
)

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
