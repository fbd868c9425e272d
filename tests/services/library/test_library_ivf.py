"""The stored IVF layout: trained once, updated entry by entry, retrained on big changes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from litdesk._settings import Settings
from litdesk.adapters.embeddings import WordLlamaEmbedder
from litdesk.core.library import RetrievalParams, VectorIndex, normalise_rows
from litdesk.core.library._vectors import assign_cells
from litdesk.services.app import app_library
from litdesk.services.library import Library
from litdesk.services.library._ivf import IvfStore

DIM = 16


def entry_vectors(n: int, seed: int) -> np.ndarray:
    """Rows around a few shared centres (so later entries resemble earlier ones)."""
    centres = np.random.default_rng(99).standard_normal((12, DIM)).astype(np.float32)
    rng = np.random.default_rng(seed)
    rows = centres[rng.integers(0, 12, n)] + 0.5 * rng.standard_normal((n, DIM), np.float32)
    return rows.astype(np.float32)


class Entries:
    """Per-entry vectors and a loader that counts what it was asked for."""

    def __init__(self) -> None:
        self.vectors: dict[str, np.ndarray] = {}
        self.loaded: list[str] = []

    def add(self, sha: str, n: int, seed: int) -> None:
        self.vectors[sha] = entry_vectors(n, seed)

    def counts(self) -> dict[str, int]:
        return {s: v.shape[0] for s, v in self.vectors.items()}

    def load(self, sha: str) -> np.ndarray:
        self.loaded.append(sha)
        return self.vectors[sha]

    def stacked(self) -> np.ndarray:
        return np.vstack(list(self.vectors.values()))


@pytest.fixture
def lib3() -> Entries:
    e = Entries()
    for i, n in enumerate([150, 200, 170]):
        e.add(f"sha{i}", n, seed=i)
    return e


def _cells_files(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in folder.glob("cells-*/*.npy")}


def test_first_layout_is_trained_and_equals_a_fresh_build(tmp_path: Path, lib3: Entries) -> None:
    store = IvfStore(tmp_path / "ivf", "emb", "c1")
    lay = store.ensure(lib3.counts(), lib3.load, DIM)
    assert lay.built == "trained" and lay.summary()["kind"] == "ivf"
    built = VectorIndex.build(lib3.stacked(), exact_below=1)
    assert built.centroids is not None and built.order is not None
    assert np.array_equal(lay.centroids, built.centroids)
    ours = lay.index(list(lib3.vectors), lib3.load)
    assert ours.order is not None and np.array_equal(ours.order, built.order)
    assert sorted(_cells_files(tmp_path / "ivf")) == ["sha0.npy", "sha1.npy", "sha2.npy"]
    again = IvfStore(tmp_path / "ivf", "emb", "c1").ensure(lib3.counts(), lib3.load, DIM)
    assert again.built == "reused" and np.array_equal(again.centroids, lay.centroids)


def test_added_entry_is_assigned_not_retrained(tmp_path: Path, lib3: Entries) -> None:
    folder = tmp_path / "ivf"
    first = IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM)
    before = _cells_files(folder)
    cents_mtime = (folder / "centroids.npz").stat().st_mtime_ns
    lib3.add("sha3", 120, seed=3)
    lib3.loaded.clear()
    lay = IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM)
    assert lay.built == "updated"
    assert lib3.loaded == ["sha3"]  # only the new entry's vectors were read
    assert np.array_equal(lay.centroids, first.centroids)
    assert (folder / "centroids.npz").stat().st_mtime_ns == cents_mtime
    after = _cells_files(folder)
    assert {k: after[k] for k in before} == before and "sha3.npy" in after
    # the layout equals assigning every row, old and new, to the same centroids at once
    allrows = lib3.stacked()
    fresh = VectorIndex.from_assignment(
        allrows, first.centroids, assign_cells(allrows, first.centroids)
    )
    ours = lay.index(list(lib3.vectors), lib3.load)
    assert ours.order is not None and ours.offsets is not None
    assert fresh.order is not None and fresh.offsets is not None
    assert np.array_equal(ours.order, fresh.order) and np.array_equal(ours.offsets, fresh.offsets)
    q = normalise_rows(allrows[-5])[0]
    assert ours.search(q, 5)[0].tolist() == fresh.search(q, 5)[0].tolist()


def test_growth_beyond_the_factor_retrains(tmp_path: Path, lib3: Entries) -> None:
    folder = tmp_path / "ivf"
    first = IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM)  # 520 rows
    lib3.add("sha3", 500, seed=3)  # 1,020 rows: not yet 2x
    assert IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM).built == "updated"
    lib3.add("sha4", 30, seed=4)  # 1,050 rows > 2 x 520
    lay = IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM)
    assert lay.built == "trained" and lay.centroids.shape[0] > first.centroids.shape[0]
    assert len(list(folder.glob("cells-*"))) == 1  # the replaced set's cells are gone
    assert IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM).built == "reused"


def test_removal_drops_out_and_shrinking_by_half_retrains(tmp_path: Path, lib3: Entries) -> None:
    folder = tmp_path / "ivf"
    first = IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM)
    del lib3.vectors["sha1"]  # 320 of 520 rows left
    lib3.loaded.clear()
    lay = IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM)
    assert lay.built == "reused" and lib3.loaded == [] and set(lay.cells) == {"sha0", "sha2"}
    assert np.array_equal(lay.centroids, first.centroids)
    ours = lay.index(list(lib3.vectors), lib3.load)
    assert len(ours) == 320 and ours.offsets is not None and int(ours.offsets[-1]) == 320
    del lib3.vectors["sha2"]  # 150 rows < 520 / 2
    assert IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM).built == "trained"


def test_embedder_or_chunking_change_retrains(tmp_path: Path, lib3: Entries) -> None:
    folder = tmp_path / "ivf"
    IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM)
    assert IvfStore(folder, "other", "c1").ensure(lib3.counts(), lib3.load, DIM).built == "trained"
    assert IvfStore(folder, "other", "c2").ensure(lib3.counts(), lib3.load, DIM).built == "trained"
    assert IvfStore(folder, "other", "c2").ensure(lib3.counts(), lib3.load, DIM).built == "reused"
    # same name, other dimension (a model swapped under the same name): retrained too
    wide = Entries()
    for s, v in lib3.vectors.items():
        wide.vectors[s] = np.hstack([v, v])
    assert (
        IvfStore(folder, "other", "c2").ensure(wide.counts(), wide.load, 2 * DIM).built == "trained"
    )


@pytest.mark.parametrize("damage", [b"damaged", b"PK\x03\x04truncated", b""])
def test_damaged_centroids_are_retrained(tmp_path: Path, lib3: Entries, damage: bytes) -> None:
    folder = tmp_path / "ivf"
    first = IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM)
    (folder / "centroids.npz").write_bytes(damage)
    lay = IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM)
    assert lay.built == "trained" and np.array_equal(lay.centroids, first.centroids)  # same seed
    assert IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM).built == "reused"


def test_damaged_or_stale_cells_file_is_assigned_anew(tmp_path: Path, lib3: Entries) -> None:
    folder = tmp_path / "ivf"
    first = IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM)
    (cells_file,) = folder.glob("cells-*/sha1.npy")
    cells_file.write_bytes(b"\x93NUMPY garbage")
    lib3.loaded.clear()
    lay = IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM)
    assert lay.built == "updated" and lib3.loaded == ["sha1"]
    assert np.array_equal(lay.cells["sha1"], first.cells["sha1"])
    np.save(cells_file, np.full(200, 10_000, np.int32))  # a cell that does not exist
    assert IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM).built == "updated"
    np.save(cells_file, np.zeros(7, np.int32))  # the wrong length
    lay = IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM)
    assert lay.built == "updated" and np.array_equal(lay.cells["sha1"], first.cells["sha1"])
    assert not list(folder.glob("**/*.tmp"))


# --- through the library service ----------------------------------------------------


def test_library_index_step_builds_then_updates_the_layout(
    tmp_settings: Settings,
    tmp_path: Path,
    wordllama: WordLlamaEmbedder,
    make_pdf: Callable[[Path, list[str]], Path],
) -> None:
    root = tmp_path / "pdfs"
    body = "Sediment cores were taken at twelve stations along the estuary. " * 30
    for name in ("a", "b", "c"):
        make_pdf(root / f"{name}.pdf", [f"Paper {name}\n" + body, f"{name} results. " * 40])
    settings = tmp_settings.model_copy(update={"library_dirs": [root]})

    def lib() -> Library:
        # treat the tiny library as a large one
        return app_library(
            settings, embedder=wordllama, workers=1, params=RetrievalParams(exact_below=2)
        )

    first = lib()
    first.index()
    vi = first.prepare_vector_index()
    assert vi["kind"] == "ivf" and vi["built"] == "trained" and vi["cells"] >= 1
    assert vi["chunks"] > 0 and vi["seconds"] >= 0
    assert lib().prepare_vector_index()["built"] == "reused"
    cents = settings.resolved_data_dir() / "library" / "ivf" / "centroids.npz"
    mtime = cents.stat().st_mtime_ns
    make_pdf(root / "d.pdf", ["Paper d\n" + body, "Cadmium was highest near the harbour. " * 40])
    second = lib()
    second.index()
    vi2 = second.prepare_vector_index()
    assert vi2["built"] == "updated" and vi2["chunks"] > vi["chunks"]
    assert cents.stat().st_mtime_ns == mtime
    hits = lib().retrieve("cadmium near the harbour", top_k=2).hits
    assert hits and hits[0].file == "d.pdf"
    assert cents.stat().st_mtime_ns == mtime  # the question reused the stored layout
    small = app_library(settings, embedder=wordllama, workers=1)
    assert small.prepare_vector_index() == {"kind": "exact", "chunks": vi2["chunks"]}


def test_centroids_file_of_another_shape_is_retrained(tmp_path: Path, lib3: Entries) -> None:
    folder = tmp_path / "ivf"
    IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM)
    with (folder / "centroids.npz").open("wb") as fh:
        np.save(fh, np.zeros((3, DIM), np.float32))  # an .npy, not the .npz written here
    assert IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM).built == "trained"
    with (folder / "centroids.npz").open("wb") as fh:
        np.savez(fh, centroids=np.zeros((3, DIM), np.float32))  # fields missing
    assert IvfStore(folder, "emb", "c1").ensure(lib3.counts(), lib3.load, DIM).built == "trained"
