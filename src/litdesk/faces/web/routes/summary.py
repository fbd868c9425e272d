"""The Study page's summary panel: the numbered sources, the consent notice bound to the
exact text, one model call giving a verified draft, and the reviewed draft saved as a
Study report (listed; printable offline HTML as a download)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk.core.assist import ConsentRequired
from litdesk.services.assist import (
    SUMMARY_KIND,
    AllowanceRefused,
    SaveSummaryReport,
    SummaryRequest,
)

from .._deps import AppDep, OwnerDep
from ._assist_jobs import accepted, refusal
from ._common import StudyRef

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["studies"])

SourceId = Annotated[str, Field(pattern=r"^S[1-9][0-9]{0,2}$")]
ReportId = Annotated[
    str, PathParam(pattern=r"^rep_[0-9a-f]{20}$", description="A Study report id.")
]


class NoticeBody(BaseModel):
    focus: Literal["overview", "evidence", "handover"] = "overview"
    deselected: list[SourceId] = Field(default_factory=list, max_length=200)


class SummaryBody(NoticeBody):
    consent: str = Field(min_length=1, max_length=100)


class SaveBody(BaseModel):
    draft_id: str = Field(pattern=r"^sd_[0-9a-f]{24}$")
    drop: list[Annotated[str, Field(max_length=20)]] = Field(default_factory=list, max_length=32)
    reviewed: bool = False


@api.get("/studies/{ref}/summary/sources", summary="The numbered sources a summary would send")
async def summary_sources(app: AppDep, owner: OwnerDep, ref: StudyRef) -> dict[str, object]:
    request = SummaryRequest(ref)
    view = await run_in_threadpool(lambda: app.assist.summary_sources(request, owner=owner))
    return view.to_dict()


@api.post(
    "/studies/{ref}/summary/notice", summary="What a summary sends, where, and its consent token"
)
async def summary_notice_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, body: NoticeBody
) -> dict[str, object]:
    request = SummaryRequest(ref, body.focus, tuple(body.deselected))
    view = await run_in_threadpool(lambda: app.assist.summary_notice(request, owner=owner))
    return view.to_dict()


@api.post(
    "/studies/{ref}/summary",
    summary="One model call (a job): a verified summary draft to review",
    status_code=202,
    response_model=None,
)
async def summary_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, body: SummaryBody
) -> JSONResponse:
    """Checks the consent token (403 when the text changed), the Study's write right and
    the allowance (429 with ``Retry-After``), then answers 202 with the job; its
    ``status_url`` gives the draft when done, or the error the call met."""
    request = SummaryRequest(ref, body.focus, tuple(body.deselected), body.consent)
    try:
        job = await app.assist.summarise(request, owner=owner)
    except (ConsentRequired, AllowanceRefused) as exc:
        return refusal(exc, SUMMARY_KIND)
    return accepted(job)


@api.post("/studies/{ref}/reports", summary="Save a reviewed summary draft as a Study report")
async def report_save(
    app: AppDep, owner: OwnerDep, ref: StudyRef, body: SaveBody
) -> dict[str, Any]:
    request = SaveSummaryReport(ref, body.draft_id, body.reviewed, tuple(body.drop))
    report = await run_in_threadpool(lambda: app.assist.save_summary_report(request, owner=owner))
    return report.to_dict()


@api.get("/studies/{ref}/reports", summary="A Study's saved reports (re-checked on read)")
async def reports_api(app: AppDep, owner: OwnerDep, ref: StudyRef) -> dict[str, object]:
    listing = await run_in_threadpool(lambda: app.assist.study_reports(ref, owner=owner))
    return listing.to_dict()


@pages.get("/study/{ref}/reports/{report_id}.html")
@api.get("/studies/{ref}/reports/{report_id}.html", summary="A Study report as offline HTML")
async def report_download(
    app: AppDep, owner: OwnerDep, ref: StudyRef, report_id: ReportId
) -> Response:
    file = await run_in_threadpool(
        lambda: app.assist.study_report_file(ref, report_id, owner=owner)
    )
    return Response(
        file.html.encode("utf-8"),
        media_type="text/html; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="{file.filename}"'},
    )
