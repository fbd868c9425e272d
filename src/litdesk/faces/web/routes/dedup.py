"""Deduplicating a Study's imported records: run (a job with progress, cancellable), the
review of uncertain pairs side by side, decisions and their withdrawal; the page's forms
work without JavaScript and every write has its ``/api/v1`` twin."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, Depends, Form, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk._errors import NotFoundError, RefusedError
from litdesk.services.app import App
from litdesk.services.desk import DedupDesk

from .._deps import DeskDep, app_of
from .._render import page
from ._common import StudyRef

__all__ = ["PAGE_PAIRS", "api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["dedup"])

#: Pairs shown on one page of the review (the keyboard moves across pages by links).
PAGE_PAIRS: Final = 25
#: A deduplication job's id, which is also its run's id (a job id of the store's queue).
_ID: Final = r"^[0-9a-f]{32}$"
JobId = Annotated[str, Path(pattern=_ID, description="A deduplication job.")]
RunId = Annotated[str, Field(pattern=_ID, description="The run reviewed.")]
Verdict = Literal["merge", "distinct"]


def get_dedup(request: Request, desk: DeskDep) -> DedupDesk:
    """The deduplication use cases of the request's owner over the app's job queue (every
    state is in the store: any worker answers for any run)."""
    app = app_of(request.app)
    if not isinstance(app, App):  # a stand-in (tests) has no store and no job queue
        raise RefusedError("deduplication needs the store's job queue", code="no_jobs")
    return DedupDesk(desk, app.jobs, wake=app.job_runner.wake)


DedupDep = Annotated[DedupDesk, Depends(get_dedup)]


class DecisionBody(BaseModel):
    run_id: RunId
    pair: int = Field(ge=0, le=1_000_000, description="The pair's place in the run's queue.")
    decision: Verdict


class UndoBody(BaseModel):
    seq: int = Field(ge=1, description="The history entry of the decision to withdraw.")


def _page_view(dd: DedupDesk, ref: str, page_no: int, job_id: str | None) -> dict[str, Any]:
    data = dd.review(ref).to_dict()
    pairs = data["pairs"]
    pages_total = max(1, -(-len(pairs) // PAGE_PAIRS))
    page_no = min(max(1, page_no), pages_total)
    data["shown"] = pairs[(page_no - 1) * PAGE_PAIRS : page_no * PAGE_PAIRS]
    data["page"], data["pages"] = page_no, pages_total
    if job_id and data["job"] is None:
        try:
            data["job"] = dd.job(job_id).to_dict()  # finished: its outcome (cancelled, failed)
        except NotFoundError:
            data["job"] = None
    return data


def _back(ref: str, page_no: int = 1, anchor: str = "") -> RedirectResponse:
    return RedirectResponse(f"/study/{ref}/dedup?page={page_no}{anchor}", status_code=303)


# --- the page and its forms (no JavaScript needed) --------------------------------------


@pages.get("/study/{ref}/dedup", response_class=HTMLResponse)
def dedup_page(
    request: Request,
    dd: DedupDep,
    ref: StudyRef,
    page_no: Annotated[int, Query(alias="page", ge=1, le=100_000)] = 1,
    job: Annotated[str | None, Query(pattern=_ID)] = None,
) -> Response:
    data = _page_view(dd, ref, page_no, job)
    return page(request, "dedup.html", data, title="Deduplicate")


@pages.post("/study/{ref}/dedup/run")
def run_form(dd: DedupDep, ref: StudyRef) -> Response:
    job = dd.start(ref)
    return RedirectResponse(f"/study/{job.study_id}/dedup?job={job.id}", status_code=303)


@pages.post("/dedup-jobs/{job_id}/cancel")
def cancel_form(dd: DedupDep, job_id: JobId) -> Response:
    job = dd.cancel(job_id)
    return RedirectResponse(f"/study/{job.study_id}/dedup?job={job.id}", status_code=303)


@pages.post("/study/{ref}/dedup/decisions")
def decide_form(
    dd: DedupDep,
    ref: StudyRef,
    run_id: Annotated[str, Form(pattern=_ID)],
    pair: Annotated[int, Form(ge=0, le=1_000_000)],
    decision: Annotated[Verdict, Form()],
) -> Response:
    dd.decide(ref, run_id, pair, decision)
    return _back(ref, pair // PAGE_PAIRS + 1, f"#pair-{pair}")


@pages.post("/study/{ref}/dedup/undo")
def undo_form(dd: DedupDep, ref: StudyRef, seq: Annotated[int, Form(ge=1)]) -> Response:
    done = dd.undo(ref, seq)
    pair = done["pair"]
    if pair is None:
        return _back(ref, 1, "#history-h")
    return _back(ref, pair // PAGE_PAIRS + 1, f"#pair-{pair}")


# --- the JSON API ------------------------------------------------------------------------


@api.get(
    "/studies/{ref}/dedup",
    summary="A Study's latest deduplication run: counts, the review queue, the history",
)
def dedup_api(dd: DedupDep, ref: StudyRef) -> dict[str, Any]:
    return dd.review(ref).to_dict()


@api.post(
    "/studies/{ref}/dedup/runs",
    summary="Start deduplicating a Study's imported records (a job; watch it, cancel it)",
)
def run_api(dd: DedupDep, ref: StudyRef) -> dict[str, Any]:
    return dd.start(ref).to_dict()


@api.get("/dedup-jobs/{job_id}", summary="A deduplication job's progress and outcome")
def job_api(dd: DedupDep, job_id: JobId) -> dict[str, Any]:
    return dd.job(job_id).to_dict()


@api.post(
    "/dedup-jobs/{job_id}/cancel",
    summary="Cancel a running deduplication job (nothing is recorded)",
)
def cancel_api(dd: DedupDep, job_id: JobId) -> dict[str, Any]:
    return dd.cancel(job_id).to_dict()


@api.post(
    "/studies/{ref}/dedup/decisions",
    summary="Merge or keep separate a pair of the review queue (into the Study's history)",
)
async def decide_api(dd: DedupDep, ref: StudyRef, body: DecisionBody) -> dict[str, Any]:
    return await run_in_threadpool(dd.decide, ref, body.run_id, body.pair, body.decision)


@api.post(
    "/studies/{ref}/dedup/undo",
    summary="Withdraw a decision still in force (an 'undone' entry; nothing erased)",
)
async def undo_api(dd: DedupDep, ref: StudyRef, body: UndoBody) -> dict[str, Any]:
    return await run_in_threadpool(dd.undo, ref, body.seq)
