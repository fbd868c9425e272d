"""Several questions as one ``chat.answer`` job (the report wizard's "answer in the chat
only"), on SQLite and PostgreSQL, with a scripted OpenAI-compatible model server on
loopback.

* The questions become the session's next rounds, in order, over the job's scope (which
  becomes the session's); the model calls are metered under the asking account; the chat's
  one-question-in-flight rule holds for the whole job.
* An account's paper-chat allowance running out stops the job at the question it refused:
  the rounds before it stay, the job says which questions were not answered.
* A job whose worker stalls in its second question is taken over by another process's
  service: the first round is not written again, nothing already answered is asked again.
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
from litdesk.adapters.store import Store, open_store
from litdesk.adapters.store._assist import assist_calls
from litdesk.services.jobs import JobContext, JobRunner, Jobs
from litdesk.services.library import (
    CHAT_KIND,
    ChatBusy,
    ChatQuestionRequest,
    ChatRoundsRequest,
    ChatScopeRequest,
    ChatService,
    Library,
    UnknownPapers,
)
from litdesk.services.library._requests import ChatInputError
from litdesk.services.models import Models

QUESTIONS = (
    "How was the water level measured?",
    "Where were the cameras mounted?",
    "How often did each camera take an image?",
)


@pytest.fixture
def folder(tmp_path: Path, make_pdf: Callable[[Path, list[str]], Path]) -> Path:
    root = tmp_path / "pdfs"
    make_pdf(
        root / "cameras.pdf",
        [
            "Water level was measured with time-lapse cameras mounted on two bridges. " * 6
            + "Each camera took one image every ten minutes. " * 6
        ],
    )
    make_pdf(root / "wheat.pdf", ["Heat stress reduced grain yield in winter wheat. " * 12])
    return root


def _variant(body: dict[str, Any]) -> bool:
    return "Translate the user's question" in json.dumps(body)


def _user(body: dict[str, Any]) -> str:
    return next(str(m["content"]) for m in body["messages"] if m["role"] == "user")


def _respond(body: dict[str, Any]) -> Scripted:
    """The variant: the question itself; an answer: which question it answers, cited."""
    user = _user(body)
    if _variant(body):
        return Scripted(user.strip())
    asked = next((q for q in QUESTIONS if q in user), "?")
    return Scripted(f"Answer to “{asked}” from the cameras paper [1].")


def _statuses(settings: Settings) -> list[str]:
    store = open_store(settings)
    try:
        c = assist_calls.c
        with store.read() as conn:
            rows = conn.execute(
                sa.select(c.status, c.owner).where(c.feature == "chat").order_by(c.id)
            )
            got = list(rows)
            assert len({owner for _, owner in got}) <= 1  # one account (stored hashed)
            return [str(status) for status, _ in got]
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
    store = open_store(settings)
    _STORES.append(store)
    lib = Library(settings, models=Models(settings), embedder=wordllama, workers=1, store=store)
    lib.index()
    jobs = Jobs(store, clock=clock)
    return ChatService(lib, jobs=jobs), jobs


def _rounds(token: str, questions: tuple[str, ...], papers: tuple[str, ...] = ()) -> Any:
    scope = ChatScopeRequest(token, papers, not papers)
    return ChatRoundsRequest(scope, questions)


def test_the_questions_become_the_sessions_next_rounds_in_order(
    tmp_settings: Settings, folder: Path, library_db: str | None, wordllama: WordLlamaEmbedder
) -> None:
    with model_server("openai") as server:
        server.respond_with(_respond)
        settings = assist_settings(
            server, tmp_settings.data_dir, library_dirs=[folder], database_url=library_db
        )
        chat, jobs = _service(settings, wordllama)
        token = secrets.token_urlsafe(32)
        asked = _rounds(token, (f"  {QUESTIONS[0]} ", "", QUESTIONS[1]), ("cameras.pdf",))
        assert asked.questions == QUESTIONS[:2]  # folded; the blank one dropped
        job = chat.submit_rounds(asked, owner="ana")
        assert job.state == "running" and job.questions == QUESTIONS[:2]
        assert job.question == QUESTIONS[0]
        session = chat.session(token, owner="ana")
        assert session.papers == ("cameras.pdf",) and not session.whole_library  # its scope
        assert session.job == job  # the chat page shows the questions in flight
        with pytest.raises(ChatBusy):  # one question (or job of questions) in flight
            chat.submit(ChatQuestionRequest(token, "Which bridges?"), owner="ana")
        with pytest.raises(ChatBusy):
            chat.submit_rounds(_rounds(token, ("Which bridges?",)), owner="ana")
        runner = JobRunner(jobs, {CHAT_KIND: chat.run_job}, lease_s=5)
        assert runner.run_once()
        done = chat.job(token, job.id, owner="ana")
        assert done.state == "done" and done.round == 2, done
        rounds = chat.session(token, owner="ana").rounds
        assert [r.number for r in rounds] == [1, 2]
        assert [r.data["question"] for r in rounds] == list(QUESTIONS[:2])
        for r, q in zip(rounds, QUESTIONS[:2], strict=True):
            assert r.data["grounded"] is True and r.data["scope"] == ["cameras.pdf"]
            assert r.data["answer"].startswith(f"Answer to “{q}”")
            cite = r.data["citations"][0]
            assert cite["file"] == "cameras.pdf" and cite["page"] == 1
            assert cite["viewer"].startswith("/library/pdf/")
        assert len(server.requests) == 4  # the variant and the answer, per question
        assert _statuses(settings) == ["ok"] * 4  # metered under the asking account
        history = chat.history(owner="ana")
        assert [(h.title, h.rounds) for h in history] == [(QUESTIONS[0], 2)]
        with pytest.raises(UnknownPapers):
            chat.submit_rounds(_rounds(token, ("q?",), ("gone.pdf",)), owner="ana")
        with pytest.raises(ChatInputError):
            _rounds(token, (" ", ""))


def test_the_allowance_stops_the_rounds_at_the_refused_question(
    tmp_settings: Settings, folder: Path, library_db: str | None, wordllama: WordLlamaEmbedder
) -> None:
    with model_server("openai") as server:
        server.respond_with(_respond)
        settings = assist_settings(
            server, tmp_settings.data_dir, library_dirs=[folder], database_url=library_db,
            chat_owner_daily_requests=3,
        )  # fmt: skip
        chat, jobs = _service(settings, wordllama)
        token = secrets.token_urlsafe(32)
        job = chat.submit_rounds(_rounds(token, QUESTIONS), owner="ana")
        assert JobRunner(jobs, {CHAT_KIND: chat.run_job}, lease_s=5).run_once()
        ended = chat.job(token, job.id, owner="ana")
        assert ended.state == "failed" and ended.round == 1, ended
        assert ended.question == QUESTIONS[1]  # back in the question box
        assert ended.message is not None
        assert ended.message.startswith("1 of 3 questions answered; not answered: ")
        assert f"“{QUESTIONS[1]}”; “{QUESTIONS[2]}”" in ended.message
        assert ended.code and "allowance" in ended.message.lower(), ended.message
        rounds = chat.session(token, owner="ana").rounds
        assert [r.data["question"] for r in rounds] == [QUESTIONS[0]]  # kept
        assert all(QUESTIONS[2] not in _user(r.body) for r in server.requests)  # not asked


def test_a_stalled_job_of_questions_is_taken_over_without_asking_again(
    tmp_settings: Settings, folder: Path, library_db: str | None, wordllama: WordLlamaEmbedder
) -> None:
    gate = threading.Event()
    second_answers: list[int] = []

    def respond(body: dict[str, Any]) -> Scripted:
        reply = _respond(body)
        if not _variant(body) and QUESTIONS[1] in _user(body):
            second_answers.append(1)
            if len(second_answers) == 1:  # the first attempt's call for question 2 stalls
                return Scripted(reply.text, gate=gate)
        return reply

    with model_server("openai") as server:
        server.respond_with(respond)
        settings = assist_settings(
            server, tmp_settings.data_dir, library_dirs=[folder], database_url=library_db
        )
        clock = ManualClock()
        first, jobs = _service(settings, wordllama, clock)
        token = secrets.token_urlsafe(32)
        job = first.submit_rounds(_rounds(token, QUESTIONS[:2]), owner="ana")
        held = jobs.claim([CHAT_KIND], "stalled-worker", 1)
        assert held is not None and held.id == job.id
        outcome: list[dict[str, Any] | None] = []
        stalled = threading.Thread(
            target=lambda: outcome.append(first.run_job(JobContext(jobs, held, threading.Event())))
        )
        stalled.start()
        deadline = time.monotonic() + 60
        while not second_answers:  # round 1 written; question 2's answer call is out
            assert time.monotonic() < deadline and stalled.is_alive()
            time.sleep(0.05)
        assert [r.number for r in first.session(token, owner="ana").rounds] == [1]
        clock.advance(1.2)  # no heartbeat: the lease runs out
        second, other_jobs = _service(settings, wordllama, clock)
        assert JobRunner(other_jobs, {CHAT_KIND: second.run_job}, lease_s=5).run_once()
        done = second.job(token, job.id, owner="ana")
        assert done.state == "done" and done.round == 2 and done.attempts == 2, done
        rounds = second.session(token, owner="ana").rounds
        assert [(r.number, r.data["question"]) for r in rounds] == [
            (1, QUESTIONS[0]),
            (2, QUESTIONS[1]),
        ]  # round 1 not written again
        asked = [(_variant(r.body), next(q for q in QUESTIONS if q in _user(r.body)))
                 for r in server.requests]  # fmt: skip
        # question 1 asked once (variant, answer); question 2's variant replayed, not
        # asked again; its stalled answer and the second attempt's answer
        assert asked == [
            (True, QUESTIONS[0]), (False, QUESTIONS[0]),
            (True, QUESTIONS[1]), (False, QUESTIONS[1]), (False, QUESTIONS[1]),
        ]  # fmt: skip
        assert sorted(_statuses(settings)) == sorted(["ok"] * 4 + ["failed"])
        gate.set()  # the stalled call returns at last: that attempt writes nothing
        stalled.join(60)
        assert outcome == [None]
        assert [r.number for r in first.session(token, owner="ana").rounds] == [1, 2]
