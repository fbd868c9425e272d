"""The library's storage: its tables in the store, its vector files under ``<data dir>/library/``.

* the store (SQLite or PostgreSQL, migration 0004, :mod:`litdesk.adapters.store._library`)
  holds the hash cache (path + size + mtime → SHA-256), one entry per PDF keyed by
  (content hash, embedder, chunking version), its chunks with the lexical index, and the
  adopted metadata per content hash;
* ``vectors/<hash>-<embedder>-<chunking>.npy`` holds the chunk embeddings of an entry
  (named in the entry's ``vectors`` column), kept in the object store too when it is shared
  by several hosts (:mod:`._shelf`): a host that lacks the file fetches it on first use.

An entry is written atomically: the vectors file first (temporary name, then renamed),
then the entry and its chunks in one transaction. A process killed mid-index loses only the
file in flight. A catalogue written by earlier litdesk versions
(``library/catalogue.sqlite3``) is copied into the store on the first open and renamed to
``catalogue.sqlite3.imported``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from litdesk._errors import IntegrityError
from litdesk.adapters.store import Store
from litdesk.adapters.store._library import (
    Entry,
    EntryInfo,
    LegacyImport,
    LibraryRepo,
    StoredChunk,
    import_legacy_catalogue,
)
from litdesk.core.library import Chunk

from ._shelf import Shelf

__all__ = ["LEGACY_NAME", "Catalogue", "Entry", "StoredChunk"]

#: The file name of the catalogue written before the library moved into the store.
LEGACY_NAME = "catalogue.sqlite3"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)[:80]


def vectors_name(sha: str, embedder: str, chunking: str) -> str:
    return f"{sha}-{_slug(embedder)}-{_slug(chunking)}.npy"


class Catalogue:
    """The library's rows in ``store`` and its vector files under ``root``."""

    def __init__(self, root: Path, store: Store, *, shelf: Shelf | None = None) -> None:
        self.root = root
        self.shelf = shelf
        self.vectors_dir = root / "vectors"
        self.vectors_dir.mkdir(parents=True, exist_ok=True)
        self.store = store
        self.repo = LibraryRepo(store)
        self.imported: LegacyImport | None = self._import_legacy()
        if shelf is not None:  # vectors written here before the store was shared
            shelf.catch_up(self.vectors_dir)

    def _import_legacy(self) -> LegacyImport | None:
        old = self.root / LEGACY_NAME
        if not old.is_file():
            return None
        try:
            done = import_legacy_catalogue(
                self.store, old, vectors_name, vectors_dir=self.vectors_dir
            )
        except IntegrityError:
            if not old.exists():  # another process imported and renamed it meanwhile
                return None
            raise
        for suffix in ("", "-wal", "-shm"):
            try:
                os.replace(
                    old.with_name(LEGACY_NAME + suffix),
                    old.with_name(LEGACY_NAME + ".imported" + suffix),
                )
            except FileNotFoundError:
                continue  # renamed by another process, or no such side file
        return done

    def close(self) -> None:
        """Nothing to release: the store belongs to its opener."""

    # --- hash cache ---------------------------------------------------------------
    def cached_hashes(self) -> dict[str, tuple[int, int, str]]:
        return self.repo.cached_hashes()

    def remember_hashes(self, rows: Iterable[tuple[str, int, int, str]]) -> None:
        self.repo.remember_hashes(rows)

    # --- entries ------------------------------------------------------------------
    def vectors_path(self, sha: str, embedder: str, chunking: str) -> Path:
        return self.vectors_dir / vectors_name(sha, embedder, chunking)

    def entries(self, embedder: str, chunking: str) -> dict[str, Entry]:
        return self.repo.entries(embedder, chunking)

    def index_keys(self, shas: list[str]) -> dict[tuple[str, str], int]:
        """The (embedder, chunking) keys entries of ``shas`` exist under, with counts."""
        return self.repo.index_keys(shas)

    def write_excluded(
        self,
        sha: str,
        embedder: str,
        chunking: str,
        *,
        code: str,
        reason: str,
        pages: int | None,
    ) -> None:
        self.repo.write_excluded(sha, embedder, chunking, code=code, reason=reason, pages=pages)

    def write_entry(
        self,
        sha: str,
        embedder: str,
        chunking: str,
        *,
        info: dict[str, Any],
        chunks: list[Chunk],
        vectors: npt.NDArray[np.float32],
    ) -> None:
        """Write one entry atomically (vectors file first, then one transaction)."""
        if vectors.shape[0] != len(chunks):
            raise IntegrityError("vector count does not match chunk count")
        final = self.vectors_path(sha, embedder, chunking)
        tmp = final.with_name(final.name + f".{os.getpid()}.tmp")
        with tmp.open("wb") as fh:
            np.save(fh, vectors.astype(np.float32), allow_pickle=False)
        os.replace(tmp, final)  # atomic against a killed process (no half-written file)
        if self.shelf is not None:
            self.shelf.publish(final)  # for the other hosts, before the entry names it
        self.repo.write_entry(
            sha,
            embedder,
            chunking,
            info=EntryInfo(
                pages=int(info["pages"]),
                doi=info.get("doi"),
                arxiv=info.get("arxiv"),
                arxiv_version=info.get("arxiv_version"),
                references_page=info.get("references_page"),
                head_text=info.get("head_text"),
                text_layer=bool(info.get("text_layer", True)),
                text_source=info.get("text_source"),
                text_note=info.get("text_note"),
            ),
            chunks=[(c.index, c.page, c.start, c.end, c.text) for c in chunks],
            dim=int(vectors.shape[1]) if vectors.ndim == 2 else 0,
            vectors=final.name,
        )

    def chunks_of(self, shas: list[str], embedder: str, chunking: str) -> list[StoredChunk]:
        """Chunks of the given entries, in (entry order given, chunk index) order."""
        return self.repo.chunks_of(shas, embedder, chunking)

    def load_vectors(
        self, sha: str, embedder: str, chunking: str, n: int
    ) -> npt.NDArray[np.float32]:
        path = self.vectors_path(sha, embedder, chunking)
        if self.shelf is not None:
            self.shelf.fetch(path)  # indexed on another host: from the object store
        try:
            arr = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise IntegrityError(f"index vectors unreadable for {sha[:12]}: {exc}") from None
        if arr.ndim != 2 or arr.shape[0] != n or arr.dtype != np.float32:
            raise IntegrityError(f"index vectors of {sha[:12]} do not match the catalogue")
        return np.asarray(arr, dtype=np.float32)

    def lexical(
        self, words: list[str], shas: list[str], embedder: str, chunking: str, limit: int
    ) -> list[int]:
        """Chunk ids matching any of ``words`` (whole words), best first, in scope."""
        return self.repo.lexical(words, shas, embedder, chunking, limit)

    # --- adopted metadata ------------------------------------------------------------
    def metadata(self) -> dict[str, dict[str, Any]]:
        return self.repo.metadata()

    def adopt(self, sha: str, record: dict[str, Any], lookup: str) -> None:
        self.repo.adopt(sha, record, lookup)
