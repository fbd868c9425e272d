"""The reports area (``app.reports``): the one request checked once, the plan said before a
build, the build as a report.build job (progress per unit, cancel, a resumed job finding
its finished file), the CLI's synchronous build through the same code — over a real library
and the real jobs table (SQLite)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from litdesk._errors import InputError
from litdesk._settings import Settings
from litdesk.adapters.embeddings import WordLlamaEmbedder
from litdesk.adapters.store import Store, open_store
from litdesk.services.jobs import JobNotFound, JobRunner, Jobs
from litdesk.services.library import Library
from litdesk.services.models import Models
from litdesk.services.synthesis import (
    JOB_KIND,
    ChatAnswer,
    ChatDraft,
    ReportNotFound,
    ReportRequest,
    ReportsArea,
)

PAPERS = ("cameras.pdf", "wheat.pdf")


@pytest.fixture
def store(settings: Settings) -> Iterator[Store]:
    s = open_store(settings)
    yield s
    s.dispose()


@pytest.fixture
def desk(settings: Settings, store: Store, wordllama: WordLlamaEmbedder) -> Iterator[ReportsArea]:
    lib = Library(settings, models=Models(settings), embedder=wordllama, store=store)
    yield ReportsArea(lib, Jobs(store))
    lib.close()


def test_plan_without_a_model_names_extractive_parts_and_what_cannot_be_made(
    desk: ReportsArea,
) -> None:
    form = ReportRequest(PAPERS, questions=("Which cameras?",), summary="prose", synthesis=True)
    plan = desk.plan(form, owner="local").to_dict()
    assert plan["model"] == "none (extractive)" and plan["papers"] == 2
    assert plan["units"] == 2 + 12  # per paper: the question and the six facets; no synthesis
    assert len(plan["extractive"]) == 2 and len(plan["not_made"]) == 1
    empty = desk.plan(ReportRequest(("wheat.pdf",), synthesis=True), owner="local").to_dict()
    assert empty["units"] == 0 and empty["not_made"] == [
        "the synthesis: it needs two or more papers"
    ]
    with pytest.raises(InputError, match="nothing to report"):
        desk.submit(ReportRequest(("wheat.pdf",), synthesis=True), owner="local")


def test_build_job_reports_progress_per_unit_and_writes_the_cli_file(desk: ReportsArea) -> None:
    form = ReportRequest(PAPERS, questions=("Which cameras were used?",), summary="bullets")
    job = desk.submit(form, owner="local")
    assert job.job.kind == JOB_KIND and job.job.status == "queued"
    seen: list[tuple[int, int | None, str | None]] = []
    original = desk.jobs.progress

    def spy(claimed, done, total, current=None, **kw):  # type: ignore[no-untyped-def]
        seen.append((done, total, current))
        return original(claimed, done, total, current, **kw)

    desk.jobs.progress = spy  # type: ignore[method-assign]
    assert JobRunner(desk.jobs, desk.handlers()).run_once()
    view = desk.job(job.id, owner="local").job
    assert view.status == "done", view.message
    assert view.done == view.total == 15  # 2 question units + 12 facets + the HTML file
    dones = [d for d, _, _ in seen]
    assert dones == sorted(dones) and dones[0] == 0 and len(set(dones)) == 16
    assert any(c and c.startswith("summary aim · ") for _, _, c in seen)
    assert view.result is not None
    built = desk.report(job.id, owner="local")
    path, name = built.path, built.file_name
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}_synthesis_report_[\w.-]+\.html", name)
    assert view.result["file_name"] == name and path.parent.name == job.id
    # the server's build links its PDFs to the workspace viewer, never to the server's disk
    html = path.read_text(encoding="utf-8")
    links = set(re.findall(r'href="([^"#]+)', html))
    pdf_links = {h for h in links if h.startswith("/library/pdf/")}
    assert pdf_links and all(
        re.fullmatch(r"/library/pdf/[0-9a-f]{64}(\?page=\d+)?", h) for h in pdf_links
    ), links
    assert any("?page=" in h for h in pdf_links), links
    assert "file://" not in html and str(desk.pdfs.settings.resolved_data_dir()) not in html
    # a job claimed again (its worker died after writing) finds the finished file
    stamp = path.stat().st_mtime_ns
    again = desk.build_job(job.id, form, owner="local")
    assert again.path == path and path.stat().st_mtime_ns == stamp
    with pytest.raises(JobNotFound):
        desk.job("0" * 32, owner="local")
    with pytest.raises(JobNotFound):
        desk.job(job.id, owner="someone-else")  # another owner's job is not found
    with pytest.raises(ReportNotFound):
        desk.report(job.id, owner="someone-else")  # a report is its owner's
    assert [r.build_id for r in desk.reports(owner="local").reports] == [job.id]
    assert desk.reports(owner="someone-else").to_dict() == {"reports": []}
    other = desk.jobs.submit("library.index", {}, owner="local")
    with pytest.raises(ReportNotFound):
        desk.job(other.id, owner="local")  # another kind's job is not a report build


def test_a_cancelled_build_stops_between_units_and_writes_nothing(desk: ReportsArea) -> None:
    form = ReportRequest(PAPERS, questions=("Which cameras were used?",), summary="bullets")
    job = desk.submit(form, owner="local")
    original = desk.jobs.progress

    def cancel_at_three(claimed, done, total, current=None, **kw):  # type: ignore[no-untyped-def]
        if done == 3:
            desk.cancel(job.id, owner="local")
        return original(claimed, done, total, current, **kw)

    desk.jobs.progress = cancel_at_three  # type: ignore[method-assign]
    JobRunner(desk.jobs, desk.handlers()).run_once()
    view = desk.job(job.id, owner="local").job
    assert view.status == "cancelled" and view.done == 3
    with pytest.raises(ReportNotFound):
        desk.report(job.id, owner="local")
    assert not list(Path(desk.web_folder).glob(f"{job.id}/*.html"))


def test_a_build_interrupted_by_a_server_stop_goes_back_to_the_queue_and_resumes(
    desk: ReportsArea,
) -> None:
    form = ReportRequest(PAPERS, questions=("Which cameras were used?",), summary="bullets")
    job = desk.submit(form, owner="local")
    first = JobRunner(desk.jobs, desk.handlers())
    original = desk.jobs.progress

    def stop_at_two(claimed, done, total, current=None, **kw):  # type: ignore[no-untyped-def]
        if done == 2:
            first._stopping.set()  # what JobRunner.stop() does first (the server shuts down)
        return original(claimed, done, total, current, **kw)

    desk.jobs.progress = stop_at_two  # type: ignore[method-assign]
    assert first.run_once()
    view = desk.job(job.id, owner="local").job
    assert view.status == "queued"  # handed back, not failed or cancelled
    with pytest.raises(ReportNotFound):
        desk.report(job.id, owner="local")
    desk.jobs.progress = original  # type: ignore[method-assign]
    assert JobRunner(desk.jobs, desk.handlers()).run_once()  # "after the restart"
    done = desk.job(job.id, owner="local").job
    assert done.status == "done" and done.result is not None
    assert desk.report(job.id, owner="local").file_name == done.result["file_name"]


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({}, "scope"),
        ({"papers": ("a.pdf",), "whole_library": True}, "scope"),
        ({"whole_library": True, "summary": "long"}, "summary"),
        ({"whole_library": True, "detail_mode": "all"}, "detail_mode"),
        ({"whole_library": True, "layout": "grid"}, "layout"),
        ({"whole_library": True, "top_k": 21}, "top_k"),
        ({"whole_library": True, "top_k": 0}, "top_k"),
        ({"whole_library": True, "questions": ("q?",) * 21}, "too_many_questions"),
        ({"whole_library": True, "questions": ("q" * 1001,)}, "question_too_long"),
        ({"whole_library": True, "chat_token": "short"}, "session"),
    ],
)
def test_the_request_is_checked_once_for_both_faces(kwargs: dict, code: str) -> None:
    with pytest.raises(InputError) as err:
        ReportRequest(**kwargs)
    assert err.value.code == code


def test_the_request_drops_blank_questions_and_keeps_its_job_params() -> None:
    request = ReportRequest(
        PAPERS, questions=(" Which cameras? ", "", "  "), language="  de ", layout="compare",
        chat_token="t" * 40,
    )  # fmt: skip
    assert request.write is True and request.questions == ("Which cameras?",)
    assert request.language == "de"
    params = request.to_params("a" * 40)
    assert "t" * 40 not in str(params)  # the chat's token is never stored, its session id is
    again, session = ReportRequest.from_params(params)
    assert session == "a" * 40
    assert again == ReportRequest(
        PAPERS, questions=("Which cameras?",), language="de", layout="compare"
    )
    with pytest.raises(InputError):
        ReportRequest.from_params({**params, "chat_session": "../x"})


class FakeChat:
    """A :class:`ChatLink` with one answered question over the two papers."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, tuple[str, ...], bool]] = []

    def session_id(self, token: str, *, owner: str) -> str:
        return f"{owner}:{token}".encode().hex()[:40].ljust(40, "0")

    def draft(self, token: str, *, owner: str) -> ChatDraft:
        return ChatDraft(PAPERS, False, ("Which cameras were used?",), True)

    def answers(
        self, session_id: str, papers: Sequence[str], *, whole_library: bool
    ) -> Mapping[str, ChatAnswer]:
        self.asked.append((session_id, tuple(papers), whole_library))
        return {
            "Which cameras were used?": {
                "answer": "Time-lapse cameras on two bridges [1].",
                "citations": [
                    {"label": 1, "file": "cameras.pdf", "page": 1, "text": "time-lapse cameras"}
                ],
                "extractive": False,
                "warnings": [],
            }
        }


