"""The library's rows in the store: an old catalogue migrated on first open, both backends,
and two processes indexing and reading one library on PostgreSQL."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlalchemy as sa
from tests import _fork

from litdesk._settings import Settings
from litdesk.adapters.embeddings import WordLlamaEmbedder
from litdesk.adapters.store import open_store
from litdesk.core.library import CHUNKING_VERSION
from litdesk.services.app import app_library
from litdesk.services.library import Library

TOPICS = {
    "estuary.pdf": "Cadmium concentrations were highest near the harbour outflow of the estuary. ",
    "wheat.pdf": "Post-anthesis heat stress reduced grain yield and kernel weight in wheat. ",
    "cameras.pdf": "Time-lapse cameras on two bridges measured the river water level. ",
}

#: The catalogue schema litdesk wrote before migration 0004 (a copy of the old code's).
OLD_SCHEMA = """
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


@pytest.fixture
def folder(tmp_path: Path, make_pdf: Callable[[Path, list[str]], Path]) -> Path:
    root = tmp_path / "pdfs"
    for name, text in TOPICS.items():
        make_pdf(root / name, [text * 12, "Discussion. " + text * 8])
    return root


def _write_old_catalogue(lib: Library, path: Path) -> dict[str, int]:
    """The rows of ``lib``'s store written the way the old catalogue code wrote them."""
    cat = lib.catalogue
    embedder = lib._embedder_name
    entries = cat.entries(embedder, CHUNKING_VERSION)
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    for p, (size, mtime, sha) in cat.cached_hashes().items():
        db.execute("insert into files values (?, ?, ?, ?)", (p, size, mtime, sha))
    for sha, e in entries.items():
        db.execute(
            "insert into entries (sha256, embedder, chunking, status, reason_code, reason, pages,"
            " text_layer, doi, arxiv, arxiv_version, references_page, n_chunks, dim, head_text,"
            " created) values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (sha, embedder, CHUNKING_VERSION, e.status, e.reason_code, e.reason, e.pages,
             None if e.text_layer is None else int(e.text_layer), e.doi, e.arxiv,
             e.arxiv_version, e.references_page, e.n_chunks, 256, e.head_text,
             "2026-11-30T10:00:00+00:00"),
        )  # fmt: skip
        for i, c in enumerate(cat.chunks_of([sha], embedder, CHUNKING_VERSION)):
            db.execute(
                'insert into chunks (sha256, embedder, chunking, idx, page, start, "end", text)'
                " values (?,?,?,?,?,?,?,?)",
                (sha, embedder, CHUNKING_VERSION, c.idx, c.page, i, i + len(c.text), c.text),
            )
    db.execute("insert into chunks_fts (rowid, text) select id, text from chunks")
    sha = next(iter(entries))
    db.execute(
        "insert into meta values (?, ?, ?, ?)",
        (sha, json.dumps({"title": "An adopted title"}), "doi:10.1/x", "2026-11-30T10:00:00+00:00"),
    )
    db.commit()
    db.close()
    return {"entries": len(entries)}


def test_old_catalogue_is_migrated_on_first_open(
    tmp_settings: Settings,
    folder: Path,
    wordllama: WordLlamaEmbedder,
    library_db: str | None,
    tmp_path: Path,
) -> None:
    # an old library: catalogue.sqlite3 + vector files, written with today's indexing
    old = tmp_settings.model_copy(
        update={"library_dirs": [folder], "data_dir": tmp_path / "old", "database_url": None}
    )
    first = app_library(old, embedder=wordllama, workers=1)
    assert len(first.index().indexed) == 3
    before = first.retrieve("cadmium harbour outflow", top_k=3)
    legacy = old.resolved_data_dir() / "library" / "catalogue.sqlite3"
    counts = _write_old_catalogue(first, legacy)
    first.close()
    (old.resolved_data_dir() / "litdesk.sqlite3").unlink()  # the store knew nothing of it
    for side in ("-wal", "-shm"):
        (old.resolved_data_dir() / f"litdesk.sqlite3{side}").unlink(missing_ok=True)

    s = old.model_copy(update={"database_url": library_db})
    lib = app_library(s, embedder=wordllama, workers=1)
    again = lib.index()
    assert again.indexed == [] and again.unchanged == 3  # nothing re-extracted
    assert lib.catalogue.imported is not None
    assert lib.catalogue.imported.entries == counts["entries"]
    assert not legacy.exists() and legacy.with_name("catalogue.sqlite3.imported").exists()
    after = lib.retrieve("cadmium harbour outflow", top_k=3)
    assert [(h.file, h.text) for h in after.hits] == [(h.file, h.text) for h in before.hits]
    titles = {r["adopted_title"] for r in lib.status().files}
    assert "An adopted title" in titles
    # the lexical layer was rebuilt from the imported chunks
    cat = lib.catalogue
    shas = list(cat.entries(lib._embedder_name, CHUNKING_VERSION))
    hits = cat.lexical(["outflow"], shas, lib._embedder_name, CHUNKING_VERSION, 10)
    texts = [
        c.text for c in cat.chunks_of(shas, lib._embedder_name, CHUNKING_VERSION) if c.id in hits
    ]
    assert texts and all("outflow" in t for t in texts)
    lib.close()
    # a second open finds nothing left to import
    reopened = app_library(s, embedder=wordllama, workers=1)
    assert reopened.catalogue.imported is None
    assert reopened.index().unchanged == 3


