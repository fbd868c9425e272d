"""Text scans of a PDF's pages (pure): reference list cut-off, DOI and arXiv id by pattern."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from litdesk.core.records import normalize_doi, split_arxiv

__all__ = ["FoundIds", "cut_references", "find_ids", "strip_running_lines", "REFERENCE_HEADINGS"]

REFERENCE_HEADINGS: Final = (
    "references",
    "reference",
    "bibliography",
    "literature cited",
    "references and notes",
    "referências",
    "referências bibliográficas",
    "referencias",
    "referencias bibliográficas",
    "literatur",
    "literaturverzeichnis",
)
# A heading: optional section number, the word(s), optional colon, then either the
# next text starts with a capital / bracket / digit (a first entry) or the line ends.
_HEADING = re.compile(
    r"(?:^|(?<=\n)|(?<=\s\s))(?<!\s\s\s)\s*+(?:\d{1,2}\.?\s+|[IVX]{1,5}\.\s+)?("
    + "|".join(sorted((re.escape(h) for h in REFERENCE_HEADINGS), key=len, reverse=True))
    + r")[^\S\n]*+:?[^\S\n]*+(?:\r?\n|$)",
    re.IGNORECASE,
)
#: The heading must lie after this share of the document (by characters).
NOT_BEFORE: Final = 0.30
#: A page after the heading page still belongs to the list at this many years per 1,000 chars.
_YEAR = re.compile(r"\b(?:1[89]|20)\d\d[a-z]?\b")
LIST_DENSITY: Final = 2.5


def _looks_like_references(page: str) -> bool:
    if not page.strip():
        return True
    return len(_YEAR.findall(page)) * 1000 / len(page) >= LIST_DENSITY


def cut_references(pages: list[str] | tuple[str, ...]) -> tuple[list[str], tuple[int, int] | None]:
    """Drop the reference list: from its heading to the end of the list.

    ``pages`` are raw page texts (line breaks kept). The heading is the first
    reference heading on a line of its own after the first ``NOT_BEFORE`` share of
    the text; the list runs to the end of that page and over the following pages
    while they look like reference lists (dense in years), so an appendix after the
    list is kept. Returns the pages (same count, cut pages emptied) and
    ``(page index, offset)`` of the heading, or ``None`` when there is none.
    """
    lengths = [len(p) for p in pages]
    total = sum(lengths)
    if total == 0:
        return list(pages), None
    threshold = total * NOT_BEFORE
    found: tuple[int, int] | None = None
    before = 0
    for i, page in enumerate(pages):
        for m in _HEADING.finditer(page):
            if before + m.start() >= threshold:
                found = (i, m.start())
                break
        if found:
            break
        before += lengths[i]
    if found is None:
        return list(pages), None
    pi, off = found
    kept = list(pages)
    kept[pi] = pages[pi][:off]
    j = pi + 1
    while j < len(pages) and _looks_like_references(pages[j]):
        kept[j] = ""
        j += 1
    return kept, found


#: Lines looked at for running headers/footers: this many at the top and at the bottom.
EDGE_LINES: Final = 3
#: A line repeats when its shape is on at least this share of the pages (and on 3 or more).
RUNNING_SHARE: Final = 0.4
_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:/|of)\s*\d{1,4})?$", re.IGNORECASE
)


def _shape(line: str) -> str:
    return _DIGITS.sub("#", " ".join(line.lower().split()))


def _edges(lines: list[str]) -> list[int]:
    """Indexes of the first and last ``EDGE_LINES`` non-empty lines."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    return sorted(set(filled[:EDGE_LINES] + filled[-EDGE_LINES:]))


