"""The ``library.index`` job: index the library in the background, reporting files done
and total, the latest file and pages per second; cancellable; resumable.

Resuming needs no bookkeeping of its own: every stored file has its entry in the store
(content hash + embedder + chunking), so a new attempt's index run finds it indexed and
only the rest is read. The checkpoint carries the counts of earlier attempts so that
progress and the result cover the whole job. Files dropped while the job runs are picked
up by a further pass (at most :data:`MAX_PASSES`). Each pass tells the queue before it
lists the files (:meth:`JobContext.listing`): an upload whose request reused the job after
the last listing (while the job shares the folders or builds the vector index) sends the
job back to the queue when it finishes, and the next claim reads the new file.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Final

from litdesk.core.library import CHUNKING_VERSION
from litdesk.core.words import plural
from litdesk.services.jobs import Handler, JobContext

from ._indexer import IndexReport
from ._library import Library
from ._views import VectorIndexSummary

log = logging.getLogger(__name__)

__all__ = ["INDEX_KIND", "MAX_PASSES", "index_handler"]

INDEX_KIND: Final = "library.index"
MAX_PASSES: Final = 5
#: Names of indexed files kept in the checkpoint and the result (counts are complete).
MAX_NAMES: Final = 2_000


def _tally(lib: Library) -> dict[str, int]:
    """Entries of the library's embedder and chunking: ok, excluded, pages of the ok ones."""
    ok = excluded = pages = 0
    for e in lib.catalogue.entries(lib.embedder_id, CHUNKING_VERSION).values():
        if e.status == "ok":
            ok += 1
            pages += e.pages or 0
        else:
            excluded += 1
    return {"ok": ok, "excluded": excluded, "pages": pages}


class _Run:
    """One attempt of an index job. The job's figures are differences of the store's
    entries against those at the job's start (kept in the checkpoint): exact after a
    crash too, when the last file's entry was written but its progress report was not."""

    def __init__(self, ctx: JobContext, lib: Library) -> None:
        before = ctx.checkpoint or {}
        self.ctx = ctx
        self.lib = lib
        base = before.get("base")
        self.base: dict[str, int] = (
            {k: int(base[k]) for k in ("ok", "excluded", "pages")}
            if isinstance(base, dict)
            else _tally(lib)
        )
        self.names: list[str] = [str(n) for n in before.get("indexed", [])][:MAX_NAMES]
        self.this_attempt: list[str] = []
        self.attempt_pages = 0
        self.t0 = time.monotonic()
        self.offset = 0
        self.done = 0
        self.pass_total = 0
        self.files = 0

    def start_pass(self, files: int) -> None:
        now = _tally(self.lib)
        self.offset = now["ok"] + now["excluded"] - self.base["ok"] - self.base["excluded"]
        self.done = self.offset
        self.files = files
        self.pass_total = 0

    def on_file(self, name: str, pages: int | None) -> None:
        if pages is None:  # excluded (scan, encrypted, broken): counted as done, no pages
            return
        self.attempt_pages += pages
        self.this_attempt.append(name)
        if len(self.names) < MAX_NAMES:
            self.names.append(name)

    def progress(self, done: int, total: int, name: str) -> None:
        self.pass_total = total
        if total == 0 and self.offset > 0:
            return  # a later pass found nothing new: the figures so far stand
        self.done = self.offset + done
        elapsed = time.monotonic() - self.t0
        rate = self.attempt_pages / elapsed if elapsed > 0 and self.attempt_pages else None
        self.ctx.progress(
            self.done,
            self.offset + total,
            name or None,
            rate=rate,
            message=f"{total:,} new or changed of {plural(self.files, 'file')}",
            checkpoint={"base": self.base, "indexed": self.names},
        )

    def result(
        self, report: IndexReport, vector_index: VectorIndexSummary | None
    ) -> dict[str, Any]:
        now = _tally(self.lib)
        return {
            "files": self.files,
            "done": self.done,
            "indexed": now["ok"] - self.base["ok"],
            "newly_excluded": now["excluded"] - self.base["excluded"],
            "pages": now["pages"] - self.base["pages"],
            "indexed_files": self.names,
            "indexed_this_attempt": self.this_attempt[:MAX_NAMES],
            "excluded": report.excluded,
            "same_content": report.same_content,
            "attempt": self.ctx.attempt,
            "interrupted": report.interrupted,
            "vector_index": vector_index,
        }


def index_handler(make_library: Callable[[], Library]) -> Handler:
    """The handler of :data:`INDEX_KIND` jobs over the libraries ``make_library`` opens."""

    def run(ctx: JobContext) -> dict[str, Any] | None:
        lib = make_library()
        try:
            state = _Run(ctx, lib)
            report = IndexReport()
            for _ in range(MAX_PASSES):
                if not ctx.listing():  # later requests: another pass, or the job again
                    return state.result(report, None)
                lib.bring_shared()  # the other hosts' PDFs, copied here to be read
                corpus = lib.corpus()
                state.start_pass(len(corpus.files))
                report = lib.index(
                    corpus.files,
                    progress=state.progress,
                    on_file=state.on_file,
                    should_stop=lambda: ctx.should_stop,
                )
                if report.interrupted or ctx.should_stop:
                    return state.result(report, None)
                if state.pass_total == 0:  # nothing new arrived during the last pass
                    break
            for problem in lib.share(corpus.files)[1]:  # this host's folders, for the others
                log.warning("%s", problem)
            return state.result(report, lib.prepare_vector_index())
        finally:
            lib.close()

    return run
