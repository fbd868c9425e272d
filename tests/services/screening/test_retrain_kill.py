"""kill -9 of a worker in the middle of a retrain (its scores written, not committed)
leaves the previous scores in force; the job's lease runs out, it is claimed again and
stores the next version (SQLite and PostgreSQL, a real subprocess)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests import _fork
from tests.services.screening._study import make_study

from litdesk import Settings
from litdesk._clock import ManualClock
from litdesk.adapters.store import screening as store_screening
from litdesk.services.app import open_app_sync
from litdesk.services.screening import RETRAIN_KIND, DecideRequest, ItemsRequest, retrain_owner

ROOT = Path(__file__).resolve().parents[3]
TA = "title_abstract"

WORKER = """
import pathlib, sys, time
from litdesk import Settings
from litdesk.adapters.store import _screening
from litdesk.services.app import open_app_sync

put_model = _screening.put_model

def stalled(*args, **kwargs):
    version = put_model(*args, **kwargs)  # written inside the open transaction
    pathlib.Path(sys.argv[4]).write_text(str(version))
    time.sleep(300)
    return version

_screening.put_model = stalled
settings = Settings(data_dir=sys.argv[1], database_url=sys.argv[2], jobs_lease_seconds=2)
with open_app_sync(settings) as app:
    app.screening.work_retrain(sys.argv[3], "title_abstract", owner=app.owner)
"""


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    base = tmp_settings.model_copy(update={"jobs_lease_seconds": 2.0})
    if request.param == "sqlite":
        return base
    return base.model_copy(update={"database_url": request.getfixturevalue("pg_schema")})


def _model(settings: Settings, sid: str) -> tuple[int, int] | None:
    with open_app_sync(settings) as app, app.store.read() as conn:
        return store_screening.model_version(conn, sid, TA)


def _past_the_lease() -> ManualClock:
    """The clock of the app opened after the kill: 3 s ahead, past the dead worker's
    2-second lease (what the queue reads), so no test waits it out."""
    return ManualClock(time.time() + 3)


def test_kill_9_mid_retrain_keeps_the_previous_scores(
    settings: Settings, export: Path, tmp_path: Path
) -> None:
    with open_app_sync(settings) as app:
        sid = make_study(app, "Killed", [export])
        keys = [
            r["record_key"] for r in app.screening.items(ItemsRequest(sid), owner=app.owner).rows
        ]
        for key, verdict in zip(keys, ("include", "exclude"), strict=False):
            app.screening.decide(DecideRequest(sid, TA, key, verdict), owner=app.owner)  # type: ignore[arg-type]
        assert app.screening.work_retrain(sid, TA, owner=app.owner).version == 1
        app.screening.decide(DecideRequest(sid, TA, keys[2], "include"), owner=app.owner)
        queued = app.jobs.active_of(RETRAIN_KIND, owner=retrain_owner(sid, TA))
        assert queued is not None
        with app.store.read() as conn:
            before = store_screening.get_model(conn, sid, TA)
        assert before is not None and before.trained_on == 2
    marker = tmp_path / "written"
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    args = [str(settings.resolved_data_dir()), settings.resolved_database_url(), sid, str(marker)]
    with _fork.popen(
        [sys.executable, "-c", WORKER, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    ) as proc:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the worker never reached the write"
            time.sleep(0.05)
        assert marker.read_text() == "2"  # version 2 written, not committed
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert _model(settings, sid) == (1, 2)  # the previous scores are in force
    with open_app_sync(settings, clock=_past_the_lease()) as app:
        with app.store.read() as conn:
            kept = store_screening.get_model(conn, sid, TA)
        assert kept is not None and kept.scores == before.scores
        model = app.screening.work_retrain(sid, TA, owner=app.owner)
        assert (model.version, model.trained_on, model.state) == (2, 3, "ready")
        job = app.jobs.get(queued.id, owner=retrain_owner(sid, TA))
        assert job.status == "done" and job.attempts == 2
