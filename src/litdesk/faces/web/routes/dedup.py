"""Deduplicating a Study's imported records: run (a job with progress, cancellable), the
review of uncertain pairs side by side, decisions and their withdrawal; the page's forms
work without JavaScript and every write has its ``/api/v1`` twin."""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk._errors import NotFoundError
from litdesk.services.app import App
from litdesk.services.dedup import DecideRequest, Verdict

from .._deps import AppDep, OwnerDep
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


class DecisionBody(BaseModel):
    run_id: RunId
    pair: int = Field(ge=0, le=1_000_000, description="The pair's place in the run's queue.")
    decision: Verdict


class UndoBody(BaseModel):
    seq: int = Field(ge=1, description="The history entry of the decision to withdraw.")


def _page_view(app: App, owner: str, ref: str, page_no: int, job_id: str | None) -> dict[str, Any]:
    view = app.dedup.review(ref, owner=owner)
    data: dict[str, Any] = view.to_dict()
    pairs = list(view.pairs)
    pages_total = max(1, -(-len(pairs) // PAGE_PAIRS))
    page_no = min(max(1, page_no), pages_total)
    data["shown"] = pairs[(page_no - 1) * PAGE_PAIRS : page_no * PAGE_PAIRS]
    data["page"], data["pages"] = page_no, pages_total
    if job_id and view.job is None:
        try:  # finished: its outcome (cancelled, failed)
            data["job"] = app.dedup.job(job_id, owner=owner).to_dict()
        except NotFoundError:
            data["job"] = None
    return data


def _back(ref: str, page_no: int = 1, anchor: str = "") -> RedirectResponse:
    return RedirectResponse(f"/study/{ref}/dedup?page={page_no}{anchor}", status_code=303)


# --- the page and its forms (no JavaScript needed) --------------------------------------


@pages.get("/study/{ref}/dedup", response_class=HTMLResponse)
def dedup_page(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    page_no: Annotated[int, Query(alias="page", ge=1, le=100_000)] = 1,
    job: Annotated[str | None, Query(pattern=_ID)] = None,
) -> Response:
    data = _page_view(app, owner, ref, page_no, job)
    return page(request, "dedup.html", data, title="Deduplicate")


@pages.post("/study/{ref}/dedup/run")
def run_form(app: AppDep, owner: OwnerDep, ref: StudyRef) -> Response:
    job = app.dedup.start(ref, owner=owner)
    return RedirectResponse(f"/study/{job.study_id}/dedup?job={job.id}", status_code=303)


@pages.post("/dedup-jobs/{job_id}/cancel")
def cancel_form(app: AppDep, owner: OwnerDep, job_id: JobId) -> Response:
    job = app.dedup.cancel(job_id, owner=owner)
    return RedirectResponse(f"/study/{job.study_id}/dedup?job={job.id}", status_code=303)


@pages.post("/study/{ref}/dedup/decisions")
def decide_form(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    run_id: Annotated[str, Form(pattern=_ID)],
    pair: Annotated[int, Form(ge=0, le=1_000_000)],
    decision: Annotated[Verdict, Form()],
) -> Response:
    app.dedup.decide(DecideRequest(ref, run_id, pair, decision), owner=owner)
    return _back(ref, pair // PAGE_PAIRS + 1, f"#pair-{pair}")


@pages.post("/study/{ref}/dedup/undo")
def undo_form(
    app: AppDep, owner: OwnerDep, ref: StudyRef, seq: Annotated[int, Form(ge=1)]
) -> Response:
    pair = app.dedup.undo(ref, seq, owner=owner).pair
    if pair is None:
        return _back(ref, 1, "#history-h")
    return _back(ref, pair // PAGE_PAIRS + 1, f"#pair-{pair}")


# --- the JSON API ------------------------------------------------------------------------


@api.get(
    "/studies/{ref}/dedup",
    summary="A Study's latest deduplication run: counts, the review queue, the history",
)
def dedup_api(app: AppDep, owner: OwnerDep, ref: StudyRef) -> dict[str, object]:
    return app.dedup.review(ref, owner=owner).to_dict()


@api.post(
    "/studies/{ref}/dedup/runs",
    summary="Start deduplicating a Study's imported records (a job; watch it, cancel it)",
)
def run_api(app: AppDep, owner: OwnerDep, ref: StudyRef) -> dict[str, object]:
    return app.dedup.start(ref, owner=owner).to_dict()


@api.get("/dedup-jobs/{job_id}", summary="A deduplication job's progress and outcome")
def job_api(app: AppDep, owner: OwnerDep, job_id: JobId) -> dict[str, object]:
    return app.dedup.job(job_id, owner=owner).to_dict()


@api.post(
    "/dedup-jobs/{job_id}/cancel",
    summary="Cancel a running deduplication job (nothing is recorded)",
)
def cancel_api(app: AppDep, owner: OwnerDep, job_id: JobId) -> dict[str, object]:
    return app.dedup.cancel(job_id, owner=owner).to_dict()


@api.post(
    "/studies/{ref}/dedup/decisions",
    summary="Merge or keep separate a pair of the review queue (into the Study's history)",
)
async def decide_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, body: DecisionBody
) -> dict[str, object]:
    asked = DecideRequest(ref, body.run_id, body.pair, body.decision)
    view = await run_in_threadpool(app.dedup.decide, asked, owner=owner)
    return view.to_dict()


@api.post(
    "/studies/{ref}/dedup/undo",
    summary="Withdraw a decision still in force (an 'undone' entry; nothing erased)",
)
async def undo_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, body: UndoBody
) -> dict[str, object]:
    view = await run_in_threadpool(app.dedup.undo, ref, body.seq, owner=owner)
    return view.to_dict()
