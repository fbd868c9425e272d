"""Whole searches into a Study and its update rounds: the search page's "Add all results to
a Study" (preview → confirm → the job's progress with cancel), the Study page's "Update
searches" and "Begin an update round" (issue 28: for exports of databases litdesk cannot
query), and their ``/api/v1`` twins."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk.services.studies import (
    MAX_ROUND_NOTE,
    WHOLE_DEFAULT_CAP,
    AddSearchRequest,
    BeginRoundRequest,
    UpdateStudyRequest,
)

from .._deps import AppDep, OwnerDep
from .._render import page
from ._common import StudyRef
from .jobs import JobId
from .search import SearchParams

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["studies"])


class WholeSearchBody(SearchParams):
    """A search (the search form's fields) to add whole, and the cap per lane."""

    q: str = Field(description="The query (litdesk query language).")  # required here
    cap: int = Field(WHOLE_DEFAULT_CAP, description="Records per lane at most (1-10,000).")


class WholeSearchForm(WholeSearchBody):
    study: str = Field(description="The Study (id or name).", max_length=200)


class UpdateBody(BaseModel):
    """An update round: which databases of the saved searches to re-run (none: all)."""

    providers: list[str] = Field(
        default_factory=list,
        max_length=10,
        description="Re-run only these databases (say, the one that failed last time).",
    )


class UpdateForm(BaseModel):
    """The Study page's update form: the databases ticked (none ticked: all of them)."""

    provider: list[str] = Field(default_factory=list, max_length=10)


class RoundBody(BaseModel):
    """An update round begun by hand: what it is (optional)."""

    note: str = Field(
        "",
        max_length=MAX_ROUND_NOTE,
        description="What the round is (say, the databases re-run and the exports' date).",
    )


def _request(study: str, body: WholeSearchBody) -> AddSearchRequest:
    return AddSearchRequest(study, body.request(), body.cap)


def _job_view(data: dict[str, Any]) -> dict[str, Any]:
    """A job's data with its lanes and counts read for the page."""
    job = data["job"]
    result = job.get("result") or {}
    data["searches_done"] = result.get("searches", [])
    data["cancelled"] = bool(result.get("cancelled"))
    # a job none of whose lanes returned records: what happened, once (each lane's why is
    # its line below); other failures: the job's message
    data["failed_summary"] = str(result.get("failed") or "")
    return data


# --- JSON API ---------------------------------------------------------------------------


@api.post(
    "/studies/{ref}/searches/preview",
    summary="Before adding a search whole: each lane's total, the cap, requests and allowance",
)
async def preview_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, body: WholeSearchBody
) -> dict[str, Any]:
    preview = await app.studies.preview_add_search(_request(ref, body), owner=owner)
    return preview.to_dict()


@api.post(
    "/studies/{ref}/searches",
    summary="Add every record of a search to a Study (a job: watch it, cancel it)",
    status_code=202,
)
def add_api(app: AppDep, owner: OwnerDep, ref: StudyRef, body: WholeSearchBody) -> Response:
    started = app.studies.add_search(_request(ref, body), owner=owner)
    return JSONResponse(started.to_dict(), status_code=202)


@api.post(
    "/studies/{ref}/update",
    summary="Re-run the Study's saved searches as an update round (a job)",
    status_code=202,
)
def update_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, body: UpdateBody | None = None
) -> Response:
    providers = tuple(body.providers) if body is not None else ()
    started = app.studies.update_study(UpdateStudyRequest(ref, providers), owner=owner)
    return JSONResponse(started.to_dict(), status_code=202)


@api.get(
    "/study-search-jobs/{job_id}",
    summary="A whole-search or update job: progress per lane, result, exit status",
)
def job_api(app: AppDep, owner: OwnerDep, job_id: JobId) -> dict[str, Any]:
    return app.studies.search_job(job_id, owner=owner).to_dict()


@api.post("/study-search-jobs/{job_id}/cancel", summary="Stop a whole-search or update job")
def cancel_api(app: AppDep, owner: OwnerDep, job_id: JobId) -> dict[str, Any]:
    return app.studies.cancel_search_job(job_id, owner=owner).to_dict()


@api.get(
    "/studies/{ref}/search-rounds",
    summary="A Study's whole searches by round (0: added; N: update round N) with reports",
)
def rounds_api(app: AppDep, owner: OwnerDep, ref: StudyRef) -> dict[str, Any]:
    return app.studies.search_rounds(ref, owner=owner).to_dict()


@api.post(
    "/studies/{ref}/rounds",
    summary="Begin the Study's next update round by hand (imports after it count in it)",
    status_code=201,
)
def begin_round_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, body: RoundBody | None = None
) -> Response:
    note = body.note if body is not None else ""
    begun = app.studies.begin_round(BeginRoundRequest(ref, note), owner=owner)
    return JSONResponse(begun.to_dict(), status_code=201)


# --- pages ------------------------------------------------------------------------------


@pages.post("/study-search/preview", response_class=HTMLResponse)
async def preview_page(
    request: Request, app: AppDep, owner: OwnerDep, form: Annotated[WholeSearchForm, Form()]
) -> Response:
    preview = await app.studies.preview_add_search(_request(form.study, form), owner=owner)
    data = preview.to_dict() | {
        "form": form.model_dump(exclude={"study", "cursor", "page", "history"})
    }
    return page(request, "study_search_preview.html", data, title="Add all results to a Study")


@pages.post("/study-search")
def add_form(app: AppDep, owner: OwnerDep, form: Annotated[WholeSearchForm, Form()]) -> Response:
    started = app.studies.add_search(_request(form.study, form), owner=owner)
    return RedirectResponse(f"/study-search-jobs/{started.job.id}", status_code=303)


@pages.post("/study/{ref}/update")
def update_form(
    app: AppDep, owner: OwnerDep, ref: StudyRef, form: Annotated[UpdateForm, Form()]
) -> Response:
    started = app.studies.update_study(UpdateStudyRequest(ref, tuple(form.provider)), owner=owner)
    return RedirectResponse(f"/study-search-jobs/{started.job.id}", status_code=303)


@pages.post("/study/{ref}/rounds")
def begin_round_form(
    app: AppDep, owner: OwnerDep, ref: StudyRef, form: Annotated[RoundBody, Form()]
) -> Response:
    begun = app.studies.begin_round(BeginRoundRequest(ref, form.note), owner=owner)
    return RedirectResponse(f"/study/{begun.study_id}#begun-rounds", status_code=303)


@pages.get("/study-search-jobs/{job_id}", response_class=HTMLResponse)
async def job_page(request: Request, app: AppDep, owner: OwnerDep, job_id: JobId) -> Response:
    view = await run_in_threadpool(app.studies.search_job, job_id, owner=owner)
    title = "Updating a Study" if view.job.kind == "studies.update" else "Adding a search"
    return page(request, "study_search_job.html", _job_view(view.to_dict()), title=title)


@pages.post("/study-search-jobs/{job_id}/cancel")
def cancel_form(app: AppDep, owner: OwnerDep, job_id: JobId) -> Response:
    app.studies.cancel_search_job(job_id, owner=owner)
    return RedirectResponse(f"/study-search-jobs/{job_id}", status_code=303)