def test_lexical_layer_whole_words_and_scope(
    tmp_settings: Settings, folder: Path, wordllama: WordLlamaEmbedder, library_db: str | None
) -> None:
    s = tmp_settings.model_copy(update={"library_dirs": [folder], "database_url": library_db})
    lib = app_library(s, embedder=wordllama, workers=1)
    lib.index()
    cat, emb = lib.catalogue, lib._embedder_name
    entries = cat.entries(emb, CHUNKING_VERSION)
    shas = list(entries)
    chunks = {c.id: c for c in cat.chunks_of(shas, emb, CHUNKING_VERSION)}
    hit = cat.lexical(["cadmium"], shas, emb, CHUNKING_VERSION, 50)
    assert hit and all("Cadmium" in chunks[i].text for i in hit)
    assert cat.lexical(["cadm"], shas, emb, CHUNKING_VERSION, 50) == []  # whole words only
    assert cat.lexical(['"', "  "], shas, emb, CHUNKING_VERSION, 50) == []
    either = cat.lexical(["cadmium", "wheat"], shas, emb, CHUNKING_VERSION, 50)
    assert set(hit) < set(either)
    wheat_only = [
        s for s in shas if any("wheat" in c.text for c in chunks.values() if c.sha256 == s)
    ]
    scoped = cat.lexical(["cadmium", "wheat"], wheat_only, emb, CHUNKING_VERSION, 50)
    assert scoped and all(chunks[i].sha256 in wheat_only for i in scoped)
    assert len(cat.lexical(["cadmium", "wheat"], shas, emb, CHUNKING_VERSION, 2)) == 2


WORKER = """
import json, sys
from pathlib import Path
from litdesk._settings import Settings
from litdesk.services.app import open_app_sync
data, folder, url, mode = sys.argv[1:5]
s = Settings(data_dir=Path(data), library_dirs=[Path(folder)], database_url=url)
lib = open_app_sync(s).__enter__().make_library(workers=1)  # closed with the process
if mode == "index":
    print(json.dumps(lib.index().to_dict()))
else:
    seen = 0
    for _ in range(40):
        rows = lib.status().files
        seen = max(seen, sum(r["indexed"] for r in rows))
    print(json.dumps({"seen": seen}))
lib.close()
"""


def test_two_processes_index_and_read_one_library_on_postgres(
    pg_schema: str, tmp_path: Path, make_pdf: Callable[[Path, list[str]], Path]
) -> None:
    folder = tmp_path / "many"
    for i in range(12):
        text = f"Paper {i} on topic {i}. " + list(TOPICS.values())[i % 3]
        make_pdf(folder / f"p{i:02d}.pdf", [text * 10, text * 6])
    data = tmp_path / "shared-data"
    args = [str(data), str(folder), pg_schema]
    # three real processes (forked from the tests' warmed interpreter, tests/_fork.py: what
    # is tested is their sharing of one library, not their start-up)
    procs = [
        _fork.popen(
            [sys.executable, "-c", WORKER, *args, mode],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for mode in ("index", "index", "read")
    ]
    deadline = time.time() + 240
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=max(1, deadline - time.time()))
        assert p.returncode == 0, err
        outs.append(json.loads(out))
    a, b, _reader = outs
    assert set(a["indexed"]) | set(b["indexed"]) == {f"p{i:02d}.pdf" for i in range(12)}
    assert len(a["indexed"]) + a["unchanged"] == 12 and len(b["indexed"]) + b["unchanged"] == 12
    store = open_store(pg_schema)
    try:
        with store.read() as conn:
            entries = conn.execute(
                sa.text("select sha256, n_chunks from library_entries where status = 'ok'")
            ).all()
            counted = dict(
                conn.execute(
                    sa.text("select sha256, count(*) from library_chunks group by sha256")
                ).all()
            )
            dupes = conn.execute(
                sa.text(
                    "select count(*) from (select sha256, idx from library_chunks"
                    " group by sha256, embedder, chunking, idx having count(*) > 1) d"
                )
            ).scalar_one()
    finally:
        store.dispose()
    assert len(entries) == 12 and dupes == 0
    assert all(counted[sha] == n for sha, n in entries)  # no half-written or doubled entry
    s = Settings(data_dir=data, library_dirs=[folder], database_url=pg_schema)
    lib = app_library(s, workers=1)
    assert lib.index().unchanged == 12
    found = lib.retrieve("cadmium harbour outflow", top_k=3)
    assert found.hits and "Cadmium" in found.hits[0].text
    lib.close()


def test_one_library_used_from_several_threads(
    tmp_settings: Settings, folder: Path, wordllama: WordLlamaEmbedder, library_db: str | None
) -> None:
    """A server's request threads share one Library (no same-thread-only store handle)."""
    from concurrent.futures import ThreadPoolExecutor

    s = tmp_settings.model_copy(update={"library_dirs": [folder], "database_url": library_db})
    lib = app_library(s, embedder=wordllama, workers=1)
    lib.index()  # opened (and the store connected) in this thread

    def request(i: int) -> tuple[str, int]:
        if i % 2:
            return "status", sum(r["indexed"] for r in lib.status().files)
        found = lib.retrieve("cadmium harbour outflow", top_k=2)
        return "retrieve", int("Cadmium" in found.hits[0].text)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(request, range(12)))
    assert {r for kind, r in results if kind == "status"} == {3}
    assert {r for kind, r in results if kind == "retrieve"} == {1}
