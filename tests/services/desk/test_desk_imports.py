"""Large web imports as jobs of the store's queue (issue 17), on SQLite and PostgreSQL: the
files kept in the store with their SHA-256 until the job ends, the job's result the
synchronous import's result for the same files, and a job whose worker died finished once
without importing anything twice."""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from litdesk import ManualClock, Settings
from litdesk._errors import InputError
from litdesk.adapters.store import import_uploads
from litdesk.services.app import open_app
from litdesk.services.desk import IMPORT_KIND, Desk, ImportDesk, import_handlers
from litdesk.services.desk._import_run import import_handler
from litdesk.services.jobs import JobContext, JobRunner, Jobs

LENS = "bib/ris/citesource__20221207_gambling-harms_lens_49.ris"
ZOTERO = "bib/ris/asreview__pubmed_zotero.ris"
THRESHOLD = 50_000


def upload(fixtures_dir: Path) -> list[tuple[str, bytes]]:
    return [
        ("lens.ris", (fixtures_dir / LENS).read_bytes()),
        ("zotero.ris", (fixtures_dir / ZOTERO).read_bytes()),
        ("junk.bin", b"\x00\x01\x02 not a bibliography"),
    ]


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    update: dict[str, Any] = {"web_import_job_bytes": THRESHOLD}
    if request.param == "postgres":
        update["database_url"] = request.getfixturevalue("pg_schema")
    return tmp_settings.model_copy(update=update)


def on_desk(settings: Settings, body: Callable[[Desk], Any]) -> Any:
    async def go() -> Any:
        async with open_app(settings) as desk_app:
            desk = desk_app.desk
            return await asyncio.to_thread(body, desk)

    return asyncio.run(go())


def _plain(result: dict[str, Any]) -> dict[str, Any]:
    """The result without the ids a store gives (the Study's and each import's)."""
    out = dict(result, study_id="S")
    out["imported"] = [dict(i, import_id="I", study_id="S") for i in result["imported"]]
    return out


def _imports(desk: Desk, study: str) -> int:
    return len(desk.workspace.imports(study=study))


def test_a_large_import_is_a_job_whose_result_is_the_synchronous_one(
    settings: Settings, fixtures_dir: Path, tmp_path: Path
) -> None:
    files = upload(fixtures_dir)
    assert sum(len(d) for _n, d in files) > THRESHOLD

    def body(desk: Desk) -> dict[str, Any]:
        jobs = Jobs(desk.store)
        imports = ImportDesk(desk, jobs)
        other = desk.create_study("Large").to_dict()["id"]
        outcome = imports.import_files(other, files)
        assert outcome.result is None and outcome.job is not None
        assert outcome.to_dict()["job"]["kind"] == IMPORT_KIND
        with desk.store.read() as conn:
            kept = import_uploads(conn, outcome.job.id)
        assert [(u.name, u.sha256) for u in kept] == [
            (n, hashlib.sha256(d).hexdigest()) for n, d in files
        ]
        assert _imports(desk, other) == 0  # nothing imported before a worker runs it
        view = imports.work(outcome.job.id)
        assert view.status == "done", view.message
        assert (view.done, view.total) == (3, 3)
        with desk.store.read() as conn:
            assert import_uploads(conn, outcome.job.id) == []  # deleted with the import
        assert _imports(desk, other) == 2
        assert view.result is not None
        study = desk.create_study("Gambling harms").to_dict()["id"]
        small = imports.import_files(study, files[1:])  # under the threshold: answered here
        assert small.job is None and small.result is not None
        assert [i["file"] for i in small.result["imported"]] == ["zotero.ris"]
        return view.result

    result = on_desk(settings, body)
    # the same files imported within the request, into a Study of the same name, on a
    # fresh store
    twin = Settings(data_dir=tmp_path / "twin")

    def sync(desk: Desk) -> dict[str, Any]:
        study = desk.create_study("Large").to_dict()["id"]
        return desk.import_into_study(study, files)

    expected = on_desk(twin, sync)
    assert [i["file"] for i in expected["imported"]] == ["lens.ris", "zotero.ris"]
    assert all(i["records"] > 0 for i in expected["imported"])
    assert [r["file"] for r in result["refused"]] == ["junk.bin"]
    assert _plain(result) == _plain(expected)


