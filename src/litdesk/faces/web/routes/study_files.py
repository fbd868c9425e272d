"""A Study's PRISMA-S report (page, Markdown, HTML, SVG flow diagram) and its ZIP export
and recovery; with their ``/api/v1`` twins."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from litdesk.services.screening import RECORD_BOXES, PrismaFlowRequest, PrismaRecordsRequest
from litdesk.services.studies import (
    MAX_STUDY_ZIP_BYTES,
    PrismaExportRequest,
    RecordsRequest,
    RecoverRequest,
    WorkingSetExportRequest,
    WorkingSetRequest,
)

from .._deps import AppDep, OwnerDep
from .._render import page
from ._common import StudyRef, download

__all__ = ["IMPORT_LIMIT", "IMPORT_PATH", "api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["studies"])

IMPORT_PATH = "/study-imports"
IMPORT_LIMIT = MAX_STUDY_ZIP_BYTES + 100_000  # the ZIP and the multipart framing
PrismaFormat = Literal["md", "html"]
FlowFormat = Literal["md", "csv", "svg"]
ListFormat = Literal["ris", "csv", "bibtex"]
#: a PRISMA 2020 box with records behind its number, its values named in the OpenAPI
#: document (the request refuses any other with its typed error, bad_box)
Box = Annotated[
    str,
    Query(
        description="A box of the flow with records behind its number.",
        json_schema_extra={"enum": list(RECORD_BOXES)},
    ),
]
#: with the boxes identified and removed_duplicates: one kind of source (the request
#: refuses any other with bad_source)
SourceKindQuery = Annotated[
    str | None,
    Query(
        description="With identified or removed_duplicates: database, register or other.",
        json_schema_extra={"enum": ["database", "register", "other"]},
    ),
]


# --- a Study's records and working set (issue 27) ------------------------------------------


@pages.get("/study/{ref}/working-set", response_class=HTMLResponse)
def working_set_page(
    request: Request, app: AppDep, owner: OwnerDep, ref: StudyRef, page_no: int = 1
) -> Response:
    view = app.studies.working_set(WorkingSetRequest(ref, max(1, page_no)), owner=owner)
    return page(request, "working_set.html", view.to_dict(), title="Working set")


@api.get(
    "/studies/{ref}/working-set",
    summary="A Study's working set: one merged record per study, its members and rule",
)
def working_set_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, page_no: int = 1
) -> dict[str, object]:
    return app.studies.working_set(WorkingSetRequest(ref, max(1, page_no)), owner=owner).to_dict()


@api.get(
    "/studies/{ref}/records",
    summary="Everything a Study identified, each record with its source and group",
)
def records_api(app: AppDep, owner: OwnerDep, ref: StudyRef, page_no: int = 1) -> dict[str, object]:
    return app.studies.records(RecordsRequest(ref, max(1, page_no)), owner=owner).to_dict()


@pages.get("/study/{ref}/working-set/export")
@api.get(
    "/studies/{ref}/working-set/export",
    summary="The working set as RIS, CSV or BibTeX (one merged record per study)",
)
def working_set_export(
    app: AppDep, owner: OwnerDep, ref: StudyRef, format: ListFormat = "ris"
) -> Response:
    request = WorkingSetExportRequest(ref, format)
    return download(app.studies.export_working_set(request, owner=owner))


@pages.get("/study/{ref}/prisma", response_class=HTMLResponse)
def prisma_page(request: Request, app: AppDep, owner: OwnerDep, ref: StudyRef) -> Response:
    view = app.studies.prisma(ref, owner=owner).to_dict()
    return page(request, "prisma.html", view, title="PRISMA-S report")


@api.get("/studies/{ref}/prisma", summary="A Study's PRISMA-S report (searches, imports, flow)")
def prisma_api(app: AppDep, owner: OwnerDep, ref: StudyRef) -> dict[str, Any]:
    return app.studies.prisma(ref, owner=owner).to_dict()


@pages.get("/study/{ref}/prisma/export")
@api.get(
    "/studies/{ref}/prisma/export",
    summary="The PRISMA-S report as Markdown or a self-contained HTML page (a download)",
)
def prisma_export(
    app: AppDep, owner: OwnerDep, ref: StudyRef, format: PrismaFormat = "md"
) -> Response:
    return download(app.studies.export_prisma(PrismaExportRequest(ref, format), owner=owner))


# --- the PRISMA 2020 flow with screening (issue 28) -----------------------------------------


@api.get(
    "/studies/{ref}/prisma-2020",
    summary="A Study's PRISMA 2020 flow computed from its records and screening decisions",
)
def prisma_2020_api(app: AppDep, owner: OwnerDep, ref: StudyRef) -> dict[str, Any]:
    return app.screening.prisma(PrismaFlowRequest(ref), owner=owner).to_dict()


@pages.get("/study/{ref}/prisma-2020/records", response_class=HTMLResponse)
def prisma_2020_records_page(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    box: Box,
    round: int | None = None,
    page_no: int = 1,
    reason: str | None = None,
    kind: SourceKindQuery = None,
    source: str | None = None,
) -> Response:
    """The records behind one number of the flow as a page (titles, each to its card)."""
    asked = PrismaRecordsRequest(
        ref, box, round, max(1, page_no), reason or None, kind or None, source or None
    )
    view = app.screening.prisma_records(asked, owner=owner).to_dict()
    return page(request, "prisma_records.html", view, title="PRISMA 2020 records")


@api.get(
    "/studies/{ref}/prisma-2020/records",
    summary="The records behind one number of the PRISMA 2020 flow (a box, a round, a "
    "reason, a kind of source, a source)",
)
def prisma_2020_records(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    box: Box,
    round: int | None = None,
    page_no: int = 1,
    reason: str | None = None,
    kind: SourceKindQuery = None,
    source: str | None = None,
) -> dict[str, Any]:
    request = PrismaRecordsRequest(
        ref, box, round, max(1, page_no), reason or None, kind or None, source or None
    )
    return app.screening.prisma_records(request, owner=owner).to_dict()


@pages.get("/study/{ref}/prisma-2020/export")
@api.get(
    "/studies/{ref}/prisma-2020/export",
    summary="The PRISMA 2020 flow as Markdown, CSV or its SVG diagram (a download)",
)
def prisma_2020_export(
    app: AppDep, owner: OwnerDep, ref: StudyRef, format: FlowFormat = "svg"
) -> Response:
    return download(app.screening.export_prisma(PrismaFlowRequest(ref, format), owner=owner))


@pages.get("/study/{ref}/prisma-2020.svg")
@api.get("/studies/{ref}/prisma-2020.svg", summary="The PRISMA 2020 flow diagram (screening)")
def prisma_2020_svg(app: AppDep, owner: OwnerDep, ref: StudyRef) -> Response:
    """Shown through ``<img>`` (an image never runs scripts); every value in it escaped."""
    svg = app.screening.export_prisma(PrismaFlowRequest(ref, "svg"), owner=owner)
    return Response(
        svg.body,
        media_type=svg.media_type,
        headers={"content-disposition": f'inline; filename="{svg.filename}"'},
    )


@pages.get("/study/{ref}/prisma.svg")
@api.get("/studies/{ref}/prisma.svg", summary="The PRISMA 2020 identification flow diagram")
def prisma_svg(app: AppDep, owner: OwnerDep, ref: StudyRef) -> Response:
    """Shown through ``<img>`` (an image never runs scripts); every value in it escaped."""
    svg = app.studies.export_prisma(PrismaExportRequest(ref, "svg"), owner=owner)
    return Response(
        svg.body,
        media_type=svg.media_type,
        headers={"content-disposition": f'inline; filename="{svg.filename}"'},
    )


@pages.get("/study/{ref}/export.zip")
@api.get("/studies/{ref}/export", summary="The Study as a ZIP (the recovery format)")
def zip_export(app: AppDep, owner: OwnerDep, ref: StudyRef) -> Response:
    return download(app.studies.export_zip(ref, owner=owner))


@pages.post(IMPORT_PATH, response_class=HTMLResponse)
async def zip_import_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    file: Annotated[UploadFile, File()],
    name: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """The Study page's recovery form posted without JavaScript: the same recovery, its
    report as a page (a refusal is the error page with its reason)."""
    recover = RecoverRequest(await file.read(MAX_STUDY_ZIP_BYTES + 1), name)
    done = await run_in_threadpool(app.studies.recover_zip, recover, owner=owner)
    return page(request, "recovered.html", done.to_dict(), title="Study recovered")


@api.post(
    IMPORT_PATH,
    summary="Recover a Study from its ZIP export (validated; refused as a whole with its reason)",
)
async def zip_import(
    app: AppDep,
    owner: OwnerDep,
    file: Annotated[UploadFile, File(description="A ZIP made by Study export.")],
    name: Annotated[str, Form(max_length=200)] = "",
) -> dict[str, Any]:
    recover = RecoverRequest(await file.read(MAX_STUDY_ZIP_BYTES + 1), name)
    done = await run_in_threadpool(app.studies.recover_zip, recover, owner=owner)
    return done.to_dict()
