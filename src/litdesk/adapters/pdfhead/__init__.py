"""The first pages of a PDF with font sizes and positions, and its document info."""

from ._head import HEAD_PAGES, read_head

__all__ = ["HEAD_PAGES", "read_head"]
