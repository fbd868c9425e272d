"""Paper-chat questions as jobs across two separate ``litdesk serve --team`` processes on one
PostgreSQL schema (issue 17), answering through a scripted OpenAI-compatible model server
on loopback (real HTTP):

* ana asks on server 1; the question is a job, answered by whichever worker claims it and
  read (progress, then the answer card) from server 2; while it is in flight the same
  chat session's second question is refused on server 2 (one in flight per session, in
  the store); bob finds neither ana's job nor her round on either server.
* A question is answered while each server's (one-slot) general job runner is busy with a
  long deduplication run: questions have worker threads of their own.
* The process answering a question is SIGKILLed while its model call stalls: the other
  process claims the job once its lease has run out, replays the reply the dead attempt
  had (the English variant), asks the answer again and writes exactly one round; the
  store counts exactly the requests the model server received (the dead call once, as
  failed).

The first and the last test share one pair of server processes, one schema and one model
server (``shared_pair``: each test has accounts, a chat session and Studies of its own, and
counts the model's requests and the store's calls it made itself); the kill test, whose
point is a process killed, starts a pair of its own and runs first, so the shared pair is
not running beside it."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from tests._model_servers import SECRET_OPENAI_KEY, Scripted, ScriptedModelServer, model_server
from tests._store_template import PgTemplate
from tests.adapters.store.conftest import (
    pg_schema,  # noqa: F401 - fixture re-export
    pg_schema_url,
)
from tests.faces.web._hosting import LOOPBACK_TLS
from tests.faces.web._server import free_port
from tests.faces.web._team import (
    PASSWORD,
    WEB_OPENAI,
    add_accounts,
    job_finished_at,
    login,
    start_team_process,
    wait_ready,
)
from tests.faces.web._team import job_holder as _holder
from tests.faces.web.test_team_dedup import BASE_FILES, Server

from litdesk import Settings
from litdesk.adapters.store import open_store
from litdesk.adapters.store._assist import assist_calls
from litdesk.services.app import app_library

SRC = Path(__file__).resolve().parents[3] / "src"
QUESTION = "How was the water level measured?"
ANSWER = "The water level was measured with time-lapse cameras [1]."


def _variant(body: dict[str, Any]) -> bool:
    return "Translate the user's question" in json.dumps(body)


class Stall:
    """The model's replies: the variant at once; the first answer held until ``release``
    (at most 30 s), every later one at once."""

    def __init__(self, first: int = 0) -> None:
        self.gate = threading.Event()
        self.answers = 0
        #: how many requests the (shared) model server had seen before this test's
        self.first = first
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Scripted:
        if _variant(body):
            return Scripted(QUESTION)
        with self._lock:
            self.answers += 1
            first = self.answers == 1
        return Scripted(ANSWER, gate=self.gate if first else None)


def _make_pdf(path: Path) -> None:
    from tests.services.library.conftest import write_pdf

    write_pdf(
        path, ["Water level was measured with time-lapse cameras mounted on two bridges. " * 12]
    )


@contextmanager
def two_servers(
    tmp_path: Path, url: str, model: ScriptedModelServer, base: Settings, dedup_step: float = 0
) -> Iterator[tuple[Server, Server]]:
    """Two team server processes (one worker each) over the schema ``url`` and one PDF
    library (indexed first, here), asking ``model`` (``dedup_step``: the test-only wait
    after each import a deduplication run reads)."""
    folder = tmp_path / "pdfs"
    _make_pdf(folder / "cameras.pdf")
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    env |= {
        "PYTHONPATH": str(SRC),
        "LITDESK_DATA_DIR": str(data),
        "LITDESK_DATABASE_URL": url,
        "LITDESK_LIBRARY_DIRS": json.dumps([str(folder)]),
        "LITDESK_EMBEDDER": "wordllama",
        "LITDESK_LLM_BACKEND": "openai",
        "LITDESK_OPENAI_BASE_URL": model.base_url,
        "LITDESK_OPENAI_API_KEY": SECRET_OPENAI_KEY,
        "LITDESK_CHAT_MODEL": "scripted-model",
        "LITDESK_JOBS_LEASE_SECONDS": "2",
        # the runners poll at the product's default (1 s): a dead worker's job is taken over
        # when its lease ends (the idle runners wake then), one queued elsewhere within a poll
        "LITDESK_DEDUP_TEST_STEP_SECONDS": str(dedup_step),
    }
    settings = base.model_copy(
        update={"data_dir": data, "database_url": url, "library_dirs": [folder],
                "embedder": "wordllama"}
    )  # fmt: skip
    with app_library(settings, workers=1) as lib:  # indexed before any question
        assert lib.index().indexed == ["cameras.pdf"]
    servers: list[Server] = []
    try:
        for n in (1, 2):  # both start at once (the schema is at head)
            port = free_port()
            while any(s.base.endswith(f":{port}") for s in servers):  # the first not bound yet
                port = free_port()
            log = tmp_path / f"server{n}.log"
            proc = start_team_process(port, None, env, log, warm=WEB_OPENAI)
            servers.append(Server(f"http://127.0.0.1:{port}", proc, log))
        for server in servers:
            wait_ready(server.base, server.proc, server.log)
        yield servers[0], servers[1]
    finally:
        for s in servers:
            if s.proc.poll() is None:
                s.proc.send_signal(signal.SIGINT)
        for s in servers:
            try:
                s.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                s.proc.kill()
                s.proc.wait(timeout=30)
    for s in servers:
        text = s.log.read_text()
        assert PASSWORD not in text and SECRET_OPENAI_KEY not in text


@contextmanager
def on(server: Server, session: tuple[str, str], chat: str) -> Iterator[httpx.Client]:
    """A signed-in client of ``server`` in the browser session whose chat token is ``chat``
    (the account's session and the chat's state live in the store and the data dir)."""
    with httpx.Client(
        base_url=server.base,
        cookies={"ld_session": session[0], "ld_csrf": session[1], "ld_chat": chat},
        headers={"origin": server.base, "x-csrf-token": session[1]},
        timeout=60,
        verify=LOOPBACK_TLS,
    ) as c:
        yield c


def _job(c: httpx.Client, job_id: str, until: Any, seconds: float = 180) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        got = c.get(f"/api/v1/chat/jobs/{job_id}")
        assert got.status_code == 200, got.text
        job: dict[str, Any] = got.json()
        if until(job):
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.1)


def _study(c: httpx.Client, name: str, files: list[tuple[str, bytes]]) -> str:
    made = c.post("/api/v1/studies", json={"name": name})
    assert made.status_code == 200, made.text
    sid = str(made.json()["id"])
    for file, data in files:  # one import each: each is a step of a run
        r = c.post("/api/v1/imports", params={"study": sid}, files=[("files", (file, data))])
        assert r.status_code == 200 and not r.json()["refused"], r.text
    return sid


def _calls(url: str) -> list[str]:
    store = open_store(url)
    try:
        c = assist_calls.c
        with store.read() as conn:
            rows = conn.execute(sa.select(c.status).where(c.feature == "chat"))
            return sorted(str(s) for (s,) in rows)
    finally:
        store.dispose()


def _minus(after: list[str], before: list[str]) -> list[str]:
    """The calls of ``after`` not in ``before`` (both as :func:`_calls` lists them)."""
    left = list(after)
    for status in before:
        left.remove(status)
    return left


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    """The file's model server (each test sets its replies: ``stall``)."""
    with model_server("openai") as server:
        yield server