def _expire(jobs: Jobs, clock: ManualClock, job_id: str) -> None:
    """Move the queue's clock past the lease of the (claimed, abandoned) job."""
    row = jobs.repo.get(job_id)
    assert row is not None and row.lease_until is not None
    assert row.lease_until > clock.now()  # still held
    clock.advance(row.lease_until - clock.now() + 0.01)


def test_a_job_whose_worker_died_is_finished_once(settings: Settings, fixtures_dir: Path) -> None:
    files = upload(fixtures_dir)

    def body(desk: Desk) -> None:
        clock = ManualClock()
        jobs = Jobs(desk.store, clock=clock)
        imports = ImportDesk(desk, jobs)
        runner = JobRunner(jobs, import_handlers(desk), lease_s=30)
        # 1. a worker claimed the job and died before doing anything
        first = desk.create_study("Claimed only").to_dict()["id"]
        job = imports.import_files(first, files).job
        assert job is not None
        held = jobs.claim([IMPORT_KIND], "dead:1", lease_s=1)
        assert held is not None and held.id == job.id
        assert runner.run_once() is False  # held: nobody else takes it meanwhile
        _expire(jobs, clock, job.id)
        assert runner.run_once() is True
        view = jobs.get(job.id, owner=desk.owner)
        assert view.status == "done" and view.attempts == 2
        assert _imports(desk, first) == 2
        # 2. a worker recorded the import, then died before the job was marked done
        second = desk.create_study("Imported, then died").to_dict()["id"]
        job = imports.import_files(second, files).job
        assert job is not None
        held = jobs.claim([IMPORT_KIND], "dead:2", lease_s=1)
        assert held is not None and held.id == job.id
        recorded = import_handler(desk.store)(JobContext(jobs, held, threading.Event()))
        assert recorded is not None and _imports(desk, second) == 2
        assert jobs.get(job.id, owner=desk.owner).status == "running"
        _expire(jobs, clock, job.id)
        assert runner.run_once() is True
        view = jobs.get(job.id, owner=desk.owner)
        assert view.status == "done" and view.attempts == 2
        assert view.result == recorded  # the recorded result given back
        assert _imports(desk, second) == 2  # not imported twice
        with desk.store.read() as conn:
            assert import_uploads(conn, job.id) == []

    on_desk(settings, body)


def test_a_cancelled_job_imports_nothing_and_its_files_are_swept(
    tmp_settings: Settings, fixtures_dir: Path
) -> None:
    files = upload(fixtures_dir)
    settings = tmp_settings.model_copy(update={"web_import_job_bytes": THRESHOLD})

    def body(desk: Desk) -> None:
        jobs = Jobs(desk.store)
        imports = ImportDesk(desk, jobs)
        study = desk.create_study("Cancelled").to_dict()["id"]
        job = imports.import_files(study, files).job
        assert job is not None
        assert jobs.cancel(job.id, owner=desk.owner).status == "cancelled"  # still queued
        assert imports.work(job.id).status == "cancelled"
        assert _imports(desk, study) == 0
        with desk.store.read() as conn:
            assert len(import_uploads(conn, job.id)) == 3  # until the next submit sweeps
        later = imports.import_files(study, files).job
        assert later is not None and later.id != job.id
        with desk.store.read() as conn:
            assert import_uploads(conn, job.id) == []
            assert len(import_uploads(conn, later.id)) == 3
        assert imports.work(later.id).status == "done"
        assert _imports(desk, study) == 2
        with pytest.raises(InputError) as refused:
            imports.import_files(study, [("a.ris", b"x" * 30_000_001)] * 2 + files[:1])
        assert refused.value.code == "import_too_large"

    on_desk(settings, body)
