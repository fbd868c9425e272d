"""The PDF library page and its ``/api/v1/library`` twins: sources and files (paginated),
PDF uploads into the inbox (dropped on the page, or a plain form without script), the
background index job, adoption of one PDF's metadata, and the model status."""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk._errors import LitdeskError
from litdesk.services.library import (
    AdoptRequest,
    LibraryPageRequest,
    Upload,
    UploadRequest,
)

from .._deps import AppDep, OwnerDep
from .._render import page
from .jobs import JobId

__all__ = ["UPLOAD_PATHS", "api", "pages", "upload_limit"]

pages = APIRouter()
api = APIRouter(tags=["library"])

#: The upload routes (the app gives them their own body limit, see :func:`upload_limit`).
UPLOAD_PATHS: Final = ("/library/upload", "/api/v1/library/uploads")
FileName = Annotated[str, Form(min_length=1, max_length=300)]


def upload_limit(max_bytes: int) -> int:
    """The body limit of an upload request: a file twice the per-file limit still reaches
    the handler (and is refused by name, ``too_large``); more is cut off while streaming."""
    return 2 * max_bytes + 1_000_000


class AdoptBody(BaseModel):
    file: str = Field(min_length=1, max_length=300, description="The PDF's file name.")


def _uploads(files: list[UploadFile]) -> UploadRequest:
    return UploadRequest(tuple(Upload(f.filename or "", f.file) for f in files))


async def _page_data(
    app: AppDep,
    owner: str,
    page_no: int,
    extra: dict[str, Any] | None = None,
    *,
    check: bool = False,
) -> dict[str, Any]:
    request = LibraryPageRequest(page=page_no, models=True, check=check)
    view = await run_in_threadpool(app.library.view, request, owner=owner)
    data = view.to_dict()
    data["report"] = None
    data["adoption"] = None
    data["problem"] = None
    data["matched"] = None
    data.update(extra or {})
    return data


# --- the page -----------------------------------------------------------------------


@pages.get("/library", response_class=HTMLResponse)
async def library_page(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    page_no: Annotated[int, Query(alias="page", ge=1)] = 1,
    check: Annotated[bool, Query(description="Check that the models are reachable")] = False,
) -> Response:
    data = await _page_data(app, owner, page_no, check=check)
    return page(request, "library.html", data, title="PDF library")


@pages.post("/library/upload", response_class=HTMLResponse)
async def upload_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    files: Annotated[list[UploadFile], File(description="PDF files")],
) -> Response:
    """The upload form without script: the page again, with the per-file report."""
    try:
        report = await run_in_threadpool(app.library.upload, _uploads(files), owner=owner)
        if report.job is not None:
            app.job_runner.wake()
        extra: dict[str, Any] = {"report": report.to_dict()}
    except LitdeskError as exc:
        extra = {"problem": exc.message}
    data = await _page_data(app, owner, 1, extra)
    return page(request, "library.html", data, title="PDF library")


@pages.post("/library/index")
async def index_form(app: AppDep, owner: OwnerDep) -> Response:
    await run_in_threadpool(app.library.index, owner=owner)
    app.job_runner.wake()
    return RedirectResponse("/library", status_code=303)


@pages.post("/library/jobs/{job_id}/cancel")
async def cancel_form(app: AppDep, owner: OwnerDep, job_id: JobId) -> Response:
    await run_in_threadpool(app.jobs.cancel, job_id, owner=owner)
    return RedirectResponse("/library", status_code=303)


@pages.post("/library/adopt", response_class=HTMLResponse)
async def adopt_form(request: Request, app: AppDep, owner: OwnerDep, file: FileName) -> Response:
    try:
        adoption = await app.library.adopt(AdoptRequest(file), owner=owner)
        extra: dict[str, Any] = {"adoption": adoption.to_dict()}
    except LitdeskError as exc:
        extra = {"problem": exc.message}
    data = await _page_data(app, owner, 1, extra)
    return page(request, "library.html", data, title="PDF library")


@pages.post("/library/match", response_class=HTMLResponse)
async def match_form(request: Request, app: AppDep, owner: OwnerDep) -> Response:
    """Attach each PDF to the saved paper sharing its identifier: the page, with what was
    attached."""
    done = await run_in_threadpool(app.library.attach_matching, owner=owner)
    extra = {"matched": [{"file": f, "paper_id": p} for f, p in done]}
    data = await _page_data(app, owner, 1, extra)
    return page(request, "library.html", data, title="PDF library")


# --- the API ------------------------------------------------------------------------


@api.get("/library", summary="The library: sources in order, warnings, a page of PDFs, the job")
async def library_api(
    app: AppDep,
    owner: OwnerDep,
    page_no: Annotated[int, Query(alias="page", ge=1)] = 1,
    per_page: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, object]:
    request = LibraryPageRequest(page=page_no, per_page=per_page)
    view = await run_in_threadpool(app.library.view, request, owner=owner)
    return view.to_dict()


@api.post(
    "/library/uploads",
    summary="Upload PDFs into the inbox (each stored or refused with its reason); starts indexing",
)
async def upload_api(
    app: AppDep,
    owner: OwnerDep,
    files: Annotated[list[UploadFile], File(description="PDF files")],
) -> dict[str, object]:
    report = await run_in_threadpool(app.library.upload, _uploads(files), owner=owner)
    if report.job is not None:
        app.job_runner.wake()
    return report.to_dict()


@api.post("/library/index", summary="Start indexing the library (or return the running job)")
async def index_api(app: AppDep, owner: OwnerDep) -> dict[str, Any]:
    job = await run_in_threadpool(app.library.index, owner=owner)
    app.job_runner.wake()
    return job.to_dict()


@api.post(
    "/library/adopt",
    summary="Look up a PDF's DOI/arXiv id; adopt the record when its title is printed on it",
)
async def adopt_api(app: AppDep, owner: OwnerDep, body: AdoptBody) -> dict[str, Any]:
    adoption = await app.library.adopt(AdoptRequest(body.file), owner=owner)
    return adoption.to_dict()


@api.get("/library/models", summary="The model backend and models; with check=true, reachability")
async def models_api(
    app: AppDep, owner: OwnerDep, check: Annotated[bool, Query()] = False
) -> dict[str, Any]:
    status = await run_in_threadpool(app.library.models, owner=owner, check=check)
    return status.to_dict()


@api.post(
    "/library/match",
    summary="Attach each PDF to the saved paper sharing its DOI, arXiv id, PMID or PMCID",
)
async def match_api(app: AppDep, owner: OwnerDep) -> dict[str, Any]:
    done = await run_in_threadpool(app.library.attach_matching, owner=owner)
    return {"attached": [{"file": f, "paper_id": p} for f, p in done]}
