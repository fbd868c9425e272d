"""What :meth:`Library.retrieve` feeds the ranker (:func:`litdesk.core.library.rank_excerpts`):
the embedder, the full-text index, the stored vectors and the word bridge of one scope."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import numpy as np
import numpy.typing as npt

from litdesk.adapters.embeddings import Embedder, cross_lingual_part
from litdesk.core.library import CHUNKING_VERSION

from ._bridging import WordBridge, WordVectors
from ._catalogue import Catalogue, Entry, StoredChunk
from ._ivf import LoadVectors

__all__ = ["IndexFeed", "stored_vectors", "vector_loader"]

F32 = npt.NDArray[np.float32]


def vector_loader(catalogue: Catalogue, embedder: str, counts: dict[str, int]) -> LoadVectors:
    """Reads one entry's stored vectors (``counts``: its chunk count, checked on read)."""

    def load(sha: str) -> F32:
        return catalogue.load_vectors(sha, embedder, CHUNKING_VERSION, counts[sha])

    return load


def stored_vectors(
    catalogue: Catalogue, embedder: str, picked: Sequence[StoredChunk], entries: dict[str, Entry]
) -> F32:
    """The index's own vectors of ``picked`` (read per paper), not embedded again."""
    load = vector_loader(
        catalogue, embedder, {c.sha256: entries[c.sha256].n_chunks for c in picked}
    )
    rows: dict[str, F32] = {}
    out = []
    for c in picked:
        if c.sha256 not in rows:
            rows[c.sha256] = load(c.sha256)
        out.append(rows[c.sha256][c.idx])
    return np.vstack(out)


class IndexFeed:
    """The :class:`~litdesk.core.library.RetrievalFeed` of one retrieval over ``chunks``
    (the scope's, in the ranker's positions) of the ``embedder_name`` index."""

    def __init__(
        self,
        catalogue: Catalogue,
        embedder: Embedder,
        embedder_name: str,
        chunks: Sequence[StoredChunk],
        entries: dict[str, Entry],
        words: WordVectors,
    ) -> None:
        self.catalogue, self.embedder, self.embedder_name = catalogue, embedder, embedder_name
        self.chunks, self.entries, self.words = chunks, entries, words

    def embed(self, texts: list[str]) -> F32:
        return self.embedder.embed(texts)

    def lexical(self, words: list[str], papers: list[str], limit: int) -> list[int]:
        return self.catalogue.lexical(words, papers, self.embedder_name, CHUNKING_VERSION, limit)

    def vectors(self, positions: list[int]) -> F32:
        picked = [self.chunks[p] for p in positions]
        return stored_vectors(self.catalogue, self.embedder_name, picked, self.entries)

    def bridge(
        self, rankings: list[list[int]], foreign: Collection[str]
    ) -> Callable[[list[str]], list[str]]:
        bridge = WordBridge(cross_lingual_part(self.embedder), self.words)
        bridge.prepare(rankings, self.chunks, foreign)
        return bridge