@pytest.fixture
def stall(model: ScriptedModelServer) -> Iterator[tuple[ScriptedModelServer, Stall]]:
    replies = Stall(first=len(model.requests))
    model.respond_with(replies)
    yield model, replies
    replies.gate.set()


@pytest.fixture(scope="module")
def shared_pair(
    pg_template: PgTemplate,
    model: ScriptedModelServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, Server, Server]]:
    """One schema at head and two team server processes over it (the test-only wait of a
    deduplication run 8 s a step: the long jobs of the last test; the first runs none),
    shared by the tests that kill no process."""
    root = tmp_path_factory.mktemp("chat-pair")
    with pg_template.schema_at_head() as schema:
        url = pg_schema_url(pg_template.base_url, schema)
        base = Settings(data_dir=root / "data")
        with two_servers(root, url, model, base, dedup_step=8.0) as (one, two):
            yield url, one, two


def test_a_question_whose_server_is_killed_mid_answer_is_answered_once_by_the_other(
    pg_schema: str,  # noqa: F811
    tmp_settings: Settings,
    tmp_path: Path,
    stall: tuple[ScriptedModelServer, Stall],
) -> None:
    model, replies = stall
    add_accounts(tmp_settings.model_copy(update={"database_url": pg_schema}), "ana")
    chat = secrets.token_urlsafe(32)
    with two_servers(tmp_path, pg_schema, model, tmp_settings) as (one, two):
        ana = login(one.base, "ana")
        with on(one, ana, chat) as c:
            job = c.post("/api/v1/chat/ask", json={"question": QUESTION}).json()
        deadline = time.monotonic() + 120
        while replies.answers < 1:  # the variant came back; the answer call is out, held
            assert time.monotonic() < deadline
            time.sleep(0.05)
        worker, attempts = _holder(pg_schema, job["id"])
        assert worker is not None and attempts == 1, (worker, attempts)
        assert _calls(pg_schema) == ["in_flight", "ok"]
        by_pid = {one.proc.pid: (one, two), two.proc.pid: (two, one)}
        victim, survivor = by_pid[int(worker.split(":")[1])]
        victim.proc.send_signal(signal.SIGKILL)
        victim.proc.wait(timeout=30)
        killed = time.monotonic()
        with on(survivor, ana, chat) as c:
            done = _job(c, job["id"], lambda j: j["state"] != "running", seconds=120)
            took = time.monotonic() - killed
            assert done["state"] == "done" and done["round"] == 1, done
            assert done["attempts"] == 2 and done["answer"]["grounded"] is True, done
            session = c.get("/api/v1/chat").json()
        assert [r["number"] for r in session["rounds"]] == [1]
        assert session["questions"] == [QUESTION]
        finisher, _ = _holder(pg_schema, job["id"])
        assert finisher is not None and int(finisher.split(":")[1]) == survivor.proc.pid
        seen = model.requests[replies.first :]
        variants = [r for r in seen if _variant(r.body)]
        assert len(variants) == 1  # the dead attempt's reply replayed, not asked again
        assert len(seen) == 3 and replies.answers == 2
        # every request the model received counted once: the dead one's call as failed
        assert _calls(pg_schema) == ["failed", "ok", "ok"]
        print(f"\nkilled pid {victim.proc.pid} mid-answer; answered by pid "
              f"{survivor.proc.pid} in attempt 2, {took:.1f} s after the kill")  # fmt: skip


