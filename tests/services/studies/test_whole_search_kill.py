"""kill -9 of the worker of a whole-search job or of a Study's update leaves no half-added
records: killed while paging, nothing of the search is in the store; killed while saving,
the one transaction is all or nothing — the run, its hits, the Study's papers and the
Study's records (its working set's rows, reconciled in the same transaction). The job's
lease then runs out, it is claimed again and ends with every record added exactly once
(SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from tests import _fork
from tests.services.studies._paged import GeneratedSearch

from litdesk import Settings
from litdesk._clock import ManualClock
from litdesk.adapters.store import study_records
from litdesk.adapters.store import whole_searches as whole
from litdesk.services.app import open_app, open_app_sync
from litdesk.services.dedup import in_step
from litdesk.services.search import SearchRequest
from litdesk.services.studies import AddSearchRequest, UpdateStudyRequest

TOTAL = 1_500
#: the records an update's Study already holds (its first whole search)
FIRST = 500
ROOT = Path(__file__).resolve().parents[3]

WORKER = """
import asyncio, sys
import httpx
from litdesk import Settings
from litdesk.services.app import open_app
from tests.services.studies._paged import GeneratedSearch

async def main():
    settings = Settings(data_dir=sys.argv[1], database_url=sys.argv[2], jobs_lease_seconds=2)
    transport = httpx.MockTransport(GeneratedSearch(int(sys.argv[4]), delay=0.01))
    pacing = {"europepmc": float(sys.argv[5])} if len(sys.argv) > 5 else None
    async with open_app(settings, http_transport=transport, pacing=pacing) as app:
        print("ready", flush=True)
        await asyncio.to_thread(app.studies.work_search_job, sys.argv[3], owner=app.owner)

asyncio.run(main())
"""


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    base = tmp_settings.model_copy(update={"jobs_lease_seconds": 2.0})
    if request.param == "sqlite":
        return base
    url = request.getfixturevalue("pg_schema")
    return base.model_copy(update={"database_url": url})


def _counts(settings: Settings, study: str) -> tuple[int, int, int]:
    """Rounds, run hits and the Study's papers — and its records, which must be those of
    its sources (one per hit) whatever the moment of the kill."""
    with open_app_sync(settings) as app, app.store.read() as conn:
        rounds = len(whole.list_rounds(conn, study))
        hits = conn.execute(sa.select(sa.func.count()).select_from(whole.search_run_hits)).scalar()
        papers = len(whole.study_paper_ids(conn, study))
        records = study_records.count_records(conn, study).records
        assert in_step(conn, study)
    assert records == int(hits or 0)
    return rounds, int(hits or 0), papers


def _first_search(settings: Settings, study: str) -> None:
    """The Study's first whole search (``FIRST`` records), run in this process."""

    async def go() -> None:
        transport = httpx.MockTransport(GeneratedSearch(FIRST))
        # a mock: no pacing (see rescue())
        async with open_app(settings, http_transport=transport, pacing={"europepmc": 0}) as app:
            request = AddSearchRequest(study, SearchRequest("malaria", providers=("europepmc",)))
            job_id = app.studies.add_search(request, owner=app.owner).job.id
            done = await asyncio.to_thread(app.studies.work_search_job, job_id, owner=app.owner)
            assert done.job.status == "done", done.job.message

    asyncio.run(go())


@pytest.mark.parametrize(
    ("kind", "when"), [("add", "paging"), ("add", "saving"), ("update", "saving")]
)
def test_kill_9_mid_job_then_claimed_again(settings: Settings, kind: str, when: str) -> None:
    with open_app_sync(settings) as app:
        study = app.workspace().create_study("Killed").id
    before = (0, 0, 0)
    if kind == "update":  # months later the search finds 2,000 more records
        _first_search(settings, study)
        before = (1, FIRST, FIRST)
        assert _counts(settings, study) == before
    with open_app_sync(settings) as app:
        if kind == "update":
            job_id = app.studies.update_study(UpdateStudyRequest(study), owner=app.owner).job.id
        else:
            request = AddSearchRequest(study, SearchRequest("malaria", providers=("europepmc",)))
            job_id = app.studies.add_search(request, owner=app.owner).job.id
    url = settings.resolved_database_url()
    # killed while paging, the worker keeps Europe PMC's pacing (0.1 s a page): the pages
    # it has fetched are what the watcher waits for. Killed while saving, the pages before
    # are no part of what is checked (the one transaction, all or nothing): unpaced, it
    # reaches the saving 1.5 s sooner (15 pages) and saves exactly as before
    worker_pacing = ["0"] if when == "saving" else []
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    with (
        _fork.popen(
            [
                sys.executable,
                "-c",
                WORKER,
                str(settings.resolved_data_dir()),
                url,
                job_id,
                str(TOTAL),
                *worker_pacing,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        ) as proc,
        open_app_sync(settings) as watcher,
    ):
        deadline = time.monotonic() + 120
        # no polling while the worker starts (imports, opens its app): it says when it is
        # ready, then works (an empty line: it died, which the loop reports)
        assert proc.stdout is not None
        proc.stdout.readline()
        while time.monotonic() < deadline:
            view = watcher.jobs.get(job_id, owner=watcher.owner)
            current = view.current or ""
            if (when == "paging" and view.done >= TOTAL // 2) or (
                when == "saving" and current.startswith("saving")
            ):
                break
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    after = (1, TOTAL, TOTAL) if kind == "add" else (2, FIRST + TOTAL, TOTAL)
    counts = _counts(settings, study)
    if when == "paging":
        assert counts == before
    else:  # all or nothing
        assert counts in (before, after)

    async def rescue() -> None:
        transport = httpx.MockTransport(GeneratedSearch(TOTAL))
        # a clock 3 s ahead: past the dead worker's 2-second lease, so nothing waits it out
        clock = ManualClock(time.time() + 3)
        # the mock answers at once: Europe PMC's pacing (0.1 s a page) is the pacer's
        # tests' subject; the killed worker (WORKER) keeps it while paging (see
        # worker_pacing above)
        unpaced = {"europepmc": 0.0}
        async with open_app(settings, http_transport=transport, clock=clock, pacing=unpaced) as app:
            done = await asyncio.to_thread(app.studies.work_search_job, job_id, owner=app.owner)
            # PostgreSQL may still hold the killed worker's row lock for a moment (until it
            # sees the client gone): the claim skips a locked row, so look again as a runner
            # polls — the job must be taken over and end, whatever that moment
            deadline = time.monotonic() + 30
            while done.job.status == "running" and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
                done = await asyncio.to_thread(app.studies.work_search_job, job_id, owner=app.owner)
            assert done.job.status == "done", done.job.message
            assert done.job.attempts == 2 and done.exit_status == 0

    asyncio.run(rescue())
    assert _counts(settings, study) == after
