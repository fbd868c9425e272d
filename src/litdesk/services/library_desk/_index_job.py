"""The ``library.index`` job: index the library in the background, reporting files done
and total, the latest file and pages per second; cancellable; resumable.

Resuming needs no bookkeeping of its own: every stored file has its entry in the store
(content hash + embedder + chunking), so a new attempt's index run finds it indexed and
only the rest is read. The checkpoint carries the counts of earlier attempts so that
progress and the result cover the whole job. Files dropped while the job runs are picked
up by a further pass (at most :data:`MAX_PASSES`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Final

from litdesk.services.jobs import Handler, JobContext
from litdesk.services.library import IndexReport, Library

__all__ = ["INDEX_KIND", "MAX_PASSES", "index_handler"]

INDEX_KIND: Final = "library.index"
MAX_PASSES: Final = 5
#: Names of indexed files kept in the checkpoint and the result (counts are complete).
MAX_NAMES: Final = 2_000


class _Run:
    """One attempt of an index job: counts carried over from the checkpoint, and this
    attempt's own."""

    def __init__(self, ctx: JobContext) -> None:
        before = ctx.checkpoint or {}
        self.ctx = ctx
        self.done = int(before.get("done", 0))
        self.pages = int(before.get("pages", 0))
        self.names: list[str] = [str(n) for n in before.get("indexed", [])][:MAX_NAMES]
        self.indexed = int(before.get("indexed_count", len(self.names)))
        self.this_attempt: list[str] = []
        self.attempt_pages = 0
        self.t0 = time.monotonic()
        self.offset = self.done
        self.pass_total = 0
        self.files = 0

    def on_file(self, name: str, pages: int | None) -> None:
        if pages is None:  # excluded (scan, encrypted, broken): counted as done, no pages
            return
        self.pages += pages
        self.attempt_pages += pages
        self.indexed += 1
        self.this_attempt.append(name)
        if len(self.names) < MAX_NAMES:
            self.names.append(name)

    def progress(self, done: int, total: int, name: str) -> None:
        self.pass_total = total
        self.done = self.offset + done
        elapsed = time.monotonic() - self.t0
        rate = self.attempt_pages / elapsed if elapsed > 0 and self.attempt_pages else None
        self.ctx.progress(
            self.done,
            self.offset + total,
            name or None,
            rate=rate,
            message=f"{total} new or changed of {self.files} file(s)",
            checkpoint={
                "done": self.done,
                "pages": self.pages,
                "indexed": self.names,
                "indexed_count": self.indexed,
            },
        )

    def result(self, report: IndexReport, vector_index: dict[str, Any] | None) -> dict[str, Any]:
        return {
            "files": self.files,
            "done": self.done,
            "indexed": self.indexed,
            "indexed_files": self.names,
            "indexed_this_attempt": self.this_attempt[:MAX_NAMES],
            "excluded": report.excluded,
            "same_content": report.same_content,
            "pages": self.pages,
            "attempt": self.ctx.attempt,
            "interrupted": report.interrupted,
            "vector_index": vector_index,
        }


def index_handler(make_library: Callable[[], Library]) -> Handler:
    """The handler of :data:`INDEX_KIND` jobs over the libraries ``make_library`` opens."""

    def run(ctx: JobContext) -> dict[str, Any] | None:
        state = _Run(ctx)
        lib = make_library()
        try:
            report = IndexReport()
            for _ in range(MAX_PASSES):
                corpus = lib.corpus()
                state.files = len(corpus.files)
                state.offset = state.done
                state.pass_total = 0
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
            return state.result(report, lib.prepare_vector_index())
        finally:
            lib.close()

    return run
