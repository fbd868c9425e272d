"""Cited PDF pages for reports: page images and passage highlight boxes (pypdfium2)."""

from ._pages import DEFAULT_DPI, Highlight, PageImage, PageRenderError, highlight, render_pages

__all__ = ["DEFAULT_DPI", "Highlight", "PageImage", "PageRenderError", "highlight", "render_pages"]
