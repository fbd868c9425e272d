"""The stored IVF layout of the whole library, kept up to date entry by entry.

Under ``<data dir>/library/ivf/``:

* ``centroids.npz`` — the trained centroids with the embedder, the chunking version, the
  number of rows they were trained on and the id of this centroid set;
* ``cells-<set id>/<entry sha>.npy`` — each entry's (PDF's) cell per chunk, int32.

A new entry costs the assignment of its own chunks to the stored centroids; a removed entry
just drops out (its small file stays, in case the PDF comes back). The centroids are
retrained — every entry assigned anew — when there are none, when the embedder or the
chunking version changed, when the file is damaged, or when the number of chunks has grown
or shrunk by more than ``RETRAIN_FACTOR`` (2×) since training (:func:`needs_retraining`).
Every file is written to a temporary name and moved into place (``os.replace``); a file
that does not load or does not fit is rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypedDict

import numpy as np
import numpy.typing as npt

from litdesk.core.library import VectorIndex, normalise_rows
from litdesk.core.library._vectors import (
    ITERATIONS,
    assign_cells,
    default_nlist,
    needs_retraining,
    spherical_kmeans,
    training_rows,
)

__all__ = ["IvfLayout", "IvfStore", "IvfSummary", "LoadVectors"]

F32 = npt.NDArray[np.float32]
I32 = npt.NDArray[np.int32]
#: The vectors of one entry (by sha), in chunk order.
LoadVectors = Callable[[str], F32]
Built = Literal["trained", "updated", "reused"]


class IvfSummary(TypedDict):
    """An IVF layout for the index report: its cells, how it came about, in how long."""

    kind: Literal["ivf"]
    cells: int
    built: Built
    seconds: float


@dataclass
class IvfLayout:
    """The centroids and each entry's cells for one library state, and how they came about."""

    centroids: F32
    cells: dict[str, I32]
    built: Built
    seconds: float

    def summary(self) -> IvfSummary:
        return {
            "kind": "ivf",
            "cells": int(self.centroids.shape[0]),
            "built": self.built,
            "seconds": round(self.seconds, 3),
        }

    def index(self, shas: list[str], load: LoadVectors) -> VectorIndex:
        """The IVF index of the entries' chunks (``shas`` order), each entry's vectors read
        with ``load`` once and copied straight into cell order (:meth:`VectorIndex.from_blocks`)."""
        cells = np.concatenate([self.cells[s] for s in shas]) if shas else np.zeros(0, np.int32)
        return VectorIndex.from_blocks((load(s) for s in shas), self.centroids, cells)


