"""Export files into a Study from the web: the one function the request path and the
import job (kind ``imports.study``) share, and the job's handler.

A large upload's files are kept in the store keyed by its job (bytes and SHA-256 per
file), so that any worker of any process runs it. The handler reports progress per file
and records the import, the job's result (as its checkpoint) and the deletion of the
stored files in ONE transaction, conditional on still holding the job: a job claimed
again after its worker died either finds that result and gives it back, or finds nothing
recorded and imports once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from sqlalchemy.engine import Connection

from litdesk._errors import InputError, LitdeskError
from litdesk.adapters.store import (
    Store,
    drop_import_uploads,
    import_uploads,
    record_import_done,
)
from litdesk.services.imports import import_bytes
from litdesk.services.jobs import Handler, JobContext
from litdesk.services.workspace import StudyImport, Workspace

__all__ = [
    "IMPORT_KIND",
    "MAX_IMPORT_FILES",
    "MAX_IMPORT_BYTES",
    "MAX_IMPORT_FILE_BYTES",
    "ImportInputError",
    "import_handler",
    "study_import",
]

#: The job kind of a large web import into a Study.
IMPORT_KIND: Final = "imports.study"
MAX_IMPORT_FILES: Final = 20
MAX_IMPORT_FILE_BYTES: Final = 20_000_000
#: The files of one import together (the web request's limit): what a job keeps stored.
MAX_IMPORT_BYTES: Final = 60_000_000

#: ``on_file(done, total, name)`` before each file is read; ``False`` stops the import.
FileHook = Callable[[int, int, str], bool]
#: ``then(conn, result)`` inside the import's transaction (see ``Workspace.import_into_study``).
ResultHook = Callable[[Connection, dict[str, Any]], None]


class ImportInputError(InputError):
    """An upload to import does not fit (no file, too many files)."""

    default_code = "desk_input"


class _Stop(LitdeskError):
    """The import must stop: a cancel, the server stopping, or the job taken over."""


def check_files(files: Sequence[tuple[str, bytes]]) -> None:
    """The request's limits on the number of files."""
    if not files:
        raise ImportInputError("choose at least one file", code="no_files")
    if len(files) > MAX_IMPORT_FILES:
        raise ImportInputError(f"at most {MAX_IMPORT_FILES} files at once", code="too_many_files")
    if sum(len(data) for _name, data in files) > MAX_IMPORT_BYTES:
        raise ImportInputError(
            f"the files of one import total at most {MAX_IMPORT_BYTES:,} bytes",
            code="import_too_large",
        )


def _result(batch_imports: Sequence[Any], done: StudyImport) -> list[dict[str, object]]:
    imported: list[dict[str, object]] = []
    # one result per trace, in order (a repeat is named in the result's ``repeats``)
    for trace, result in zip(batch_imports, done.files, strict=True):
        kinds: dict[str, int] = {}
        for notice in trace.notices:
            kinds[notice.kind] = kinds.get(notice.kind, 0) + 1
        for record in trace.records:
            for notice in record.notices:
                kinds[notice.kind] = kinds.get(notice.kind, 0) + 1
        imported.append(
            {
                "file": trace.source.path,
                "format": trace.source.format,
                "encoding": trace.source.encoding,
                "bytes": trace.source.bytes,
                "records": len(trace.records),
                "notices": dict(sorted(kinds.items())),
            }
            | result.to_dict()
        )
    return imported


def study_import(
    workspace: Workspace,
    study: str,
    files: Sequence[tuple[str, bytes]],
    *,
    on_file: FileHook | None = None,
    then: ResultHook | None = None,
) -> dict[str, Any]:
    """Export files into a Study through the workspace's upload import (the same readers,
    limits and single transaction as ``litdesk import --study``): a refused file is
    reported beside the imported ones with its reason; each import's summary gives
    format, encoding, records and notices by kind. ``on_file`` is told before each file
    is read; ``then`` gets the result inside the import's transaction."""
    check_files(files)
    row = workspace.study(study)
    named = [((name or "file")[:200], data) for name, data in files]

    def feed() -> Iterator[tuple[str, bytes]]:
        for no, (name, data) in enumerate(named):
            if on_file is not None and not on_file(no, len(named), name):
                raise _Stop("the import was stopped")
            yield name, data

    batch = import_bytes(feed(), max_bytes=MAX_IMPORT_FILE_BYTES)
    refused = [{"file": r.path, "code": r.code, "message": r.message} for r in batch.refused]
    out: dict[str, Any] = {
        "study_id": row.id,
        "study_name": row.name,
        "imported": [],
        "refused": refused,
    }
    if batch.imports:

        def record(conn: Connection, done: StudyImport) -> None:
            out["imported"] = _result(batch.imports, done)
            if then is not None:
                then(conn, out)

        workspace.import_into_study(batch.imports, study=row.id, create=False, then=record)
    return out


def import_handler(store: Store) -> Handler:
    """The handler of :data:`IMPORT_KIND` jobs over ``store``: the importer's files from
    the store into the Study, as the importer (the job's owner)."""

    def run(ctx: JobContext) -> dict[str, Any] | None:
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

        def then(conn: Connection, result: dict[str, Any]) -> None:
            if not record_import_done(conn, ctx.job.id, ctx.job.worker_id, {"result": result}):
                raise _Stop("this worker no longer holds the import job")

        workspace = Workspace(store, owner=ctx.job.owner)
        study = str(ctx.params.get("study_id", ""))
        try:
            result = study_import(
                workspace, study, [(f.name, f.data) for f in files], on_file=on_file, then=then
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
        return result

    return run


def _drop(store: Store, job_id: str) -> None:
    with store.write() as conn:
        drop_import_uploads(conn, job_id)
