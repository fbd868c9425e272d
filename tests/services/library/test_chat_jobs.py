"""Paper-chat questions as ``chat.answer`` jobs of the store's queue (issue 17), on SQLite
and PostgreSQL (fresh schema), with a scripted OpenAI-compatible model server on loopback.

* One question in flight per chat session, whoever's worker would run it: a second
  submit while the first is queued is refused with the first's job id; another account
  (or another browser session) finds no such job.
* A job answers and writes exactly one round; its model calls are metered under the
  asking account as a direct question's are.
* A job claimed again after its first attempt wrote the round (and its worker died
  before recording the job's end) writes no second round and calls no model.
* A job whose worker stalls mid-call (its lease runs out) is taken over by a second
  library (another process's): the reply the first attempt already had (the English
  variant) is replayed, not asked again; the stalled call's reservation is closed, so the
  second attempt is not held back by the one-call-in-flight rule; one round is written,
  and the store counts exactly the requests the model server received.
* Cancelling a queued question writes nothing and the session shows it as not answered.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from tests._model_servers import Scripted, assist_settings, model_server

from litdesk import SYSTEM_CLOCK, Clock, ManualClock
from litdesk._settings import Settings
from litdesk.adapters.embeddings import WordLlamaEmbedder
from litdesk.adapters.store import LOCAL_OWNER, Store, open_store
from litdesk.adapters.store._assist import assist_calls
from litdesk.services.jobs import JobContext, JobRunner, Jobs
from litdesk.services.library import (
    CHAT_KIND,
    ChatBusy,
    ChatJobNotFound,
    ChatQuestionRequest,
    ChatService,
    Library,
)
from litdesk.services.models import Models

QUESTION = "How was the water level measured?"
ANSWER = "The water level was measured with time-lapse cameras [1]."


@pytest.fixture
def folder(tmp_path: Path, make_pdf: Callable[[Path, list[str]], Path]) -> Path:
    root = tmp_path / "pdfs"
    make_pdf(
        root / "cameras.pdf",
        ["Water level was measured with time-lapse cameras mounted on two bridges. " * 12],
    )
    return root


def _variant(body: dict[str, Any]) -> bool:
    return "Translate the user's question" in json.dumps(body)


def _statuses(settings: Settings) -> list[str]:
    store = open_store(settings)
    try:
        c = assist_calls.c
        with store.read() as conn:
            rows = conn.execute(sa.select(c.status).where(c.feature == "chat"))
            return sorted(str(s) for (s,) in rows)
    finally:
        store.dispose()


_STORES: list[Store] = []


@pytest.fixture(autouse=True)
def _dispose_stores() -> Iterator[None]:
    yield
    while _STORES:
        _STORES.pop().dispose()


def _service(
    settings: Settings, wordllama: WordLlamaEmbedder, clock: Clock = SYSTEM_CLOCK
) -> tuple[ChatService, Jobs]:
    """A library over its own store (one process's) and the chat service over it; its job
    queue reads ``clock``."""
    store = open_store(settings)
    _STORES.append(store)
    lib = Library(settings, models=Models(settings), embedder=wordllama, workers=1, store=store)
    lib.index()
    jobs = Jobs(store, clock=clock)
    return ChatService(lib, jobs=jobs), jobs


def test_one_question_in_flight_per_session_answered_once_and_private(
    tmp_settings: Settings, folder: Path, library_db: str | None, wordllama: WordLlamaEmbedder
) -> None:
    with model_server("openai") as server:
        server.respond_with(lambda b: Scripted(QUESTION if _variant(b) else ANSWER))
        settings = assist_settings(
            server, tmp_settings.data_dir, library_dirs=[folder], database_url=library_db
        )
        chat, jobs = _service(settings, wordllama)
        token = secrets.token_urlsafe(32)
        job = chat.submit(ChatQuestionRequest(token, f"  {QUESTION} "), owner="ana")
        assert job.state == "running" and job.stage == "queued" and job.question == QUESTION
        with pytest.raises(ChatBusy) as busy:  # the first is still queued: refused, named
            chat.submit(ChatQuestionRequest(token, "Which bridges?"), owner="ana")
        assert busy.value.details["job"] == job.id
        other = chat.submit(
            ChatQuestionRequest(secrets.token_urlsafe(32), "Which bridges?"), owner="ana"
        )  # another session
        assert other.id != job.id
        for stranger in (  # bob with ana's cookie, ana in another browser session
            lambda: chat.job(token, job.id, owner="bob"),
            lambda: chat.cancel(token, job.id, owner="bob"),
            lambda: chat.job(secrets.token_urlsafe(32), job.id, owner="ana"),
        ):
            with pytest.raises(ChatJobNotFound):
                stranger()
        assert chat.session(token, owner="ana").job == job  # the page shows it in flight
        runner = JobRunner(jobs, {CHAT_KIND: chat.run_job}, lease_s=5)
        assert runner.run_once() and runner.run_once()
        done = chat.job(token, job.id, owner="ana")
        assert done.state == "done" and done.round == 1 and done.attempts == 1, done
        assert done.answer is not None and done.answer["number"] == 1
        card = chat.round(token, 1, owner="ana")
        assert done.answer == card.to_dict()
        assert card.data["question"] == QUESTION and card.data["grounded"] is True
        assert card.data["model"] == "scripted-model"
        session = chat.session(token, owner="ana")
        assert [r.number for r in session.rounds] == [1] and session.job is None
        assert (
            chat.session(token, owner="bob").rounds == ()
        )  # bob's session under that token is his own
        assert len(server.requests) == 4  # two questions: the variant and the answer each
        assert _statuses(settings) == ["ok"] * 4
        again = chat.submit(
            ChatQuestionRequest(token, "Which bridges?"), owner="ana"
        )  # the first has ended: a new one
        assert again.id != job.id


def test_a_job_claimed_again_after_its_round_was_written_writes_no_second(
    tmp_settings: Settings, folder: Path, library_db: str | None, wordllama: WordLlamaEmbedder
) -> None:
    with model_server("openai") as server:
        server.respond_with(lambda b: Scripted(QUESTION if _variant(b) else ANSWER))
        settings = assist_settings(
            server, tmp_settings.data_dir, library_dirs=[folder], database_url=library_db
        )
        clock = ManualClock()
        chat, jobs = _service(settings, wordllama, clock)
        token = secrets.token_urlsafe(32)
        job = chat.submit(ChatQuestionRequest(token, QUESTION), owner=LOCAL_OWNER)
        held = jobs.claim([CHAT_KIND], "dying-worker", 1)
        assert held is not None and held.id == job.id
        result = chat.run_job(JobContext(jobs, held, threading.Event()))
        assert result == {"round": 1}  # written; the worker dies before recording the end
        sent = len(server.requests)
        clock.advance(1.2)  # its lease runs out
        runner = JobRunner(jobs, {CHAT_KIND: chat.run_job}, lease_s=5)
        assert runner.run_once()
        done = chat.job(token, job.id, owner=LOCAL_OWNER)
        assert done.state == "done" and done.round == 1 and done.attempts == 2, done
        assert [r.number for r in chat.session(token, owner=LOCAL_OWNER).rounds] == [1]
        assert len(server.requests) == sent == 2  # nothing asked again
        assert _statuses(settings) == ["ok", "ok"]


def test_a_stalled_worker_is_taken_over_replaying_its_replies_and_counted_honestly(
    tmp_settings: Settings, folder: Path, library_db: str | None, wordllama: WordLlamaEmbedder
) -> None:
    gate = threading.Event()
    answers: list[int] = []

    def respond(body: dict[str, Any]) -> Scripted:
        if _variant(body):
            return Scripted(QUESTION)
        answers.append(1)
        return Scripted(ANSWER, gate=gate if len(answers) == 1 else None)  # the first stalls

    with model_server("openai") as server:
        server.respond_with(respond)
        settings = assist_settings(
            server, tmp_settings.data_dir, library_dirs=[folder], database_url=library_db
        )
        clock = ManualClock()
        first, jobs = _service(settings, wordllama, clock)
        token = secrets.token_urlsafe(32)
        job = first.submit(ChatQuestionRequest(token, QUESTION), owner="ana")
        held = jobs.claim([CHAT_KIND], "stalled-worker", 1)
        assert held is not None
        outcome: list[dict[str, Any] | None] = []
        stalled = threading.Thread(
            target=lambda: outcome.append(first.run_job(JobContext(jobs, held, threading.Event())))
        )
        stalled.start()
        deadline = time.monotonic() + 60
        while len(answers) < 1:  # the variant came back; the answer call is out, stalled
            assert time.monotonic() < deadline and stalled.is_alive()
            time.sleep(0.05)
        assert _statuses(settings) == ["in_flight", "ok"]
        clock.advance(1.2)  # no heartbeat: the lease runs out
        # another process's library and service (its own cache lock) takes the job over
        second, other_jobs = _service(settings, wordllama, clock)
        runner = JobRunner(other_jobs, {CHAT_KIND: second.run_job}, lease_s=5)
        t0 = time.monotonic()
        assert runner.run_once()
        took = time.monotonic() - t0
        done = second.job(token, job.id, owner="ana")
        assert done.state == "done" and done.round == 1 and done.attempts == 2, done
        variants = [r for r in server.requests if _variant(r.body)]
        assert len(variants) == 1  # replayed from the checkpoint, not asked again
        assert len(server.requests) == 3  # the variant, the stalled answer, the answer
        # the stalled call counts once (closed as failed), not blocking the second attempt
        assert _statuses(settings) == ["failed", "ok", "ok"]
        assert took < 30, took
        gate.set()  # the stalled call returns at last: that attempt writes nothing
        stalled.join(60)
        assert outcome == [None]
        assert [r.number for r in first.session(token, owner="ana").rounds] == [1]
        assert len(_statuses(settings)) == len(server.requests) == 3  # counted honestly
        print(f"\ntaken over in {took:.2f} s; statuses {_statuses(settings)}")


def test_a_cancelled_question_writes_nothing_and_is_shown_as_not_answered(
    tmp_settings: Settings, folder: Path, library_db: str | None, wordllama: WordLlamaEmbedder
) -> None:
    with model_server("openai") as server:
        server.respond_with(lambda b: Scripted(QUESTION if _variant(b) else ANSWER))
        settings = assist_settings(
            server, tmp_settings.data_dir, library_dirs=[folder], database_url=library_db
        )
        chat, jobs = _service(settings, wordllama)
        token = secrets.token_urlsafe(32)
        job = chat.submit(ChatQuestionRequest(token, QUESTION), owner=LOCAL_OWNER)
        cancelled = chat.cancel(token, job.id, owner=LOCAL_OWNER)
        assert cancelled.state == "cancelled" and cancelled.round is None
        assert not JobRunner(jobs, {CHAT_KIND: chat.run_job}, lease_s=5).run_once()
        session = chat.session(token, owner=LOCAL_OWNER)
        assert session.rounds == () and session.job is not None
        assert session.job.state == "cancelled" and "no round" in (session.job.message or "")
        assert server.requests == [] and _statuses(settings) == []
