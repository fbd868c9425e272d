"""Retrieval as a pure ranker: a question's excerpts from what the library service fed.

:func:`rank_excerpts` is the whole ranking algorithm of a library question, configured by
one frozen :class:`RetrievalParams` (the settings' ``retrieval_*`` fields make it; see
:meth:`litdesk._settings.Settings.retrieval_params`). The service fetches the scope once
(:class:`RetrievalScope`: the indexed chunks, their search space, the papers' languages,
term frequencies, the embedder's thresholds) and hands over a :class:`RetrievalFeed` for
what only it can reach (the embedder, the full-text index, the stored vectors, the
cross-lingual word bridge). No I/O happens here beyond those callables.

The steps, in order:

1. the question (and its English variant) and, with ``facet_slots``, its facets
   (:func:`split_facets`) are embedded and ranked semantically;
2. each ranking is fused with the lexical ranking of its words (bridged to the words of
   papers in another language near its top) by reciprocal rank (:func:`fuse_hybrid`);
3. the facets' (and, unless ``proximity_facets_only``, the question's) fused rankings are
   re-ranked by proximity (:func:`rerank_by_proximity`);
4. the per-paper second pass (:func:`second_pass`) re-orders the leading papers' chunks;
5. optionally (``rerank_depth``) the best fused candidates are re-ranked by support;
6. the excerpts are chosen, the facets taking turns (:func:`choose_excerpts`), and the
   abstention verdict is judged on them (:func:`verdict`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Final, Protocol, cast

import numpy as np
import numpy.typing as npt

from litdesk._errors import InputError

from ._facets import choose_excerpts, split_facets
from ._language import guess_language
from ._proximity import rerank_by_proximity
from ._retrieval import DEFAULT_TOP_K, MAX_TOP_K, Candidate, ScopeChunk, fuse_hybrid, salient_words
from ._second_pass import second_pass
from ._support import DocFrequencies, Verdict, question_terms, support, verdict
from ._vectors import EXACT_BELOW, VectorIndex

__all__ = [
    "PAPER_LEXICAL_LIMIT",
    "POOL_MIN",
    "Ranked",
    "RankedExcerpt",
    "RetrievalFeed",
    "RetrievalParams",
    "RetrievalParamsError",
    "RetrievalScope",
    "rank_excerpts",
    "semantic_ranking",
]

F32 = npt.NDArray[np.float32]

#: Fewest candidates each ranking returns (the pool is the larger of this and 10 × top_k).
POOL_MIN: Final = 50
#: Most chunks of the leading papers their own lexical ranking returns (second pass).
PAPER_LEXICAL_LIMIT: Final = 1_000
#: Parameters that are shares (0..1).
_SHARES: Final = frozenset({"second_foreign"})


class RetrievalParamsError(InputError):
    """A retrieval parameter is out of its range."""

    default_code = "retrieval_params"


@dataclass(frozen=True, slots=True)
class RetrievalParams:
    """Every knob of the retrieval; the defaults are the shipped retrieval (measured with
    ``bench/retrieval_quality.py``, bench/RESULTS.md). Change one with
    :func:`dataclasses.replace`; out-of-range values raise :class:`RetrievalParamsError`."""

    #: chunk count from which the whole-library search uses an IVF index (approximate)
    exact_below: int = EXACT_BELOW
    #: fewest candidates each ranking returns (the pool is the larger of this and 10 × top_k)
    pool_min: int = POOL_MIN
    #: fused candidates re-ranked by their support (0: fusion order only)
    rerank_depth: int = 0
    #: weight of the (best-normalised) fusion score beside the support when re-ranking
    rerank_fusion: float = 1.0
    #: excerpts guaranteed to each facet of a question that asks several things, from the
    #: facet's own ranking (0: the question is ranked whole only)
    facet_slots: int = 3
    #: the whole question's ranking takes its turn beside its facets' ones
    facet_whole: bool = True
    #: fused candidates re-ranked by proximity (0: off)
    proximity_depth: int = 40
    #: weight of the proximity beside the (best-normalised) fusion score
    proximity_weight: float = 0.5
    #: the proximity re-rank applies to the facets' rankings only, not the whole question's
    proximity_facets_only: bool = True
    #: leading papers whose chunks the second pass re-ranks within the paper (0: off)
    second_papers: int = 2
    #: weight of the in-paper term coverage in the second pass
    second_weight: float = 4.0
    #: the second pass leaves the whole question's ranking out (the facets' rankings only)
    second_facets_only: bool = False
    #: the second pass also ranks again a leading paper in another language than the
    #: question when the cross-lingual bridge finds its words for at least this share of
    #: the question's words (0: never; see :func:`second_pass`)
    second_foreign: float = 0.5
    #: the support an answer shows (and abstention judges) of a passage in another language
    #: counts the question's words the bridge finds in it (see :func:`translations`)
    bridged_support: bool = True

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool):
                continue
            least = 1 if f.name in ("exact_below", "pool_min") else 0
            if value < least:
                raise RetrievalParamsError(
                    f"retrieval parameter {f.name} must be >= {least}", parameter=f.name
                )
            if f.name in _SHARES and value > 1:
                raise RetrievalParamsError(
                    f"retrieval parameter {f.name} must be <= 1", parameter=f.name
                )


class RetrievalFeed(Protocol):
    """What the ranker asks of the library service for one retrieval."""

    def embed(self, texts: list[str]) -> F32:
        """One unit vector per text (one embedder call)."""

    def lexical(self, words: list[str], papers: list[str], limit: int) -> list[int]:
        """Chunk ids of ``papers`` (content hashes) matching ``words``, best first, at most
        ``limit`` (the full-text index)."""

    def vectors(self, positions: list[int]) -> F32:
        """The index's stored vectors of the scope's chunks at ``positions``, one row each."""

    def bridge(
        self, rankings: list[list[int]], foreign: Collection[str]
    ) -> Callable[[list[str]], list[str]]:
        """The word bridge of this retrieval: prepared on the papers in ``foreign`` (content
        hashes) near the top of ``rankings`` (chunk positions, best first), it returns the
        words given followed by those papers' words that stand in for them."""


