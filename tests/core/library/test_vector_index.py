"""The IVF vector index: defaults, k-means training, the block scan, recall on noisy queries."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.library import VectorIndex, normalise_rows, top_k_exact
from litdesk.core.library._vectors import (
    MIN_PROBE,
    default_nlist,
    default_nprobe,
    spherical_kmeans,
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
    lay = ivf.layout()
    back = VectorIndex.from_layout(data, lay["centroids"], lay["order"], lay["offsets"])
    assert back.nprobe == default_nprobe(2000) == 40 and ivf.nprobe == 40
    assert back.search(data[7], 5)[0].tolist() == ivf.search(data[7], 5)[0].tolist()
    with pytest.raises(ValueError):
        VectorIndex.from_layout(data, lay["centroids"][:0], lay["order"], lay["offsets"][:1])
