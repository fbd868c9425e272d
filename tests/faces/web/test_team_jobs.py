"""A background job across the workers of ``litdesk serve --team --workers 2`` on one
PostgreSQL schema (issue 17): ana uploads PDFs over HTTP, which starts the library index job
on one worker; the job is watched through fresh connections until both workers' pids have
answered its polls (the JSON access lines name the pid); then the worker process that runs it
(its pid is in the job's lease, ``host:pid:…``) is killed with SIGKILL mid-job, and the job is
claimed again once its lease has run out and finishes, every file indexed once.

The workers read the PDFs themselves (``LITDESK_LIBRARY_INDEX_WORKERS=1``, as the rest of the
suite does): the reader processes of an index pool, and that they die with a process killed
with SIGKILL, are checked by ``tests/services/library/test_index_pool.py`` and
``tests/faces/test_cli_library_hostile.py``; here each of the two pools cost a
fresh interpreter and two more embedder loads. Reading in one process instead of two halves
the job's pace, so 20 files keep it running as long, in files, as 40 did with two readers
(the kill comes at 3 files done)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture re-export
from tests.faces.web._hosting import LOOPBACK_TLS
from tests.faces.web._library import make_pdfs
from tests.faces.web._server import epmc_body, epmc_record, free_port, write_cassette
from tests.faces.web._team import (
    PASSWORD,
    SRC,
    add_accounts,
    fresh,
    job_holder,
    login,
    start_team_process,
    team_env,
    wait_ready,
)

from litdesk import Settings

#: enough that the job still runs when both workers have answered and 3 files are done
FILES = 20


def _pids_answering(log: Path, path: str) -> set[int]:
    """The workers whose access log names ``path`` (complete lines only: the server's
    processes are still writing, so the text may end in the middle of a line)."""
    text = log.read_text()
    complete = text[: text.rfind("\n") + 1]
    lines = [x for x in complete.splitlines() if x.startswith("{")]
    return {int(x["pid"]) for x in map(json.loads, lines) if x["path"] == path}


def test_a_job_is_watched_from_both_workers_and_survives_its_worker_s_death(
    pg_schema: str,  # noqa: F811
    tmp_settings: Settings,
    tmp_path: Path,
) -> None:
    settings = tmp_settings.model_copy(update={"database_url": pg_schema})
    add_accounts(settings, "ana")
    cassette = tmp_path / "cassette"
    write_cassette(cassette, "tumour growth", epmc_body([epmc_record(1)]))
    pdfs = make_pdfs(tmp_path / "gen", FILES, pages=6)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = team_env(
        tmp_path,
        pg_schema,
        PYTHONPATH=str(SRC),
        LITDESK_JOBS_LEASE_SECONDS="2",  # the job's other worker takes it when it ends
        LITDESK_LIBRARY_INDEX_WORKERS="1",  # read in the worker: no pool to start
    )
    log = tmp_path / "server.log"
    # its own process group: the supervisor and both workers, to end all
    # the fork server loads the USE-m3 encoder once (the default embedder's second part):
    # neither worker reading the PDFs loads it again
    proc = start_team_process(
        port, cassette, env, log, workers=2, new_session=True, warm=("web", "use-m3")
    )
    try:
        wait_ready(base, proc, log)
        ana = login(base, "ana")
        session = ana[0]
        with fresh(base, ana) as c:
            parts = [("files", (p.name, p.read_bytes(), "application/pdf")) for p in pdfs]
            report = c.post("/api/v1/library/uploads", files=parts).json()
        assert len(report.get("stored", [])) == FILES, report
        job_id = report["job"]["id"]
        watched = f"/api/v1/jobs/{job_id}"

        def poll(_: int) -> dict[str, Any] | None:
            # a new connection each time: the kernel hands it to either worker
            try:
                with httpx.Client(
                    base_url=base, cookies={"ld_session": session}, timeout=30, verify=LOOPBACK_TLS
                ) as one:
                    r = one.get(watched)
            except httpx.TransportError:
                return None  # a worker being killed or restarted; the next poll retries
            assert r.status_code == 200, r.text
            return dict(r.json())

        # 1. watched from both workers while it runs on one of them
        deadline = time.monotonic() + 180
        seen: dict[str, Any] = {}
        with ThreadPoolExecutor(max_workers=4) as pool:
            while True:
                answers = [a for a in pool.map(poll, range(4)) if a]
                if answers:
                    seen = max(answers, key=lambda a: int(a["done"]))
                assert seen.get("active", True), f"the job ended before the kill: {seen}"
                both = len(_pids_answering(log, watched)) == 2
                if both and seen.get("status") == "running" and int(seen["done"]) >= 3:
                    break
                if time.monotonic() > deadline:
                    raise AssertionError(
                        f"no running job watched from both workers in 180 s: {seen}, "
                        f"pids {_pids_answering(log, watched)}"
                    )
                time.sleep(0.05)
        worker, attempts = job_holder(pg_schema, job_id)
        assert worker is not None and attempts == 1, (worker, attempts)
        runner_pid = int(worker.split(":")[1])
        assert runner_pid in _pids_answering(log, watched)  # a worker of this server
        assert runner_pid != proc.pid  # a worker, not the supervisor

        # 2. its worker dies mid-job; the lease (2 s) runs out and the job is claimed again
        os.kill(runner_pid, signal.SIGKILL)
        deadline = time.monotonic() + 240
        job: dict[str, Any] = {}
        while time.monotonic() < deadline:
            job = poll(0) or job
            if job and not job["active"]:
                break
            time.sleep(0.2)
        assert job.get("status") == "done", job
        assert job["attempts"] == 2 and job["done"] == job["total"] == FILES, job
        assert job["result"]["indexed"] == FILES and job["result"]["files"] == FILES, job
        # the files indexed before the kill were not indexed again
        assert 0 < len(job["result"]["indexed_this_attempt"]) < FILES, job["result"]
        finisher, _ = job_holder(pg_schema, job_id)
        assert finisher is not None and int(finisher.split(":")[1]) != runner_pid
        print(
            f"\nwatched by pids {sorted(_pids_answering(log, watched))}; killed {runner_pid} at "
            f"{seen['done']}/{seen['total']}; finished by {finisher.split(':')[1]}, "
            f"{len(job['result']['indexed_this_attempt'])} files in attempt 2"
        )
    finally:
        try:
            os.killpg(proc.pid, signal.SIGINT)
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    text = log.read_text()
    assert PASSWORD not in text
