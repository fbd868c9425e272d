"""The IVF vector index: defaults, k-means training, the block scan, recall on noisy queries."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.library import VectorIndex, normalise_rows, top_k_exact
from litdesk.core.library._vectors import (
    MIN_PROBE,
    RETRAIN_FACTOR,
    assign_cells,
    default_nlist,
    default_nprobe,
    needs_retraining,
    spherical_kmeans,
    training_rows,
)


def clustered(n: int, dim: int, clusters: int, noise: float, seed: int) -> np.ndarray:
    """Unit rows around random centres (the benchmark's generator, smaller)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim)).astype(np.float32)
    rows = centres[rng.integers(0, clusters, n)]
    rows += noise * rng.standard_normal((n, dim), dtype=np.float32)
    return normalise_rows(rows)


def test_defaults_scale_with_the_data() -> None:
    assert default_nlist(1_000_000) == 4000
    assert default_nlist(60_000) == int(4 * 60_000**0.5)
    assert default_nlist(10) == 10 and default_nlist(100) == 40
    assert default_nprobe(4000) == 80  # 2 % of the cells
    assert default_nprobe(1000) == MIN_PROBE  # a layout stored with 1,000 cells: as before
    assert default_nprobe(8) == 8


def test_kmeans_finds_planted_clusters_and_leaves_no_cell_empty() -> None:
    rng = np.random.default_rng(4)
    centres = normalise_rows(rng.standard_normal((48, 32)))
    labels = rng.integers(0, 48, 4800)
    rows = normalise_rows(centres[labels] + 0.1 * rng.standard_normal((4800, 32)))
    cents = spherical_kmeans(rows, 48, iterations=10, seed=0)
    assert cents.shape == (48, 32)
    assert np.allclose(np.linalg.norm(cents, axis=1), 1, atol=1e-5)
    cell = np.argmax(rows @ cents.T, axis=1)
    assert np.bincount(cell, minlength=48).min() > 0  # empty cells were reseeded
    # purity: each planted cluster lies (almost) wholly in one cell
    pure = [np.bincount(cell[labels == c]).max() / (labels == c).sum() for c in range(48)]
    assert np.mean(pure) > 0.9


def test_all_cells_probed_is_the_exact_search() -> None:
    data = np.random.default_rng(5).standard_normal((3000, 24)).astype(np.float32)
    ivf = VectorIndex.build(data, exact_below=100, nlist=37)
    assert not ivf.exact and ivf.nprobe == MIN_PROBE
    ivf.nprobe = 37  # every cell
    exact = normalise_rows(data)
    for q in np.random.default_rng(6).standard_normal((20, 24)).astype(np.float32):
        a, sa = ivf.search(q, 15)
        b, sb = top_k_exact(exact, normalise_rows(q)[0], 15)
        assert a.tolist() == b.tolist()
        assert np.allclose(sa, sb, atol=1e-5)
    assert ivf.search(data[0], 0)[0].size == 0
    assert ivf.search(data[0], 10_000)[0].size == 3000


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(200, 1500),
    nlist=st.integers(2, 60),
    nprobe=st.integers(1, 60),
    k=st.integers(1, 30),
    seed=st.integers(0, 2**16),
)
def test_scan_maps_buffer_positions_to_the_right_rows(
    n: int, nlist: int, nprobe: int, k: int, seed: int
) -> None:
    data = np.random.default_rng(seed).standard_normal((n, 8)).astype(np.float32)
    ivf = VectorIndex.build(data, exact_below=1, nlist=nlist, nprobe=nprobe, iterations=2)
    q = data[seed % n]
    idx, scores = ivf.search(q, k)
    unit = normalise_rows(data)
    # every returned score is the true score of the returned row, best first
    assert np.allclose(unit[idx] @ normalise_rows(q)[0], scores, atol=1e-5)
    assert np.all(np.diff(scores) <= 1e-6) and len(set(idx.tolist())) == idx.size


