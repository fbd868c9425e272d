"""Which library PDF is a paper's (pure): by identifier, or by a verified title.

A PDF is a paper's when they share an identifier — DOI, arXiv id (base, any version),
PMID or PMCID — or, failing every identifier, when the title read from the PDF's first
pages is the paper's title exactly (accents, case, punctuation and spacing folded; at
least :data:`MIN_TITLE_WORDS` words), no identifier of one contradicts the other's, and
the year (within one: online before print) and the first author's surname agree where
both sides have them. Never a fuzzy match: a title link is a *suggestion* a person
confirms. Every match says how it was made.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from litdesk.core.records import (
    Paper,
    normalize_arxiv,
    normalize_doi,
    normalize_pmcid,
    normalize_pmid,
)

from ._read import normalise_title

__all__ = [
    "DOUBT_PREFIX",
    "MIN_TITLE_WORDS",
    "MatchHow",
    "PdfFacts",
    "PdfMatch",
    "attach_doubt",
    "find_pubmed_ids",
    "link_doubt",
    "match_paper",
    "surname",
]

MatchHow = Literal["doi", "arxiv", "pmid", "pmcid", "title"]

#: A title match needs at least this many words (a short title names many papers).
MIN_TITLE_WORDS: Final = 4
#: A PDF's year may be this much off the record's (online first, print the next year).
YEAR_SLACK: Final = 1

_PMID: Final = re.compile(r"\bPMID\s*:?\s*(\d{1,9})\b")
_PMCID: Final = re.compile(r"\b(PMC\d{4,9})\b")


@dataclass(frozen=True, slots=True)
class PdfFacts:
    """What is known of one library PDF: its identifiers (printed on its first pages or
    from its adopted record) and what its first pages read as (title, authors, year)."""

    sha256: str
    file: str
    doi: str | None = None
    arxiv: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    title: str | None = None
    authors: tuple[str, ...] = ()
    year: int | None = None


@dataclass(frozen=True, slots=True)
class PdfMatch:
    """A PDF found for a paper: which, how, and in words why (shown to the person)."""

    sha256: str
    file: str
    how: MatchHow
    detail: str

    @property
    def certain(self) -> bool:
        """An identifier match links at once; a title match is suggested for a person."""
        return self.how != "title"


def find_pubmed_ids(texts: Iterable[str]) -> tuple[str | None, str | None]:
    """The PMID and PMCID printed on a PDF's first pages (``PMID: 123``, ``PMC123456``)."""
    pmid = pmcid = None
    for text in texts:
        if pmid is None and (m := _PMID.search(text)):
            pmid = normalize_pmid(m.group(1))
        if pmcid is None and (m := _PMCID.search(text)):
            pmcid = normalize_pmcid(m.group(1))
    return pmid, pmcid


def surname(name: str) -> str:
    """A person's surname folded for comparison ("Smith, J." and "John Smith" → smith)."""
    text = name.strip()
    part = text.split(",", 1)[0] if "," in text else (text.split() or [""])[-1]
    folded = unicodedata.normalize("NFKD", part)
    folded = "".join(c for c in folded if not unicodedata.combining(c)).casefold()
    return re.sub(r"[^\w]", "", folded)


def _ids(paper: Paper) -> dict[str, str]:
    out: dict[str, str] = {}
    for kind, value in (
        ("doi", normalize_doi(paper.doi) if paper.doi else None),
        ("arxiv", normalize_arxiv(paper.arxiv_id) if paper.arxiv_id else None),
        ("pmid", normalize_pmid(paper.pmid) if paper.pmid else None),
        ("pmcid", normalize_pmcid(paper.pmcid) if paper.pmcid else None),
    ):
        if value:
            out[kind] = value
    return out


def _pdf_ids(pdf: PdfFacts) -> dict[str, str]:
    out: dict[str, str] = {}
    for kind, value in (
        ("doi", normalize_doi(pdf.doi) if pdf.doi else None),
        ("arxiv", normalize_arxiv(pdf.arxiv) if pdf.arxiv else None),
        ("pmid", normalize_pmid(pdf.pmid) if pdf.pmid else None),
        ("pmcid", normalize_pmcid(pdf.pmcid) if pdf.pmcid else None),
    ):
        if value:
            out[kind] = value
    return out


_ID_KINDS: Final[tuple[MatchHow, ...]] = ("doi", "arxiv", "pmid", "pmcid")
_LABEL: Final = {"doi": "DOI", "arxiv": "arXiv id", "pmid": "PMID", "pmcid": "PMCID"}


