"""Second-pass helpers for the within-paper ranking (pure).

* :func:`lexical_words` — the question's salient words as the lexical index can match
  them: a possessive ``'s`` dropped (``PaSa's`` ~ ``PaSa``) and, optionally, a hyphenated
  word's parts added beside it (``influential-spreader`` ~ ``influential``, ``spreader``).
* :func:`smooth_neighbours` — a chunk's fused score plus a share of its best neighbour's
  (the chunk before or after it on the same page), so a passage split across two chunks
  counts for both halves.
* :func:`feedback_query` — a query vector moved towards the mean of its best hits'
  vectors (pseudo-relevance feedback on the semantic side).
* :func:`local_coverage`, :func:`within_paper_order`, :func:`reorder_within_papers` — a
  second pass over one paper: once a ranking has settled which papers answer, each of its
  leading papers' chunks is ranked again against the question with term weights taken
  *within that paper* (a word every chunk of the paper has tells its chunks apart no
  better than a stop word; a word few of them have does), and the paper's chunks fill the
  places the paper held in the ranking in that new order. The allocation between papers
  is unchanged; only which of a paper's chunks stand for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Final, TypeVar

import numpy as np
import numpy.typing as npt

from ._retrieval import rrf
from ._support import DocFrequencies, terms

__all__ = [
    "feedback_query",
    "lexical_words",
    "local_coverage",
    "reorder_within_papers",
    "smooth_neighbours",
    "within_paper_order",
]

T = TypeVar("T", bound=Hashable)

_POSSESSIVE: Final = re.compile(r"['’]s$")
#: A hyphenated word's part is added when it has this many letters (or holds a digit).
PART_MIN: Final = 3


def lexical_words(words: Sequence[str], *, hyphen_parts: bool = False) -> list[str]:
    """``words`` without a trailing possessive ``'s``; with ``hyphen_parts`` each part of
    a hyphenated word (of ``PART_MIN`` letters or more, or with a digit) follows the word.
    Order kept, duplicates dropped."""
    out: list[str] = []
    for word in words:
        base = _POSSESSIVE.sub("", word)
        forms = [base] if base else []
        if hyphen_parts and "-" in base:
            forms += [
                p for p in base.split("-") if len(p) >= PART_MIN or any(c.isdigit() for c in p)
            ]
        for f in forms:
            if f not in out:
                out.append(f)
    return out


def smooth_neighbours(
    fused: Sequence[tuple[T, float]],
    neighbours: Callable[[T], Sequence[T]],
    *,
    weight: float,
) -> list[tuple[T, float]]:
    """``fused`` (item, score; best first) re-scored as score + ``weight`` × the best
    score among the item's ``neighbours`` (items absent from ``fused`` count 0), best
    first, ties in the input order. ``weight`` 0 returns ``fused`` as it is."""
    if weight < 0:
        raise ValueError("weight must be >= 0")
    if weight == 0 or not fused:
        return list(fused)
    score = dict(fused)
    rescored = [
        (k, s + weight * max((score.get(n, 0.0) for n in neighbours(k)), default=0.0))
        for k, s in fused
    ]
    order = sorted(range(len(rescored)), key=lambda i: (-rescored[i][1], i))
    return [rescored[i] for i in order]


def feedback_query(
    query: npt.NDArray[np.float32], hits: npt.NDArray[np.float32], *, beta: float
) -> npt.NDArray[np.float32]:
    """``query`` + ``beta`` × the mean of ``hits`` (rows), renormalised to unit length;
    ``query`` itself when there are no hits or ``beta`` is 0."""
    if beta < 0:
        raise ValueError("beta must be >= 0")
    if beta == 0 or hits.size == 0:
        return query
    moved = query + beta * hits.mean(axis=0)
    norm = float(np.linalg.norm(moved))
    return (moved / norm).astype(np.float32) if norm > 0 else query


def local_coverage(qterms: Sequence[str], texts: Sequence[str]) -> list[float]:
    """Per text, the share (0..1) of ``qterms`` it contains, each term weighted by its
    rarity among ``texts`` themselves (one paper's chunks); all 0 when no term weighs."""
    local = DocFrequencies.build(texts, sample=0)
    weight = {t: local.idf(t) for t in dict.fromkeys(qterms)}
    total = sum(weight.values())
    if total <= 0:
        return [0.0] * len(texts)
    out = []
    for text in texts:
        have = terms(text)
        out.append(sum(w for t, w in weight.items() if t in have) / total)
    return out


def within_paper_order(
    cosines: Sequence[float],
    lexical: Sequence[int],
    coverage: Sequence[float],
    *,
    weight: float,
) -> list[int]:
    """Indices of one paper's chunks, best first: the reciprocal-rank fusion of their
    cosine order and ``lexical`` (indices, best first), as a share of its best, plus
    ``weight`` × their :func:`local_coverage`; ties keep the cosine order."""
    if weight < 0:
        raise ValueError("weight must be >= 0")
    n = len(cosines)
    if len(coverage) != n:
        raise ValueError("cosines and coverage must be as long")
    if n == 0:
        return []
    by_cos = sorted(range(n), key=lambda i: (-cosines[i], i))
    fused = dict(rrf([by_cos, [i for i in lexical if 0 <= i < n]]))
    top = max(fused.values())
    score = [fused.get(i, 0.0) / top + weight * coverage[i] for i in range(n)]
    rank = {i: r for r, i in enumerate(by_cos)}
    return sorted(range(n), key=lambda i: (-score[i], rank[i]))


def reorder_within_papers(
    ranking: Sequence[tuple[T, float]],
    paper_of: Callable[[T], str],
    orders: Mapping[str, Sequence[T]],
) -> list[tuple[T, float]]:
    """``ranking`` (item, score; best first) with each paper of ``orders`` holding the
    same places and scores, filled with its items in its new order (the first as many as
    it had places); every other item stays where it was."""
    slots: dict[str, list[int]] = {}
    for i, (item, _) in enumerate(ranking):
        paper = paper_of(item)
        if paper in orders:
            slots.setdefault(paper, []).append(i)
    out = list(ranking)
    for paper, places in slots.items():
        fill = list(dict.fromkeys(orders[paper]))
        if len(fill) < len(places):  # an order shorter than the paper's share: keep the rest
            kept = [ranking[i][0] for i in places if ranking[i][0] not in set(fill)]
            fill += kept
        for i, item in zip(places, fill, strict=False):
            out[i] = (item, ranking[i][1])
    return out
