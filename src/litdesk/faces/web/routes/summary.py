"""The Study page's summary panel: the numbered sources, the consent notice bound to the
exact text, one model call giving a verified draft, and the reviewed draft saved as a
Study report (listed; printable offline HTML as a download)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from fastapi import APIRouter
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk._errors import ConfigError
from litdesk.core.assist import ConsentRequired
from litdesk.services.assist import AllowanceRefused, Assistant
from litdesk.services.desk import SUMMARY_KIND, Desk
from litdesk.services.summary import (
    report_file,
    save_report,
    study_packet,
    study_reports,
    summary_notice,
)

from .._deps import DeskDep
from ._assist_jobs import AssistDep, accepted, refusal
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


@contextmanager
def _assistant(desk: Desk) -> Iterator[Assistant]:
    with Assistant(desk.store, desk.settings) as assistant:
        yield assistant


def _sources(desk: Desk, ref: str) -> dict[str, Any]:
    out = study_packet(desk.store, ref, owner=desk.owner).to_dict()
    with _assistant(desk) as assistant:
        try:
            b = assistant.backend
            out |= {"available": True, "host": b.host, "model": b.model, "backend": b.name}
        except ConfigError as exc:
            out |= {"available": False, "unavailable": exc.message}
    return out


@api.get("/studies/{ref}/summary/sources", summary="The numbered sources a summary would send")
async def summary_sources(desk: DeskDep, ref: StudyRef) -> dict[str, Any]:
    return await run_in_threadpool(_sources, desk, ref)


def _notice(desk: Desk, ref: str, body: NoticeBody) -> dict[str, Any]:
    with _assistant(desk) as assistant:
        packet, notice = summary_notice(
            assistant, ref, focus=body.focus, deselected=body.deselected, owner=desk.owner
        )
    return notice.to_dict() | {"sources": len(packet.sources), "omissions": list(packet.omissions)}


@api.post(
    "/studies/{ref}/summary/notice", summary="What a summary sends, where, and its consent token"
)
async def summary_notice_api(desk: DeskDep, ref: StudyRef, body: NoticeBody) -> dict[str, Any]:
    return await run_in_threadpool(_notice, desk, ref, body)


@api.post(
    "/studies/{ref}/summary",
    summary="One model call (a job): a verified summary draft to review",
    status_code=202,
    response_model=None,
)
async def summary_api(assist: AssistDep, ref: StudyRef, body: SummaryBody) -> JSONResponse:
    """Checks the consent token (403 when the text changed), the Study's write right and
    the allowance (429 with ``Retry-After``), then answers 202 with the job; its
    ``status_url`` gives the draft when done, or the error the call met."""
    try:
        job = await assist.summarise(
            ref, focus=body.focus, deselected=body.deselected, consent=body.consent
        )
    except (ConsentRequired, AllowanceRefused) as exc:
        return refusal(exc, SUMMARY_KIND)
    return accepted(job)


@api.post("/studies/{ref}/reports", summary="Save a reviewed summary draft as a Study report")
async def report_save(desk: DeskDep, ref: StudyRef, body: SaveBody) -> dict[str, Any]:
    report = await run_in_threadpool(
        lambda: save_report(
            desk.store, ref, body.draft_id, owner=desk.owner, reviewed=body.reviewed, drop=body.drop
        )
    )
    return report.to_dict()


@api.get("/studies/{ref}/reports", summary="A Study's saved reports (re-checked on read)")
async def reports_api(desk: DeskDep, ref: StudyRef) -> dict[str, Any]:
    listing = await run_in_threadpool(lambda: study_reports(desk.store, ref, owner=desk.owner))
    return listing.to_dict()


@pages.get("/study/{ref}/reports/{report_id}.html")
@api.get("/studies/{ref}/reports/{report_id}.html", summary="A Study report as offline HTML")
async def report_download(desk: DeskDep, ref: StudyRef, report_id: ReportId) -> Response:
    name, html = await run_in_threadpool(
        lambda: report_file(desk.store, ref, report_id, owner=desk.owner)
    )
    return Response(
        html.encode("utf-8"),
        media_type="text/html; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="{name}"'},
    )