def _title_detail(paper: Paper, pdf: PdfFacts, paper_ids: dict[str, str]) -> str | None:
    """Why ``pdf`` is ``paper`` by its title, or ``None`` when it is not (see module)."""
    if not pdf.title or not paper.title:
        return None
    wanted = normalise_title(paper.title)
    if len(wanted.split()) < MIN_TITLE_WORDS or wanted != normalise_title(pdf.title):
        return None
    pdf_ids = _pdf_ids(pdf)
    if any(pdf_ids.get(k) not in (None, v) for k, v in paper_ids.items()):
        return None  # the PDF names another paper (or another version with its own DOI)
    checks: list[str] = []
    if paper.year is not None and pdf.year is not None:
        if abs(paper.year - pdf.year) > YEAR_SLACK:
            return None
        checks.append(f"year {pdf.year}")
    if paper.authors and pdf.authors:
        first = surname(pdf.authors[0])
        if not first or first not in {surname(a) for a in paper.authors}:
            return None
        checks.append(f"first author {pdf.authors[0]}")
    agreed = "; " + " and ".join(checks) + " agree" if checks else ""
    return f"the title on the PDF's first page is the paper's title{agreed}"


def match_paper(paper: Paper, pdfs: Sequence[PdfFacts]) -> PdfMatch | None:
    """The PDF of ``pdfs`` that is ``paper``'s (see the module), or ``None``: identifiers
    first (DOI, arXiv id, PMID, PMCID), then a verified title found on exactly one PDF."""
    ids = _ids(paper)
    for kind in _ID_KINDS:
        value = ids.get(kind)
        if value is None:
            continue
        for pdf in pdfs:
            if _pdf_ids(pdf).get(kind) == value:
                return PdfMatch(pdf.sha256, pdf.file, kind, f"{_LABEL[kind]} {value} on both")
    found = [(pdf, why) for pdf in pdfs if (why := _title_detail(paper, pdf, ids)) is not None]
    if len({pdf.sha256 for pdf, _ in found}) != 1:
        return None  # none, or several different PDFs with this title: a person attaches one
    pdf, why = found[0]
    return PdfMatch(pdf.sha256, pdf.file, "title", why)


#: How a hand-made link's doubt begins (stored as the link's detail, shown beside it).
DOUBT_PREFIX: Final = "Check this PDF: "


def link_doubt(how: str, detail: str) -> str | None:
    """The doubt a stored link carries (:func:`attach_doubt`'s words, kept as the detail of
    a PDF uploaded for a paper), or ``None``."""
    return detail if how == "upload" and detail.startswith(DOUBT_PREFIX) else None


def attach_doubt(paper: Paper, pdf: PdfFacts, others: Iterable[Paper]) -> str | None:
    """Why a PDF a person attached to ``paper`` looks like another paper's, in words
    (beginning :data:`DOUBT_PREFIX`), or ``None``: the link stands either way (a person
    chose it), the doubt is shown beside it with its undo.

    * ``None`` when the PDF is ``paper``'s by :func:`match_paper` (an identifier on both,
      or its verified title);
    * when it is one of ``others``' (the Study's other papers) by the same rule: that
      paper's title and how it matched (certain matches first);
    * else when the PDF names an identifier of a kind the paper has, with another value.

    Nothing is said of a PDF that names no identifier and whose title matches no paper:
    titles read from first pages are not certain enough to contradict a person."""
    if match_paper(paper, [pdf]) is not None:
        return None
    found: list[tuple[Paper, PdfMatch]] = []
    for other in others:
        if other.id == paper.id:
            continue
        m = match_paper(other, [pdf])
        if m is not None:
            found.append((other, m))
            if m.certain:
                break
    if found:
        other, m = sorted(found, key=lambda f: not f[1].certain)[0]
        title = (other.title or other.id)[:160]
        return f"{DOUBT_PREFIX}it looks like another paper of this Study, {title!r} ({m.detail})"
    mine, theirs = _ids(paper), _pdf_ids(pdf)
    for kind in _ID_KINDS:
        if kind in mine and kind in theirs and mine[kind] != theirs[kind]:
            return (
                f"{DOUBT_PREFIX}its first pages name {_LABEL[kind]} {theirs[kind][:120]}; "
                f"this paper's is {mine[kind][:120]}"
            )
    return None