class IvfStore:
    """The IVF layout files of one library, for one embedder and chunking version."""

    def __init__(self, folder: Path, embedder: str, chunking: str, *, seed: int = 0) -> None:
        self.folder = folder
        self.embedder = embedder
        self.chunking = chunking
        self.seed = seed

    @property
    def centroids_path(self) -> Path:
        return self.folder / "centroids.npz"

    def cells_dir(self, set_id: str) -> Path:
        return self.folder / f"cells-{set_id}"

    # --- the layout -----------------------------------------------------------------
    def ensure(self, counts: dict[str, int], load: LoadVectors, dim: int) -> IvfLayout:
        """The layout for the entries ``counts`` (sha → chunk count, in library order) of
        ``dim``-dimensional vectors: reused, updated (new entries assigned) or trained
        anew; stored before returning."""
        t0 = time.perf_counter()
        n = sum(counts.values())
        stored = self._load_centroids()
        if stored is not None and stored[0].shape[1] == dim:
            cents, trained_rows, set_id = stored
            if not needs_retraining(trained_rows, n):
                cells, added = self._entry_cells(set_id, cents, counts, load)
                built: Built = "updated" if added else "reused"
                return IvfLayout(cents, cells, built, time.perf_counter() - t0)
        cents, cells = self._train(counts, load, n)
        return IvfLayout(cents, cells, "trained", time.perf_counter() - t0)

    def _entry_cells(
        self, set_id: str, cents: F32, counts: dict[str, int], load: LoadVectors
    ) -> tuple[dict[str, I32], int]:
        """Every entry's stored cells; missing or damaged ones are assigned and written."""
        folder = self.cells_dir(set_id)
        out: dict[str, I32] = {}
        added = 0
        for sha, count in counts.items():
            cells = self._read_cells(folder / f"{sha}.npy", count, cents.shape[0])
            if cells is None:
                cells = assign_cells(load(sha), cents)
                self._write_cells(folder, sha, cells)
                added += 1
            out[sha] = cells
        return out, added

    def _train(
        self, counts: dict[str, int], load: LoadVectors, n: int
    ) -> tuple[F32, dict[str, I32]]:
        """New centroids on a sample of all rows, every entry assigned; the same sample,
        centroids and cells as :meth:`VectorIndex.build` on the concatenated vectors."""
        nlist = min(default_nlist(n), n)
        pick = training_rows(n, nlist, seed=self.seed)
        parts: list[F32] = []
        start = 0
        for sha, count in counts.items():
            lo, hi = np.searchsorted(pick, [start, start + count])
            if hi > lo:
                parts.append(normalise_rows(load(sha))[pick[lo:hi] - start])
            start += count
        cents = spherical_kmeans(np.vstack(parts), nlist, iterations=ITERATIONS, seed=self.seed)
        del parts
        set_id = hashlib.sha256(
            "\n".join([self.embedder, self.chunking, str(n)]).encode() + cents.tobytes()
        ).hexdigest()[:16]
        folder = self.cells_dir(set_id)
        cells: dict[str, I32] = {}
        for sha in counts:
            cells[sha] = assign_cells(load(sha), cents)
            self._write_cells(folder, sha, cells[sha])
        self._write_centroids(cents, n, set_id)
        self._drop_other_sets(set_id)
        return cents, cells

    # --- files ----------------------------------------------------------------------
    def _load_centroids(self) -> tuple[F32, int, str] | None:
        """The stored centroids, trained rows and set id; ``None`` when missing, damaged or
        made for another embedder or chunking version (then they are retrained)."""
        path = self.centroids_path
        if not path.exists():
            return None
        try:
            with path.open("rb") as fh:  # our handle: closed even when the zip is broken
                z = np.load(fh, allow_pickle=False)
                if not isinstance(z, np.lib.npyio.NpzFile):
                    return None
                with z:
                    cents = np.asarray(z["centroids"], dtype=np.float32)
                    trained = int(z["trained_rows"])
                    set_id = str(z["set_id"])
                    embedder, chunking = str(z["embedder"]), str(z["chunking"])
        except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):
            return None  # damaged: retrained
        if embedder != self.embedder or chunking != self.chunking:
            return None
        if cents.ndim != 2 or cents.shape[0] == 0 or not np.isfinite(cents).all():
            return None
        return cents, trained, set_id

    @staticmethod
    def _read_cells(path: Path, count: int, nlist: int) -> I32 | None:
        if not path.exists():
            return None
        try:
            arr = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError):
            return None  # damaged: assigned anew
        if arr.shape != (count,) or arr.dtype != np.int32:
            return None
        if count and (arr.min() < 0 or arr.max() >= nlist):
            return None
        return np.asarray(arr, dtype=np.int32)

    @staticmethod
    def _write_cells(folder: Path, sha: str, cells: I32) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        final = folder / f"{sha}.npy"
        tmp = folder / f"{sha}.{os.getpid()}.tmp"
        with tmp.open("wb") as fh:
            np.save(fh, cells.astype(np.int32), allow_pickle=False)
        os.replace(tmp, final)

    def _write_centroids(self, cents: F32, trained_rows: int, set_id: str) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f"centroids.{os.getpid()}.tmp"
        with tmp.open("wb") as fh:
            np.savez(
                fh,
                centroids=cents,
                trained_rows=np.int64(trained_rows),
                set_id=np.str_(set_id),
                embedder=np.str_(self.embedder),
                chunking=np.str_(self.chunking),
            )
        os.replace(tmp, self.centroids_path)

    def _drop_other_sets(self, keep: str) -> None:
        """Cells of replaced centroid sets, and layouts of the previous format
        (``<hash>.npz`` with the whole order), are removed."""
        for p in self.folder.iterdir():
            if p.is_dir() and p.name.startswith("cells-") and p.name != f"cells-{keep}":
                shutil.rmtree(p, ignore_errors=True)
            elif p.suffix == ".npz" and p.name != self.centroids_path.name:
                p.unlink(missing_ok=True)
