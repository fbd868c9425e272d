"""The report wizard's two last choices in the reports area, over a real library (no model:
extractive answers), the real chat service and the real jobs table (SQLite):

* "Answer in the chat only": the questions become rounds of the browser's paper chat over
  the report's scope (one chat job), no HTML file and no report build; the CLI's form
  answers each as ``litdesk ask`` does (and writes the protocol); a summary or a synthesis
  needs the report, said plainly.
* Page labels in the wizard's language: carried by the request (checked once for both
  faces), kept with the build job, and in the written HTML.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests._model_servers import Scripted, assist_settings, model_server
from tests.services.synthesis.conftest import CAMERAS, write_pdf

from litdesk._errors import InputError, NotFoundError
from litdesk._settings import Settings
from litdesk.adapters.embeddings import WordLlamaEmbedder
from litdesk.adapters.store import LOCAL_OWNER, Store, open_store
from litdesk.core.records import make_paper
from litdesk.core.report import UnknownLabelLanguage
from litdesk.services.app import open_app_sync
from litdesk.services.jobs import JobRunner, Jobs, TooManyJobs
from litdesk.services.library import CHAT_KIND, ChatService, Library
from litdesk.services.models import Models
from litdesk.services.synthesis import (
    JOB_KIND,
    ChatServiceLink,
    ReportRequest,
    ReportsArea,
)
from litdesk.services.workspace import Workspace

PAPERS = ("cameras.pdf", "wheat.pdf")
QUESTIONS = ("How was the water level measured?", "What did heat stress do to the yield?")


@pytest.fixture
def store(settings: Settings) -> Iterator[Store]:
    s = open_store(settings)
    yield s
    s.dispose()


@pytest.fixture
def parts(
    settings: Settings, store: Store, wordllama: WordLlamaEmbedder
) -> Iterator[tuple[ReportsArea, ChatService]]:
    lib = Library(settings, models=Models(settings), embedder=wordllama, store=store)
    jobs = Jobs(store)
    chat = ChatService(lib, jobs=jobs)
    yield ReportsArea(lib, jobs, chat=ChatServiceLink(chat)), chat
    lib.close()


def _reports(root: Path) -> list[Path]:
    return sorted(root.rglob("*_synthesis_report_*.html"))


def test_answer_in_the_chat_only_makes_chat_rounds_and_no_file(
    parts: tuple[ReportsArea, ChatService], settings: Settings
) -> None:
    area, chat = parts
    token = secrets.token_urlsafe(32)
    request = ReportRequest(PAPERS, questions=QUESTIONS, chat_only=True, chat_token=token)
    plan = area.plan(request, owner="ana").to_dict()
    assert plan["units"] == 2 and plan["not_made"] == []
    assert any("answered in the chat only" in n and "2 questions" in n for n in plan["notes"])
    queued = area.submit_chat(request, owner="ana")
    view = queued.to_dict()
    assert view["output"] == "chat" and view["page"] == "/chat"
    assert view["questions"] == list(QUESTIONS) and view["state"] == "running"
    session = chat.session(token, owner="ana")
    assert session.papers == PAPERS and session.job is not None  # the chat's scope now
    assert area.jobs.list(owner="ana", kinds=[JOB_KIND]) == []  # no report build queued
    assert JobRunner(area.jobs, {CHAT_KIND: chat.run_job}).run_once()
    done = chat.job(token, queued.id, owner="ana")
    assert done.state == "done" and done.round == 2, done
    rounds = chat.session(token, owner="ana").rounds
    assert [r.data["question"] for r in rounds] == list(QUESTIONS)
    cameras, wheat = (r.data for r in rounds)
    assert cameras["grounded"] and cameras["extractive"] and cameras["scope"] == list(PAPERS)
    assert {c["file"] for c in cameras["citations"]} == {"cameras.pdf"}  # only the relevant
    assert {c["file"] for c in wheat["citations"]} == {"wheat.pdf"}
    assert all(isinstance(c["page"], int) for c in cameras["citations"] + wheat["citations"])
    assert [h.rounds for h in chat.history(owner="ana")] == [2]  # in the account's history
    assert _reports(settings.data_dir) == []  # no HTML file anywhere
    # another account's chat under the same token is its own: nothing of ana's
    assert chat.session(token, owner="bob").rounds == ()


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"summary": "bullets"}, "A summary needs the HTML report"),
        ({"synthesis": True}, "A synthesis needs the HTML report"),
        ({"summary": "prose", "synthesis": True}, "A summary and a synthesis need the HTML"),
        ({"questions": ()}, "needs at least one question"),
        ({"output": Path("r.html")}, "writes no file"),
    ],
)
def test_the_chat_only_choice_is_checked_once_for_both_faces(kwargs: dict, words: str) -> None:
    with pytest.raises(InputError) as err:
        ReportRequest(**({"papers": PAPERS, "questions": QUESTIONS, "chat_only": True} | kwargs))
    assert err.value.code == "chat_only" and words in err.value.message


def test_the_report_paths_refuse_a_chat_only_request_and_the_chat_path_a_report(
    parts: tuple[ReportsArea, ChatService],
) -> None:
    area, _ = parts
    token = secrets.token_urlsafe(32)
    chat_only = ReportRequest(PAPERS, questions=QUESTIONS, chat_only=True, chat_token=token)
    for refuse in (
        lambda: area.submit(chat_only, owner="ana"),
        lambda: area.build(chat_only, owner="ana"),
        lambda: area.submit_chat(ReportRequest(PAPERS, questions=QUESTIONS), owner="ana"),
        lambda: area.submit_chat(ReportRequest(PAPERS, questions=QUESTIONS, chat_only=True), owner="ana"),
    ):  # fmt: skip
        with pytest.raises(InputError):
            refuse()
    unknown = ReportRequest(("gone.pdf",), questions=QUESTIONS, chat_only=True, chat_token=token)
    with pytest.raises(NotFoundError, match="The library has:"):
        area.submit_chat(unknown, owner="ana")
    assert area.jobs.list(owner="ana") == []  # nothing queued


def test_the_cli_form_answers_each_question_as_ask_does_and_writes_no_file(
    parts: tuple[ReportsArea, ChatService], settings: Settings
) -> None:
    area, _ = parts
    got = area.answer(ReportRequest(PAPERS, questions=QUESTIONS, chat_only=True), owner="local")
    assert [a.question for a in got.answers] == list(QUESTIONS)
    assert got.unanswered == () and got.stopped is None
    assert all(a.grounded and a.citations for a in got.answers)
    first = got.answers[0].citations[0]
    assert first["file"] == "cameras.pdf" and first["link"].endswith(f"#page={first['page']}")
    protocol = "".join(p.read_text() for p in (area.pdfs.root / "protocols").glob("*.md"))
    assert all(f"— {q}" in protocol for q in QUESTIONS)  # kept as litdesk ask keeps it
    data = got.to_dict()
    assert data["output"] == "chat" and len(data["answers"]) == 2  # type: ignore[arg-type]
    assert _reports(settings.data_dir) == []


def test_page_labels_travel_with_the_build_and_reach_the_html(
    parts: tuple[ReportsArea, ChatService],
) -> None:
    area, _ = parts
    request = ReportRequest(("cameras.pdf",), questions=QUESTIONS[:1], labels="Deutsch")
    assert request.labels == "de" and request.language is None  # the prose's stays apart
    queued = area.submit(request, owner="ana")
    assert queued.job.params["labels"] == "de"
    assert ReportRequest.from_params(queued.job.params)[0].labels == "de"
    assert JobRunner(area.jobs, area.handlers()).run_once()
    html = area.report(queued.id, owner="ana").html()
    assert '<html lang="de">' in html
    assert ">Publikationen<" in html and ">Über diesen Bericht<" in html
    assert ">Papers<" not in html and "About this report" not in html
    english = area.build(ReportRequest(("cameras.pdf",), questions=QUESTIONS[:1]), owner="l")
    assert english.path is not None
    assert '<html lang="en">' in english.path.read_text(encoding="utf-8")
    with pytest.raises(UnknownLabelLanguage, match="Deutsch \\(de\\)"):
        ReportRequest(("cameras.pdf",), questions=QUESTIONS[:1], labels="tlh")


def test_the_cli_form_stops_at_a_refused_question_and_keeps_the_answers(
    tmp_settings: Settings, folder: Path, wordllama: WordLlamaEmbedder
) -> None:
    """The paper chat's allowance (3 calls a day; a question takes two: the English variant
    and the answer) refuses the second question: the first answer is kept, the rest named."""
    with model_server("openai") as server:
        server.respond_with(
            lambda b: Scripted(
                "Time-lapse cameras on two bridges [1]."
                if "Translate the user's question" not in json.dumps(b)
                else "How was the water level measured?"
            )
        )
        settings = assist_settings(
            server, tmp_settings.data_dir, library_dirs=[folder], chat_owner_daily_requests=3
        )
        store = open_store(settings)
        lib = Library(settings, models=Models(settings), embedder=wordllama, store=store)
        try:
            area = ReportsArea(lib, Jobs(store))
            three = (*QUESTIONS, "Which bridges?")
            got = area.answer(ReportRequest(PAPERS, questions=three, chat_only=True), owner="ana")
            assert [a.question for a in got.answers] == [QUESTIONS[0]]
            assert got.answers[0].grounded and got.answers[0].model == "scripted-model"
            assert got.unanswered == three[1:]
            assert got.stopped is not None and "allowance" in str(got.stopped["message"]).lower()
            assert len(server.requests) == 3  # the third question was never sent
        finally:
            lib.close()
            store.dispose()


def test_a_study_scope_answered_in_the_chat_names_the_study(
    tmp_settings: Settings, tmp_path: Path
) -> None:
    """Through the whole app: a Study's PDFs answered in the chat only; the chat's scope
    is the Study (named on the chat page, listed under the Study), only its PDFs cited."""
    pdfs = tmp_path / "study-pdfs"
    write_pdf(pdfs / "rivers.pdf", ["doi:10.5555/rivers.2021 " + CAMERAS])
    write_pdf(pdfs / "lake.pdf", ["Cameras also watched the water level of a lake. " * 10])
    settings = tmp_settings.model_copy(
        update={"library_dirs": [pdfs], "llm_backend": "none", "embedder": "wordllama"}
    )
    with open_app_sync(settings) as app:
        app.pdfs.index()  # the DOI printed on the first page is read while indexing
        ws = Workspace(app.store)
        study = ws.create_study("Rivers")
        ws.add_to_study(study.id, ws.save_paper(make_paper(doi="10.5555/rivers.2021")).paper.id)
        token = secrets.token_urlsafe(32)
        request = ReportRequest(
            study="Rivers", questions=QUESTIONS[:1], chat_only=True, chat_token=token
        )
        queued = app.reports.submit_chat(request, owner=LOCAL_OWNER)
        session = app.library.chat(token, owner=LOCAL_OWNER)
        assert session.study == {"id": study.id, "name": "Rivers"}
        assert session.papers == ("rivers.pdf",)
        assert JobRunner(app.jobs, {CHAT_KIND: app.library.chats.run_job}).run_once()
        done = app.library.chats.job(token, queued.id, owner=LOCAL_OWNER)
        assert done.state == "done", done
        [card] = app.library.chat(token, owner=LOCAL_OWNER).rounds
        assert {c["file"] for c in card.data["citations"]} == {"rivers.pdf"}  # not the lake
        [listed] = app.library.chat_list(owner=LOCAL_OWNER, study_id=study.id)
        assert listed.title == QUESTIONS[0]


def test_the_chat_rounds_count_against_the_accounts_queue_cap(
    settings: Settings, store: Store, wordllama: WordLlamaEmbedder
) -> None:
    lib = Library(settings, models=Models(settings), embedder=wordllama, store=store)
    jobs = Jobs(store, max_active=1)
    chat = ChatService(lib, jobs=jobs)
    area = ReportsArea(lib, jobs, chat=ChatServiceLink(chat))
    try:
        area.submit(ReportRequest(PAPERS, questions=QUESTIONS[:1]), owner="ana")  # active
        token = secrets.token_urlsafe(32)
        request = ReportRequest(PAPERS, questions=QUESTIONS, chat_only=True, chat_token=token)
        with pytest.raises(TooManyJobs):
            area.submit_chat(request, owner="ana")
        refused = chat.session(token, owner="ana")  # nothing queued, the scope not changed
        assert refused.rounds == () and refused.whole_library and refused.job is None
        assert chat.history(owner="ana") == []
        assert area.submit_chat(request, owner="bob").job.questions == QUESTIONS  # bob's own cap
    finally:
        lib.close()
