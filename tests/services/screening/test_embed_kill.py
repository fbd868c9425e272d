"""kill -9 of a worker in the middle of the embedding job (issue 28, the hand-over model):
the batches it committed stay, its lease runs out, the job is claimed again and embeds
only the texts still missing; then the retrain reads the rows (SQLite and PostgreSQL, a
real subprocess)."""

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
from litdesk.services.screening import (
    EMBED_KIND,
    EMBEDDER,
    ConfigureRequest,
    DecideRequest,
    ItemsRequest,
    embed_owner,
    text_sha,
)

ROOT = Path(__file__).resolve().parents[3]
TA = "title_abstract"

WORKER = """
import pathlib, sys, time
from litdesk import Settings
from litdesk.services.app import open_app_sync
from litdesk.services.screening import _vectors

_vectors.BATCH = 10
settings = Settings(data_dir=sys.argv[1], database_url=sys.argv[2], jobs_lease_seconds=2)
with open_app_sync(settings) as app:
    real = app.models.sentence_embedder()

    class Stalling:
        name, dim, batches = real.name, real.dim, 0

        def embed(self, texts):
            if self.batches == 2:  # two batches committed: die in the third
                pathlib.Path(sys.argv[4]).write_text("2")
                time.sleep(300)
            self.batches += 1
            return real.embed(texts)

    stalling = Stalling()
    app.screening.rows.embedder = lambda: stalling
    app.screening.rows.slice_s = float("inf")  # one job to the kill (no hand-on)
    app.screening.work_retrain(sys.argv[3], "title_abstract", owner=app.owner)
"""


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    base = tmp_settings.model_copy(update={"jobs_lease_seconds": 2.0})
    if request.param == "sqlite":
        return base
    return base.model_copy(update={"database_url": request.getfixturevalue("pg_schema")})


def _rows(settings: Settings, sid: str) -> dict[str, bytes]:
    with open_app_sync(settings) as app, app.store.read() as conn:
        return store_screening.get_vectors(conn, sid, EMBEDDER)


def _past_the_lease() -> ManualClock:
    """The clock of the app opened after the kill: 3 s ahead, past the dead worker's
    2-second lease (what the queue reads), so no test waits it out."""
    return ManualClock(time.time() + 3)


def test_kill_9_mid_embedding_keeps_the_batches_and_resumes(
    settings: Settings, export: Path, tmp_path: Path
) -> None:
    with open_app_sync(settings) as app:
        sid = make_study(app, "Embedded", [export])
        keys = [
            r["record_key"] for r in app.screening.items(ItemsRequest(sid), owner=app.owner).rows
        ]
        for key, verdict in zip(keys, ("include", "exclude"), strict=False):
            app.screening.decide(DecideRequest(sid, TA, key, verdict), owner=app.owner)  # type: ignore[arg-type]
        app.screening.configure(ConfigureRequest(sid, model="litdesk-handover"), owner=app.owner)
        queued = app.jobs.active_of(EMBED_KIND, owner=embed_owner(sid))
        assert queued is not None
        screen = app.screening.cache.screen_set(sid)
        texts = set(app.screening.rows.texts(screen))
    marker = tmp_path / "embedding"
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
            assert time.monotonic() < deadline, "the worker never reached the third batch"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert len(_rows(settings, sid)) == 20  # the two committed batches
    with open_app_sync(settings, clock=_past_the_lease()) as app:
        model = app.screening.work_retrain(sid, TA, owner=app.owner)
        job = app.jobs.get(queued.id, owner=embed_owner(sid))
        assert job.status == "done" and job.attempts == 2
        assert job.result is not None and job.result["embedded"] == len(texts) - 20
        assert (model.name, model.state) == ("litdesk-handover", "ready")
    assert set(_rows(settings, sid)) == {text_sha(t) for t in texts}
