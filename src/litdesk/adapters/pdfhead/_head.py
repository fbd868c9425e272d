"""The first pages of a PDF with font sizes and positions (pypdfium2), for
:func:`litdesk.core.pdfmeta.read_meta`."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Final

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from litdesk.adapters.pdf import open_pdf
from litdesk.core.pdfmeta import PdfHead, TextLine

__all__ = ["HEAD_PAGES", "read_head"]

#: Pages read by default: the title page and the one after it.
HEAD_PAGES: Final = 2
_INFO_KEYS: Final = (
    "Title",
    "Author",
    "Subject",
    "Keywords",
    "Creator",
    "Producer",
    "CreationDate",
)
_BREAKS: Final = frozenset("\r\n")


def read_head(path: Path, *, pages: int = HEAD_PAGES) -> PdfHead:
    """Lines (text, font size, box) of the first ``pages`` pages and the document info.

    Raises :class:`~litdesk.adapters.pdf.PdfExcluded` when the file is not a readable PDF
    (encrypted, broken, not a regular file, too large).
    """
    doc = open_pdf(path)
    try:
        info = _info(doc)
        lines: list[TextLine] = []
        sizes: list[tuple[float, float]] = []
        texts: list[str] = []
        count = len(doc)
        for index in range(min(pages, count)):
            page = doc[index]
            try:
                sizes.append((float(page.get_width()), float(page.get_height())))
                try:
                    tp = page.get_textpage()
                except pdfium.PdfiumError:
                    continue  # a page without a readable text layer gives no lines
                try:
                    lines.extend(_lines(tp, index + 1))
                    texts.append(tp.get_text_range())
                finally:
                    tp.close()
            finally:
                page.close()
        return PdfHead(tuple(lines), tuple(sizes), info, count, tuple(texts))
    finally:
        doc.close()


def _info(doc: pdfium.PdfDocument) -> dict[str, str]:
    try:
        raw = doc.get_metadata_dict(skip_empty=True)
    except pdfium.PdfiumError:
        return {}
    return {k: str(v) for k, v in raw.items() if k in _INFO_KEYS and str(v).strip()}


def _angle(tp: pdfium.PdfTextPage, n: int) -> int:
    """The page's reading direction: the most common glyph angle, in whole quarter turns
    (a page rotated by 270 degrees reads along y)."""
    turns = Counter(
        round(math.degrees(pdfium_c.FPDFText_GetCharAngle(tp.raw, i)) / 90) % 4
        for i in range(0, n, max(1, n // 400))
    )
    return turns.most_common(1)[0][0] * 90 if turns else 0


def _lines(tp: pdfium.PdfTextPage, page: int) -> list[TextLine]:
    """The page's lines in text order, in the page's reading frame (x along the line, y up
    the page). A line ends at a line break, at a jump to another baseline, or at a gap
    wider than twice the glyph height (the next column). Glyphs at another angle than the
    page's (an arXiv stamp in the margin) are left out."""
    out: list[TextLine] = []
    n = pdfium_c.FPDFText_CountChars(tp.raw)
    angle = _angle(tp, n)
    cos, sin = round(math.cos(math.radians(angle))), round(math.sin(math.radians(angle)))
    chars: list[str] = []
    heights: list[float] = []
    weights: list[int] = []
    box: list[float] | None = None
    last_right = 0.0

    def flush() -> None:
        nonlocal box
        text = " ".join("".join(chars).replace("\ufffe", "").split())
        if text and heights and box is not None:
            bold = sum(1 for w in weights if w >= 600) * 2 > len(weights)
            ordered = sorted(heights)  # the 80th percentile: capitals and ascenders
            size = round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.8))], 1)
            out.append(TextLine(page, text, size, box[0], box[1], box[2], box[3], bold))
        chars.clear()
        heights.clear()
        weights.clear()
        box = None

    for i in range(n):
        code = pdfium_c.FPDFText_GetUnicode(tp.raw, i)
        ch = chr(code) if 0 < code < 0x110000 else ""
        if ch in _BREAKS:
            flush()
            continue
        if ch.isspace() or not ch:
            chars.append(" ")
            continue
        turn = round(math.degrees(pdfium_c.FPDFText_GetCharAngle(tp.raw, i)) / 90) % 4
        if turn * 90 != angle:
            continue
        x0, y0, x1, y1 = tp.get_charbox(i, loose=True)
        if x1 <= x0 or y1 <= y0:
            chars.append(ch)
            continue
        us = (x0 * cos + y0 * sin, x1 * cos + y1 * sin)
        vs = (-x0 * sin + y0 * cos, -x1 * sin + y1 * cos)
        left, right, bottom, top = min(us), max(us), min(vs), max(vs)
        height = top - bottom
        if box is not None:
            middle = (top + bottom) / 2
            line_h = box[3] - box[1]
            off_line = not box[1] - 0.5 * line_h <= middle <= box[3] + 0.5 * line_h
            gap = left - last_right
            if off_line or gap > 2 * max(height, line_h) or gap < -4 * line_h:
                flush()
        chars.append(ch)
        heights.append(height)
        weights.append(int(pdfium_c.FPDFText_GetFontWeight(tp.raw, i)))
        last_right = right
        if box is None:
            box = [left, bottom, right, top]
        else:
            box = [min(box[0], left), min(box[1], bottom), max(box[2], right), max(box[3], top)]
    flush()
    return out