@dataclass(frozen=True, slots=True)
class RetrievalScope:
    """What the service fetched for one retrieval's scope."""

    #: the indexed chunks of the scope's papers (positions in this list name them)
    chunks: Sequence[ScopeChunk]
    #: every file of the scope by content hash -> its file name (indexed or not)
    names: Mapping[str, str]
    #: the indexed papers (content hashes) the lexical rankings search
    papers: Sequence[str]
    #: the whole library (rank by score only) or a chosen set of papers (each gets a share)
    whole: bool
    #: the chunks' vectors: the library's index, or a chosen set's rows (ranked exactly)
    space: VectorIndex | F32
    #: each indexed paper's language (``None``: not told)
    languages: Mapping[str, str | None]
    #: term document frequencies of the scope's chunks
    dfs: DocFrequencies
    #: the embedder's abstention thresholds (see :func:`verdict`)
    abstain_below: float
    uncovered_below: float


@dataclass(frozen=True, slots=True)
class RankedExcerpt:
    """A chosen excerpt: its position in the scope's chunks, its score and its support by
    the question (:func:`~litdesk.core.library.support`; the relevance an answer needs)."""

    position: int
    score: float
    support: float = 0.0


@dataclass(frozen=True, slots=True)
class Ranked:
    """The chosen excerpts, best first, and the abstention verdict (``None``: none chosen)."""

    excerpts: tuple[RankedExcerpt, ...]
    verdict: Verdict | None


