"""The PDF library's tables (migration 0004): hash cache, entries, chunks, adopted metadata.

:class:`LibraryRepo` is the one place that reads and writes them, on SQLite or PostgreSQL.
An *entry* is one PDF content (SHA-256) under one embedder and chunking version, ``ok``
(with its chunks; its vectors live in a file named in ``vectors``) or ``excluded`` (with a
reason). The lexical layer is FTS5/BM25 on SQLite and ``tsvector``/``ts_rank`` on
PostgreSQL (see the migration); both match whole words.

Every method is one transaction; writes of one entry (its row, its chunks, their lexical
rows) commit together, serialised per entry across processes (advisory lock on PostgreSQL,
``BEGIN IMMEDIATE`` on SQLite), so two processes indexing one library never leave a
half-written or doubled entry.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg
from sqlalchemy.dialects import sqlite as sq
from sqlalchemy.engine import Connection

from ._engine import Store, StoredDataInvalid, dump_json

__all__ = [
    "ChunkRow",
    "Entry",
    "EntryInfo",
    "LegacyImport",
    "LibraryRepo",
    "StoredChunk",
    "VectorName",
    "import_legacy_catalogue",
    "library_chunks",
    "library_entries",
    "library_files",
    "library_metadata",
]

_LIBRARY_LOCK: Final = 1909102031
#: Rows per statement when a list of hashes goes into ``IN (…)``.
_BATCH: Final = 500

_meta = sa.MetaData()

library_files = sa.Table(
    "library_files",
    _meta,
    sa.Column("path", sa.String(4096), primary_key=True),
    sa.Column("size", sa.BigInteger, nullable=False),
    sa.Column("mtime_ns", sa.BigInteger, nullable=False),
    sa.Column("sha256", sa.String(64), nullable=False),
)

library_entries = sa.Table(
    "library_entries",
    _meta,
    sa.Column("sha256", sa.String(64), primary_key=True),
    sa.Column("embedder", sa.String(200), primary_key=True),
    sa.Column("chunking", sa.String(80), primary_key=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("reason_code", sa.String(40)),
    sa.Column("reason", sa.Text),
    sa.Column("pages", sa.Integer),
    sa.Column("text_layer", sa.Boolean),
    sa.Column("doi", sa.Text),
    sa.Column("arxiv", sa.Text),
    sa.Column("arxiv_version", sa.Integer),
    sa.Column("references_page", sa.Integer),
    sa.Column("n_chunks", sa.Integer, nullable=False),
    sa.Column("dim", sa.Integer),
    sa.Column("head_text", sa.Text),
    sa.Column("vectors", sa.String(400)),
    sa.Column("created_at", sa.String(40), nullable=False),
)

library_chunks = sa.Table(
    "library_chunks",
    _meta,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True),
    sa.Column("sha256", sa.String(64), nullable=False),
    sa.Column("embedder", sa.String(200), nullable=False),
    sa.Column("chunking", sa.String(80), nullable=False),
    sa.Column("idx", sa.Integer, nullable=False),
    sa.Column("page", sa.Integer, nullable=False),
    sa.Column("char_start", sa.Integer, nullable=False),
    sa.Column("char_end", sa.Integer, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
)

library_metadata = sa.Table(
    "library_metadata",
    _meta,
    sa.Column("sha256", sa.String(64), primary_key=True),
    sa.Column("record", sa.Text, nullable=False),
    sa.Column("lookup", sa.String(400), nullable=False),
    sa.Column("adopted_at", sa.String(40), nullable=False),
)


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
    vectors: str | None = None


@dataclass(frozen=True, slots=True)
class StoredChunk:
    id: int
    sha256: str
    idx: int
    page: int
    text: str


@dataclass(frozen=True, slots=True)
class EntryInfo:
    """What extraction found out about one PDF (the ``ok`` entry's columns)."""

    pages: int
    doi: str | None = None
    arxiv: str | None = None
    arxiv_version: int | None = None
    references_page: int | None = None
    head_text: str | None = None
    #: ``False``: the PDF has no text layer; its text came from ``text_source`` (a code,
    #: stored as the entry's ``reason_code``, with ``text_note`` as its ``reason``)
    text_layer: bool = True
    text_source: str | None = None
    text_note: str | None = None


#: One chunk to store: (index, page, start, end, text).
ChunkRow = tuple[int, int, int, int, str]
#: The vectors file name of an entry: (sha256, embedder, chunking) → file name.
VectorName = Callable[[str, str, str], str]


def _clean(text: str | None) -> str | None:
    """PostgreSQL text cannot hold NUL: stored as U+FFFD on both backends (same length,
    so chunk offsets stay valid)."""
    return None if text is None else text.replace("\x00", "\ufffd")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _batches(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), _BATCH):
        yield items[i : i + _BATCH]


