"""Query-to-passage proximity (pure): how much of the question one short stretch holds.

A chunk of 1,000 characters can match a question's words spread over unrelated sentences;
the passage that answers usually holds several of them close together. The proximity of
a chunk is the best rarity-weighted share of the question's terms (stemmed like
:func:`~litdesk.core.library.terms`) found within any ``window`` consecutive tokens of it,
so a re-ranking step can prefer the chunk whose best sentence-sized stretch matches.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Final, TypeVar

from ._support import DocFrequencies, text_terms

__all__ = ["PROXIMITY_WINDOW", "proximity", "rerank_by_proximity"]

T = TypeVar("T")

#: Tokens in the stretch that is scored (about a sentence of a paper).
PROXIMITY_WINDOW: Final = 24


def proximity(
    qterms: Sequence[str], text: str, dfs: DocFrequencies, *, window: int = PROXIMITY_WINDOW
) -> float:
    """The best idf-weighted share (0..1) of ``qterms`` within ``window`` consecutive
    tokens of ``text``; 0 when the question has no weighted term or the text none of them."""
    if window < 1:
        raise ValueError("window must be >= 1")
    weight = {t: dfs.idf(t) for t in dict.fromkeys(qterms)}
    total = sum(weight.values())
    if total <= 0:
        return 0.0
    hits = [(i, t) for i, t in enumerate(text_terms(text)) if weight.get(t, 0.0) > 0]
    best = 0.0
    counts: dict[str, int] = {}
    inside = 0.0
    lo = 0
    for pos, term in hits:  # two pointers over the positions of question terms
        counts[term] = counts.get(term, 0) + 1
        if counts[term] == 1:
            inside += weight[term]
        while hits[lo][0] <= pos - window:
            old = hits[lo][1]
            counts[old] -= 1
            if counts[old] == 0:
                inside -= weight[old]
            lo += 1
        best = max(best, inside)
    return min(1.0, best / total)


def rerank_by_proximity(
    fused: Sequence[tuple[T, float]],
    qterms: Sequence[str],
    text_of: Callable[[T], str],
    dfs: DocFrequencies,
    *,
    depth: int,
    weight: float,
    unseen: Collection[T] = (),
) -> list[tuple[T, float]]:
    """The best ``depth`` of ``fused`` (item, score; best first) re-scored as their score's
    share of the best plus ``weight`` times their :func:`proximity`, best first; the rest
    after them in their order. An ``unseen`` item (a passage in another language than the
    question: no word can match) gets the median proximity of the others. ``depth`` 0
    returns ``fused`` as it is."""
    if depth < 0:
        raise ValueError("depth must be >= 0")
    if depth == 0 or not fused:
        return list(fused)
    head = fused[:depth]
    top = head[0][1] or 1.0
    near = {k: proximity(qterms, text_of(k), dfs) for k, _ in head if k not in unseen}
    values = sorted(near.values())
    neutral = (values[(len(values) - 1) // 2] + values[len(values) // 2]) / 2 if values else 0.0
    blended = [(k, s / top + weight * near.get(k, neutral)) for k, s in head]
    low = min(s for _, s in blended)
    order = sorted(range(len(blended)), key=lambda i: (-blended[i][1], i))
    tail = [(k, s / top + low - 1.0) for k, s in fused[depth:]]  # below every head item
    return [blended[i] for i in order] + tail