def test_a_question_asked_on_one_server_is_answered_by_a_job_and_read_on_the_other(
    shared_pair: tuple[str, Server, Server],
    tmp_settings: Settings,
    stall: tuple[ScriptedModelServer, Stall],
) -> None:
    model, replies = stall
    url, one, two = shared_pair
    add_accounts(tmp_settings.model_copy(update={"database_url": url}), "ana", "bob")
    chat = secrets.token_urlsafe(32)  # ana's browser session (its chat cookie)
    before = _calls(url)
    ana, bob = login(one.base, "ana"), login(two.base, "bob")
    with on(one, ana, chat) as c:
        asked = c.post("/api/v1/chat/ask", json={"question": QUESTION})
    assert asked.status_code == 202, asked.text
    job = asked.json()
    assert job["state"] == "running" and job["question"] == QUESTION, job
    with on(two, ana, chat) as c:
        seen = _job(c, job["id"], lambda j: j["stage"] == "asking the model" or
                    j["state"] != "running")  # fmt: skip
        assert seen["state"] == "running", seen  # its answer call is held
        again = c.post("/api/v1/chat/ask", json={"question": "Which bridges?"})
        assert again.status_code == 409 and again.json()["job"] == job["id"], again.text
        assert c.get("/api/v1/chat").json()["job"]["id"] == job["id"]  # shown in flight
        page = c.get("/chat").text
        assert f'id="job-{job["id"]}"' in page and "Answering:" in page
        replies.gate.set()
        done = _job(c, job["id"], lambda j: j["state"] != "running")
        assert done["state"] == "done" and done["round"] == 1, done
        card = done["answer"]
        assert card["question"] == QUESTION and card["grounded"] is True
        assert card["model"] == "scripted-model" and card["citations"][0]["file"] == "cameras.pdf"
        session = c.get("/api/v1/chat").json()
        assert [r["number"] for r in session["rounds"]] == [1] and session["job"] is None
        assert 'class="card answer-card"' in c.get("/chat").text
    for server in (one, two):  # bob, even with ana's chat cookie, finds nothing of hers
        with on(server, bob, chat) as b:
            answers = [
                b.get(f"/api/v1/chat/jobs/{job['id']}"),
                b.post(f"/api/v1/chat/jobs/{job['id']}/cancel"),
                b.get("/api/v1/chat/rounds/1"),
            ]
            assert [r.status_code for r in answers] == [404] * 3, [r.text for r in answers]
            assert b.get("/api/v1/chat").json()["rounds"] == []
    with on(one, ana, chat) as c:
        assert c.get(f"/api/v1/chat/jobs/{job['id']}").json()["round"] == 1
    assert len(model.requests[replies.first :]) == 2 and _minus(_calls(url), before) == [
        "ok",
        "ok",
    ]


