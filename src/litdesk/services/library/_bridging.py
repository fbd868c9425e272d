"""Cross-lingual word bridges for one retrieval (the logic is in core:
:func:`~litdesk.core.library.bridge_words`, :func:`paper_vocabulary`).

The papers in another language than the question that rank near its top semantically
(the cross-lingual embedding finds them) are bridged: the question's and its facets' words
are taken to those papers' own words before the lexical rankings look them up. Word
vectors are kept per process in a bounded cache (:class:`WordVectors`, one per
:class:`~litdesk.services.library.Library`), so papers in one language, which share most of
their words, cost only the words not seen before.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from litdesk.adapters.embeddings import Embedder
from litdesk.core.library import (
    MAX_VOCABULARY,
    bridge_words,
    home_words,
    own_language,
    paper_vocabulary,
)

from ._catalogue import StoredChunk

__all__ = ["BRIDGE_PAPERS", "BRIDGE_POOL", "WORD_CACHE", "WordBridge", "WordVectors"]

#: The foreign-language papers bridged in one retrieval: those with a chunk among the best
#: ``BRIDGE_POOL`` of a semantic ranking (the question's, its variant's, its facets'), at
#: most ``BRIDGE_PAPERS`` of them.
BRIDGE_POOL: Final = 20
BRIDGE_PAPERS: Final = 3
#: Words whose vectors a library keeps in memory (float16, 1 KB each with use-m3: 50 MB);
#: the oldest go first.
WORD_CACHE: Final = 50_000

F32 = npt.NDArray[np.float32]


class WordVectors:
    """Unit vectors of single words by one embedder, each embedded once (bounded)."""

    def __init__(self, limit: int = WORD_CACHE) -> None:
        if limit < MAX_VOCABULARY:
            raise ValueError(f"the cache must hold a whole vocabulary ({MAX_VOCABULARY} words)")
        self.limit = limit
        self._rows: dict[str, npt.NDArray[np.float16]] = {}
        self._home: tuple[tuple[str, ...], frozenset[str]] | None = None

    def home(self, chunks: Sequence[StoredChunk], foreign: Collection[str]) -> frozenset[str]:
        """:func:`~litdesk.core.library.home_words` of the papers of ``chunks`` outside
        ``foreign`` (kept for one scope: its papers, in order)."""
        key = tuple(dict.fromkeys(c.sha256 for c in chunks if c.sha256 not in foreign))
        if self._home is None or self._home[0] != key:
            self._home = (key, home_words([c.text for c in chunks if c.sha256 not in foreign]))
        return self._home[1]

    def __len__(self) -> int:
        return len(self._rows)

    def of(self, embedder: Embedder, words: Sequence[str]) -> F32:
        """One row per word of ``words`` (at most ``limit`` distinct ones)."""
        if not words:
            return np.zeros((0, embedder.dim), dtype=np.float32)
        missing = [w for w in dict.fromkeys(words) if w not in self._rows]
        if missing:
            while len(self._rows) + len(missing) > self.limit and self._rows:
                self._rows.pop(next(iter(self._rows)))
            for w, row in zip(missing, embedder.embed(missing), strict=True):
                self._rows[w] = row.astype(np.float16)
        return np.vstack([self._rows[w] for w in words]).astype(np.float32)


class WordBridge:
    """The bridge of one retrieval: ``__call__`` returns the words given, followed by the
    words of the prepared papers that stand in for them (none without an embedder or a
    prepared paper)."""

    def __init__(self, embedder: Embedder | None, vectors: WordVectors) -> None:
        self.embedder, self.vectors = embedder, vectors
        self.papers: dict[str, list[str]] = {}  # content hash -> its vocabulary
        self._matrices: dict[str, F32] = {}

    def prepare(
        self,
        rankings: Sequence[Sequence[int]],
        chunks: Sequence[StoredChunk],
        foreign: Collection[str],
    ) -> None:
        """Choose the foreign papers near the top of ``rankings`` (chunk positions, best
        first) and read their vocabularies."""
        if self.embedder is None or not foreign:
            return
        chosen: list[str] = []
        for ranking in rankings:
            for pos in ranking[:BRIDGE_POOL]:
                sha = chunks[pos].sha256
                if sha in foreign and sha not in chosen and len(chosen) < BRIDGE_PAPERS:
                    chosen.append(sha)
        home = self.vectors.home(chunks, foreign) if chosen else frozenset()
        for sha in chosen:  # the paper's own words, not those of the question's language
            self.papers[sha] = paper_vocabulary(
                own_language([c.text for c in chunks if c.sha256 == sha]), exclude=home
            )

    def __call__(self, words: list[str]) -> list[str]:
        if self.embedder is None or not self.papers or not words:
            return words
        vectors = self.vectors.of(self.embedder, words)
        extra: list[str] = []
        for sha, vocab in self.papers.items():
            if sha not in self._matrices:  # once per retrieval (the question, its facets)
                self._matrices[sha] = self.vectors.of(self.embedder, vocab)
            found = bridge_words(words, vectors, vocab, self._matrices[sha])
            extra += [w for w in found if w not in extra]
        return words + extra