def test_the_wizard_and_a_build_reuse_the_owners_chat(
    settings: Settings, store: Store, wordllama: WordLlamaEmbedder
) -> None:
    lib = Library(settings, models=Models(settings), embedder=wordllama, store=store)
    chat = FakeChat()
    area = ReportsArea(lib, Jobs(store), chat=chat)
    try:
        wizard = area.wizard("t" * 40, owner="acct-1").to_dict()
        assert wizard["form"]["papers"] == list(PAPERS)  # type: ignore[index]
        assert wizard["form"]["detail_mode"] == "cross-paper"  # type: ignore[index]
        assert wizard["from_chat"] is True and wizard["library"] == list(PAPERS)
        assert wizard["plan"]["units"] == 1  # type: ignore[index]
        request = ReportRequest(
            PAPERS, questions=("Which cameras were used?",), detail_mode="cross-paper",
            chat_token="t" * 40,
        )  # fmt: skip
        job = area.submit(request, owner="acct-1")
        session = chat.session_id("t" * 40, owner="acct-1")
        assert job.job.params["chat_session"] == session
        assert JobRunner(area.jobs, area.handlers()).run_once()
        done = area.job(job.id, owner="acct-1").job
        assert done.status == "done", done.message
        assert chat.asked == [(session, PAPERS, False)]
        html = area.report(job.id, owner="acct-1").html()
        assert "Time-lapse cameras on two bridges" in html
    finally:
        lib.close()


