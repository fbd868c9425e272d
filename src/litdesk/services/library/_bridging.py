"""Cross-lingual word bridges for one retrieval (the logic is in core:
:func:`~litdesk.core.library.bridge_words`, :func:`paper_vocabulary`).

The papers in another language than the question that rank near its top semantically
(the cross-lingual embedding finds them) get their vocabulary embedded once per process
(kept in a bounded cache of the :class:`~litdesk.services.library.Library`); the
question's and its facets' words are then bridged to those papers' own words before the
lexical rankings look them up.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from litdesk.adapters.embeddings import Embedder
from litdesk.core.library import bridge_words, paper_vocabulary

from ._catalogue import StoredChunk

__all__ = ["BRIDGE_PAPERS", "BRIDGE_POOL", "VocabularyCache", "WordBridge"]

#: The foreign-language papers bridged in one retrieval: those with a chunk among the best
#: ``BRIDGE_POOL`` of a semantic ranking (the question's, its variant's, its facets'), at
#: most ``BRIDGE_PAPERS`` of them.
BRIDGE_POOL: Final = 20
BRIDGE_PAPERS: Final = 3
#: Papers whose vocabulary vectors a library keeps in memory (the oldest go first).
VOCABULARY_CACHE: Final = 64

#: content hash -> (the paper's vocabulary, one unit vector per word)
VocabularyCache = dict[str, tuple[list[str], npt.NDArray[np.float32]]]


class WordBridge:
    """The bridge of one retrieval: ``__call__`` returns the words given, followed by the
    words of the prepared papers that stand in for them (none without an embedder or a
    prepared paper)."""

    def __init__(self, embedder: Embedder | None, cache: VocabularyCache) -> None:
        self.embedder, self.cache = embedder, cache
        self.papers: list[str] = []

    def prepare(
        self,
        rankings: Sequence[Sequence[int]],
        chunks: Sequence[StoredChunk],
        foreign: Collection[str],
    ) -> None:
        """Choose the foreign papers near the top of ``rankings`` (chunk positions, best
        first) and embed their vocabularies (cached)."""
        if self.embedder is None or not foreign:
            return
        for ranking in rankings:
            for pos in ranking[:BRIDGE_POOL]:
                sha = chunks[pos].sha256
                if sha in foreign and sha not in self.papers:
                    self.papers.append(sha)
                if len(self.papers) == BRIDGE_PAPERS:
                    break
            if len(self.papers) == BRIDGE_PAPERS:
                break
        for sha in self.papers:
            if sha in self.cache:
                continue
            vocab = paper_vocabulary(c.text for c in chunks if c.sha256 == sha)
            self.cache[sha] = (vocab, self.embedder.embed(vocab))
            while len(self.cache) > VOCABULARY_CACHE:
                self.cache.pop(next(iter(self.cache)))

    def __call__(self, words: list[str]) -> list[str]:
        if self.embedder is None or not self.papers or not words:
            return words
        vectors = self.embedder.embed(words)
        extra: list[str] = []
        for sha in self.papers:
            vocab, vocab_vectors = self.cache[sha]
            for w in bridge_words(words, vectors, vocab, vocab_vectors):
                if w not in extra:
                    extra.append(w)
        return words + extra
