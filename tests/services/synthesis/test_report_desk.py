"""The report wizard's service: the plan said before a build, the build as a report.build
job (progress per unit, cancel, a resumed job finding its finished file), the chat's
answers reused — over a real library and the real jobs table (SQLite)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from litdesk._errors import InputError
from litdesk._settings import Settings
from litdesk.adapters.embeddings import WordLlamaEmbedder
from litdesk.adapters.store import Store, open_store
from litdesk.services.jobs import JobNotFound, JobRunner, Jobs
from litdesk.services.library import Library
from litdesk.services.models import Models
from litdesk.services.synthesis import JOB_KIND, ReportDesk, ReportNotFound, WizardForm

PAPERS = ("cameras.pdf", "wheat.pdf")


@pytest.fixture
def store(settings: Settings) -> Iterator[Store]:
    s = open_store(settings)
    yield s
    s.dispose()


@pytest.fixture
def desk(settings: Settings, store: Store, wordllama: WordLlamaEmbedder) -> Iterator[ReportDesk]:
    lib = Library(settings, models=Models(settings), embedder=wordllama, store=store)
    yield ReportDesk(lib, Jobs(store))
    lib.close()


def test_plan_without_a_model_names_extractive_parts_and_what_cannot_be_made(
    desk: ReportDesk,
) -> None:
    form = WizardForm(PAPERS, questions=("Which cameras?",), summary="prose", synthesis=True)
    plan = desk.plan(form).to_dict()
    assert plan["model"] == "none (extractive)" and plan["papers"] == 2
    assert plan["units"] == 2 + 12  # per paper: the question and the six facets; no synthesis
    assert len(plan["extractive"]) == 2 and len(plan["not_made"]) == 1
    empty = desk.plan(WizardForm(("wheat.pdf",), synthesis=True)).to_dict()
    assert empty["units"] == 0 and empty["not_made"] == [
        "the synthesis: it needs two or more papers"
    ]
    with pytest.raises(InputError, match="nothing to report"):
        desk.submit(WizardForm(("wheat.pdf",), synthesis=True), owner="local")


def test_build_job_reports_progress_per_unit_and_writes_the_cli_file(desk: ReportDesk) -> None:
    form = WizardForm(PAPERS, questions=("Which cameras were used?",), summary="bullets")
    job = desk.submit(form, owner="local")
    assert job.kind == JOB_KIND and job.status == "queued"
    seen: list[tuple[int, int | None, str | None]] = []
    original = desk.jobs.progress

    def spy(claimed, done, total, current=None, **kw):  # type: ignore[no-untyped-def]
        seen.append((done, total, current))
        return original(claimed, done, total, current, **kw)

    desk.jobs.progress = spy  # type: ignore[method-assign]
    assert JobRunner(desk.jobs, {JOB_KIND: desk.run_job}).run_once()
    view = desk.job(job.id, owner="local")
    assert view.status == "done", view.message
    assert view.done == view.total == 15  # 2 question units + 12 facets + the HTML file
    dones = [d for d, _, _ in seen]
    assert dones == sorted(dones) and dones[0] == 0 and len(set(dones)) == 16
    assert any(c and c.startswith("summary aim · ") for _, _, c in seen)
    assert view.result is not None
    path, name = desk.report(job.id, owner="local")
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}_synthesis_report_[\w.-]+\.html", name)
    assert view.result["file_name"] == name and path.parent.name == job.id
    # a job claimed again (its worker died after writing) finds the finished file
    stamp = path.stat().st_mtime_ns
    again = desk.build(job.id, form)
    assert again.path == path and path.stat().st_mtime_ns == stamp
    with pytest.raises(JobNotFound):
        desk.job("0" * 32, owner="local")
    with pytest.raises(JobNotFound):
        desk.job(job.id, owner="someone-else")  # another owner's job is not found
    with pytest.raises(ReportNotFound):
        desk.report(job.id, owner="someone-else")  # a report is its owner's
    assert [r["build_id"] for r in desk.reports(owner="local")] == [job.id]
    assert desk.reports(owner="someone-else") == []
    other = desk.jobs.submit("library.index", {}, owner="local")
    with pytest.raises(ReportNotFound):
        desk.job(other.id, owner="local")  # another kind's job is not a report build


def test_a_cancelled_build_stops_between_units_and_writes_nothing(desk: ReportDesk) -> None:
    form = WizardForm(PAPERS, questions=("Which cameras were used?",), summary="bullets")
    job = desk.submit(form, owner="local")
    original = desk.jobs.progress

    def cancel_at_three(claimed, done, total, current=None, **kw):  # type: ignore[no-untyped-def]
        if done == 3:
            desk.cancel(job.id, owner="local")
        return original(claimed, done, total, current, **kw)

    desk.jobs.progress = cancel_at_three  # type: ignore[method-assign]
    JobRunner(desk.jobs, {JOB_KIND: desk.run_job}).run_once()
    view = desk.job(job.id, owner="local")
    assert view.status == "cancelled" and view.done == 3
    with pytest.raises(ReportNotFound):
        desk.report(job.id, owner="local")
    assert not list(Path(desk.folder).glob(f"{job.id}/*.html"))


def test_a_build_interrupted_by_a_server_stop_goes_back_to_the_queue_and_resumes(
    desk: ReportDesk,
) -> None:
    form = WizardForm(PAPERS, questions=("Which cameras were used?",), summary="bullets")
    job = desk.submit(form, owner="local")
    first = JobRunner(desk.jobs, {JOB_KIND: desk.run_job})
    original = desk.jobs.progress

    def stop_at_two(claimed, done, total, current=None, **kw):  # type: ignore[no-untyped-def]
        if done == 2:
            first._stopping.set()  # what JobRunner.stop() does first (the server shuts down)
        return original(claimed, done, total, current, **kw)

    desk.jobs.progress = stop_at_two  # type: ignore[method-assign]
    assert first.run_once()
    view = desk.job(job.id, owner="local")
    assert view.status == "queued"  # handed back, not failed or cancelled
    with pytest.raises(ReportNotFound):
        desk.report(job.id, owner="local")
    desk.jobs.progress = original  # type: ignore[method-assign]
    assert JobRunner(desk.jobs, {JOB_KIND: desk.run_job}).run_once()  # "after the restart"
    done = desk.job(job.id, owner="local")
    assert done.status == "done" and done.result is not None
    assert desk.report(job.id, owner="local")[1] == done.result["file_name"]
