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
from litdesk.services.app import App, open_app
from litdesk.services.jobs import JobContext, JobRunner, Jobs
from litdesk.services.studies import (
    IMPORT_KIND,
    CreateStudyRequest,
    ImportOutcome,
    ImportRequest,
    StudiesArea,
)
from litdesk.services.studies._importing import import_handler

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


def on_app(settings: Settings, body: Callable[[App], Any]) -> Any:
    async def go() -> Any:
        async with open_app(settings) as app:
            return await asyncio.to_thread(body, app)

    return asyncio.run(go())


def new_study(app: App, name: str) -> str:
    return app.studies.create_study(CreateStudyRequest(name), owner=app.owner).id


def start(area: StudiesArea, app: App, study: str, files: list[tuple[str, bytes]]) -> ImportOutcome:
    return area.import_files(ImportRequest(study, uploads=tuple(files)), owner=app.owner)


def _plain(result: dict[str, Any]) -> dict[str, Any]:
    """The result without the ids a store gives (the Study's and each import's)."""
    out = dict(result, study_id="S")
    out["imported"] = [dict(i, import_id="I", study_id="S") for i in result["imported"]]
    return out


def _imports(app: App, study: str) -> int:
    return len(app.workspace().imports(study=study))


def test_a_large_import_is_a_job_whose_result_is_the_synchronous_one(
    settings: Settings, fixtures_dir: Path, tmp_path: Path
) -> None:
    files = upload(fixtures_dir)
    assert sum(len(d) for _n, d in files) > THRESHOLD

    def body(app: App) -> dict[str, Any]:
        imports = app.studies
        other = new_study(app, "Large")
        outcome = start(imports, app, other, files)
        assert outcome.result is None and outcome.job is not None
        assert outcome.to_dict()["job"]["kind"] == IMPORT_KIND
        with app.store.read() as conn:
            kept = import_uploads(conn, outcome.job.id)
        assert [(u.name, u.sha256) for u in kept] == [
            (n, hashlib.sha256(d).hexdigest()) for n, d in files
        ]
        assert _imports(app, other) == 0  # nothing imported before a worker runs it
        view = imports.work_imports(outcome.job.id, owner=app.owner)
        assert view.status == "done", view.message
        assert (view.done, view.total) == (3, 3)
        with app.store.read() as conn:
            assert import_uploads(conn, outcome.job.id) == []  # deleted with the import
        assert _imports(app, other) == 2
        assert view.result is not None
        study = new_study(app, "Gambling harms")
        small = start(imports, app, study, files[1:])  # under the threshold: answered here
        assert small.job is None and small.result is not None
        assert [i["file"] for i in small.to_dict()["imported"]] == ["zotero.ris"]
        return view.result

    result = on_app(settings, body)
    # the same files imported within the request, into a Study of the same name, on a
    # fresh store
    twin = Settings(data_dir=tmp_path / "twin")

    def sync(app: App) -> dict[str, Any]:
        study = new_study(app, "Large")
        return start(app.studies, app, study, files).to_dict()

    expected = on_app(twin, sync)
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

    def body(app: App) -> None:
        clock = ManualClock()
        jobs = Jobs(app.store, clock=clock)
        imports = StudiesArea(app.store, jobs, app.settings)
        runner = JobRunner(jobs, imports.handlers(), lease_s=30)
        # 1. a worker claimed the job and died before doing anything
        first = new_study(app, "Claimed only")
        job = start(imports, app, first, files).job
        assert job is not None
        held = jobs.claim([IMPORT_KIND], "dead:1", lease_s=1)
        assert held is not None and held.id == job.id
        assert runner.run_once() is False  # held: nobody else takes it meanwhile
        _expire(jobs, clock, job.id)
        assert runner.run_once() is True
        view = jobs.get(job.id, owner=app.owner)
        assert view.status == "done" and view.attempts == 2
        assert _imports(app, first) == 2
        # 2. a worker recorded the import, then died before the job was marked done
        second = new_study(app, "Imported, then died")
        job = start(imports, app, second, files).job
        assert job is not None
        held = jobs.claim([IMPORT_KIND], "dead:2", lease_s=1)
        assert held is not None and held.id == job.id
        recorded = import_handler(app.store)(JobContext(jobs, held, threading.Event()))
        assert recorded is not None and _imports(app, second) == 2
        assert jobs.get(job.id, owner=app.owner).status == "running"
        _expire(jobs, clock, job.id)
        assert runner.run_once() is True
        view = jobs.get(job.id, owner=app.owner)
        assert view.status == "done" and view.attempts == 2
        assert view.result == recorded  # the recorded result given back
        assert _imports(app, second) == 2  # not imported twice
        with app.store.read() as conn:
            assert import_uploads(conn, job.id) == []

    on_app(settings, body)


def test_a_cancelled_job_imports_nothing_and_its_files_are_swept(
    tmp_settings: Settings, fixtures_dir: Path
) -> None:
    files = upload(fixtures_dir)
    settings = tmp_settings.model_copy(update={"web_import_job_bytes": THRESHOLD})

    def body(app: App) -> None:
        jobs = app.jobs
        imports = app.studies
        study = new_study(app, "Cancelled")
        job = start(imports, app, study, files).job
        assert job is not None
        assert jobs.cancel(job.id, owner=app.owner).status == "cancelled"  # still queued
        assert imports.work_imports(job.id, owner=app.owner).status == "cancelled"
        assert _imports(app, study) == 0
        with app.store.read() as conn:
            assert len(import_uploads(conn, job.id)) == 3  # until the next submit sweeps
        later = start(imports, app, study, files).job
        assert later is not None and later.id != job.id
        with app.store.read() as conn:
            assert import_uploads(conn, job.id) == []
            assert len(import_uploads(conn, later.id)) == 3
        assert imports.work_imports(later.id, owner=app.owner).status == "done"
        assert _imports(app, study) == 2
        with pytest.raises(InputError) as refused:
            start(imports, app, study, [("a.ris", b"x" * 30_000_001)] * 2 + files[:1])
        assert refused.value.code == "import_too_large"

    on_app(settings, body)
