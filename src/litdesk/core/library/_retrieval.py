"""Retrieval logic (pure): salient words, rank fusion, per-paper excerpt allocation."""

from __future__ import annotations

import re
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass
from typing import Final, Protocol, TypeVar

__all__ = [
    "DEFAULT_TOP_K",
    "MAX_TOP_K",
    "Candidate",
    "ScopeChunk",
    "allocate",
    "fuse_hybrid",
    "per_paper_minimum",
    "rrf",
    "salient_words",
]

DEFAULT_TOP_K: Final = 8
MAX_TOP_K: Final = 20
RRF_K: Final = 60

_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*", re.UNICODE)
_STOP_TEXT: Final = """
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from
further had has have having he her here hers him his how i if in into is it its itself just
me more most my no nor not of off on once only or other our ours out over own same she should
so some such than that the their theirs them then there these they this those through to too
under until up very was we were what when where which while who whom why will with would you
your yours paper papers study studies article authors author use used using show shows shown
tell please give list describe explain does did what which whose many much one two three
kind kinds way ways
que qual quais como para por com uma um dos das nos nas pelo pela sobre entre foi são ser
los las del una unos unas por para con sobre entre fue son ser cual cuales como qué cómo
der die das und ist sind mit von für wie was welche wurde werden ein eine einer
"""
_STOP: Final = frozenset(_STOP_TEXT.split())
T = TypeVar("T", bound=Hashable)


def salient_words(question: str, *, limit: int = 12) -> list[str]:
    """The question's content words (lower-case, stop words dropped, first occurrence order).

    Words of two letters or fewer are dropped unless they contain a digit or are
    upper-case acronyms in the question (``CO2``, ``EU``).
    """
    out: list[str] = []
    for m in _WORD.finditer(question[:2000]):
        raw = m.group(0)
        word = raw.lower()
        if word in _STOP:
            continue
        keep_short = any(ch.isdigit() for ch in raw) or (raw.isupper() and len(raw) >= 2)
        if len(word) < 3 and not keep_short:
            continue
        if word not in out:
            out.append(word)
        if len(out) >= limit:
            break
    return out


def rrf(rankings: Sequence[Sequence[T]], *, k: int = RRF_K) -> list[tuple[T, float]]:
    """Reciprocal rank fusion: ``sum 1/(k + rank)`` over the rankings, best first.

    Ties keep the order of first appearance (first ranking first), so the result is
    deterministic.
    """
    scores: dict[T, float] = {}
    for ranking in rankings:
        seen: set[T] = set()
        for rank, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))


def fuse_hybrid(
    semantic: Sequence[Sequence[T]],
    lexical: Sequence[T],
    *,
    unseen: Collection[T] = (),
    k: int = RRF_K,
) -> list[tuple[T, float]]:
    """Reciprocal rank fusion of the semantic rankings and the lexical one, where the
    lexical ranking cannot see the ``unseen`` items (excerpts in another language than the
    question: no word of the question can match them). For those, the lexical share is
    the better of their lexical rank and their best semantic rank, so a passage the
    cross-lingual embedding ranks first is not buried under English passages that both
    rankings merely half-match. Without ``unseen`` this is plain :func:`rrf`."""
    if not unseen:
        return rrf([*semantic, lexical], k=k)
    best: dict[T, int] = {}
    for ranking in semantic:
        for rank, item in enumerate(ranking, start=1):
            if item in unseen and rank < best.get(item, rank + 1):
                best[item] = rank
    lex_rank: dict[T, int] = {}
    for rank, item in enumerate(lexical, start=1):
        lex_rank.setdefault(item, rank)
    for item, rank in best.items():
        lex_rank[item] = min(rank, lex_rank.get(item, rank))
    scores: dict[T, float] = {}
    for ranking in semantic:
        seen: set[T] = set()
        for rank, item in enumerate(ranking, start=1):
            if item not in seen:
                seen.add(item)
                scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    for item, rank in lex_rank.items():
        scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))


class ScopeChunk(Protocol):
    """An indexed excerpt as the rankers read it (the store's ``StoredChunk`` is one)."""

    @property
    def id(self) -> int:
        """The excerpt's id in the index (the lexical ranking returns these)."""

    @property
    def sha256(self) -> str:
        """The content hash of the paper the excerpt belongs to."""

    @property
    def page(self) -> int:
        """The excerpt's 1-based page."""

    @property
    def text(self) -> str:
        """The excerpt's text."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A scored excerpt candidate: an opaque ``key``, the paper it belongs to, its score."""

    key: Hashable
    paper: str
    score: float
    page: int | None = None


def per_paper_minimum(papers: int, top_k: int) -> int:
    """Excerpts guaranteed to each paper of a chosen set: 2, fewer when the set is large,
    none when papers outnumber excerpts."""
    if papers <= 0 or papers > top_k:
        return 0
    return min(2, top_k // papers)


def allocate(
    candidates: Sequence[Candidate],
    *,
    top_k: int = DEFAULT_TOP_K,
    papers: Sequence[str] | None = None,
    per_paper_cap: int | None = None,
    required: Sequence[Hashable] = (),
) -> list[Candidate]:
    """Choose ``top_k`` excerpts from ``candidates`` (given best first).

    ``papers`` is the chosen set (``None`` = the whole library: by score only). Over
    a chosen set each paper first gets its best :func:`per_paper_minimum` excerpts,
    the rest go by score. The result is ordered by score (stable on input order).

    Excerpts of a page already chosen (same paper and ``page``) wait until every other
    page had its turn: a page is cited once before any page is cited twice. With
    ``per_paper_cap`` a paper takes at most that many excerpts while other papers have
    candidates left (a question about two papers should not get eight excerpts of one).
    The candidates whose keys are ``required`` (e.g. each facet's best, see
    :func:`facet_picks`) are taken before all others, in that order, up to ``top_k``.
    """
    if not 1 <= top_k <= MAX_TOP_K:
        raise ValueError(f"top_k must be between 1 and {MAX_TOP_K}")
    ranked = list(candidates)
    chosen: list[int] = []
    taken: set[int] = set()
    pages: set[tuple[str, int]] = set()
    per: dict[str, int] = {}

    def take(i: int) -> None:
        c = ranked[i]
        chosen.append(i)
        taken.add(i)
        per[c.paper] = per.get(c.paper, 0) + 1
        if c.page is not None:
            pages.add((c.paper, c.page))

    if required:
        index = {c.key: i for i, c in reversed(list(enumerate(ranked)))}
        for key in required:
            i = index.get(key)
            if i is not None and i not in taken and len(chosen) < top_k:
                take(i)
    if papers is not None:
        minimum = per_paper_minimum(len(set(papers)), top_k)
        if minimum:
            wanted = set(papers)
            for i, c in enumerate(ranked):
                if (
                    c.paper in wanted
                    and per.get(c.paper, 0) < minimum
                    and not _seen(c, pages)
                    and len(chosen) < top_k
                ):
                    take(i)
    for capped, distinct in ((True, True), (False, True), (False, False)):
        for i, c in enumerate(ranked):
            if len(chosen) >= top_k:
                break
            if i in taken or (distinct and _seen(c, pages)):
                continue
            if capped and per_paper_cap is not None and per.get(c.paper, 0) >= per_paper_cap:
                continue
            take(i)
    return [ranked[i] for i in sorted(chosen, key=lambda j: (-ranked[j].score, j))]


def _seen(c: Candidate, pages: set[tuple[str, int]]) -> bool:
    return c.page is not None and (c.paper, c.page) in pages