def strip_running_lines(pages: list[str] | tuple[str, ...]) -> list[str]:
    """Drop running headers and footers: lines at a page's top or bottom whose shape
    (case and spaces folded, digits as ``#``) recurs at the edges of at least
    ``RUNNING_SHARE`` of the pages (and of 3 or more), plus bare page numbers at the edge
    (see :func:`_numbers`).

    ``pages`` are raw page texts (line breaks kept); returns the same count. Documents
    of fewer than 4 pages are returned unchanged (nothing can be seen to repeat)."""
    if len(pages) < 4:
        return list(pages)
    split = [p.split("\n") for p in pages]
    counts: dict[str, int] = {}
    for lines in split:
        for key in {_shape(lines[i]) for i in _edges(lines)}:
            counts[key] = counts.get(key, 0) + 1
    need = max(3, int(len(pages) * RUNNING_SHARE + 0.999))
    running = {k for k, n in counts.items() if n >= need and k}
    out: list[str] = []
    for lines in split:
        drop = {  # a bare number's shape ("#") recurs on every page: numbers go by place
            i
            for i in _edges(lines)
            if _shape(lines[i]) in running and not _PAGE_NUMBER.match(lines[i].strip())
        }
        drop |= _numbers(lines, drop)  # once a page (it was once a line: quadratic)
        out.append("\n".join(line for i, line in enumerate(lines) if i not in drop))
    return out


def _numbers(lines: list[str], dropped: set[int]) -> set[int]:
    """The bare page numbers at a page's top and bottom: a number line counts only at the
    edge itself or next to running lines dropped there. A footnote's marker on its own
    line near the bottom ("6" above "https://…") is the page's text: dropping it made an
    excerpt that is not on the page, so its citation could not be found there."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    found: set[int] = set()
    for edge in (filled[:EDGE_LINES], filled[::-1][:EDGE_LINES]):
        for i in edge:
            if i in dropped:
                continue
            if not _PAGE_NUMBER.match(lines[i].strip()):
                break
            found.add(i)
    return found


@dataclass(frozen=True, slots=True)
class FoundIds:
    """Identifiers found printed on the first pages (canonical forms) and where."""

    doi: str | None = None
    doi_page: int | None = None
    arxiv: str | None = None
    arxiv_version: int | None = None
    arxiv_page: int | None = None


_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>()\[\]{}]+)", re.IGNORECASE)
_ARXIV_NEW = re.compile(r"arxiv\s*:?\s*(\d{4}\.\d{4,5}(?:v\d{1,3})?)\b", re.IGNORECASE)
_ARXIV_NEW_BARE = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5}v\d{1,3})\b")
_ARXIV_OLD = re.compile(
    r"(?<![\w/.-])((?:hep-(?:ph|th|ex|lat)|astro-ph|cond-mat|gr-qc|math-ph|nucl-(?:th|ex)|"
    r"quant-ph|nlin|physics|math|cs|q-bio|q-fin|stat|chao-dyn|solv-int|alg-geom|dg-ga|"
    r"funct-an|q-alg|patt-sol|adap-org|comp-gas|cmp-lg|chem-ph|atom-ph|plasm-ph|supr-con|"
    r"mtrl-th|acc-phys|ao-sci|bayes-an)(?:\.[A-Z]{2})?/\d{7}(?:v\d{1,3})?)\b"
)


def _first_doi(text: str) -> str | None:
    cands: list[str] = []
    for m in _DOI.finditer(text):
        d = normalize_doi(m.group(1).rstrip(".,;:'’”"))
        if d and d not in cands:
            cands.append(d)
    # a DOI cut by a line break is a prefix of the full one: prefer the full one
    full = [c for c in cands if not any(o != c and o.startswith(c) for o in cands)]
    return full[0] if full else None


def find_ids(pages: list[str] | tuple[str, ...], *, first: int = 2) -> FoundIds:
    """The DOI and arXiv id printed on the first ``first`` pages (by fixed pattern)."""
    doi = doi_page = arxiv = arxiv_page = version = None
    for i, page in enumerate(pages[:first], start=1):
        if doi is None and (d := _first_doi(page)):
            doi, doi_page = d, i
        if arxiv is None:
            m = _ARXIV_NEW.search(page) or _ARXIV_NEW_BARE.search(page) or _ARXIV_OLD.search(page)
            if m and (parsed := split_arxiv(m.group(1))):
                arxiv, version, arxiv_page = parsed.base, parsed.version, i
    return FoundIds(doi, doi_page, arxiv, version, arxiv_page)
