"""Web imports into a Study on the desk: a small upload is imported within the request;
one above ``Settings.web_import_job_bytes`` becomes a job of the store's queue (kind
``imports.study``, see :mod:`._import_run`) owned by the importer, watched like any of
their jobs, whose result is the synchronous import's result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from litdesk._errors import RefusedError
from litdesk.adapters.store import drop_import_uploads, put_import_uploads, sweep_import_uploads
from litdesk.services.jobs import Handler, JobRunner, Jobs, JobView, new_job_id

from ._desk import Desk
from ._import_run import IMPORT_KIND, check_files, import_handler, study_import

__all__ = ["ImportDesk", "ImportOutcome", "import_handlers"]


def import_handlers(desk: Desk) -> dict[str, Handler]:
    """The import job handlers by kind over the desk's store, for a job runner."""
    return {IMPORT_KIND: import_handler(desk.store)}


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    """The import's result (imported within the request) or its queued job."""

    result: dict[str, Any] | None = None
    job: JobView | None = None

    def to_dict(self) -> dict[str, Any]:
        if self.job is not None:
            return {"job": self.job.to_dict()}
        return dict(self.result or {})


class ImportDesk:
    """The web import use case of one desk's owner over the store's job queue (``wake``:
    tell this process's job runner that a job was queued). Without a job queue (a desk
    opened on its own) every import runs within the call."""

    def __init__(
        self, desk: Desk, jobs: Jobs | None, *, wake: Callable[[], None] | None = None
    ) -> None:
        self.desk = desk
        self.jobs = jobs
        self._wake = wake

    def import_files(self, study: str, files: Sequence[tuple[str, bytes]]) -> ImportOutcome:
        """Import ``files`` into ``study``: within the call when they total at most
        ``web_import_job_bytes``, else as a queued job (the files kept in the store until
        it ends). Either way the importer needs write on the Study."""
        check_files(files)
        size = sum(len(data) for _name, data in files)
        if self.jobs is None or size <= self.desk.settings.web_import_job_bytes:
            return ImportOutcome(result=study_import(self.desk.workspace, study, files))
        row = self.desk.workspace.study(study, "write")
        job_id = new_job_id()
        store = self.desk.store
        with store.write() as conn:
            sweep_import_uploads(conn)
            put_import_uploads(conn, job_id, [((n or "file")[:200], d) for n, d in files])
        params = {
            "study_id": row.id,
            "study_name": row.name,
            "by": self.desk.owner,
            "files": len(files),
            "bytes": size,
        }
        try:
            view = self.jobs.submit(IMPORT_KIND, params, owner=self.desk.owner, job_id=job_id)
        except BaseException:
            with store.write() as conn:
                drop_import_uploads(conn, job_id)
            raise
        if self._wake is not None:
            self._wake()
        return ImportOutcome(job=view)

    def work(self, job_id: str) -> JobView:
        """Run queued import jobs in this thread until ``job_id`` has ended or none can be
        claimed here (tests, benchmarks; a server's runner does this itself)."""
        if self.jobs is None:
            raise RefusedError("import jobs need the store's job queue", code="no_jobs")
        jobs = self.jobs
        runner = JobRunner(
            jobs, import_handlers(self.desk), lease_s=self.desk.settings.jobs_lease_seconds
        )
        while jobs.get(job_id, owner=self.desk.owner).active and runner.run_once():
            pass
        return jobs.get(job_id, owner=self.desk.owner)
