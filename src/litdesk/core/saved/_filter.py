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
from functools import lru_cache
from typing import Final

from rapidfuzz import fuzz, process

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


@lru_cache(maxsize=50_000)
def _fold_cached(text: str) -> str:
    return _fold(text)


def _haystack(paper: Paper) -> str:
    parts = [paper.title, *paper.authors, paper.journal or "", *_identifiers(paper)]
    return _fold_cached(" \n ".join(parts))


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
    if not is_fuzzy_query(query):
        return [*exact, *substring]
    rest = [p for p in papers if p.id not in seen]
    # best partial ratio over title, authors, journal (one C loop per field); a tie between
    # fields goes to the heavier one (title, then authors, then journal)
    best = [0.0] * len(rest)
    for weight, values in (
        (_WEIGHTS[0], [_fold_cached(p.title) for p in rest]),
        (_WEIGHTS[1], [_fold_cached(" ".join(p.authors)) for p in rest]),
        (_WEIGHTS[2], [_fold_cached(p.journal or "") for p in rest]),
    ):
        scores = process.cdist(
            [query], values, scorer=fuzz.partial_ratio, score_cutoff=FUZZY_THRESHOLD, workers=1
        )[0]
        for i, score in enumerate(scores):
            if score and values[i]:
                best[i] = max(best[i], float(score) + weight / 10)
    fuzzy = sorted((-b, i) for i, b in enumerate(best) if b >= FUZZY_THRESHOLD)
    return [*exact, *substring, *(rest[i] for _b, i in fuzzy)]
