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
from litdesk.services.library_desk import LibraryDesk, Upload

from .._deps import DeskDep, opened_app
from .._render import page
from .jobs import JobId, jobs_of

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


def library_of(request: Request) -> LibraryDesk:
    return opened_app(request).library


class AdoptBody(BaseModel):
    file: str = Field(min_length=1, max_length=300, description="The PDF's file name.")


def _uploads(files: list[UploadFile]) -> list[Upload]:
    return [Upload(f.filename or "", f.file) for f in files]


async def _page_data(
    request: Request,
    owner: str,
    page_no: int,
    extra: dict[str, Any] | None = None,
    *,
    check: bool = False,
) -> dict[str, Any]:
    lib = library_of(request)
    view = await run_in_threadpool(lib.view, owner=owner, page=page_no)
    data = view.to_dict()
    data["models"] = (await run_in_threadpool(lib.models, check=check)).to_dict()
    data["upload_limit"] = lib.settings.library_upload_max_bytes
    data["upload_files"] = lib.settings.library_upload_max_files
    data["report"] = None
    data["adoption"] = None
    data["problem"] = None
    data.update(extra or {})
    return data


# --- the page -----------------------------------------------------------------------


@pages.get("/library", response_class=HTMLResponse)
async def library_page(
    request: Request,
    desk: DeskDep,
    page_no: Annotated[int, Query(alias="page", ge=1)] = 1,
    check: Annotated[bool, Query(description="Check that the models are reachable")] = False,
) -> Response:
    data = await _page_data(request, desk.owner, page_no, check=check)
    return page(request, "library.html", data, title="PDF library")


@pages.post("/library/upload", response_class=HTMLResponse)
async def upload_form(
    request: Request,
    desk: DeskDep,
    files: Annotated[list[UploadFile], File(description="PDF files")],
) -> Response:
    """The upload form without script: the page again, with the per-file report."""
    lib = library_of(request)
    try:
        report = await run_in_threadpool(lib.upload, _uploads(files), owner=desk.owner)
        extra: dict[str, Any] = {"report": report.to_dict()}
    except LitdeskError as exc:
        extra = {"problem": exc.message}
    data = await _page_data(request, desk.owner, 1, extra)
    return page(request, "library.html", data, title="PDF library")


@pages.post("/library/index")
async def index_form(request: Request, desk: DeskDep) -> Response:
    await run_in_threadpool(library_of(request).start_index, owner=desk.owner)
    opened_app(request).job_runner.wake()
    return RedirectResponse("/library", status_code=303)


@pages.post("/library/jobs/{job_id}/cancel")
async def cancel_form(request: Request, desk: DeskDep, job_id: JobId) -> Response:
    await run_in_threadpool(jobs_of(request).cancel, job_id, owner=desk.owner)
    return RedirectResponse("/library", status_code=303)


@pages.post("/library/adopt", response_class=HTMLResponse)
async def adopt_form(request: Request, desk: DeskDep, file: FileName) -> Response:
    lib = library_of(request)
    try:
        adoption = await run_in_threadpool(lib.adopt, file, owner=desk.owner)
        extra: dict[str, Any] = {"adoption": adoption.to_dict()}
    except LitdeskError as exc:
        extra = {"problem": exc.message}
    data = await _page_data(request, desk.owner, 1, extra)
    return page(request, "library.html", data, title="PDF library")


# --- the API ------------------------------------------------------------------------


@api.get("/library", summary="The library: sources in order, warnings, a page of PDFs, the job")
async def library_api(
    request: Request,
    desk: DeskDep,
    page_no: Annotated[int, Query(alias="page", ge=1)] = 1,
    per_page: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    view = await run_in_threadpool(
        library_of(request).view, owner=desk.owner, page=page_no, per_page=per_page
    )
    return view.to_dict()


@api.post(
    "/library/uploads",
    summary="Upload PDFs into the inbox (each stored or refused with its reason); starts indexing",
)
async def upload_api(
    request: Request,
    desk: DeskDep,
    files: Annotated[list[UploadFile], File(description="PDF files")],
) -> dict[str, Any]:
    report = await run_in_threadpool(library_of(request).upload, _uploads(files), owner=desk.owner)
    if report.job is not None:
        opened_app(request).job_runner.wake()
    return report.to_dict()


@api.post("/library/index", summary="Start indexing the library (or return the running job)")
async def index_api(request: Request, desk: DeskDep) -> dict[str, Any]:
    job = await run_in_threadpool(library_of(request).start_index, owner=desk.owner)
    opened_app(request).job_runner.wake()
    return job.to_dict()


@api.post(
    "/library/adopt",
    summary="Look up a PDF's DOI/arXiv id; adopt the record when its title is printed on it",
)
async def adopt_api(request: Request, desk: DeskDep, body: AdoptBody) -> dict[str, Any]:
    adoption = await run_in_threadpool(library_of(request).adopt, body.file, owner=desk.owner)
    return adoption.to_dict()


@api.get("/library/models", summary="The model backend and models; with check=true, reachability")
async def models_api(request: Request, check: Annotated[bool, Query()] = False) -> dict[str, Any]:
    status = await run_in_threadpool(library_of(request).models, check=check)
    return status.to_dict()