def test_the_cli_build_runs_the_jobs_build_and_writes_where_asked(
    desk: ReportsArea, tmp_path: Path
) -> None:
    request = ReportRequest(("wheat.pdf",), questions=("Yield?",), write=False)
    result = desk.build(request, owner="local")
    assert result.path is None and result.to_dict()["path"] is None
    assert [p["file"] for p in result.to_dict()["papers"]] == ["wheat.pdf"]  # type: ignore[attr-defined]
    written = desk.build(ReportRequest(("wheat.pdf",), questions=("Yield?",)), owner="local")
    assert written.path is not None and written.path.parent == desk.folder
    # the CLI's file is opened on this machine: its links open the PDF itself at the page
    html = written.path.read_text(encoding="utf-8")
    assert "file://" in html and "#page=" in html and "/library/pdf/" not in html
    with pytest.raises(InputError, match="exists"):  # not replaced without force
        desk.build(
            ReportRequest(("wheat.pdf",), questions=("Yield?",), output=written.path),
            owner="local",
        )
    with pytest.raises(InputError, match="nothing to report"):  # the build's own refusal
        desk.build(ReportRequest(whole_library=True, write=False), owner="local")


def test_a_report_tries_adoption_for_its_scope_and_discloses_it(
    settings: Settings, store: Store, wordllama: WordLlamaEmbedder, folder: Path
) -> None:
    from tests.services.synthesis.conftest import CAMERAS, write_pdf

    from litdesk._errors import RefusedError
    from litdesk.core.records import make_paper

    title = "Reading River Gauges from Bridge Cameras"
    write_pdf(folder / "gauge.pdf", [f"{title}\ndoi: 10.5555/gauge.2021.3\n{CAMERAS}"])
    calls: list[tuple[str, str, str]] = []

    def lookups(owner: str):  # type: ignore[no-untyped-def]
        def lookup(ns: str, value: str):  # type: ignore[no-untyped-def]
            calls.append((owner, ns, value))
            return make_paper(title=title, doi=value)

        return lookup

    lib = Library(settings, models=Models(settings), embedder=wordllama, store=store)
    try:
        request = ReportRequest(
            ("gauge.pdf", "wheat.pdf"), questions=("How was it read?",), write=False
        )
        desk = ReportsArea(lib, Jobs(store), lookup=lookups)
        report = desk.build(request, owner="ann").report  # nothing indexed before
        # only the scope's PDF that prints a DOI is looked up, in the owner's allowance
        assert calls == [("ann", "doi", "10.5555/gauge.2021.3")]
        (said,) = [w for w in report.warnings if "metadata looked up" in w]
        assert "for 1 PDF of" in said and "adopted: gauge.pdf" in said and "allowance" in said
        gauge = next(p for p in report.labelled.papers if p.file == "gauge.pdf")
        assert gauge.title == title
        again = desk.build(request, owner="ann").report  # adopted once: no second lookup
        assert len(calls) == 1 and not any("metadata looked up" in w for w in again.warnings)

        # the CLI's store-only app has no event loop: nothing is looked up, nothing said
        def closed(owner: str):  # type: ignore[no-untyped-def]
            raise RefusedError("the app is not open", code="app_closed")

        write_pdf(folder / "gauge2.pdf", [f"{title} II\ndoi: 10.5555/gauge.2022.4\n{CAMERAS}"])
        other = ReportRequest(("gauge2.pdf",), questions=("How was it read?",), write=False)
        quiet = ReportsArea(lib, Jobs(store), lookup=closed).build(other, owner="ann")
        assert not any("metadata looked up" in w for w in quiet.report.warnings)
        assert len(calls) == 1
    finally:
        lib.close()
