"""Filter saved papers by a text (reference "Saved papers", ``filterSavedPapers``).

Order of the answer: papers whose DOI, PMID, PMCID, OpenAlex or arXiv id equals the text
(case-insensitive, a ``doi:``/``https://doi.org/`` prefix ignored), then papers whose
title, authors, journal or identifiers contain the text, then — only for letter-only
texts whose every word has at least :data:`FUZZY_MIN_WORD` letters — fuzzy matches
(best partial ratio over title, authors, journal at least 80; ties go to the title). Titles never establish identity; the
filter only narrows a list.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Final

from rapidfuzz import fuzz

from litdesk.core.records import Paper

__all__ = ["FUZZY_MIN_WORD", "filter_papers", "is_fuzzy_query"]

FUZZY_MIN_WORD: Final = 5
FUZZY_THRESHOLD: Final = 80.0
MAX_FILTER_CHARS: Final = 300
_WEIGHTS: Final = (0.6, 0.25, 0.15)
_LETTERS: Final = re.compile(r"^[^\W\d_]+(?: [^\W\d_]+)*$")
_DOI_PREFIX: Final = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)", re.IGNORECASE)


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _identifiers(paper: Paper) -> list[str]:
    values = [paper.id, paper.doi, paper.pmid, paper.pmcid, paper.openalex_id, paper.arxiv_id]
    return [_fold(v) for v in values if v]


def is_fuzzy_query(text: str) -> bool:
    """Letters only, every word at least :data:`FUZZY_MIN_WORD` characters."""
    folded = _fold(text)
    if not _LETTERS.match(folded):
        return False
    return all(len(word) >= FUZZY_MIN_WORD for word in folded.split())


def _haystack(paper: Paper) -> str:
    parts = [paper.title, *paper.authors, paper.journal or "", *_identifiers(paper)]
    return _fold(" \n ".join(parts))


def _fuzzy_score(query: str, paper: Paper) -> float:
    """The best partial ratio (0 to 100) over title, authors and journal; a tie between
    fields goes to the heavier one (title, then authors, then journal)."""
    fields = (paper.title, " ".join(paper.authors), paper.journal or "")
    best = 0.0
    for weight, value in zip(_WEIGHTS, fields, strict=True):
        if value:
            best = max(best, fuzz.partial_ratio(query, _fold(value)) + weight / 10)
    return best


def filter_papers(papers: Sequence[Paper], text: str) -> list[Paper]:
    """``papers`` narrowed by ``text`` (all of them, in order, for a blank text)."""
    query = _fold(text[:MAX_FILTER_CHARS])
    if not query:
        return list(papers)
    ident = _fold(_DOI_PREFIX.sub("", query))
    exact = [p for p in papers if ident in _identifiers(p)]
    seen = {p.id for p in exact}
    substring = [p for p in papers if p.id not in seen and query in _haystack(p)]
    seen.update(p.id for p in substring)
    fuzzy: list[tuple[float, int, Paper]] = []
    if is_fuzzy_query(query):
        for index, paper in enumerate(papers):
            if paper.id in seen:
                continue
            score = _fuzzy_score(query, paper)
            if score >= FUZZY_THRESHOLD:
                fuzzy.append((-score, index, paper))
        fuzzy.sort(key=lambda item: (item[0], item[1]))
    return [*exact, *substring, *(p for _s, _i, p in fuzzy)]
