"""AI-assistance model calls as jobs across two separate ``litdesk serve --team`` processes on
one PostgreSQL schema (issue 17), with a scripted model server on loopback.

1. ana asks for an evidence suggestion on server 1 (which runs no jobs itself): server 2's
   worker makes the call; ana watches it running from server 2 while the model server
   holds its answer, and gets the draft on server 1 once it answers. A viewer of the
   Study cannot ask (403) nor see ana's job; a stranger finds nothing (404) on either.
2. The process making a call (the model server stalls) is SIGKILLed: the other claims the
   job once the lease runs out and fails it as interrupted — the model server saw one
   call, the store's allowance holds one row for the job (settled failed), and ana's next
   suggestion runs at once."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from tests._model_servers import SECRET_OPENAI_KEY, Scripted, ScriptedModelServer, model_server
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture re-export
from tests.faces.web._team import WEB_OPENAI, add_accounts, fresh, login
from tests.faces.web._team import job_holder as _holder
from tests.faces.web.test_team_dedup import Server, two_servers
from tests.services.assist._extract_kit import answer, the_paper

from litdesk import Settings
from litdesk.adapters.store import open_store
from litdesk.adapters.store._assist import assist_calls
from litdesk.services.workspace import Workspace

PAPER = "MED-424242"
GOOD = answer({"finding": ("faster clearance", "parasite clearance was faster", "abstract")})


def on(server: Server, session: tuple[str, str]) -> httpx.Client:
    """A signed-in client of ``server`` (the session lives in the store: any server)."""
    return fresh(server.base, session)


@pytest.fixture
def model() -> Iterator[ScriptedModelServer]:
    with model_server("openai") as server:
        yield server


def _env(model: ScriptedModelServer) -> dict[str, str]:
    return {
        "LITDESK_LLM_BACKEND": "openai",
        "LITDESK_CHAT_MODEL": "scripted-model",
        "LITDESK_OPENAI_BASE_URL": model.base_url,
        "LITDESK_OPENAI_API_KEY": SECRET_OPENAI_KEY,
        "LITDESK_ASSIST_SPACING_SECONDS": "0",
    }


def _setup(settings: Settings) -> tuple[dict[str, str], str]:
    """ana, cy and dan; ana's Study holding the paper (ana's)."""
    ids = add_accounts(settings, "ana", "cy", "dan")
    store = open_store(settings)
    try:
        ws = Workspace(store, owner=ids["ana"])
        ws.save_paper(the_paper())
        study = ws.create_study("Assisted across servers")
        ws.add_to_study(study.id, PAPER)
    finally:
        store.dispose()
    return ids, study.id


def _calls(url: str) -> list[tuple[str, str, str]]:
    store = open_store(url)
    try:
        c = assist_calls.c
        with store.read() as conn:
            rows = conn.execute(sa.select(c.id, c.feature, c.status).order_by(c.started_at))
            return [(r.id, r.feature, r.status) for r in rows]
    finally:
        store.dispose()


def _job(c: httpx.Client, job_id: str, until: Any, seconds: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        r = c.get(f"/api/v1/assist/jobs/{job_id}")
        assert r.status_code == 200, r.text
        if until(r.json()):
            return dict(r.json())
        assert time.monotonic() < deadline, r.json()
        time.sleep(0.1)


def _ask(c: httpx.Client) -> dict[str, Any]:
    prev = c.post("/api/v1/assist/extract/preview", json={"paper_id": PAPER})
    assert prev.status_code == 200, prev.text
    token = prev.json()["consent"]["token"]
    r = c.post("/api/v1/assist/extract", json={"paper_id": PAPER, "consent": token})
    assert r.status_code == 202, r.text
    return dict(r.json()["job"])


def _wait_for(condition: Any, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_a_suggestion_asked_on_one_server_is_run_and_watched_on_the_other(
    pg_schema: str,  # noqa: F811
    tmp_settings: Settings,
    tmp_path: Path,
    model: ScriptedModelServer,
) -> None:
    settings = tmp_settings.model_copy(update={"database_url": pg_schema})
    _ids, sid = _setup(settings)
    gate = threading.Event()
    model.script(Scripted(GOOD, gate=gate))
    no_worker = {"LITDESK_JOBS_WORKER_SLOTS": "0"}
    try:
        with two_servers(tmp_path, pg_schema, 0.0, _env(model), no_worker, warm=WEB_OPENAI) as (
            one,
            two,
        ):
            ana, cy, dan = login(one.base, "ana"), login(two.base, "cy"), login(one.base, "dan")
            with on(one, ana) as c:
                members = f"/api/v1/studies/{sid}/members"
                assert c.post(members, json={"username": "cy", "role": "viewer"}).is_success
                job = _ask(c)
            with on(two, ana) as c:  # running on server 2, held by the model server
                seen = _job(c, job["id"], lambda j: j["status"] != "queued")
                assert seen["status"] == "running" and seen["active"], seen
                _wait_for(lambda: len(model.requests) == 1)
            worker, attempts = _holder(pg_schema, job["id"])
            assert worker is not None and int(worker.split(":")[1]) == two.proc.pid
            assert attempts == 1
            for server in (one, two):
                with on(server, cy) as v:  # a viewer asks for nothing, sees nothing of ana's
                    prev = v.post("/api/v1/assist/extract/preview", json={"paper_id": PAPER})
                    asked = v.post(
                        "/api/v1/assist/extract",
                        json={"paper_id": PAPER, "consent": "sha256:" + "0" * 64},
                    )
                    assert (prev.status_code, asked.status_code) == (403, 403), asked.text
                    assert v.get(f"/api/v1/assist/jobs/{job['id']}").status_code == 404
                    assert v.get(f"/api/v1/jobs/{job['id']}").status_code == 404
                    assert v.post(f"/api/v1/assist/jobs/{job['id']}/cancel").status_code == 404
                with on(server, dan) as d:  # a stranger finds neither the paper nor the job
                    answers = [
                        d.post("/api/v1/assist/extract/preview", json={"paper_id": PAPER}),
                        d.post(
                            "/api/v1/assist/extract",
                            json={"paper_id": PAPER, "consent": "sha256:" + "0" * 64},
                        ),
                        d.get(f"/api/v1/assist/jobs/{job['id']}"),
                        d.post(f"/api/v1/assist/jobs/{job['id']}/cancel"),
                    ]
                    assert [r.status_code for r in answers] == [404] * 4, [r.text for r in answers]
            gate.set()
            with on(one, ana) as c:  # the draft, on server 1, as the request gave it before
                done = _job(c, job["id"], lambda j: not j["active"])
                assert done["status"] == "done", done
                draft = done["result"]
                assert draft["draft_id"] == f"ad-{job['id']}"
                assert draft["fields"]["finding"]["value"] == "faster clearance"
                saved = c.post(
                    f"/api/v1/assist/drafts/{draft['draft_id']}/save",
                    json={"reviewed": True, "study": sid},
                )
                assert saved.status_code == 200, saved.text
                assert SECRET_OPENAI_KEY not in str(done)
            assert len(model.requests) == 1
            assert _calls(pg_schema) == [(f"job-{job['id']}", "extract", "ok")]
        for log in (one.log, two.log):
            assert SECRET_OPENAI_KEY not in log.read_text()
    finally:
        gate.set()


def test_a_call_whose_server_is_killed_is_not_made_or_counted_again(
    pg_schema: str,  # noqa: F811
    tmp_settings: Settings,
    tmp_path: Path,
    model: ScriptedModelServer,
) -> None:
    settings = tmp_settings.model_copy(update={"database_url": pg_schema})
    _setup(settings)
    stall = threading.Event()  # never set while the call is held: the model server stalls
    model.script(Scripted(GOOD, gate=stall), Scripted(GOOD))
    try:
        with two_servers(tmp_path, pg_schema, 0.0, _env(model), warm=WEB_OPENAI) as (one, two):
            ana = login(one.base, "ana")
            with on(one, ana) as c:
                job = _ask(c)
            _wait_for(lambda: len(model.requests) == 1)  # the call is under way, stalled
            worker, attempts = _holder(pg_schema, job["id"])
            assert worker is not None and attempts == 1
            assert _calls(pg_schema) == [(f"job-{job['id']}", "extract", "in_flight")]
            by_pid = {one.proc.pid: (one, two), two.proc.pid: (two, one)}
            victim, survivor = by_pid[int(worker.split(":")[1])]
            victim.proc.send_signal(signal.SIGKILL)
            victim.proc.wait(timeout=30)
            with on(survivor, ana) as c:
                ended = _job(c, job["id"], lambda j: not j["active"], seconds=120)
                assert ended["status"] == "failed" and ended["attempts"] == 2, ended
                error = ended["error"]
                assert error["code"] == "call_interrupted" and error["status"] == 502, error
                assert "not made again" in error["message"]
                finisher, _attempts = _holder(pg_schema, job["id"])
                assert finisher is not None and int(finisher.split(":")[1]) == survivor.proc.pid
                # one call made, one counted (settled failed): nothing was sent again
                assert len(model.requests) == 1
                assert _calls(pg_schema) == [(f"job-{job['id']}", "extract", "failed")]
                # the dead call no longer blocks ana: her next suggestion runs at once
                again = _ask(c)
                done = _job(c, again["id"], lambda j: not j["active"])
                assert done["status"] == "done", done
            assert len(model.requests) == 2
            assert [s for _i, _f, s in _calls(pg_schema)] == ["failed", "ok"]
            print(
                f"\nkilled pid {victim.proc.pid} during the model call; the job failed as "
                f"interrupted on pid {survivor.proc.pid} in attempt {ended['attempts']}"
            )
    finally:
        stall.set()
