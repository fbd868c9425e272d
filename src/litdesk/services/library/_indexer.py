"""Indexing the library: hash check, extraction in a process pool, embeddings, storage."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from litdesk._errors import ExternalError
from litdesk._workers import limited_threads, pool_context, worker_init
from litdesk.adapters.embeddings import Embedder, make_embedder
from litdesk.adapters.pdf import PdfExcluded, extract, file_sha256
from litdesk.core.library import CHUNKING_VERSION, Chunk, chunk_pages, find_ids, normalise_text
from litdesk.core.words import plural

from ._catalogue import Catalogue
from ._sources import LibraryFile

__all__ = [
    "SIDE_TEXTS",
    "IndexReport",
    "IndexWorkerCrashed",
    "extract_job",
    "hash_files",
    "index_files",
    "side_text",
]

#: Text extracted elsewhere that indexes a PDF without a text layer: a file beside the PDF
#: named ``<pdf name><suffix>`` → (``text_source`` code, what the library shows). The
#: Zotero import links Zotero's ``.zotero-ft-cache`` there.
SIDE_TEXTS: Final = {
    ".zotero-ft-cache": (
        "zotero_ft_cache",
        "no text layer: indexed from Zotero's extracted full text",
    ),
}
MAX_SIDE_TEXT_BYTES: Final = 50 * 1024 * 1024

Progress = Callable[[int, int, str], None]
#: Called after each file is stored: its name and its pages (``None`` when excluded).
OnFile = Callable[[str, int | None], None]
#: Asked before each file is started; ``True`` stops the run (files in flight finish).
ShouldStop = Callable[[], bool]


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
    #: Why files indexed before are indexed again (another embedder or chunking rule).
    rebuild: str | None = None

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
            "rebuild": self.rebuild,
        }


_WORKER_EMBEDDER: Embedder | None = None


def extract_job(path: str, embed: tuple[str, str] | None = None) -> dict[str, Any]:
    """Extraction and chunking of one PDF (runs in a worker process).

    With ``embed`` = (embedder setting, model cache dir) of a local embedder (wordllama,
    use-m3 or a joint of them) the worker also embeds the chunks with it (loaded once per
    worker), so embedding runs in parallel too.
    """
    global _WORKER_EMBEDDER
    p = Path(path)
    side: dict[str, Any] = {}
    try:
        text = extract(p)
    except PdfExcluded as exc:
        found = side_text(p) if exc.code == "no_text" else None
        if found is None:
            return {
                "ok": False,
                "code": exc.code,
                "reason": exc.message,
                "pages": exc.details.get("pages"),
            }
        pages, (source, note) = found
        side = {"text_layer": False, "text_source": source, "text_note": note}
        head = pages[:2]
        ids = find_ids(head)
        page_count = exc.details.get("pages")
        chunks = chunk_pages(pages)
        info: dict[str, Any] = {
            "pages": page_count if isinstance(page_count, int) else len(pages),
            "doi": ids.doi, "arxiv": ids.arxiv, "arxiv_version": ids.arxiv_version,
            "references_page": None, "head_text": "\n".join(head),
        }  # fmt: skip
    else:
        chunks = chunk_pages(text.pages)
        info = {
            "pages": text.page_count, "doi": text.ids.doi, "arxiv": text.ids.arxiv,
            "arxiv_version": text.ids.arxiv_version,
            "references_page": text.references_cut[0] if text.references_cut else None,
            "head_text": "\n".join(text.head),
        }  # fmt: skip
    vectors = None
    if embed is not None:
        if _WORKER_EMBEDDER is None:
            _WORKER_EMBEDDER = make_embedder(embed[0], cache_dir=Path(embed[1]))
        vectors = _WORKER_EMBEDDER.embed([c.text for c in chunks])
    return {
        "vectors": vectors,
        "ok": True,
        **info,
        **side,
        "chunks": [(c.index, c.page, c.start, c.end, c.text) for c in chunks],
    }


def side_text(pdf: Path) -> tuple[list[str], tuple[str, str]] | None:
    """The normalised pages of a side text of ``pdf`` (see :data:`SIDE_TEXTS`; pages split
    at form feeds) with its (source code, note), or ``None`` when there is none usable."""
    for suffix, source in SIDE_TEXTS.items():
        path = pdf.with_name(pdf.name + suffix)
        try:
            if path.stat().st_size > MAX_SIDE_TEXT_BYTES:
                continue
            raw = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        pages = [normalise_text(page) for page in raw.split("\f")]
        while pages and not pages[-1]:
            pages.pop()
        if any(pages):
            return pages, source
    return None


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


def rebuild_reason(keys: dict[tuple[str, str], int], embedder_name: str, todo: int) -> str | None:
    """Why ``todo`` files with entries under other keys are indexed again, or ``None``."""
    old = {k: n for k, n in keys.items() if k != (embedder_name, CHUNKING_VERSION)}
    if not old:
        return None
    (emb, chunking), _ = max(old.items(), key=lambda kv: kv[1])
    changes = []
    if emb != embedder_name:
        changes.append(f"embedder {emb} → {embedder_name}")
    if chunking != CHUNKING_VERSION:
        changes.append(f"chunking {chunking} → {CHUNKING_VERSION}")
    return (
        f"rebuilding the index of {plural(todo, 'file')} once: it was built with another "
        f"{' and '.join(changes)}"
    )


def index_files(
    cat: Catalogue,
    files: list[LibraryFile],
    *,
    embedder_name: str,
    embedder: Callable[[], Embedder],
    workers: int = 2,
    local_embedder: tuple[str, Path] | None = None,
    progress: Progress | None = None,
    on_file: OnFile | None = None,
    should_stop: ShouldStop | None = None,
) -> IndexReport:
    """Index every file whose (hash, embedder, chunking) entry is missing.

    ``should_stop`` is asked before each file is started: when it says so, the files in
    flight are stored and the run ends ``interrupted`` (a later run resumes: stored files
    are found indexed).

    With ``workers`` ≥ 2 the PDFs are parsed in that many worker processes (never in the
    calling process); with 1, here.

    ``local_embedder`` (a local embedder's setting and cache dir) lets pool workers embed;
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
            if entry.reason_code == "no_text" and side_text(f.path) is not None:
                todo[sha] = f  # a side text came since: indexed from it now
                report.unchanged -= 1
                continue
            if entry.status == "excluded":
                report.excluded.append(
                    {"file": f.name, "code": entry.reason_code or "", "reason": entry.reason or ""}
                )
            continue
        todo[sha] = f
    total = len(todo)
    if todo:
        report.rebuild = rebuild_reason(cat.index_keys(list(todo)), embedder_name, total)
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
            if on_file:
                on_file(f.name, None)
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
            if on_file:
                on_file(f.name, int(result["pages"]))
        done += 1
        if progress:
            progress(done, total, f.name)

    if progress:
        progress(0, total, "")
    try:
        if total == 0:
            pass
        elif workers <= 1:  # in this process (tests, a one-shot tool)
            for sha, f in todo.items():
                if should_stop is not None and should_stop():
                    report.interrupted = True
                    break
                store(sha, f, extract_job(str(f.path)))
        else:  # PDF parsing in worker processes, also for one file: a PDF that crashes
            # or stalls pdfium cannot take the calling process (a server) with it
            embed = None
            if local_embedder is not None:
                embed = (local_embedder[0], str(local_embedder[1]))
            if _run_pool(todo, min(workers, total), store, embed, should_stop):
                report.interrupted = True
    except KeyboardInterrupt:
        report.interrupted = True
    report.seconds = time.perf_counter() - t0
    return report


def _ready(_: int) -> int:
    """A no-op job: makes the pool start its workers while the environment is set."""
    return os.getpid()


def _run_pool(
    todo: dict[str, LibraryFile],
    workers: int,
    store: Callable[[str, LibraryFile, dict[str, Any]], None],
    embed: tuple[str, str] | None,
    should_stop: ShouldStop | None = None,
) -> bool:
    """Extract (and embed) in a pool of worker processes (forked by multiprocessing's fork
    server with this module imported, spawned where there is none: ``pool_context``);
    results are stored here, in the calling process, one transaction per file. The workers
    die with this process. ``True`` when ``should_stop`` ended the run before every file
    was started."""
    # one BLAS/tokenizer thread per worker (the workers are the parallelism); each worker
    # has this process's environment and dies with this process (worker_init)
    with limited_threads():
        ctx, parent = pool_context([__name__])
        pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=ctx,
            initializer=worker_init,
            initargs=(parent, dict(os.environ)),
        )
        for _ in pool.map(_ready, range(workers)):
            pass
    items = list(todo.items())
    pending: dict[Future[dict[str, Any]], tuple[str, LibraryFile]] = {}
    stopped = False
    try:
        nxt = 0
        while nxt < len(items) or pending:
            if not stopped and nxt < len(items) and should_stop is not None and should_stop():
                stopped = True
                items = items[:nxt]  # nothing more is started; the files in flight finish
            while nxt < len(items) and len(pending) < workers * 2:
                sha, f = items[nxt]
                pending[pool.submit(extract_job, str(f.path), embed)] = (sha, f)
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
        return stopped
    finally:
        for fut in pending:
            fut.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
