"""The library's own storage under ``<data dir>/library/``.

* ``catalogue.sqlite3`` — the hash cache (path + size + mtime → SHA-256), one
  entry per PDF keyed by (content hash, embedder, chunking version), its chunks,
  an FTS5 table over the chunks (the lexical layer: whole-word match), and the
  adopted metadata per content hash.
* ``vectors/<hash>-<embedder>-<chunking>.npy`` — the chunk embeddings of an entry.

An entry is written atomically: the vectors file first (temporary name, then
renamed), then the entry, its chunks and FTS rows in one transaction. A process
killed mid-index loses only the file in flight.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from litdesk._errors import ExternalError, IntegrityError
from litdesk.core.library import Chunk

__all__ = ["Catalogue", "Entry", "StoredChunk"]

_SCHEMA = """
create table if not exists files (
  path text primary key, size integer not null, mtime_ns integer not null, sha256 text not null
);
create table if not exists entries (
  sha256 text not null, embedder text not null, chunking text not null,
  status text not null, reason_code text, reason text,
  pages integer, text_layer integer, doi text, arxiv text, arxiv_version integer,
  references_page integer, n_chunks integer not null default 0, dim integer,
  head_text text, created text not null,
  primary key (sha256, embedder, chunking)
);
create table if not exists chunks (
  id integer primary key,
  sha256 text not null, embedder text not null, chunking text not null,
  idx integer not null, page integer not null, start integer not null, "end" integer not null,
  text text not null,
  unique (sha256, embedder, chunking, idx)
);
create virtual table if not exists chunks_fts using fts5(
  text, content='chunks', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
create table if not exists meta (
  sha256 text primary key, record text not null, lookup text not null, adopted text not null
);
"""


class CatalogueBusy(ExternalError):
    """Another process kept the library catalogue locked."""

    default_code = "catalogue_busy"


@dataclass(frozen=True, slots=True)
class Entry:
    """One indexed (or excluded) PDF content under one embedder and chunking."""

    sha256: str
    status: str  # "ok" or "excluded"
    reason_code: str | None
    reason: str | None
    pages: int | None
    text_layer: bool | None
    doi: str | None
    arxiv: str | None
    arxiv_version: int | None
    references_page: int | None
    n_chunks: int
    head_text: str | None


@dataclass(frozen=True, slots=True)
class StoredChunk:
    id: int
    sha256: str
    idx: int
    page: int
    text: str


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)[:80]


class Catalogue:
    """SQLite catalogue + vector files of the PDF library."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.vectors_dir = root / "vectors"
        self.vectors_dir.mkdir(parents=True, exist_ok=True)
        self.path = root / "catalogue.sqlite3"
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        # another process (an index run, `library list`) may be creating the catalogue
        # at this moment: switching to WAL and creating the schema can then meet a lock
        # that the busy timeout does not cover, so retry for a while
        deadline = time.monotonic() + 30
        while True:
            try:
                mode = self._db.execute("pragma journal_mode").fetchone()[0]
                if str(mode).lower() != "wal":
                    self._db.execute("pragma journal_mode=wal")
                self._db.execute("pragma synchronous=normal")
                self._db.executescript(_SCHEMA)
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    self._db.close()
                    raise IntegrityError(f"library catalogue unusable: {exc}") from None
                if time.monotonic() > deadline:
                    self._db.close()
                    raise CatalogueBusy("the library catalogue stayed locked for 30 s") from None
                time.sleep(0.05)

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("begin immediate")
        try:
            yield self._db
        except BaseException:
            self._db.execute("rollback")
            raise
        self._db.execute("commit")

    # --- hash cache ---------------------------------------------------------------
    def cached_hashes(self) -> dict[str, tuple[int, int, str]]:
        rows = self._db.execute("select path, size, mtime_ns, sha256 from files")
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    def remember_hashes(self, rows: Iterable[tuple[str, int, int, str]]) -> None:
        rows = list(rows)
        if rows:
            with self._tx() as db:
                db.executemany("insert or replace into files values (?, ?, ?, ?)", rows)

    # --- entries ------------------------------------------------------------------
    def vectors_path(self, sha: str, embedder: str, chunking: str) -> Path:
        return self.vectors_dir / f"{sha}-{_slug(embedder)}-{_slug(chunking)}.npy"

    def entries(self, embedder: str, chunking: str) -> dict[str, Entry]:
        rows = self._db.execute(
            "select sha256, status, reason_code, reason, pages, text_layer, doi, arxiv,"
            " arxiv_version, references_page, n_chunks, head_text from entries"
            " where embedder = ? and chunking = ?",
            (embedder, chunking),
        )
        out = {}
        for r in rows:
            out[r[0]] = Entry(
                r[0], r[1], r[2], r[3], r[4], None if r[5] is None else bool(r[5]),
                r[6], r[7], r[8], r[9], r[10], r[11],
            )  # fmt: skip
        return out

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
        with self._tx() as db:
            db.execute(
                "insert or replace into entries (sha256, embedder, chunking, status, reason_code,"
                " reason, pages, text_layer, n_chunks, created) values (?,?,?,?,?,?,?,?,0,?)",
                (sha, embedder, chunking, "excluded", code, reason, pages,
                 0 if code == "no_text" else None, _now()),
            )  # fmt: skip

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
        with self._tx() as db:
            self._drop_chunks(db, sha, embedder, chunking)
            db.execute(
                "insert or replace into entries (sha256, embedder, chunking, status, pages,"
                " text_layer, doi, arxiv, arxiv_version, references_page, n_chunks, dim,"
                " head_text, created) values (?,?,?,'ok',?,?,?,?,?,?,?,?,?,?)",
                (sha, embedder, chunking, info["pages"], 1, info.get("doi"), info.get("arxiv"),
                 info.get("arxiv_version"), info.get("references_page"), len(chunks),
                 int(vectors.shape[1]) if vectors.ndim == 2 else 0, info.get("head_text"), _now()),
            )  # fmt: skip
            db.executemany(
                'insert into chunks (sha256, embedder, chunking, idx, page, start, "end", text)'
                " values (?,?,?,?,?,?,?,?)",
                [
                    (sha, embedder, chunking, c.index, c.page, c.start, c.end, c.text)
                    for c in chunks
                ],
            )
            db.execute(
                "insert into chunks_fts (rowid, text) select id, text from chunks"
                " where sha256=? and embedder=? and chunking=?",
                (sha, embedder, chunking),
            )

    def _drop_chunks(self, db: sqlite3.Connection, sha: str, embedder: str, chunking: str) -> None:
        old = db.execute(
            "select id, text from chunks where sha256=? and embedder=? and chunking=?",
            (sha, embedder, chunking),
        ).fetchall()
        for rowid, text in old:
            db.execute(
                "insert into chunks_fts (chunks_fts, rowid, text) values ('delete', ?, ?)",
                (rowid, text),
            )
        db.execute(
            "delete from chunks where sha256=? and embedder=? and chunking=?",
            (sha, embedder, chunking),
        )

    def chunks_of(self, shas: list[str], embedder: str, chunking: str) -> list[StoredChunk]:
        """Chunks of the given entries, in (entry order given, chunk index) order."""
        out: list[StoredChunk] = []
        for sha in shas:
            rows = self._db.execute(
                "select id, sha256, idx, page, text from chunks where sha256=? and embedder=?"
                " and chunking=? order by idx",
                (sha, embedder, chunking),
            )
            out.extend(StoredChunk(*r) for r in rows)
        return out

    def load_vectors(
        self, sha: str, embedder: str, chunking: str, n: int
    ) -> npt.NDArray[np.float32]:
        path = self.vectors_path(sha, embedder, chunking)
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
        """Chunk ids matching any of ``words`` (whole words), best BM25 first, in scope."""
        clean = [w.replace('"', "") for w in words if w.replace('"', "").strip()]
        if not clean or not shas:
            return []
        query = " OR ".join(f'"{w}"' for w in clean)
        marks = ",".join("?" * len(shas))
        rows = self._db.execute(
            "select c.id from chunks_fts f join chunks c on c.id = f.rowid"
            f" where chunks_fts match ? and c.embedder = ? and c.chunking = ? and c.sha256 in ({marks})"
            " order by bm25(chunks_fts) limit ?",
            (query, embedder, chunking, *shas, limit),
        )
        return [r[0] for r in rows]

    # --- adopted metadata ------------------------------------------------------------
    def metadata(self) -> dict[str, dict[str, Any]]:
        out = {}
        for sha, record in self._db.execute("select sha256, record from meta"):
            try:
                out[sha] = json.loads(record)
            except ValueError:
                raise IntegrityError(f"stored metadata of {sha[:12]} is not JSON") from None
        return out

    def adopt(self, sha: str, record: dict[str, Any], lookup: str) -> None:
        with self._tx() as db:
            db.execute(
                "insert or replace into meta values (?, ?, ?, ?)",
                (sha, json.dumps(record, ensure_ascii=False), lookup, _now()),
            )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
