"""Vector search (pure numpy): exact for small sets, an IVF index for large ones.

Vectors are float32 rows normalised to unit length, so the inner product is the
cosine similarity. :class:`VectorIndex` keeps an exact scan below ``exact_below`` rows;
above it trains a spherical k-means coarse quantiser and stores the rows in cell order
(each cell one contiguous block). A search ranks the cells by their centroid and scans
the ``nprobe`` best cells block by block into one buffer; the scores are exact inner
products, so the only loss is a neighbour lying in a cell that was not probed.

Defaults (see :func:`default_nlist`, :func:`default_nprobe`): ``CELLS_PER_ROOT`` · √n
cells, trained for ``ITERATIONS`` rounds on ``TRAIN_PER_CELL`` sampled rows per cell, and
``PROBE_FRACTION`` of the cells probed (at least ``MIN_PROBE``). Smaller cells are purer,
so ranking them by centroid finds the neighbours' cells more reliably for the same number
of rows scanned; the price is training and assignment time, which grows with the cell
count. The ratios follow the usual IVF guidance (FAISS: 4√n to 16√n lists, at least 39
training points per list).

The layout is incremental: :func:`training_rows` picks the sample, :func:`spherical_kmeans`
trains the centroids, :func:`assign_cells` gives each row its cell, and
:meth:`VectorIndex.from_assignment` orders the rows by cell. A row's cell depends only on
the row and the centroids, so rows added later are assigned on their own, and the layout
equals the one of assigning every row at once. The centroids are retrained when the row
count has moved by more than ``RETRAIN_FACTOR`` since training (:func:`needs_retraining`):
cells trained on n rows hold about twice as many at 2n, so a probe scans twice the rows.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

__all__ = [
    "RETRAIN_FACTOR",
    "VectorIndex",
    "assign_cells",
    "default_nlist",
    "default_nprobe",
    "needs_retraining",
    "normalise_rows",
    "spherical_kmeans",
    "top_k_exact",
    "training_rows",
]

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
EXACT_BELOW: Final = 50_000
CELLS_PER_ROOT: Final = 4  # nlist = 4·√n
TRAIN_PER_CELL: Final = 39  # sampled training rows per cell
ITERATIONS: Final = 6  # k-means rounds (spherical, Lloyd)
PROBE_FRACTION: Final = 0.02  # cells probed by default
MIN_PROBE: Final = 32
SCORE_BUDGET: Final = 1 << 24  # floats in one block of row-by-centroid scores (64 MB)
BLOCK_ROWS: Final = 1 << 16  # rows normalised at a time when a matrix is put in cell order
RETRAIN_FACTOR: Final = 2.0  # retrain once the rows grew or shrank by this factor


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


def default_nlist(n: int) -> int:
    """Cells for ``n`` rows: ``CELLS_PER_ROOT`` · √n (at least 16, at most n)."""
    return max(1, min(n, max(16, int(CELLS_PER_ROOT * math.sqrt(n)))))


def default_nprobe(nlist: int) -> int:
    """Cells probed by default: ``PROBE_FRACTION`` of them, at least ``MIN_PROBE``."""
    return max(1, min(nlist, max(MIN_PROBE, math.ceil(PROBE_FRACTION * nlist))))


def needs_retraining(trained_rows: int, rows: int, factor: float = RETRAIN_FACTOR) -> bool:
    """Whether centroids trained on ``trained_rows`` rows should be retrained for ``rows``:
    the count has grown beyond ``factor`` times, or shrunk below one ``factor``-th."""
    if trained_rows <= 0:
        return True
    return rows > factor * trained_rows or rows * factor < trained_rows


def training_rows(n: int, nlist: int, *, sample: int | None = None, seed: int = 0) -> I64:
    """The sorted indices of the rows (of ``n``) that train ``nlist`` cells:
    ``sample`` rows, default ``TRAIN_PER_CELL`` per cell (all rows when fewer)."""
    size = min(n, max(nlist, sample or TRAIN_PER_CELL * nlist))
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(n, size=size, replace=False)).astype(np.int64)


def assign_cells(rows: npt.ArrayLike, centroids: F32) -> I32:
    """The cell (best centroid by inner product) of each row, normalised here."""
    vecs = normalise_rows(rows)
    if vecs.shape[0] == 0:
        return np.zeros(0, dtype=np.int32)
    return _nearest(vecs, centroids).astype(np.int32)


def _nearest(rows: F32, cents: F32) -> I64:
    """The best centroid (inner product) of each row, block by block."""
    out = np.empty(rows.shape[0], dtype=np.int64)
    step = max(256, SCORE_BUDGET // max(1, cents.shape[0]))
    for s in range(0, rows.shape[0], step):
        out[s : s + step] = np.argmax(rows[s : s + step] @ cents.T, axis=1)
    return out


def _cell_order(assign: I64, nlist: int) -> tuple[I64, I64]:
    """The rows in cell order (stable: by row within a cell) and the cells' offsets."""
    order = np.argsort(assign, kind="stable").astype(np.int64)
    offsets = np.zeros(nlist + 1, dtype=np.int64)
    np.cumsum(np.bincount(assign, minlength=nlist), out=offsets[1:])
    return order, offsets


