"""Indexing the library: hash check, extraction in a process pool, embeddings, storage."""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from litdesk._errors import ExternalError
from litdesk.adapters.embeddings import Embedder, WordLlamaEmbedder
from litdesk.adapters.pdf import PdfExcluded, extract, file_sha256
from litdesk.core.library import CHUNKING_VERSION, Chunk, chunk_pages

from ._catalogue import Catalogue
from ._sources import LibraryFile

__all__ = ["IndexReport", "IndexWorkerCrashed", "extract_job", "hash_files", "index_files"]

Progress = Callable[[int, int, str], None]


class IndexWorkerCrashed(ExternalError):
    """A worker process died (for example pdfium crashed on a hostile PDF)."""

    default_code = "index_worker_crashed"


@dataclass
class IndexReport:
    """What one index run did (figures measured during the run)."""

    files: int = 0
    indexed: list[str] = field(default_factory=list)
    unchanged: int = 0
    excluded: list[dict[str, str]] = field(default_factory=list)
    same_content: list[str] = field(default_factory=list)
    pages: int = 0
    chunks: int = 0
    seconds: float = 0.0
    interrupted: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "indexed": self.indexed,
            "unchanged": self.unchanged,
            "excluded": self.excluded,
            "same_content": self.same_content,
            "pages": self.pages,
            "chunks": self.chunks,
            "seconds": round(self.seconds, 3),
            "interrupted": self.interrupted,
        }


_WORKER_EMBEDDER: Embedder | None = None


def extract_job(path: str, wordllama_cache: str | None = None) -> dict[str, Any]:
    """Extraction and chunking of one PDF (runs in a worker process).

    With ``wordllama_cache`` the worker also embeds the chunks with the default
    wordllama model (loaded once per worker), so embedding runs in parallel too.
    """
    global _WORKER_EMBEDDER
    p = Path(path)
    try:
        text = extract(p)
    except PdfExcluded as exc:
        return {
            "ok": False,
            "code": exc.code,
            "reason": exc.message,
            "pages": exc.details.get("pages"),
        }
    chunks = chunk_pages(text.pages)
    vectors = None
    if wordllama_cache is not None:
        if _WORKER_EMBEDDER is None:
            _WORKER_EMBEDDER = WordLlamaEmbedder(Path(wordllama_cache))
        vectors = _WORKER_EMBEDDER.embed([c.text for c in chunks])
    return {
        "vectors": vectors,
        "ok": True,
        "pages": text.page_count,
        "doi": text.ids.doi,
        "arxiv": text.ids.arxiv,
        "arxiv_version": text.ids.arxiv_version,
        "references_page": text.references_cut[0] if text.references_cut else None,
        "head_text": "\n".join(text.head),
        "chunks": [(c.index, c.page, c.start, c.end, c.text) for c in chunks],
    }


def hash_files(cat: Catalogue, files: list[LibraryFile]) -> dict[Path, str]:
    """SHA-256 per file, from the (path, size, mtime) cache where unchanged."""
    cache = cat.cached_hashes()
    out: dict[Path, str] = {}
    fresh: list[tuple[str, int, int, str]] = []
    for f in files:
        try:
            st = f.path.stat()
        except OSError:
            continue
        key = str(f.path)
        hit = cache.get(key)
        if hit and hit[0] == st.st_size and hit[1] == st.st_mtime_ns:
            out[f.path] = hit[2]
            continue
        try:
            sha = file_sha256(f.path)  # a regular file only (swapped for a FIFO: skipped)
        except PdfExcluded:
            continue
        out[f.path] = sha
        fresh.append((key, st.st_size, st.st_mtime_ns, sha))
    cat.remember_hashes(fresh)
    return out


