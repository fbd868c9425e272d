"""The paper chat's and report builds' model calls in the store's allowance (issue 17), on
SQLite and PostgreSQL (fresh schema), with a scripted model server on loopback speaking
the OpenAI-compatible and the Anthropic wire format.

* Every model call of a question (the English variant, the answer) is reserved under the
  asking account, feature ``chat``; beyond the account's or the total daily allowance the
  question is refused with :class:`AllowanceRefused` before the call goes out, nothing is
  recorded for it, and the AI assistance's own pool is untouched.
* A call that fails counts; extractive mode (no model) reserves nothing.
* A report build reserves each of its model calls (feature ``report``) for the job's owner
  and stops with the refusal once that owner's report allowance is spent (a ``report.build``
  job fails with it).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from tests._model_servers import Scripted, ScriptedModelServer, assist_settings, model_server

from litdesk._errors import ExternalError
from litdesk._settings import Settings
from litdesk.adapters.embeddings import WordLlamaEmbedder
from litdesk.adapters.store import allowance_owner, open_store
from litdesk.adapters.store._assist import assist_calls
from litdesk.services.app import app_library
from litdesk.services.assist import AllowanceRefused, AssistAllowance
from litdesk.services.jobs import JobRunner, Jobs
from litdesk.services.library import ChatQuestionRequest, ChatService, Library
from litdesk.services.models import Models
from litdesk.services.synthesis import ReportRequest, ReportsArea, build_report

QUESTION = "How was the water level measured?"
ANSWER = "The water level was measured with time-lapse cameras [1]."
TOKEN_A = "a" * 40
TOKEN_B = "b" * 40


@pytest.fixture
def folder(tmp_path: Path, make_pdf: Callable[[Path, list[str]], Path]) -> Path:
    root = tmp_path / "pdfs"
    make_pdf(
        root / "cameras.pdf",
        ["Water level was measured with time-lapse cameras mounted on two bridges. " * 12],
    )
    make_pdf(
        root / "wheat.pdf",
        ["Post-anthesis heat stress reduced grain yield and kernel weight in wheat. " * 12],
    )
    return root


def _respond(body: dict[str, Any]) -> Scripted:
    if "Translate the user's question" in json.dumps(body):
        return Scripted(QUESTION)  # already English: no variant
    return Scripted(ANSWER)


def _settings(
    server: ScriptedModelServer, tmp_settings: Settings, folder: Path, db: str | None, **extra: Any
) -> Settings:
    return assist_settings(  # type: ignore[no-any-return]
        server,
        tmp_settings.data_dir,
        library_dirs=[folder],
        database_url=db,
        **extra,
    )


def _calls(settings: Settings) -> list[tuple[str, str, str]]:
    """Every reserved call: (owner as stored, feature, status)."""
    store = open_store(settings)
    try:
        c = assist_calls.c
        with store.read() as conn:
            rows = conn.execute(sa.select(c.owner, c.feature, c.status).order_by(c.started_at))
            return [(str(o), str(f), str(s)) for o, f, s in rows]
    finally:
        store.dispose()


def _lib(settings: Settings, wordllama: WordLlamaEmbedder) -> Library:
    lib = app_library(settings, embedder=wordllama, workers=1)
    lib.index()
    return lib


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_chat_model_calls_are_counted_and_refused_beyond_the_allowance(
    kind: str,
    tmp_settings: Settings,
    folder: Path,
    library_db: str | None,
    wordllama: WordLlamaEmbedder,
) -> None:
    with model_server(kind) as server:  # type: ignore[arg-type]
        server.respond_with(_respond)
        settings = _settings(
            server, tmp_settings, folder, library_db,
            chat_owner_daily_requests=3, chat_daily_requests=5, assist_daily_requests=1,
        )  # fmt: skip
        lib = _lib(settings, wordllama)
        chat = ChatService(lib)

        first = chat.ask(
            ChatQuestionRequest(TOKEN_A, QUESTION), owner="ana"
        )  # the variant and the answer: 2 calls
        assert first.data["grounded"] and not first.data["extractive"]
        assert len(server.requests) == 2
        with pytest.raises(AllowanceRefused) as refused:  # the variant is call 3, the answer 4
            chat.ask(
                ChatQuestionRequest(TOKEN_A, "Which cameras measured the water level?"), owner="ana"
            )
        assert refused.value.code == "owner_daily_limit"
        assert "3 model calls" in refused.value.message
        assert "not answered" in refused.value.message
        assert len(server.requests) == 3  # the refused call never went out
        assert (
            len(chat.session(TOKEN_A, owner="ana").index) == 1
        )  # nothing recorded for the question

        assert chat.ask(ChatQuestionRequest(TOKEN_B, QUESTION), owner="bob").data[
            "grounded"
        ]  # calls 4 and 5: the total
        with pytest.raises(AllowanceRefused) as spent:
            chat.ask(ChatQuestionRequest(TOKEN_B, QUESTION), owner="bob")
        assert spent.value.code == "daily_limit"
        assert isinstance(spent.value.details.get("retry_after"), int)
        assert len(server.requests) == 5

        # the AI assistance's pool is its own: its one call of the day is still there
        store = open_store(settings)
        try:
            allowance = AssistAllowance(store, settings)
            ticket = allowance.reserve("ana", "extract")
            allowance.release(ticket)
        finally:
            store.dispose()

    calls = _calls(settings)
    assert Counter((o, f, s) for o, f, s in calls) == {
        (allowance_owner("ana"), "chat", "ok"): 3,
        (allowance_owner("bob"), "chat", "ok"): 2,
    }


def test_a_failed_chat_call_counts_and_extractive_mode_reserves_nothing(
    tmp_settings: Settings,
    folder: Path,
    library_db: str | None,
    wordllama: WordLlamaEmbedder,
) -> None:
    with model_server("openai") as server:
        server.script(Scripted(QUESTION), Scripted(status=500))  # the answer call fails
        settings = _settings(server, tmp_settings, folder, library_db)
        chat = ChatService(_lib(settings, wordllama))
        with pytest.raises(ExternalError):
            chat.ask(ChatQuestionRequest(TOKEN_A, QUESTION), owner="ana")
    assert [(f, s) for _, f, s in _calls(settings)] == [("chat", "ok"), ("chat", "failed")]

    none = settings.model_copy(update={"llm_backend": "none", "chat_owner_daily_requests": 1})
    lib = _lib(none, wordllama)
    for _ in range(3):  # beyond any model allowance: no model call, nothing reserved
        answer = lib.ask(QUESTION, owner="ana")
        assert answer.model == "none (extractive)" and answer.grounded
    assert len(_calls(none)) == 2  # the two of the model run above, no more


def test_a_report_build_reserves_each_model_call_for_its_owner(
    tmp_settings: Settings,
    folder: Path,
    library_db: str | None,
    wordllama: WordLlamaEmbedder,
) -> None:
    with model_server("openai") as server:
        server.respond_with(_respond)
        settings = _settings(
            server, tmp_settings, folder, library_db, report_owner_daily_requests=3
        )
        lib = _lib(settings, wordllama)
        # two questions per paper over two papers: four model calls, the owner has three
        with pytest.raises(AllowanceRefused) as refused:
            build_report(
                lib, papers=None, questions=[QUESTION, "What reduced the yield?"], owner="ana"
            )
        assert refused.value.code == "owner_daily_limit"
        assert "report-build" in refused.value.message
        assert len(server.requests) == 3
        done = build_report(lib, papers=["cameras.pdf"], questions=[QUESTION], owner="bob")
        assert done.model == "scripted-model"
        assert len(server.requests) == 4
        # ana's chat allowance is untouched by her reports
        assert lib.ask(QUESTION, owner="ana").grounded
    calls = Counter((o, f, s) for o, f, s in _calls(settings))
    assert calls == {
        (allowance_owner("ana"), "report", "ok"): 3,
        (allowance_owner("bob"), "report", "ok"): 1,
        (allowance_owner("ana"), "chat", "ok"): 2,
    }


def test_a_report_job_counts_under_its_owner_and_fails_with_the_refusal(
    tmp_settings: Settings,
    folder: Path,
    library_db: str | None,
    wordllama: WordLlamaEmbedder,
) -> None:
    with model_server("openai") as server:
        server.respond_with(_respond)
        settings = _settings(
            server, tmp_settings, folder, library_db, report_owner_daily_requests=2
        )
        store = open_store(settings)
        lib = Library(settings, models=Models(settings), embedder=wordllama, workers=1, store=store)
        try:
            lib.index()
            desk = ReportsArea(lib, Jobs(store))
            form = ReportRequest(("cameras.pdf", "wheat.pdf"), questions=(QUESTION,))
            runner = JobRunner(desk.jobs, desk.handlers())
            first = desk.submit(form, owner="acct-7")  # one question per paper: 2 calls
            assert runner.run_once()
            assert desk.job(first.id, owner="acct-7").job.status == "done"
            second = desk.submit(form, owner="acct-7")
            assert runner.run_once()
            failed = desk.job(second.id, owner="acct-7").job
            assert failed.status == "failed"
            assert "report-build allowance of 2 model calls" in failed.message
            assert len(server.requests) == 2
        finally:
            lib.close()
            store.dispose()
    assert Counter(_calls(settings)) == {(allowance_owner("acct-7"), "report", "ok"): 2}
