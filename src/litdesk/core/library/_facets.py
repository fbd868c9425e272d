"""Question facets (pure): a question that asks two things gets each one's best excerpts.

A question such as "Which model was X trained from, and which summarizers were tested on
Y?" asks two questions, often about two papers. Ranked as one, the facet one paper answers
best can fill every excerpt, and the other facet's passage, ranked first for its own
words, falls below the cut. :func:`split_facets` cuts a question at its clause
boundaries — a semicolon, or a comma or "and" that starts a new question (a wh-word or
an auxiliary, optionally after a preposition: "and which", ", for how many") — and keeps
a facet only with enough content words of its own; :func:`facet_picks` chooses each
facet's best excerpts from its own ranking, which the allocation then takes first
(``allocate(..., required=...)``).

A question whose facets are not marked that way ("How do A and B use X?") stays whole.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from dataclasses import replace
from typing import Final

from ._retrieval import Candidate, allocate, salient_words

__all__ = ["FACET_MIN_WORDS", "MAX_FACETS", "choose_excerpts", "facet_picks", "split_facets"]

#: A facet needs this many content words of its own; a shorter one joins the one before.
FACET_MIN_WORDS: Final = 2
#: At most this many facets (the rest of a longer question stays in the last one).
MAX_FACETS: Final = 3

_WH: Final = (
    r"(?:which|what|how|who|whom|whose|where|when|why|"
    r"is|are|was|were|do|does|did|can|could|has|have|had)"
)
_PREP: Final = r"(?:(?:in|for|from|against|at|to|on|with|by|of|under|into|after|before|during)\s+)?"
_BOUNDARY: Final = re.compile(
    rf"(?:(?<!\s)\s+)?;\s*|,?(?<!\s)\s+and\s+(?={_PREP}{_WH}\b)|,\s+(?={_PREP}{_WH}\b)",
    re.IGNORECASE,
)


def split_facets(question: str) -> list[str]:
    """The question's facets, in order; ``[question]`` (stripped) when it asks one thing.

    Every facet is a substring of the question; joined facets keep the text between them.
    """
    text = question.strip()
    if not text:
        return []
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    facets: list[tuple[int, int]] = []  # (start, end) in text; a short one joins the last
    for a, b in spans:
        piece = text[a:b]
        if not piece.strip(" ,;:?.!"):
            continue
        if facets and len(salient_words(piece)) < FACET_MIN_WORDS:
            facets[-1] = (facets[-1][0], b)
        else:
            facets.append((a, b))
    while len(facets) > 1 and len(salient_words(text[slice(*facets[0])])) < FACET_MIN_WORDS:
        facets[:2] = [(facets[0][0], facets[1][1])]
    if len(facets) > MAX_FACETS:
        facets[MAX_FACETS - 1 :] = [(facets[MAX_FACETS - 1][0], facets[-1][1])]
    out = [text[a:b].strip(" ,;") for a, b in facets]
    return out if len(out) > 1 else [text]


def facet_picks(rankings: Sequence[Sequence[Candidate]], *, per_facet: int) -> list[Hashable]:
    """Keys of each facet's best ``per_facet`` excerpts on distinct pages, from each
    facet's own ranking (best first), taken in turns (every facet's best, then every
    facet's second, ...), so a cut of the list keeps each facet's share; a page picked
    for one facet is not picked again for another."""
    if per_facet < 0:
        raise ValueError("per_facet must be >= 0")
    out: list[Hashable] = []
    pages: set[tuple[str, int | None]] = set()
    keys: set[Hashable] = set()
    cursor = [0] * len(rankings)
    for _ in range(per_facet):
        for f, ranking in enumerate(rankings):
            while cursor[f] < len(ranking):
                c = ranking[cursor[f]]
                cursor[f] += 1
                page = (c.paper, c.page)
                if c.key in keys or (c.page is not None and page in pages):
                    continue
                out.append(c.key)
                keys.add(c.key)
                pages.add(page)
                break
    return out


def choose_excerpts(
    ranked: Sequence[Candidate],
    turns: Sequence[Sequence[Candidate]],
    *,
    top_k: int,
    per_facet: int,
    papers: Sequence[str] | None = None,
) -> list[Candidate]:
    """The ``top_k`` excerpts of a question: each turn's (facet's) best ``per_facet`` picks
    (:func:`facet_picks`) first, then the rest of ``ranked`` (the whole question's ranking),
    by :func:`allocate`.

    A facet's pick that ``ranked`` does not hold (the whole question's pool can miss the
    passage only one facet's words find) is still chosen: it joins the candidates after
    ``ranked``'s last, so the picks keep their share and the order by score stays the
    whole question's.
    """
    required = facet_picks(turns, per_facet=per_facet)
    cands = list(ranked)
    pooled = {c.key for c in cands}
    wanted = set(required)
    floor = min((c.score for c in cands), default=0.0)
    extra: dict[Hashable, Candidate] = {}
    for turn in turns:
        for c in turn:
            if c.key in wanted and c.key not in pooled and c.key not in extra:
                extra[c.key] = replace(c, score=floor)
    cands += extra.values()
    return allocate(cands, top_k=top_k, papers=papers, required=required)
