"""A real ``litdesk`` process running a job it holds, stopped by Ctrl-C (SIGINT) or SIGTERM:
``study add-search --record`` (a job bound to its cassette) and ``study fulltext --check``
end their job at once — failed, saying it was interrupted, when, and what to run again —
not when its lease runs out (30 s here), and exit 130 (Ctrl-C) or 143 (SIGTERM); nothing
of the unfinished search is written (SQLite and PostgreSQL).

The process is the CLI's own entry point with a slow generated Europe PMC behind the test
hook ``APP_TEST_HOOKS`` (no network)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from tests import _fork
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture re-export
from typer.testing import CliRunner

from litdesk import Settings
from litdesk._settings import get_settings
from litdesk.adapters.store import whole_searches as whole
from litdesk.faces.cli._app import app as cli
from litdesk.services.app import open_app_sync
from litdesk.services.jobs import JobView
from litdesk.services.studies import ADD_SEARCH_KIND, FULLTEXT_KIND
from litdesk.services.workspace import PaperFields

ROOT = Path(__file__).resolve().parents[2]
LEASE = 30.0

DRIVER = """
import signal, sys, time
# Ctrl-C as from a terminal, also when the tests run in the background (a shell starts
# background jobs with SIGINT ignored, and then Python installs no KeyboardInterrupt)
signal.signal(signal.SIGINT, signal.default_int_handler)
import httpx
from tests.services.studies._paged import GeneratedSearch
from litdesk.faces.cli import _context
from litdesk.faces.cli._app import main

def slow_missing(request):
    time.sleep(0.2)
    return httpx.Response(404, content=b"{}")

pages = GeneratedSearch(10_000, delay=0.1) if sys.argv[1] == "search" else slow_missing
_context.APP_TEST_HOOKS["http_transport"] = httpx.MockTransport(pages)
sys.argv = ["litdesk", *sys.argv[2:]]
main()
"""


@pytest.fixture(params=["sqlite", "postgres"])
def settings(
    request: pytest.FixtureRequest, tmp_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Settings]:
    chosen = tmp_settings.model_copy(update={"jobs_lease_seconds": LEASE})
    if request.param == "postgres":
        chosen = chosen.model_copy(update={"database_url": request.getfixturevalue("pg_schema")})
        monkeypatch.setenv("LITDESK_DATABASE_URL", str(chosen.database_url))
    monkeypatch.setenv("LITDESK_DATA_DIR", str(chosen.resolved_data_dir()))
    get_settings.cache_clear()
    yield chosen
    get_settings.cache_clear()


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.stdout + result.stderr
    return result.stdout


def _searches(settings: Settings, study: str) -> tuple[int, int, int]:
    """The Study's rounds, run hits and papers."""
    with open_app_sync(settings) as opened, opened.store.read() as conn:
        rounds = len(whole.list_rounds(conn, study))
        hits = conn.execute(sa.select(sa.func.count()).select_from(whole.search_run_hits)).scalar()
        return rounds, int(hits or 0), len(whole.study_paper_ids(conn, study))


def _stop_mid_job(
    settings: Settings, kind: str, pages: str, args: list[str], sig: signal.Signals
) -> tuple[JobView, subprocess.CompletedProcess[str], float]:
    """Run ``litdesk *args`` in its own process; once its job has done some work, send
    ``sig``. The job as stored right after the process ended, the process, and how long
    it took to end. The process is forked from the tests' warmed interpreter
    (tests/_fork.py): a real process with its own signals, what is checked; its start-up
    (~1.4 s of CPU importing litdesk afresh) is not."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    env |= {"LITDESK_DATA_DIR": str(settings.resolved_data_dir())}
    with (
        _fork.popen(
            [sys.executable, "-c", DRIVER, pages, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        ) as proc,
        open_app_sync(settings) as watcher,
    ):
        deadline = time.monotonic() + 120
        while True:
            assert time.monotonic() < deadline, "the job did not start"
            assert proc.poll() is None, proc.communicate()
            jobs = watcher.jobs.list(owner=watcher.owner, kinds=[kind], limit=1)
            if jobs and jobs[0].status == "running" and jobs[0].done >= 2:
                break
            time.sleep(0.05)
        job_id = jobs[0].id
        sent = time.monotonic()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
        took = time.monotonic() - sent
        stored = watcher.jobs.repo.get(job_id)  # as the process left it: no read settled it
        assert stored is not None and stored.status == "failed", stored
        view = watcher.jobs.find(job_id, kind=kind)
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    return view, done, took


def test_ctrl_c_ends_the_bound_job_at_once_and_writes_nothing(
    settings: Settings, tmp_path: Path
) -> None:
    with open_app_sync(settings) as opened:
        study = opened.workspace().create_study("Stopped").id
    tape = tmp_path / "tape"
    args = ["study", "add-search", "Stopped", "malaria", "-p", "europepmc", "--yes"]
    job, proc, took = _stop_mid_job(
        settings, ADD_SEARCH_KIND, "search", [*args, "--record", str(tape)], signal.SIGINT
    )
    assert proc.returncode == 130, proc.stderr
    assert took < LEASE / 2, took  # the process ends without waiting for anything
    assert job.status == "failed" and job.finished is not None
    assert job.message.startswith("interrupted by the user (Ctrl-C) at "), job.message
    assert "run `litdesk study add-search` for the Study 'Stopped' again" in job.message
    assert f"--record {tape}" in job.message
    assert job.result is not None and job.result["error"]["code"] == "job_interrupted"
    assert f"job {job.id} ended: interrupted by the user (Ctrl-C)" in proc.stderr
    assert _searches(settings, study) == (0, 0, 0)  # nothing of the unfinished search
    with open_app_sync(settings) as opened:  # a server on the same data: nothing to take
        assert opened.jobs.claim([ADD_SEARCH_KIND], "server", LEASE) is None


@pytest.mark.parametrize("settings", ["sqlite"], indirect=True)
def test_sigterm_ends_the_fulltext_check_at_once(settings: Settings) -> None:
    invoke("study", "new", "Heart")
    with open_app_sync(settings) as opened:  # what 40 `litdesk paper save` would save
        opened.workspace().save_papers(
            [PaperFields(doi=f"10.1234/h{n}", title=f"T{n}").to_paper() for n in range(40)],
            study="Heart",
        )
    job, proc, took = _stop_mid_job(
        settings,
        FULLTEXT_KIND,
        "missing",
        ["study", "fulltext", "Heart", "--check"],
        signal.SIGTERM,
    )
    assert proc.returncode == 143, proc.stderr
    assert took < LEASE / 2, took
    assert job.status == "failed"
    assert job.message.startswith("stopped by a termination signal (SIGTERM) at "), job.message
    assert "run `litdesk study fulltext 'Heart' --check` again" in job.message
    # a server on the same data does not take it over: it ended
    with open_app_sync(settings) as opened:
        assert opened.jobs.claim([FULLTEXT_KIND], "server", LEASE) is None