def _cell_sums(rows: F32, assign: I64, nlist: int) -> tuple[F32, I64]:
    """Per-cell sums of ``rows`` and counts (sorted segments, no ``np.add.at``)."""
    order = np.argsort(assign, kind="stable")
    counts = np.bincount(assign, minlength=nlist).astype(np.int64)
    starts = np.zeros(nlist, dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    sums = np.zeros((nlist, rows.shape[1]), dtype=np.float32)
    filled = counts > 0
    if filled.any():
        sums[filled] = np.add.reduceat(rows[order], starts[filled], axis=0)
    return sums, counts


def spherical_kmeans(rows: F32, nlist: int, *, iterations: int = ITERATIONS, seed: int = 0) -> F32:
    """``nlist`` unit centroids of unit ``rows`` (Lloyd rounds on the inner product).

    Starts from distinct random rows; a cell left empty is reseeded with a row of the
    currently largest cell (so no centroid is wasted).
    """
    rng = np.random.default_rng(seed)
    n = rows.shape[0]
    nlist = min(nlist, n)
    cents = rows[rng.choice(n, size=nlist, replace=False)].copy()
    for _ in range(iterations):
        assign = _nearest(rows, cents)
        sums, counts = _cell_sums(rows, assign, nlist)
        empty = np.flatnonzero(counts == 0)
        if empty.size:
            donors = np.argsort(-counts, kind="stable")[: empty.size]
            for cell, donor in zip(empty.tolist(), donors.tolist(), strict=True):
                members = np.flatnonzero(assign == donor)
                sums[cell] = rows[members[rng.integers(members.size)]]
        cents = normalise_rows(sums)
    return cents


@dataclass
class VectorIndex:
    """Search unit vectors by inner product; IVF above ``exact_below`` rows."""

    vectors: F32
    centroids: F32 | None = None
    offsets: I64 | None = None
    order: I64 | None = None
    nprobe: int = MIN_PROBE

    @classmethod
    def build(
        cls,
        vectors: npt.ArrayLike,
        *,
        exact_below: int = EXACT_BELOW,
        nlist: int | None = None,
        nprobe: int | None = None,
        iterations: int = ITERATIONS,
        sample: int | None = None,
        seed: int = 0,
    ) -> VectorIndex:
        """Index ``vectors`` (rows, normalised here).

        ``nlist`` defaults to :func:`default_nlist`, ``sample`` (training rows) to
        ``TRAIN_PER_CELL`` per cell, ``nprobe`` to :func:`default_nprobe`.
        """
        raw = np.asarray(vectors)
        if raw.size == 0:
            return cls(np.zeros((0, raw.shape[1] if raw.ndim == 2 else 1), np.float32))
        vecs = normalise_rows(raw)
        n = vecs.shape[0]
        if n < exact_below:
            return cls(vecs)
        nlist = min(nlist or default_nlist(n), n)
        train = vecs[training_rows(n, nlist, sample=sample, seed=seed)]
        cents = spherical_kmeans(train, nlist, iterations=iterations, seed=seed)
        del train
        return cls._ordered(vecs, cents, _nearest(vecs, cents), nprobe)

    @classmethod
    def from_assignment(
        cls,
        vectors: npt.ArrayLike,
        centroids: npt.ArrayLike,
        cells: npt.ArrayLike,
        *,
        nprobe: int | None = None,
    ) -> VectorIndex:
        """An IVF index from trained ``centroids`` and each row's cell (``cells[i]`` for
        row ``i``, as :func:`assign_cells` gives it); rows keep their order within a cell.

        Raises ``ValueError`` when the cells do not fit the vectors and centroids.
        """
        arr = np.asarray(vectors)
        if arr.ndim != 2:
            return cls.from_blocks([arr], centroids, cells, nprobe=nprobe)
        step = BLOCK_ROWS  # normalised block by block: no full-size normalised copy
        blocks = (arr[s : s + step] for s in range(0, max(1, arr.shape[0]), step))
        return cls.from_blocks(blocks, centroids, cells, nprobe=nprobe)

    @classmethod
    def from_blocks(
        cls,
        blocks: Iterable[npt.ArrayLike],
        centroids: npt.ArrayLike,
        cells: npt.ArrayLike,
        *,
        nprobe: int | None = None,
    ) -> VectorIndex:
        """:meth:`from_assignment` for vectors given as consecutive row blocks (for example
        each PDF's rows, loaded one after the other): each block is normalised and copied
        straight to its rows' places in cell order, so the only full-size array is the
        index's own (no concatenated, normalised or gathered copy).

        Raises ``ValueError`` when the cells do not fit the vectors and centroids.
        """
        cents = np.asarray(centroids, dtype=np.float32)
        assign = np.asarray(cells, dtype=np.int64)
        if (
            cents.ndim != 2
            or cents.shape[0] == 0
            or assign.ndim != 1
            or (assign.size and (assign.min() < 0 or assign.max() >= cents.shape[0]))
        ):
            raise ValueError("cell assignment does not match the vectors and centroids")
        n, dim = assign.shape[0], cents.shape[1]
        order, offsets = _cell_order(assign, cents.shape[0])
        where = np.empty(n, dtype=np.int64)  # each row's place in cell order
        where[order] = np.arange(n, dtype=np.int64)
        out = np.empty((n, dim), dtype=np.float32)
        start = 0
        for block in blocks:
            rows = normalise_rows(block)
            m = rows.shape[0]
            if rows.shape[1] != dim or start + m > n:
                raise ValueError("cell assignment does not match the vectors and centroids")
            out[where[start : start + m]] = rows
            start += m
        if start != n:
            raise ValueError("cell assignment does not match the vectors and centroids")
        return cls(out, cents, offsets, order, nprobe or default_nprobe(cents.shape[0]))

    @classmethod
    def _ordered(cls, vecs: F32, cents: F32, assign: I64, nprobe: int | None) -> VectorIndex:
        order, offsets = _cell_order(assign, cents.shape[0])
        return cls(vecs[order], cents, offsets, order, nprobe or default_nprobe(cents.shape[0]))

    @property
    def exact(self) -> bool:
        return self.centroids is None

    def __len__(self) -> int:
        return int(self.vectors.shape[0])

    def search(self, query: npt.ArrayLike, k: int) -> tuple[I64, F32]:
        """The ``k`` best row indices (into the original order) and their scores.

        The probed cells are scanned block by block into one score buffer (no
        per-cell index arrays); the buffer positions of the best ``k`` are mapped back
        to rows through the cells' offsets.
        """
        q = normalise_rows(query)[0]
        if self.centroids is None or self.offsets is None or self.order is None:
            return top_k_exact(self.vectors, q, k)
        cell_scores = self.centroids @ q
        probe = max(1, min(self.nprobe, cell_scores.shape[0]))
        cells = np.argpartition(-cell_scores, probe - 1)[:probe]
        cells.sort()  # memory order: neighbouring blocks are read in sequence
        starts = self.offsets[cells]
        sizes = self.offsets[cells + 1] - starts
        ends = np.cumsum(sizes)
        total = int(ends[-1])
        if total == 0 or k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        scores = np.empty(total, dtype=np.float32)
        pos = 0
        for a, m in zip(starts.tolist(), sizes.tolist(), strict=True):
            if m:
                np.dot(self.vectors[a : a + m], q, out=scores[pos : pos + m])
                pos += m
        k = min(k, total)
        part = np.argpartition(-scores, k - 1)[:k]
        best = part[np.argsort(-scores[part], kind="stable")]
        cell_at = np.searchsorted(ends, best, side="right")
        rows = starts[cell_at] + best - (ends[cell_at] - sizes[cell_at])
        return self.order[rows], scores[best]
