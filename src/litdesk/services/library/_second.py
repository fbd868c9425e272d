"""The per-paper second pass of :meth:`Library.retrieve` (the logic is in core:
:func:`~litdesk.core.library.within_paper_order`, :func:`reorder_within_papers`)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import numpy as np
import numpy.typing as npt

from litdesk.core.library import (
    CHUNKING_VERSION,
    VectorIndex,
    local_coverage,
    question_terms,
    reorder_within_papers,
    salient_words,
    within_paper_order,
)

from ._catalogue import Catalogue, Entry, StoredChunk

__all__ = ["SecondPass", "second_pass"]

#: Most chunks of the leading papers their own lexical ranking returns.
PAPER_LEXICAL_LIMIT = 1_000

#: (the paper's content hash, its chunks' positions) -> their vectors, one row each
VectorsOf = Callable[[str, list[int]], npt.NDArray[np.float32]]
#: (content hashes, question words) -> those papers' chunk ids matching them, best first
LexicalOf = Callable[[list[str], list[str]], list[int]]
#: (chunks, their papers' entries) -> the index's stored vectors of those chunks
StoredVectors = Callable[[list[StoredChunk], dict[str, Entry]], npt.NDArray[np.float32]]
#: content hash -> its chunks' positions in the scope's chunks
PaperCache = dict[str, list[int]]


def second_pass(
    ranking: Sequence[tuple[int, float]],
    text: str,
    vector: npt.NDArray[np.float32],
    chunks: Sequence[StoredChunk],
    *,
    vectors_of: VectorsOf,
    lexical_of: LexicalOf,
    papers: int,
    weight: float,
    skip: Collection[str] = (),
    cache: PaperCache | None = None,
) -> list[tuple[int, float]]:
    """``ranking`` (chunk positions in ``chunks``, score; best first) with the chunks of
    its first ``papers`` papers re-ranked within each paper against ``text`` (cosine to
    ``vector``, the paper's own lexical ranking, term coverage weighted within the paper);
    ``papers`` 0 returns it as it is. Papers in ``skip`` (content hashes: papers in another
    language than the question, whose words cannot match) keep their order and do not
    count among the first ``papers``. ``cache`` keeps each paper's chunk positions between
    calls over the same ``chunks``."""
    if papers <= 0 or not ranking:
        return list(ranking)
    leading: list[str] = []
    for pos, _ in ranking:
        sha = chunks[pos].sha256
        if sha not in leading and sha not in skip:
            leading.append(sha)
            if len(leading) == papers:
                break
    words = salient_words(text)
    qterms = question_terms(words)
    orders: dict[str, list[int]] = {}
    cache = {} if cache is None else cache
    matched = lexical_of(leading, words)  # one query for the leading papers
    for sha in leading:
        if sha not in cache:
            cache[sha] = [i for i, c in enumerate(chunks) if c.sha256 == sha]
        mine = cache[sha]
        local = {chunks[p].id: j for j, p in enumerate(mine)}
        cosines = (vectors_of(sha, mine) @ vector).tolist()
        lexical = [local[i] for i in matched if i in local]
        coverage = local_coverage(qterms, [chunks[p].text for p in mine])
        order = within_paper_order(cosines, lexical, coverage, weight=weight)
        orders[sha] = [mine[j] for j in order]
    return reorder_within_papers(ranking, lambda p: chunks[p].sha256, orders)


class SecondPass:
    """:func:`second_pass` over one retrieval's scope: ``papers`` and ``weight`` as the
    library's settings say, the index's stored vectors (``stored``) and its lexical index
    (``catalogue`` under the ``embedder``'s name)."""

    def __init__(
        self,
        chunks: Sequence[StoredChunk],
        space: VectorIndex | npt.NDArray[np.float32],
        entries: dict[str, Entry],
        *,
        catalogue: Catalogue,
        embedder: str,
        stored: StoredVectors,
        papers: int,
        weight: float,
        skip: Collection[str] = (),
    ) -> None:
        self.chunks, self.space, self.entries, self.skip = chunks, space, entries, skip
        self.catalogue, self.embedder, self.stored = catalogue, embedder, stored
        self.papers, self.weight = papers, weight
        self.cache: PaperCache = {}
        self._rows: dict[str, npt.NDArray[np.float32]] = {}

    def _vectors(self, sha: str, positions: list[int]) -> npt.NDArray[np.float32]:
        if isinstance(self.space, np.ndarray):  # a chosen set: its vectors are in memory
            return np.asarray(self.space[positions], dtype=np.float32)
        if sha not in self._rows:
            chosen = [self.chunks[p] for p in positions]
            self._rows[sha] = self.stored(chosen, self.entries)
        return self._rows[sha]

    def _lexical(self, shas: list[str], words: list[str]) -> list[int]:
        return self.catalogue.lexical(
            words, shas, self.embedder, CHUNKING_VERSION, PAPER_LEXICAL_LIMIT
        )

    def rerank(
        self, ranking: Sequence[tuple[int, float]], text: str, vector: npt.NDArray[np.float32]
    ) -> list[tuple[int, float]]:
        return second_pass(
            ranking, text, vector, self.chunks, vectors_of=self._vectors,
            lexical_of=self._lexical, papers=self.papers,
            weight=self.weight, skip=self.skip, cache=self.cache,
        )  # fmt: skip
