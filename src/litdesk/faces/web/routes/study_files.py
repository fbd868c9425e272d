"""A Study's PRISMA-S report (page, Markdown, HTML, SVG flow diagram) and its ZIP export
and recovery; with their ``/api/v1`` twins."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from litdesk.services.desk import (
    MAX_STUDY_ZIP_BYTES,
    prisma_file,
    prisma_view,
    recover_study,
    study_zip,
)

from .._deps import DeskDep
from .._render import page
from ._common import StudyRef, download

__all__ = ["IMPORT_LIMIT", "IMPORT_PATH", "api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["studies"])

IMPORT_PATH = "/study-imports"
IMPORT_LIMIT = MAX_STUDY_ZIP_BYTES + 100_000  # the ZIP and the multipart framing
PrismaFormat = Literal["md", "html"]


@pages.get("/study/{ref}/prisma", response_class=HTMLResponse)
def prisma_page(request: Request, desk: DeskDep, ref: StudyRef) -> Response:
    return page(request, "prisma.html", prisma_view(desk, ref), title="PRISMA-S report")


@api.get("/studies/{ref}/prisma", summary="A Study's PRISMA-S report (searches, imports, flow)")
def prisma_api(desk: DeskDep, ref: StudyRef) -> dict[str, Any]:
    return prisma_view(desk, ref)


@pages.get("/study/{ref}/prisma/export")
@api.get(
    "/studies/{ref}/prisma/export",
    summary="The PRISMA-S report as Markdown or a self-contained HTML page (a download)",
)
def prisma_export(desk: DeskDep, ref: StudyRef, format: PrismaFormat = "md") -> Response:
    return download(prisma_file(desk, ref, format))


@pages.get("/study/{ref}/prisma.svg")
@api.get("/studies/{ref}/prisma.svg", summary="The PRISMA 2020 identification flow diagram")
def prisma_svg(desk: DeskDep, ref: StudyRef) -> Response:
    """Shown through ``<img>`` (an image never runs scripts); every value in it escaped."""
    svg = prisma_file(desk, ref, "svg")
    return Response(
        svg.body,
        media_type=svg.media_type,
        headers={"content-disposition": f'inline; filename="{svg.filename}"'},
    )


@pages.get("/study/{ref}/export.zip")
@api.get("/studies/{ref}/export", summary="The Study as a ZIP (the recovery format)")
def zip_export(desk: DeskDep, ref: StudyRef) -> Response:
    return download(study_zip(desk, ref))


@pages.post(IMPORT_PATH, response_class=HTMLResponse)
async def zip_import_form(
    request: Request,
    desk: DeskDep,
    file: Annotated[UploadFile, File()],
    name: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """The Study page's recovery form posted without JavaScript: the same recovery, its
    report as a page (a refusal is the error page with its reason)."""
    data = await file.read(MAX_STUDY_ZIP_BYTES + 1)
    done = await run_in_threadpool(recover_study, desk, data, name=name.strip() or None)
    return page(request, "recovered.html", done, title="Study recovered")


@api.post(
    IMPORT_PATH,
    summary="Recover a Study from its ZIP export (validated; refused as a whole with its reason)",
)
async def zip_import(
    desk: DeskDep,
    file: Annotated[UploadFile, File(description="A ZIP made by Study export.")],
    name: Annotated[str, Form(max_length=200)] = "",
) -> dict[str, Any]:
    data = await file.read(MAX_STUDY_ZIP_BYTES + 1)
    return await run_in_threadpool(recover_study, desk, data, name=name.strip() or None)
