"""The strict matcher of a passage against one PDF page's text (pure).

A page's text is what pdfium extracts (line breaks kept, its hyphen marks in it). A
passage is found when it occurs verbatim after folding (ligatures, typographic quotes
and dashes: :func:`fold`) and whitespace collapsing, with a line-ending hyphen read as
laid out, as a split word or as a compound's hyphen. Nothing else is ignored: another
sign, digit, word or punctuation mark than the page's (``P > 0.05`` for ``P < 0.05``)
is not found. The PDF viewer's boxes, report citations and evidence recorded from a PDF
all use this one matcher.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Final, Literal

__all__ = [
    "MAX_NEAREST_CHARS",
    "find_pdf_passage",
    "fold",
    "nearest_pdf_text",
    "normalised_with_map",
    "pages_holding",
]

#: The nearest text a refusal shows is at most this long.
MAX_NEAREST_CHARS: Final = 300

#: Characters folded alike on both sides of a passage match: typographic quotes and
#: dashes (a quote typed with ``'`` or ``-`` matches the PDF's ``’`` or ``–``).
_FOLD: Final = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
        "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-",
        "\u2015": "-", "\u2212": "-",
    }
)  # fmt: skip
#: A hyphen that ends a line when a line break follows it.
_LINE_HYPHENS: Final = frozenset("-\u00ad\u2010")
#: pdfium's own markers of a hyphen at a line break (the break itself often removed:
#: ``em\ufffebedding`` for ``em-⏎bedding``): always a line-ending hyphen.
_HYPHEN_MARKS: Final = frozenset("\u0002\ufffe")
_BLANK: Final = frozenset("\x00")

Hyphens = Literal["space", "join", "keep"]
_MODES: Final[tuple[Hyphens, ...]] = ("space", "join", "keep")


def fold(text: str) -> str:
    """Compatibility-normalised (ligatures ``ﬁ`` → ``fi``, NFKC) with folded quotes and
    dashes: what both a passage and a page's text are compared as."""
    return unicodedata.normalize("NFKC", text).translate(_FOLD)


def _line_break_after(raw: str, i: int) -> bool:
    """True when whitespace holding a line break follows ``raw[i]``."""
    j = i + 1
    while j < len(raw) and (raw[j] in " \t" or raw[j] in _BLANK):
        j += 1
    return j < len(raw) and raw[j] in "\r\n"


def normalised_with_map(raw: str, hyphens: Hyphens = "space") -> tuple[str, list[int]]:
    """Folded, whitespace-collapsed text of ``raw`` and, per output char, its raw index.

    ``hyphens`` says what a hyphen ending a line becomes: ``"space"`` (kept, the break a
    space: the text as laid out), ``"join"`` (hyphen and break dropped: a word split by
    hyphenation, ``inter-⏎action`` → ``interaction``) or ``"keep"`` (the hyphen kept,
    the break dropped: a hyphenated compound, ``long-⏎term`` → ``long-term``).
    """
    out: list[str] = []
    idx: list[int] = []
    pending_space = False
    skip_break = False
    for i, ch in enumerate(raw):
        if ch.isspace() or ch in _BLANK:
            if not skip_break:
                pending_space = bool(out)
            continue
        marked = ch in _HYPHEN_MARKS
        if marked and hyphens == "space":
            pending_space = bool(out)
            continue
        if marked or (ch in _LINE_HYPHENS and hyphens != "space" and _line_break_after(raw, i)):
            pending_space = False
            skip_break = True
            if hyphens == "keep":
                out.append("-")
                idx.append(i)
            continue
        skip_break = False
        for c in fold(ch):  # NFKC may expand: ``ﬁ`` → ``fi``, ``´`` → space + accent
            if c.isspace():
                pending_space = bool(out)
                continue
            if pending_space:
                out.append(" ")
                idx.append(i - 1)
                pending_space = False
            out.append(c)
            idx.append(i)
    return "".join(out), idx


def _needle(passage: str) -> str:
    return " ".join(fold(passage).split())


def find_pdf_passage(raw: str, passage: str) -> tuple[int, int] | None:
    """Raw start and end (inclusive) of ``passage`` in a page's text ``raw``, or None
    (see the module docstring for what is ignored: layout only)."""
    needle = _needle(passage)
    if not needle:
        return None
    for mode in _MODES:
        flat, index = normalised_with_map(raw, mode)
        pos = flat.find(needle)
        if pos >= 0:
            return index[pos], index[pos + len(needle) - 1]
    return None


def pages_holding(pages: Sequence[str], passage: str, *, limit: int = 5) -> list[int]:
    """The 1-based numbers of the pages whose text holds ``passage`` (at most ``limit``)."""
    out: list[int] = []
    for number, raw in enumerate(pages, start=1):
        if find_pdf_passage(raw, passage) is not None:
            out.append(number)
            if len(out) >= limit:
                break
    return out


def _longest_prefix(flat: str, needle: str) -> tuple[int, int]:
    """Length and position of the longest prefix of ``needle`` found in ``flat``
    (a prefix found means every shorter one is: a binary search, O(page · log n))."""
    lo, hi, at = 0, len(needle), 0
    while lo < hi:
        mid = (lo + hi + 1) // 2
        pos = flat.find(needle[:mid])
        if pos >= 0:
            lo, at = mid, pos
        else:
            hi = mid - 1
    return lo, at


def nearest_pdf_text(raw: str, passage: str) -> str | None:
    """The page's text nearest ``passage`` when it is not there: where the longest of
    the passage's beginnings or endings found on the page sits, as long as the passage
    (at most :data:`MAX_NEAREST_CHARS`); None when not even a quarter of it (or eight
    characters) is found."""
    needle = _needle(passage)
    if not needle:
        return None
    flat, _ = normalised_with_map(raw, "join")
    head, head_at = _longest_prefix(flat, needle)
    tail, tail_at = _longest_prefix(flat[::-1], needle[::-1])
    width = min(len(needle), MAX_NEAREST_CHARS)
    if max(head, tail) < max(8, len(needle) // 4):
        return None
    if head >= tail:
        start = head_at
        stop = start + width
    else:
        stop = len(flat) - tail_at  # the reversed match ends here in the page's text
        start = max(0, stop - width)
    return _whole_words(flat, start, stop).strip() or None


def _whole_words(flat: str, start: int, stop: int, reach: int = 40) -> str:
    """``flat[start:stop]`` widened to whole words at both ends (by at most ``reach``
    characters each): a passage shorter or longer than the page's text, aligned on its
    ending, would otherwise start the shown text inside a word ("cus groups")."""
    low = max(0, start - reach)
    while start > low and flat[start - 1].isalnum() and flat[start].isalnum():
        start -= 1
    high = min(len(flat), stop + reach)
    while 0 < stop < high and flat[stop - 1].isalnum() and flat[stop].isalnum():
        stop += 1
    return flat[start:stop]