def _upsert(conn: Connection, table: sa.Table, rows: list[dict[str, Any]], keys: list[str]) -> None:
    """Insert ``rows``, replacing rows with the same ``keys`` (one statement per batch)."""
    if not rows:
        return
    dialect = conn.dialect.name
    stmt: Any = (pg.insert(table) if dialect == "postgresql" else sq.insert(table)).values(rows)
    stmt = stmt.on_conflict_do_update(
        index_elements=keys,
        set_={c.name: stmt.excluded[c.name] for c in table.columns if c.name not in keys},
    )
    conn.execute(stmt)


def _drop_entry(t: sa.Table) -> sa.Delete:
    return sa.delete(t).where(
        t.c.sha256 == sa.bindparam("b_sha"),
        t.c.embedder == sa.bindparam("b_embedder"),
        t.c.chunking == sa.bindparam("b_chunking"),
    )


#: an entry's writes, built once and bound at execution (every indexed PDF runs them)
_DROP_ENTRY: Final = tuple(_drop_entry(t) for t in (library_chunks, library_entries))
_INSERT_ENTRY: Final = sa.insert(library_entries)


class LibraryRepo:
    """The library tables of one store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # --- hash cache ---------------------------------------------------------------
    def cached_hashes(self) -> dict[str, tuple[int, int, str]]:
        """path → (size, mtime_ns, sha256) of every file hashed before."""
        t = library_files
        with self.store.read() as conn:
            rows = conn.execute(sa.select(t.c.path, t.c.size, t.c.mtime_ns, t.c.sha256))
            return {r[0]: (int(r[1]), int(r[2]), r[3]) for r in rows}

    def remember_hashes(self, rows: Iterable[tuple[str, int, int, str]]) -> None:
        items = [{"path": p, "size": s, "mtime_ns": m, "sha256": h} for p, s, m, h in rows]
        if not items:
            return
        with self.store.write() as conn:
            for i in range(0, len(items), _BATCH):
                _upsert(conn, library_files, items[i : i + _BATCH], ["path"])

    # --- entries ------------------------------------------------------------------
    def entries(self, embedder: str, chunking: str) -> dict[str, Entry]:
        t = library_entries
        cols = [
            t.c.sha256, t.c.status, t.c.reason_code, t.c.reason, t.c.pages, t.c.text_layer,
            t.c.doi, t.c.arxiv, t.c.arxiv_version, t.c.references_page, t.c.n_chunks,
            t.c.head_text, t.c.vectors,
        ]  # fmt: skip
        q = sa.select(*cols).where(t.c.embedder == embedder, t.c.chunking == chunking)
        with self.store.read() as conn:
            out: dict[str, Entry] = {}
            for r in conn.execute(q):
                out[r[0]] = Entry(
                    r[0], r[1], r[2], r[3], r[4], None if r[5] is None else bool(r[5]),
                    r[6], r[7], r[8], r[9], int(r[10]), r[11], r[12],
                )  # fmt: skip
            return out

    def index_keys(self, shas: Sequence[str]) -> dict[tuple[str, str], int]:
        """The (embedder, chunking) keys entries of ``shas`` are stored under, with counts."""
        t = library_entries
        out: dict[tuple[str, str], int] = {}
        with self.store.read() as conn:
            for part in _batches(list(dict.fromkeys(shas))):
                q = (
                    sa.select(t.c.embedder, t.c.chunking, sa.func.count())
                    .where(t.c.sha256.in_(part))
                    .group_by(t.c.embedder, t.c.chunking)
                )
                for emb, chunking, n in conn.execute(q):
                    out[(emb, chunking)] = out.get((emb, chunking), 0) + int(n)
        return out

    def _lock_entry(self, conn: Connection, sha: str, embedder: str, chunking: str) -> None:
        self.store.lock(conn, _LIBRARY_LOCK, f"{sha}|{embedder}|{chunking}")

    def _drop(self, conn: Connection, sha: str, embedder: str, chunking: str) -> None:
        key = {"b_sha": sha, "b_embedder": embedder, "b_chunking": chunking}
        for statement in _DROP_ENTRY:
            conn.execute(statement, key)

    def write_excluded(
        self, sha: str, embedder: str, chunking: str, *, code: str, reason: str, pages: int | None
    ) -> None:
        with self.store.write() as conn:
            self._lock_entry(conn, sha, embedder, chunking)
            self._drop(conn, sha, embedder, chunking)
            conn.execute(
                sa.insert(library_entries).values(
                    sha256=sha, embedder=embedder, chunking=chunking, status="excluded",
                    reason_code=code, reason=_clean(reason), pages=pages,
                    text_layer=False if code == "no_text" else None, n_chunks=0, created_at=_now(),
                )
            )  # fmt: skip

    def write_entry(
        self,
        sha: str,
        embedder: str,
        chunking: str,
        *,
        info: EntryInfo,
        chunks: Sequence[ChunkRow],
        dim: int,
        vectors: str,
    ) -> None:
        """One ``ok`` entry with its chunks, replacing an earlier one, in one transaction."""
        with self.store.write() as conn:
            self._lock_entry(conn, sha, embedder, chunking)
            self._drop(conn, sha, embedder, chunking)
            conn.execute(
                _INSERT_ENTRY,
                dict(
                    sha256=sha, embedder=embedder, chunking=chunking, status="ok",
                    pages=info.pages, text_layer=info.text_layer, doi=_clean(info.doi),
                    reason_code=info.text_source, reason=_clean(info.text_note),
                    arxiv=_clean(info.arxiv), arxiv_version=info.arxiv_version,
                    references_page=info.references_page, n_chunks=len(chunks), dim=dim,
                    head_text=_clean(info.head_text), vectors=vectors,
                    created_at=_now(),
                ),
            )  # fmt: skip
            if chunks:
                conn.execute(
                    sa.insert(library_chunks),
                    [
                        {"sha256": sha, "embedder": embedder, "chunking": chunking, "idx": i,
                         "page": p, "char_start": s, "char_end": e, "text": _clean(text)}
                        for i, p, s, e, text in chunks
                    ],
                )  # fmt: skip

    def chunks_of(self, shas: Sequence[str], embedder: str, chunking: str) -> list[StoredChunk]:
        """Chunks of the given entries, in (entry order given, chunk index) order."""
        t = library_chunks
        by_sha: dict[str, list[StoredChunk]] = {}
        with self.store.read() as conn:
            for part in _batches(list(dict.fromkeys(shas))):
                q = (
                    sa.select(t.c.id, t.c.sha256, t.c.idx, t.c.page, t.c.text)
                    .where(t.c.embedder == embedder, t.c.chunking == chunking, t.c.sha256.in_(part))
                    .order_by(t.c.sha256, t.c.idx)
                )
                for r in conn.execute(q):
                    by_sha.setdefault(r[1], []).append(
                        StoredChunk(int(r[0]), r[1], r[2], r[3], r[4])
                    )
        out: list[StoredChunk] = []
        for sha in shas:
            out.extend(by_sha.get(sha, ()))
        return out

    def lexical(
        self, words: list[str], shas: Sequence[str], embedder: str, chunking: str, limit: int
    ) -> list[int]:
        """Chunk ids matching any of ``words`` (whole words), best first, within ``shas``."""
        clean = [w.replace('"', "") for w in words if w.replace('"', "").strip()]
        clean = [w for w in clean if any(ch.isalnum() for ch in w)]
        if not clean or not shas or limit <= 0:
            return []
        params: dict[str, Any] = {"embedder": embedder, "chunking": chunking, "limit": limit}
        params["shas"] = list(shas)
        if self.store.is_postgres:
            terms = []
            for i, w in enumerate(clean):
                params[f"w{i}"] = w
                terms.append(f"plainto_tsquery('simple', :w{i})")
            sql = (
                f"SELECT c.id FROM library_chunks c, (SELECT {' || '.join(terms)}) AS q(query)"
                " WHERE c.tsv @@ q.query AND c.embedder = :embedder AND c.chunking = :chunking"
                " AND c.sha256 IN :shas ORDER BY ts_rank(c.tsv, q.query) DESC, c.id LIMIT :limit"
            )
        else:
            params["match"] = " OR ".join(f'"{w}"' for w in clean)
            sql = (
                "SELECT c.id FROM library_chunks_fts f JOIN library_chunks c ON c.id = f.rowid"
                " WHERE library_chunks_fts MATCH :match AND c.embedder = :embedder"
                " AND c.chunking = :chunking AND c.sha256 IN :shas"
                " ORDER BY bm25(library_chunks_fts), c.id LIMIT :limit"
            )
        stmt = sa.text(sql).bindparams(sa.bindparam("shas", expanding=True))
        with self.store.read() as conn:
            return [int(r[0]) for r in conn.execute(stmt, params)]

    # --- adopted metadata ------------------------------------------------------------
    def metadata(self) -> dict[str, dict[str, Any]]:
        """Adopted record per content hash."""
        t = library_metadata
        out: dict[str, dict[str, Any]] = {}
        with self.store.read() as conn:
            for sha, record in conn.execute(sa.select(t.c.sha256, t.c.record)):
                try:
                    value = json.loads(record)
                except ValueError:
                    raise StoredDataInvalid(f"stored metadata of {sha[:12]} is not JSON") from None
                if not isinstance(value, dict):
                    raise StoredDataInvalid(f"stored metadata of {sha[:12]} is not a record")
                out[sha] = value
        return out

    def adopt(self, sha: str, record: dict[str, Any], lookup: str) -> None:
        row = {"sha256": sha, "record": dump_json(record), "lookup": lookup, "adopted_at": _now()}
        with self.store.write() as conn:
            _upsert(conn, library_metadata, [row], ["sha256"])


@dataclass(frozen=True, slots=True)
class LegacyImport:
    """What :func:`import_legacy_catalogue` copied (rows skipped: already in the store)."""

    files: int
    entries: int
    chunks: int
    metadata: int
    skipped: int


def import_legacy_catalogue(
    store: Store, path: Path, vector_name: VectorName, *, vectors_dir: Path
) -> LegacyImport:
    """Copy a catalogue written by litdesk before migration 0004 into the store.

    ``vector_name(sha, embedder, chunking)`` names an entry's vectors file (the old
    catalogue did not record it; the files stay where they are). Entries already in the
    store are kept (an import interrupted half-way, or run by two processes, adds each
    entry once). One write transaction: all or nothing.
    """
    try:
        src = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=30)
    except sqlite3.Error as exc:
        raise StoredDataInvalid(f"old library catalogue {path} unreadable: {exc}") from None
    try:
        return _copy_legacy(store, src, vector_name, vectors_dir)
    except sqlite3.Error as exc:
        raise StoredDataInvalid(f"old library catalogue {path} unreadable: {exc}") from None
    finally:
        src.close()


def _legacy_tables(src: sqlite3.Connection) -> set[str]:
    return {r[0] for r in src.execute("select name from sqlite_master where type='table'")}


def _copy_legacy(
    store: Store, src: sqlite3.Connection, vector_name: VectorName, vectors_dir: Path
) -> LegacyImport:
    tables = _legacy_tables(src)
    n_files = n_entries = n_chunks = n_meta = skipped = 0
    with store.write() as conn:
        store.lock(conn, _LIBRARY_LOCK, "legacy-import")
        if "files" in tables:
            rows = [
                {"path": p, "size": s, "mtime_ns": m, "sha256": h}
                for p, s, m, h in src.execute("select path, size, mtime_ns, sha256 from files")
            ]
            for i in range(0, len(rows), _BATCH):
                _upsert(conn, library_files, rows[i : i + _BATCH], ["path"])
            n_files = len(rows)
        if "entries" in tables:
            e = library_entries
            have = {
                (r[0], r[1], r[2])
                for r in conn.execute(sa.select(e.c.sha256, e.c.embedder, e.c.chunking))
            }
            for r in src.execute(
                "select sha256, embedder, chunking, status, reason_code, reason, pages,"
                " text_layer, doi, arxiv, arxiv_version, references_page, n_chunks, dim,"
                " head_text, created from entries"
            ).fetchall():
                key = (r[0], r[1], r[2])
                if key in have:
                    skipped += 1
                    continue
                name = vector_name(*key) if r[3] == "ok" else None
                if name is not None and not (vectors_dir / name).exists():
                    name = None  # the vectors file is gone: the loader reports it
                conn.execute(
                    sa.insert(library_entries).values(
                        sha256=r[0], embedder=r[1], chunking=r[2], status=r[3],
                        reason_code=r[4], reason=_clean(r[5]), pages=r[6],
                        text_layer=None if r[7] is None else bool(r[7]), doi=_clean(r[8]),
                        arxiv=_clean(r[9]), arxiv_version=r[10], references_page=r[11],
                        n_chunks=r[12] or 0, dim=r[13], head_text=_clean(r[14]), vectors=name,
                        created_at=r[15] or _now(),
                    )
                )  # fmt: skip
                n_entries += 1
                if "chunks" in tables:
                    chunk_rows = [
                        {"sha256": key[0], "embedder": key[1], "chunking": key[2], "idx": c[0],
                         "page": c[1], "char_start": c[2], "char_end": c[3], "text": _clean(c[4])}
                        for c in src.execute(
                            'select idx, page, start, "end", text from chunks where sha256=?'
                            " and embedder=? and chunking=? order by idx",
                            key,
                        )
                    ]  # fmt: skip
                    if chunk_rows:
                        conn.execute(sa.insert(library_chunks), chunk_rows)
                    n_chunks += len(chunk_rows)
        if "meta" in tables:
            rows = [
                {"sha256": s, "record": _clean(rec), "lookup": _clean(lk), "adopted_at": at}
                for s, rec, lk, at in src.execute(
                    "select sha256, record, lookup, adopted from meta"
                )
            ]
            for i in range(0, len(rows), _BATCH):
                _upsert(conn, library_metadata, rows[i : i + _BATCH], ["sha256"])
            n_meta = len(rows)
    return LegacyImport(n_files, n_entries, n_chunks, n_meta, skipped)
