"""Export files into a Study: the one import the CLI (paths, in the call), the web (an
upload, in the request) and the import job (kind ``imports.study``, a large upload) share.

A large upload's files are kept in the store keyed by its job (bytes and SHA-256 per
file), so that any worker of any process runs it. The job reports progress per file and
records the import, the job's result (as its checkpoint) and the deletion of the stored
files in ONE transaction, conditional on still holding the job: a job claimed again
after its worker died either finds that result and gives it back, or finds nothing
recorded and imports once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Final

from sqlalchemy.engine import Connection

from litdesk._errors import LitdeskError
from litdesk.adapters.store import (
    Store,
    drop_import_uploads,
    import_uploads,
    record_import_done,
)
from litdesk.services.imports import ImportBatch, import_bytes, import_files
from litdesk.services.jobs import Handler, ImportsBusy, JobContext, MemoryBudget, upload_cost
from litdesk.services.workspace import StudyImport, Workspace, all_refused

from ._requests import MAX_IMPORT_FILE_BYTES, ImportInputError, ImportRequest
from ._views import ImportView

__all__ = ["IMPORT_KIND", "FileHook", "PathHook", "ResultHook", "import_handler", "run_import"]

#: The job kind of a large web import into a Study.
IMPORT_KIND: Final = "imports.study"

#: ``on_file(done, total, name)`` before each uploaded file is read; ``False`` stops.
FileHook = Callable[[int, int, str], bool]
#: ``on_path(path, size in bytes or -1)`` before each file of ``paths`` is read.
PathHook = Callable[[str, int], None]
#: ``then(conn, view)`` inside the import's transaction (the job records its result).
ResultHook = Callable[[Connection, ImportView], None]


class _Stop(LitdeskError):
    """The import must stop: a cancel, the server stopping, or the job taken over."""


def _read(
    request: ImportRequest, on_file: FileHook | None, on_path: PathHook | None
) -> ImportBatch:
    if request.paths:
        return import_files(
            request.paths, format=request.format, on_file=on_path, strict_ids=request.strict_ids
        )
    named = request.uploads

    def feed() -> Iterator[tuple[str, bytes]]:
        for no, (name, data) in enumerate(named):
            if on_file is not None and not on_file(no, len(named), name):
                raise _Stop("the import was stopped")
            yield name, data

    return import_bytes(
        feed(),
        format=request.format,
        strict_ids=request.strict_ids,
        max_bytes=MAX_IMPORT_FILE_BYTES,
    )


def run_import(
    ws: Workspace,
    request: ImportRequest,
    *,
    on_file: FileHook | None = None,
    on_path: PathHook | None = None,
    then: ResultHook | None = None,
) -> ImportView:
    """Read every file (each traced or refused on its own, the same readers and limits
    for every face), then save the read ones into the Study in ONE transaction (the
    Study when ``request.create`` made, papers, their Study links, every trace).

    A refused file is reported beside the imported ones; when every file is refused
    nothing is stored (and with ``request.refuse_all`` the refusal is raised)."""
    row = None if request.create else ws.study(request.study)  # before reading anything
    batch = _read(request, on_file, on_path)
    if not batch.imports:
        if request.refuse_all:
            raise all_refused(batch.refused)
        name = row.name if row is not None else request.study
        return ImportView(row.id if row else "", name, (), batch.refused, None)
    views: list[ImportView] = []

    def record(conn: Connection, done: StudyImport) -> None:
        view = ImportView(done.study_id, done.study_name, batch.imports, batch.refused, done)
        views.append(view)
        if then is not None:
            then(conn, view)

    done = ws.import_into_study(
        batch.imports,
        study=row.id if row is not None else request.study,
        create=request.create,
        status=request.status,
        then=record,
        sources=[request.source_for(t) for t in batch.imports],
    )
    return replace(views[0], done=replace(done, refused=batch.refused))


def import_handler(store: Store, budget: MemoryBudget | None = None) -> Handler:
    """The handler of :data:`IMPORT_KIND` jobs over ``store``: the importer's files from
    the store into the Study, as the importer (the job's owner), once ``budget`` (this
    process's imports' memory) has room: the job waits queued on its worker meanwhile,
    its lease renewed."""

    def run(ctx: JobContext) -> dict[str, object] | None:
        earlier = (ctx.checkpoint or {}).get("result")
        if isinstance(earlier, dict):  # recorded by an attempt whose worker then died
            return earlier
        with store.read() as conn:
            files = import_uploads(conn, ctx.job.id)
        if not files:
            raise ImportInputError(
                "the uploaded files of this import are no longer stored; upload them again",
                code="uploads_gone",
            )

        def on_file(done: int, total: int, name: str) -> bool:
            return ctx.progress(done, total, name)

        def then(conn: Connection, view: ImportView) -> None:
            result: dict[str, object] = {"result": view.to_dict()}
            if not record_import_done(conn, ctx.job.id, ctx.job.worker_id, result):
                raise _Stop("this worker no longer holds the import job")

        name, kind = ctx.params.get("source_name"), ctx.params.get("source_kind")
        request = ImportRequest(
            str(ctx.params.get("study_id", "")),
            uploads=tuple((f.name, f.data) for f in files),
            source_name=name if isinstance(name, str) else None,
            source_kind=kind if isinstance(kind, str) else None,
        )
        try:
            with _room(ctx, budget, sum(len(f.data) for f in files), len(files)):
                view = run_import(
                    Workspace(store, owner=ctx.job.owner), request, on_file=on_file, then=then
                )
        except _Stop:
            if ctx.cancel_requested:
                _drop(store, ctx.job.id)
            return None
        except LitdeskError:
            if not ctx.lease_lost:
                _drop(store, ctx.job.id)
            raise
        _drop(store, ctx.job.id)  # every file refused: nothing was recorded, nothing is kept
        ctx.progress(len(files), len(files))
        return view.to_dict()

    return run


@contextmanager
def _room(ctx: JobContext, budget: MemoryBudget | None, size: int, files: int) -> Iterator[None]:
    """Hold the import's share of ``budget``, waiting (a second at a time, the lease
    renewed) while other imports hold it; :class:`_Stop` on a cancel or a lost lease."""
    if budget is None:
        yield
        return
    entered = False
    while True:
        try:
            with budget.hold(upload_cost(size), wait_s=1.0):
                entered = True
                yield
                return
        except ImportsBusy:
            if entered:  # raised by the import itself, not by waiting for room
                raise
            if not ctx.progress(0, files, "waiting for memory (other imports are running)"):
                raise _Stop("the import was stopped") from None


def _drop(store: Store, job_id: str) -> None:
    with store.write() as conn:
        drop_import_uploads(conn, job_id)