def test_a_question_is_answered_while_both_servers_run_a_long_job(
    shared_pair: tuple[str, Server, Server],
    tmp_settings: Settings,
    stall: tuple[ScriptedModelServer, Stall],
) -> None:
    _model, replies = stall
    replies.gate.set()  # no stall here
    url, one, two = shared_pair
    add_accounts(tmp_settings.model_copy(update={"database_url": url}), "cyd")
    chat = secrets.token_urlsafe(32)
    ana = login(one.base, "cyd")
    with on(one, ana, chat) as c:
        runs = []
        for n in range(2):  # one per Study: 3 imports read 8 s apart, about 24 s each
            sid = _study(c, f"Long run {n}", [*BASE_FILES, ("again.ris", BASE_FILES[1][1])])
            runs.append(c.post(f"/api/v1/studies/{sid}/dedup/runs").json()["id"])
        deadline = time.monotonic() + 60
        while True:  # each server's general runner holds one of them
            holders = {_holder(url, r)[0] for r in runs}
            if None not in holders and len({h.split(":")[1] for h in holders if h}) == 2:
                break
            assert time.monotonic() < deadline, holders
            time.sleep(0.1)
        asked = c.post("/api/v1/chat/ask", json={"question": QUESTION})
        assert asked.status_code == 202, asked.text
        done = _job(c, asked.json()["id"], lambda j: j["state"] != "running", seconds=60)
        assert done["state"] == "done" and done["round"] == 1, done
        # answered before either long job ended (compared in the store, not by polling
        # the pages after the answer: on a loaded machine a poll can come late)
        answered = job_finished_at(url, asked.json()["id"])
        assert answered is not None
        ended = [job_finished_at(url, r) for r in runs]
        assert all(e is None or e > answered for e in ended), (answered, ended)
