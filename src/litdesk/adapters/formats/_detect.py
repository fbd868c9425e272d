"""Format detection by structure, not by the first matching line.

The sniffers (one per format) say how much a text looks like their format; a field of
one format can hold another format's lines (a BibTeX abstract quoting ``TY  - JOUR`` and
``ER  -``, a CSV cell holding a RIS record). So the registry decides in two steps:

1. the outer syntax: a document that opens with ``{``/``[`` is JSON and one that opens
   with ``<`` is XML (but ``<`` and a digit, Ovid's record marker ``<1. >``: no XML name
   starts with a digit) — only JSON (XML) formats compete then; any other text is a
   line-structured format (RIS, MEDLINE, Web of Science, Ovid, BibTeX, a table);
2. for text, where each candidate's *records* start and how far they reach: BibTeX
   entries ``@type{…}`` to their matching brace, RIS ``TY``…``ER``, MEDLINE ``PMID-`` to
   the blank line, Web of Science ``PT``…``ER``, a table's rows (a quoted cell may span
   lines). The structure whose first record comes first is the file's; another
   format's records count only when they start *outside* it — then the content is
   ambiguous and refused with both candidates named (``--format`` decides).
"""

from __future__ import annotations

import csv
import io
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

__all__ = ["FAMILY", "Outline", "line_of", "outline", "outer_syntax", "outside"]

#: Format name → the structure its records have.
FAMILY: Final = {
    "ris": "ris",
    "medline": "medline",
    "wos": "wos",
    "cochrane-txt": "cochrane-txt",
    "ovid": "ovid",
    "bibtex": "bibtex",
    "wos-tab": "table",
    "scopus-csv": "table",
    "csv": "table",
    "csljson": "json",
    "europepmc-json": "json",
    "openalex-json": "json",
    "crossref-json": "json",
    "s2-json": "json",
    "endnote-xml": "xml",
    "pubmed-xml": "xml",
    "arxiv-atom": "xml",
}

_BIB_START: Final = re.compile(r"^[ \t]*@[ \t]*[A-Za-z]+[ \t]*([{(])", re.M)
_RIS_TY: Final = re.compile(r"^[ \t]*TY {1,2}-(?:[ \t]|$)", re.M)
_RIS_ER: Final = re.compile(r"^[ \t]*ER {1,2}-[ \t]*$", re.M)
_MEDLINE_START: Final = re.compile(r"^PMID- ", re.M)
_BLANK: Final = re.compile(r"\n[ \t]*\r?\n")
_WOS_PT: Final = re.compile(r"^PT [A-Z]\s*$", re.M)
_WOS_ER: Final = re.compile(r"^ER\s*$", re.M)


def outer_syntax(head: str) -> str:
    """``json``, ``xml`` or ``text``: what the document opens with."""
    opening = head.lstrip("\ufeff \t\r\n")[:2]
    first = opening[:1]
    if first in ("{", "["):
        return "json"
    if first == "<" and not opening[1:].isdigit():  # Ovid's record marker, ``<1. >``
        return "xml"
    return "text"


@dataclass(frozen=True, slots=True)
class Outline:
    """Where one structure's records start and which spans they cover (char offsets)."""

    family: str
    starts: tuple[int, ...]
    spans: tuple[tuple[int, int], ...]

    def covers(self, pos: int) -> bool:
        i = bisect_right(self.spans, (pos, 1 << 62)) - 1
        return i >= 0 and self.spans[i][0] <= pos < self.spans[i][1]


def _bibtex(head: str) -> Outline:
    starts: list[int] = []
    spans: list[tuple[int, int]] = []
    end = -1
    for m in _BIB_START.finditer(head):
        if m.start() < end:
            continue  # inside the previous entry (an abstract quoting BibTeX)
        opener = m.group(1)
        closer = "}" if opener == "{" else ")"
        depth = 0
        stop = len(head)
        for i in range(m.start(1), len(head)):
            c = head[i]
            if c == opener or (opener == "(" and c == "{"):
                depth += 1
            elif c == closer or (opener == "(" and c == "}"):
                depth -= 1
                if depth == 0:
                    stop = i + 1
                    break
        starts.append(m.start())
        spans.append((m.start(), stop))
        end = stop
    return Outline("bibtex", tuple(starts), tuple(spans))


def _delimited(family: str, head: str, start: re.Pattern[str], stop: re.Pattern[str]) -> Outline:
    """Records from a start line to an end line (or the next start, or the head's end)."""
    starts: list[int] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    while (m := start.search(head, pos)) is not None:
        e = stop.search(head, m.end())
        nxt = start.search(head, m.end())
        if e is not None and (nxt is None or e.start() < nxt.start()):
            end = e.end()
        else:
            end = nxt.start() if nxt is not None else len(head)
        starts.append(m.start())
        spans.append((m.start(), end))
        pos = max(end, m.end())
    return Outline(family, tuple(starts), tuple(spans))


def _medline(head: str) -> Outline:
    starts: list[int] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    while (m := _MEDLINE_START.search(head, pos)) is not None:
        blank = _BLANK.search(head, m.end())
        end = blank.start() + 1 if blank is not None else len(head)
        starts.append(m.start())
        spans.append((m.start(), end))
        pos = end
    return Outline("medline", tuple(starts), tuple(spans))


def _wos(head: str) -> Outline:
    if head.lstrip("\ufeff").startswith("FN "):
        return Outline("wos", (0,), ((0, len(head)),))
    return _delimited("wos", head, _WOS_PT, _WOS_ER)


def _table(head: str) -> Outline:
    """A table's rows: a row of two or more cells is the table's, a quoted cell may span
    lines; a line that is a row of one cell is outside it."""
    first = head.split("\n", 1)[0]
    delimiter = "\t" if first.count("\t") > first.count(",") else ","
    if first.count(";") > max(first.count(","), first.count("\t")):
        delimiter = ";"
    line_starts = [0] + [m.end() for m in re.finditer("\n", head)]
    spans: list[tuple[int, int]] = []
    reader = csv.reader(io.StringIO(head, newline=""), delimiter=delimiter)
    line = 0
    try:
        for row in reader:
            nxt = reader.line_num
            if len(row) >= 2 and line < len(line_starts):
                end = line_starts[nxt] if nxt < len(line_starts) else len(head)
                spans.append((line_starts[line], end))
            line = nxt
    except csv.Error:
        pass  # a broken tail: what was read stands
    return Outline("table", (0,), tuple(spans))


def outline(family: str, head: str) -> Outline:
    """The records of structure ``family`` in ``head``."""
    if family == "bibtex":
        return _bibtex(head)
    if family == "ris":
        return _delimited("ris", head, _RIS_TY, _RIS_ER)
    if family == "medline":
        return _medline(head)
    if family == "wos":
        return _wos(head)
    if family == "table":
        return _table(head)
    return Outline(family, (0,), ((0, len(head)),))


def line_of(head: str, pos: int) -> int:
    return head.count("\n", 0, pos) + 1


def outside(inner: Outline, outer: Outline) -> Sequence[int]:
    """``inner``'s record starts that lie outside every record of ``outer``."""
    return [p for p in inner.starts if not outer.covers(p)]
