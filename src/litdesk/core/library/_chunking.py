"""Chunking of page texts into retrieval excerpts (pure).

Chunks are about ``size`` characters, never span two pages, overlap a little, and
break at a sentence or word boundary where one is near; a chunk after the first of a page
starts at a sentence start where one lies within the overlap window (c2), so neither end
cuts a sentence when the text has sentence marks; a footnote marker on its own line near a
page's bottom is kept in the page's text, only the bare page number at the edge is dropped
(c3). ``CHUNKING_VERSION`` names the rule: an index built under another version is rebuilt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = ["CHUNKING_VERSION", "Chunk", "chunk_pages", "normalise_text"]

CHUNKING_VERSION: Final = "c3-1000-150"
DEFAULT_SIZE: Final = 1000
DEFAULT_OVERLAP: Final = 150
_MIN_TAIL: Final = 200

_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200b]+")
_BREAKS = re.compile(r"(?<!\s)\s*\n\s*")
_HYPHEN_BREAK = re.compile(r"(\w)-\s*\n\s*(\w)")
_SENTENCE_END = re.compile(r"[.!?;:][\"')\]]?\s")


@dataclass(frozen=True, slots=True)
class Chunk:
    """One excerpt: its 1-based ``page``, its order within the document, and its text."""

    index: int
    page: int
    start: int
    end: int
    text: str


def normalise_text(text: str) -> str:
    """Page text as one line per paragraph-ish run: joins hyphenated breaks, folds spaces."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    text = text.replace("\ufffe", "").replace("\x02", "")
    text = _HYPHEN_BREAK.sub(r"\1\2", text)
    text = _BREAKS.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def _cut_point(text: str, start: int, size: int) -> int:
    """End of the chunk starting at ``start``: prefer a sentence end, then a space."""
    hard = start + size
    if hard >= len(text):
        return len(text)
    window_start = start + size // 2
    best = -1
    for m in _SENTENCE_END.finditer(text, window_start, hard):
        best = m.end()
    if best > 0:
        return best
    space = text.rfind(" ", window_start, hard)
    return space + 1 if space > 0 else hard


def _next_start(text: str, start: int, end: int, overlap: int) -> int:
    """Start of the chunk after ``[start, end)``: the sentence start nearest to ``overlap``
    characters before ``end`` (within ``[end - 2*overlap, end - overlap//3]``), else the
    word start after ``end - overlap``. Always after ``start``."""
    target = end - overlap
    lo, hi = max(start + 1, end - 2 * overlap), max(start + 1, end - overlap // 3)
    best = -1
    for m in _SENTENCE_END.finditer(text, lo - 1, hi):
        cand = m.end()
        if lo <= cand <= hi and (best < 0 or abs(cand - target) < abs(best - target)):
            best = cand
    if best > start:
        return best
    nxt = max(target, start + 1)
    space = text.find(" ", nxt, end)
    return space + 1 if 0 <= space < end else nxt


def chunk_pages(
    pages: list[str] | tuple[str, ...],
    *,
    size: int = DEFAULT_SIZE,
    overlap: int = DEFAULT_OVERLAP,
) -> list[Chunk]:
    """Split normalised page texts into chunks of about ``size`` characters.

    Each chunk lies on one page (1-based ``page``); ``start``/``end`` are offsets in
    the normalised page text; consecutive chunks of a page overlap by about
    ``overlap`` characters (moved to a word start). Empty pages give no chunk.
    """
    if size < 100 or not 0 <= overlap < size // 2:
        raise ValueError("chunk size must be >= 100 and overlap < size/2")
    out: list[Chunk] = []
    for page_no, raw in enumerate(pages, start=1):
        text = raw
        if not text.strip():
            continue
        start = 0
        n = len(text)
        while start < n:
            end = _cut_point(text, start, size)
            if n - end < _MIN_TAIL and end < n and n - start <= size + _MIN_TAIL:
                end = n
            piece = text[start:end].strip()
            if piece:
                out.append(Chunk(len(out), page_no, start, end, piece))
            if end >= n:
                break
            start = _next_start(text, start, end, overlap)
    return out