def test_default_recall_on_noisy_queries() -> None:
    """A scaled-down benchmark: queries are rows plus heavy noise, so many true neighbours
    are chance alignments spread over cells near the query; the defaults find them."""
    n, dim = 60_000, 64
    data = clustered(n, dim, n // 500, 0.6, seed=0)
    rng = np.random.default_rng(1)
    qs = normalise_rows(data[rng.integers(0, n, 60)] + 0.3 * rng.standard_normal((60, dim)))
    ivf = VectorIndex.build(data, exact_below=1000)
    assert ivf.centroids is not None and ivf.centroids.shape[0] == default_nlist(n) == 979
    assert ivf.nprobe == MIN_PROBE  # 3.3 % of the cells
    recall = []
    for q in qs:
        truth = set(top_k_exact(data, q, 10)[0].tolist())
        recall.append(len(truth & set(ivf.search(q, 10)[0].tolist())) / 10)
    assert np.mean(recall) >= 0.93  # measured 0.97


def test_stored_layout_gets_its_default_probe_count() -> None:
    data = clustered(6000, 16, 12, 0.3, seed=2)
    ivf = VectorIndex.build(data, exact_below=100, nlist=2000)
    assert ivf.centroids is not None
    cells = assign_cells(data, ivf.centroids)  # the stored layout: centroids + each row's cell
    back = VectorIndex.from_assignment(data, ivf.centroids, cells)
    assert back.nprobe == default_nprobe(2000) == 40 and ivf.nprobe == 40
    assert back.search(data[7], 5)[0].tolist() == ivf.search(data[7], 5)[0].tolist()
    with pytest.raises(ValueError):
        VectorIndex.from_assignment(data, ivf.centroids[:0], cells)


def test_retraining_factor_is_two_both_ways() -> None:
    assert RETRAIN_FACTOR == 2.0
    assert not needs_retraining(1000, 1000)
    assert not needs_retraining(1000, 2000) and needs_retraining(1000, 2001)
    assert not needs_retraining(1000, 500) and needs_retraining(1000, 499)
    assert needs_retraining(0, 10)


def test_build_is_sample_train_assign_order() -> None:
    """``build`` is the composition of the incremental steps (same sample, same cells)."""
    data = clustered(2500, 16, 20, 0.5, seed=5)
    ivf = VectorIndex.build(data, exact_below=100, nlist=40, iterations=3, seed=2)
    unit = normalise_rows(data)  # as build normalises its input
    cents = spherical_kmeans(unit[training_rows(2500, 40, seed=2)], 40, iterations=3, seed=2)
    assert ivf.centroids is not None and np.array_equal(ivf.centroids, cents)
    again = VectorIndex.from_assignment(data, cents, assign_cells(data, cents))
    assert again.order is not None and ivf.order is not None and ivf.offsets is not None
    assert np.array_equal(again.order, ivf.order) and np.array_equal(again.offsets, ivf.offsets)
    assert np.array_equal(again.vectors, ivf.vectors)


@settings(max_examples=25, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 300), min_size=1, max_size=6),
    nlist=st.integers(1, 40),
    seed=st.integers(0, 10_000),
)
def test_incremental_assignment_equals_assigning_all_rows(
    sizes: list[int], nlist: int, seed: int
) -> None:
    """Entries assigned one by one (as they are added) give the layout of assigning every
    row to the same centroids at once."""
    rng = np.random.default_rng(seed)
    cents = normalise_rows(rng.standard_normal((nlist, 12)))
    parts = [rng.standard_normal((m, 12)).astype(np.float32) for m in sizes]
    data = np.vstack(parts)
    per_entry = np.concatenate([assign_cells(p, cents) for p in parts])
    assert per_entry.dtype == np.int32 and per_entry.shape == (data.shape[0],)
    at_once = assign_cells(data, cents)
    assert np.array_equal(per_entry, at_once)
    a = VectorIndex.from_assignment(data, cents, per_entry)
    b = VectorIndex.from_assignment(data, cents, at_once)
    assert a.order is not None and b.order is not None and a.offsets is not None
    assert np.array_equal(a.order, b.order) and np.array_equal(a.offsets, b.offsets)
    # every row sits in the cell of its best centroid, rows in order within a cell
    best = np.argmax(normalise_rows(data) @ cents.T, axis=1) if data.shape[0] else per_entry
    assert np.array_equal(per_entry, best)
    for c in range(nlist):
        block = a.order[a.offsets[c] : a.offsets[c + 1]]
        assert np.all(np.diff(block) > 0) and np.all(best[block] == c)


def test_assignment_that_does_not_fit_is_refused() -> None:
    data = clustered(200, 8, 4, 0.3, seed=1)
    cents = data[:5]
    with pytest.raises(ValueError, match="cell assignment"):
        VectorIndex.from_assignment(data, cents, np.zeros(199, np.int32))
    with pytest.raises(ValueError, match="cell assignment"):
        VectorIndex.from_assignment(data, cents, np.full(200, 5, np.int32))
    with pytest.raises(ValueError, match="cell assignment"):
        VectorIndex.from_assignment(data, cents[:, :4], np.zeros(200, np.int32))


def test_blocks_go_straight_to_cell_order() -> None:
    """Row blocks (each entry's rows) give the index of the concatenated matrix, row for row;
    blocks that do not add up to the cells are refused."""
    rng = np.random.default_rng(8)
    parts = [rng.standard_normal((m, 8)).astype(np.float32) for m in (40, 0, 1, 77)]
    data = np.vstack(parts)
    cents = normalise_rows(rng.standard_normal((6, 8)))
    cells = assign_cells(data, cents)
    whole = VectorIndex.from_assignment(data, cents, cells)
    blocks = VectorIndex.from_blocks(iter(parts), cents, cells)
    assert whole.order is not None and blocks.order is not None
    assert np.array_equal(blocks.order, whole.order)
    assert np.array_equal(blocks.vectors, whole.vectors)
    assert np.array_equal(blocks.vectors, normalise_rows(data)[whole.order])
    for bad in (parts[:-1], [*parts, parts[2]], [p[:, :4] for p in parts]):
        with pytest.raises(ValueError, match="cell assignment"):
            VectorIndex.from_blocks(bad, cents, cells)
