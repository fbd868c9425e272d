"""Which retrieved excerpts an answer may show (pure): only those relevant enough.

Retrieval fills its ``top_k`` excerpts whatever the library holds; an answer shows only the
excerpts whose support by the question (:func:`~litdesk.core.library.support`) reaches the
relevance the answer needs (:func:`relevance_needed`): half the best excerpt's support, but
never more than the abstention threshold that applied to the question (an excerpt that would
carry an answer alone is always shown) nor less than 0.7 of it. The others are near misses,
listed apart and never cited, and the answer says how many excerpts it rests on.

A cross question's passages each carry only part of its words, so the threshold alone drops
them; the share of the best is what tells a passage on the question from padding. The rule
and its two numbers were chosen with ``bench/relevance_quality.py`` on the shared judged
questions only (bench/RESULTS.md, issue 32), never on the held-out ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

__all__ = [
    "RELEVANCE_FLOOR",
    "RELEVANCE_OF_BEST",
    "RelevanceSplit",
    "relevance_needed",
    "relevance_note",
    "split_relevant",
]

#: An excerpt is relevant from this share of the best excerpt's support ...
RELEVANCE_OF_BEST: Final = 0.5
#: ... and never under this share of the abstention threshold that applied.
RELEVANCE_FLOOR: Final = 0.7


def relevance_needed(threshold: float, best: float) -> float:
    """The support an excerpt needs to be shown in an answer whose abstention
    ``threshold`` applied and whose best excerpt has support ``best``."""
    return max(RELEVANCE_FLOOR * threshold, min(threshold, RELEVANCE_OF_BEST * best))


@dataclass(frozen=True, slots=True)
class RelevanceSplit:
    """Positions (into the retrieved list) of the excerpts shown and of the near misses."""

    shown: tuple[int, ...]
    near: tuple[int, ...]
    needed: float


def split_relevant(supports: Sequence[float | None], needed: float) -> RelevanceSplit:
    """Split excerpts by their support: at or above ``needed`` shown (in their order), the
    rest near misses. An excerpt without a support (``None``: not judged) is shown."""
    shown = tuple(i for i, s in enumerate(supports) if s is None or s >= needed)
    near = tuple(i for i, s in enumerate(supports) if s is not None and s < needed)
    return RelevanceSplit(shown, near, needed)


def relevance_note(split: RelevanceSplit) -> str:
    """The sentence an answer carries when it rests on fewer excerpts than were retrieved
    (empty when none was left out)."""
    if not split.near:
        return ""
    n, m = len(split.shown), len(split.near)
    were = "was" if n == 1 else "were"
    misses = "the other is" if m == 1 else f"the other {m} are"
    return (
        f"Only {n} of the {n + m} excerpts retrieved {were} relevant enough to answer from "
        f"(support {split.needed:.2f} or more); {misses} listed apart as near misses."
    )
