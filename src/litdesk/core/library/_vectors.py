"""Vector search (pure numpy): exact for small sets, an IVF index for large ones.

Vectors are float32 rows normalised to unit length, so the inner product is the
cosine similarity. :class:`VectorIndex` keeps an exact scan below
``exact_below`` rows; above it trains a k-means coarse quantiser (``nlist`` cells)
on a sample and searches the ``nprobe`` nearest cells only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

__all__ = ["VectorIndex", "normalise_rows", "top_k_exact"]

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]
EXACT_BELOW: Final = 50_000


def normalise_rows(x: npt.ArrayLike) -> F32:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    arr = np.asarray(x, dtype=np.float32)
    if arr.ndim == 1:
        arr = arr[None, :]
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(arr / norms, dtype=np.float32)


def top_k_exact(matrix: F32, query: F32, k: int) -> tuple[I64, F32]:
    """Indices and scores of the ``k`` best rows for one query (brute force)."""
    if matrix.shape[0] == 0 or k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    scores = matrix @ query
    k = min(k, scores.shape[0])
    part = np.argpartition(-scores, k - 1)[:k]
    order = part[np.argsort(-scores[part], kind="stable")]
    return order.astype(np.int64), scores[order].astype(np.float32)


@dataclass
class VectorIndex:
    """Search unit vectors by inner product; IVF above ``exact_below`` rows."""

    vectors: F32
    centroids: F32 | None = None
    offsets: I64 | None = None
    order: I64 | None = None
    nprobe: int = 32

    @classmethod
    def build(
        cls,
        vectors: npt.ArrayLike,
        *,
        exact_below: int = EXACT_BELOW,
        nlist: int | None = None,
        nprobe: int = 32,
        iterations: int = 8,
        sample: int = 64_000,
        seed: int = 0,
    ) -> VectorIndex:
        """Index ``vectors`` (rows, normalised here)."""
        raw = np.asarray(vectors)
        if raw.size == 0:
            return cls(np.zeros((0, raw.shape[1] if raw.ndim == 2 else 1), np.float32))
        vecs = normalise_rows(raw)
        n = vecs.shape[0]
        if n < exact_below:
            return cls(vecs)
        nlist = min(nlist or max(16, int(np.sqrt(n))), n)
        rng = np.random.default_rng(seed)
        train = vecs[rng.choice(n, size=min(sample, n), replace=False)]
        cents = train[rng.choice(train.shape[0], size=nlist, replace=False)].copy()
        for _ in range(iterations):
            assign = np.argmax(train @ cents.T, axis=1)
            sums = np.zeros_like(cents)
            np.add.at(sums, assign, train)
            counts = np.bincount(assign, minlength=nlist)
            empty = counts == 0
            sums[empty] = train[rng.choice(train.shape[0], size=int(empty.sum()))]
            cents = normalise_rows(sums)
        assign_all = np.empty(n, dtype=np.int64)
        step = 65_536
        for s in range(0, n, step):
            assign_all[s : s + step] = np.argmax(vecs[s : s + step] @ cents.T, axis=1)
        order = np.argsort(assign_all, kind="stable").astype(np.int64)
        counts = np.bincount(assign_all, minlength=nlist)
        offsets = np.zeros(nlist + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        ordered = vecs[order]
        del vecs
        return cls(ordered, cents, offsets, order, nprobe)

    def layout(self) -> dict[str, npt.NDArray[np.generic]]:
        """The IVF layout (centroids, order, offsets) to store beside the vectors."""
        if self.centroids is None or self.offsets is None or self.order is None:
            return {}
        return {"centroids": self.centroids, "order": self.order, "offsets": self.offsets}

    @classmethod
    def from_layout(
        cls,
        vectors: npt.ArrayLike,
        centroids: npt.ArrayLike,
        order: npt.ArrayLike,
        offsets: npt.ArrayLike,
        *,
        nprobe: int = 32,
    ) -> VectorIndex:
        """Rebuild an IVF index from stored layout and the vectors in their original order.

        Raises ``ValueError`` when the layout does not fit the vectors.
        """
        vecs = normalise_rows(vectors)
        cents = np.asarray(centroids, dtype=np.float32)
        order_arr = np.asarray(order, dtype=np.int64)
        offs = np.asarray(offsets, dtype=np.int64)
        n = vecs.shape[0]
        if (
            order_arr.shape != (n,)
            or cents.ndim != 2
            or cents.shape[1] != vecs.shape[1]
            or offs.shape != (cents.shape[0] + 1,)
            or offs[0] != 0
            or offs[-1] != n
            or np.any(np.diff(offs) < 0)
            or (n and (order_arr.min() < 0 or order_arr.max() >= n))
        ):
            raise ValueError("stored IVF layout does not match the vectors")
        return cls(vecs[order_arr], cents, offs, order_arr, nprobe)

    @property
    def exact(self) -> bool:
        return self.centroids is None

    def __len__(self) -> int:
        return int(self.vectors.shape[0])

    def search(self, query: npt.ArrayLike, k: int) -> tuple[I64, F32]:
        """The ``k`` best row indices (into the original order) and their scores."""
        q = normalise_rows(query)[0]
        if self.centroids is None or self.offsets is None or self.order is None:
            return top_k_exact(self.vectors, q, k)
        cell_scores = self.centroids @ q
        probe = min(self.nprobe, cell_scores.shape[0])
        cells = np.argpartition(-cell_scores, probe - 1)[:probe]
        parts_idx: list[I64] = []
        parts_score: list[F32] = []
        for c in cells:
            a, b = int(self.offsets[c]), int(self.offsets[c + 1])
            if b > a:
                parts_idx.append(np.arange(a, b, dtype=np.int64))
                parts_score.append(self.vectors[a:b] @ q)
        if not parts_idx:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        idx = np.concatenate(parts_idx)
        scores = np.concatenate(parts_score)
        k = min(k, scores.shape[0])
        part = np.argpartition(-scores, k - 1)[:k]
        best = part[np.argsort(-scores[part], kind="stable")]
        return self.order[idx[best]], scores[best].astype(np.float32)