def index_files(
    cat: Catalogue,
    files: list[LibraryFile],
    *,
    embedder_name: str,
    embedder: Callable[[], Embedder],
    workers: int = 2,
    wordllama_cache: Path | None = None,
    progress: Progress | None = None,
) -> IndexReport:
    """Index every file whose (hash, embedder, chunking) entry is missing.

    ``wordllama_cache`` (the default embedder's cache dir) lets pool workers embed;
    otherwise the chunks are embedded here with ``embedder()``.
    """
    t0 = time.perf_counter()
    report = IndexReport(files=len(files))
    hashes = hash_files(cat, files)
    entries = cat.entries(embedder_name, CHUNKING_VERSION)
    todo: dict[str, LibraryFile] = {}
    first_name: dict[str, str] = {}
    for f in files:
        sha = hashes.get(f.path)
        if sha is None:
            report.excluded.append({"file": f.name, "code": "unreadable", "reason": "cannot read"})
            continue
        if sha in first_name:
            report.same_content.append(f"{f.name} has the same content as {first_name[sha]}")
            continue
        first_name[sha] = f.name
        entry = entries.get(sha)
        if entry is not None:
            report.unchanged += 1
            if entry.status == "excluded":
                report.excluded.append(
                    {"file": f.name, "code": entry.reason_code or "", "reason": entry.reason or ""}
                )
            continue
        todo[sha] = f
    total = len(todo)
    done = 0
    model: Embedder | None = None

    def store(sha: str, f: LibraryFile, result: dict[str, Any]) -> None:
        nonlocal model, done
        if not result["ok"]:
            cat.write_excluded(
                sha,
                embedder_name,
                CHUNKING_VERSION,
                code=result["code"],
                reason=result["reason"],
                pages=result["pages"],
            )
            report.excluded.append(
                {"file": f.name, "code": result["code"], "reason": result["reason"]}
            )
        else:
            chunks = [Chunk(*c) for c in result["chunks"]]
            vectors = result.get("vectors")
            if vectors is None:
                if model is None:
                    model = embedder()
                vectors = model.embed([c.text for c in chunks])
            cat.write_entry(
                sha, embedder_name, CHUNKING_VERSION, info=result, chunks=chunks, vectors=vectors
            )
            report.indexed.append(f.name)
            report.pages += int(result["pages"])
            report.chunks += len(chunks)
        done += 1
        if progress:
            progress(done, total, f.name)

    if progress:
        progress(0, total, "")
    try:
        if workers <= 1 or total <= 1:
            for sha, f in todo.items():
                store(sha, f, extract_job(str(f.path)))
        else:
            cache = str(wordllama_cache) if wordllama_cache is not None else None
            _run_pool(todo, workers, store, cache)
    except KeyboardInterrupt:
        report.interrupted = True
    report.seconds = time.perf_counter() - t0
    return report


_WORKER_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


#: Seconds between the worker's checks that its parent is still alive (the fallback where
#: the kernel's parent-death signal is not available).
WATCHDOG_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies (``prctl PR_SET_PDEATHSIG``).

    ``False`` where that is not available (not Linux, no libc); the watchdog still runs.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while True:
        if os.getppid() != parent:  # re-parented: the index process is gone
            os._exit(70)
        time.sleep(WATCHDOG_SECONDS)


def _worker_init(parent: int) -> None:
    """Pool worker start-up: leave Ctrl-C to the main process (which stops the run
    cleanly), and die with the main process — also when it is killed with SIGKILL — by
    the kernel's parent-death signal plus a parent-pid watchdog thread."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(70)
    threading.Thread(
        target=_watch_parent, args=(parent,), daemon=True, name="litdesk-parent"
    ).start()


def _ready(_: int) -> int:
    """A no-op job: makes the pool start its workers while the environment is set."""
    return os.getpid()


def _run_pool(
    todo: dict[str, LibraryFile],
    workers: int,
    store: Callable[[str, LibraryFile, dict[str, Any]], None],
    wordllama_cache: str | None,
) -> None:
    """Extract (and embed) in a pool of spawned workers; results are stored here, in the
    calling process, one transaction per file. The workers die with this process."""
    ctx = multiprocessing.get_context("spawn")
    # one thread per worker for BLAS and the tokenizer: the workers are the parallelism
    # (oversubscribed thread pools made two workers no faster than one)
    saved = {k: os.environ.get(k) for k in _WORKER_ENV}
    os.environ.update(_WORKER_ENV)
    try:
        pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=ctx,
            initializer=_worker_init,
            initargs=(os.getpid(),),
        )
        for _ in pool.map(_ready, range(workers)):
            pass
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    items = list(todo.items())
    pending: dict[Future[dict[str, Any]], tuple[str, LibraryFile]] = {}
    try:
        nxt = 0
        while nxt < len(items) or pending:
            while nxt < len(items) and len(pending) < workers * 2:
                sha, f = items[nxt]
                pending[pool.submit(extract_job, str(f.path), wordllama_cache)] = (sha, f)
                nxt += 1
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                sha, f = pending[fut]
                try:
                    result = fut.result()
                except BrokenProcessPool:
                    names = ", ".join(sorted(x.name for _, x in pending.values()))
                    raise IndexWorkerCrashed(
                        f"a PDF reader process crashed while reading one of: {names}; "
                        "the files indexed so far are kept, run the index again to resume",
                        files=sorted(x.name for _, x in pending.values()),
                    ) from None
                del pending[fut]
                store(sha, f, result)
    finally:
        for fut in pending:
            fut.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