def semantic_ranking(space: VectorIndex | F32, query: F32, pool: int) -> list[int]:
    """Chunk positions by cosine to ``query``: the index's best ``pool``, or every chunk of a
    chosen set (ranked exactly, so each paper has its best ones)."""
    if isinstance(space, VectorIndex):
        return list(space.search(query, pool)[0].tolist())
    return list(np.argsort(-(space @ query), kind="stable").tolist())


def rank_excerpts(
    question: str,
    scope: RetrievalScope,
    feed: RetrievalFeed,
    params: RetrievalParams,
    *,
    variant: str | None = None,
    top_k: int = DEFAULT_TOP_K,
) -> Ranked:
    """The ``top_k`` excerpts of ``scope`` for ``question`` (and its English ``variant``)
    and the abstention verdict, as ``params`` configure the steps (see the module doc)."""
    if not 1 <= top_k <= MAX_TOP_K:
        raise InputError(f"top_k must be between 1 and {MAX_TOP_K}", code="top_k")
    chunks, space, dfs, p = scope.chunks, scope.space, scope.dfs, params
    queries = [question] + ([variant] if variant and variant.strip() else [])
    facets = split_facets(question) if p.facet_slots > 0 else []
    facets = facets if len(facets) > 1 else []
    allv = feed.embed(queries + facets)
    qv, fv = allv[: len(queries)], allv[len(queries) :]
    pool = max(p.pool_min, top_k * 10)
    rankings = [semantic_ranking(space, q, pool) for q in qv]
    facet_rankings = [semantic_ranking(space, v, pool) for v in fv]
    position = {c.id: i for i, c in enumerate(chunks)}
    asked = guess_language(question) or "en"
    foreign = {s for s, lang in scope.languages.items() if lang not in (None, asked)}
    unseen = {i for i, c in enumerate(chunks) if c.sha256 in foreign} if foreign else set()
    papers = list(scope.papers)

    def lexical(words: list[str]) -> list[int]:
        return [position[i] for i in feed.lexical(words, papers, pool) if i in position]

    # the question's words as the papers in another language near its top write them
    bridge = feed.bridge(rankings + facet_rankings, foreign)
    fused = fuse_hybrid(rankings, lexical(bridge(salient_words(" ".join(queries)))), unseen=unseen)
    facet_fused = [
        fuse_hybrid([ranking], lexical(bridge(salient_words(f))), unseen=unseen)
        for f, ranking in zip(facets, facet_rankings, strict=True)
    ]
    qterms = [question_terms(salient_words(q)) for q in queries]

    def text_of(pos: int) -> str:
        return chunks[pos].text

    depth, weight = p.proximity_depth, p.proximity_weight
    facet_fused = [
        rerank_by_proximity(
            ff, question_terms(salient_words(f)), text_of, dfs,
            depth=depth, weight=weight, unseen=unseen,
        )
        for ff, f in zip(facet_fused, facets, strict=True)
    ]  # fmt: skip
    if not p.proximity_facets_only:
        fused = rerank_by_proximity(
            fused, qterms[0], text_of, dfs, depth=depth, weight=weight, unseen=unseen
        )

    def vectors(positions: list[int]) -> F32:
        if isinstance(space, np.ndarray):  # a chosen set: its vectors are in memory
            return np.asarray(space[positions], dtype=np.float32)
        return feed.vectors(positions)

    first = fused  # the library-wide ranking: the coverage test's (see ``verdict``)
    if p.second_papers > 0:
        rows: dict[str, F32] = {}
        cache: dict[str, list[int]] = {}

        def vectors_of(sha: str, positions: list[int]) -> F32:
            if sha not in rows:
                rows[sha] = vectors(positions)
            return rows[sha]

        def again(ranking: list[tuple[int, float]], text: str, v: F32) -> list[tuple[int, float]]:
            return second_pass(
                ranking, text, v, chunks, vectors_of=vectors_of,
                lexical_of=lambda shas, words: feed.lexical(words, shas, PAPER_LEXICAL_LIMIT),
                papers=p.second_papers, weight=p.second_weight, skip=foreign, cache=cache,
                bridge=bridge, foreign_share=p.second_foreign,
            )  # fmt: skip

        facet_fused = [again(ff, f, v) for ff, f, v in zip(facet_fused, facets, fv, strict=True)]
        if not p.second_facets_only:
            fused = again(fused, question, qv[0])

    def supports(
        positions: list[int], tables: Sequence[Mapping[str, set[str]] | None] | None = None
    ) -> list[float]:
        """Each chunk's support by the question or its English variant, the closer
        (``tables``: per query, its terms' translations; see :func:`translations`)."""
        if not positions:
            return []
        hv = vectors(positions)
        per_query = tables if tables is not None else [None] * len(qterms)
        return [
            max(
                support(
                    t,
                    chunks[pos].text,
                    float(hv[i] @ v),
                    dfs,
                    other_language=pos in unseen,
                    bridged=table,
                )
                for t, v, table in zip(qterms, qv, per_query, strict=True)
            )  # fmt: skip
            for i, pos in enumerate(positions)
        ]

    known: dict[int, float] = {}
    if p.rerank_depth > 0:  # re-rank the fused shortlist by support, the rest after
        head = fused[: p.rerank_depth]
        top = head[0][1]
        known = dict(zip([q for q, _ in head], supports([q for q, _ in head]), strict=True))
        blended = [(q, known[q] + p.rerank_fusion * r / top) for q, r in head]
        tail = [(q, score - 10.0) for q, score in fused[p.rerank_depth :]]
        fused = sorted(blended, key=lambda kv: -kv[1]) + tail

    def choose(ranking: list[tuple[int, float]]) -> list[Candidate]:
        """The excerpts chosen from ``ranking`` (the whole question's) and the facets'."""
        turns = ([ranking] if facet_fused and p.facet_whole else []) + facet_fused
        names = scope.names
        cands = [
            [Candidate(q, names[chunks[q].sha256], score, chunks[q].page) for q, score in r]
            for r in [ranking, *turns]
        ]
        papers = None if scope.whole else list(names.values())
        return choose_excerpts(
            cands[0], cands[1:], top_k=top_k, per_facet=p.facet_slots, papers=papers
        )

    chosen = choose(fused)
    keys = [cast(int, c.key) for c in chosen]
    if not keys:
        return Ranked((), None)
    missing = [k for k in keys if k not in known]
    known.update(zip(missing, supports(missing), strict=True))
    # what the answer shows and the abstention judge a passage in another language by the
    # question's words as its paper writes them (the bridge's), not by the cosine alone;
    # the ranking above is left as it was
    shown = dict(known)
    if p.bridged_support and (abroad := [k for k in keys if k in unseen]):
        tables = [translations(bridge, q) for q in queries]
        shown.update(zip(abroad, supports(abroad, tables), strict=True))
    excerpts = tuple(RankedExcerpt(k, c.score, shown[k]) for k, c in zip(keys, chosen, strict=True))
    found = keys if first is fused else [cast(int, c.key) for c in choose(first)]
    judged = verdict(
        salient_words(question), qterms, [chunks[k].text for k in keys],
        [chunks[k].text for k in found], [shown[k] for k in keys], dfs,
        below=scope.abstain_below, uncovered_below=scope.uncovered_below,
    )  # fmt: skip
    return Ranked(excerpts, judged)


def translations(bridge: Callable[[list[str]], list[str]], text: str) -> dict[str, set[str]]:
    """Each term of ``text``'s salient words -> the stems of the words ``bridge`` (the
    retrieval's cross-lingual word bridge) finds for that word (none: not listed)."""
    out: dict[str, set[str]] = {}
    for word in salient_words(text):
        found = set(question_terms(bridge([word])[1:]))
        for term in question_terms([word]):
            if found - {term}:
                out.setdefault(term, set()).update(found - {term})
    return out
