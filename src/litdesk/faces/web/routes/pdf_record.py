"""A library PDF as a paper, ``/library/pdf/<sha>/record``: its description read from the
first pages (with how sure each field is) or confirmed by the signed-in account, the form
to confirm or correct it, the paper it is (attach it to a saved paper, or save it as one)
and the Studies it is linked in; each write with its ``/api/v1`` twin. The PDF is the
shared library's; the record is the account's own."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk._errors import InputError
from litdesk.services.library import (
    AttachPdfPaperRequest,
    ConfirmPdfRequest,
    PdfRecordView,
    SavePdfPaperRequest,
)

from .._deps import AppDep, OwnerDep
from .._render import page
from .viewer import Sha

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["library"])

Line = Annotated[str, Form(max_length=600)]


class ConfirmBody(BaseModel):
    title: str = Field(min_length=1, max_length=600)
    authors: list[str] = Field(default_factory=list, max_length=100)
    year: int | None = Field(None, ge=1500, le=2100)
    venue: str | None = Field(None, max_length=400)
    doi: str | None = Field(None, max_length=300)
    arxiv: str | None = Field(None, max_length=60)


class AttachBody(BaseModel):
    paper_id: str = Field(
        min_length=1, max_length=300, description="A saved paper (its id, DOI, PMID, arXiv id)."
    )
    study: str | None = Field(None, max_length=200, description="A Study holding the paper.")


class SaveBody(BaseModel):
    study: str | None = Field(None, max_length=200, description="Also add it to this Study.")


def _render(
    request: Request,
    app: AppDep,
    owner: str,
    view: PdfRecordView,
    *,
    problem: str | None = None,
    entered: dict[str, Any] | None = None,
    status: int = 200,
) -> Response:
    data = view.to_dict()
    data["problem"] = problem
    data["entered"] = entered
    data["my_studies"] = app.studies.studies(owner=owner).studies
    title = view.value("title") or view.file
    return page(request, "pdf_record.html", data, status=status, title=f"{title} · PDF")


@pages.get("/library/pdf/{sha}/record", response_class=HTMLResponse)
async def record_page(request: Request, app: AppDep, owner: OwnerDep, sha: Sha) -> Response:
    view = await run_in_threadpool(app.library.pdf_record, sha, owner=owner)
    return _render(request, app, owner, view)


@pages.post("/library/pdf/{sha}/record", response_class=HTMLResponse)
async def confirm_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    sha: Sha,
    title: Line = "",
    authors: Annotated[str, Form(max_length=20_000)] = "",
    year: Annotated[str, Form(max_length=8)] = "",
    venue: Line = "",
    doi: Line = "",
    arxiv: Line = "",
) -> Response:
    """The description as the person confirmed or corrected it (authors one per line); a
    value that cannot be kept shows the form again with what was entered."""
    entered = {
        "title": title, "authors": authors, "year": year, "venue": venue, "doi": doi,
        "arxiv": arxiv,
    }  # fmt: skip
    try:
        if year.strip() and not year.strip().isdigit():
            raise InputError("the year is a number, such as 2020", code="year")
        confirm = ConfirmPdfRequest(
            sha, title=title, authors=tuple(authors.splitlines()),
            year=int(year) if year.strip() else None, venue=venue, doi=doi, arxiv=arxiv,
        )  # fmt: skip
    except InputError as exc:
        view = await run_in_threadpool(app.library.pdf_record, sha, owner=owner)
        return _render(request, app, owner, view, problem=exc.message, entered=entered, status=400)
    view = await run_in_threadpool(app.library.confirm_pdf, confirm, owner=owner)
    return _render(request, app, owner, view)


@pages.post("/library/pdf/{sha}/attach", response_class=HTMLResponse)
async def attach_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    sha: Sha,
    paper_id: Annotated[str, Form(min_length=1, max_length=300)],
    study: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    attach = AttachPdfPaperRequest(sha, paper_id, study or None)
    view = await run_in_threadpool(app.library.attach_pdf, attach, owner=owner)
    return _render(request, app, owner, view)


@pages.post("/library/pdf/{sha}/paper", response_class=HTMLResponse)
async def save_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    sha: Sha,
    study: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    save = SavePdfPaperRequest(sha, study or None)
    view = await run_in_threadpool(app.library.save_pdf_paper, save, owner=owner)
    return _render(request, app, owner, view)


# --- the API ------------------------------------------------------------------------


@api.get(
    "/library/pdf/{sha}/record",
    summary="A library PDF as your paper: its description (read or confirmed), its paper",
)
async def record_api(app: AppDep, owner: OwnerDep, sha: Sha) -> dict[str, Any]:
    view = await run_in_threadpool(app.library.pdf_record, sha, owner=owner)
    return view.to_dict()


@api.post("/library/pdf/{sha}/record", summary="Confirm or correct a PDF's description")
async def confirm_api(app: AppDep, owner: OwnerDep, sha: Sha, body: ConfirmBody) -> dict[str, Any]:
    confirm = ConfirmPdfRequest(
        sha, title=body.title, authors=tuple(body.authors), year=body.year, venue=body.venue,
        doi=body.doi, arxiv=body.arxiv,
    )  # fmt: skip
    view = await run_in_threadpool(app.library.confirm_pdf, confirm, owner=owner)
    return view.to_dict()


@api.post("/library/pdf/{sha}/attach", summary="Attach a library PDF to a saved paper")
async def attach_api(app: AppDep, owner: OwnerDep, sha: Sha, body: AttachBody) -> dict[str, Any]:
    attach = AttachPdfPaperRequest(sha, body.paper_id, body.study)
    view = await run_in_threadpool(app.library.attach_pdf, attach, owner=owner)
    return view.to_dict()


@api.post("/library/pdf/{sha}/paper", summary="Save a library PDF as a paper from its description")
async def save_api(app: AppDep, owner: OwnerDep, sha: Sha, body: SaveBody) -> dict[str, Any]:
    save = SavePdfPaperRequest(sha, body.study)
    view = await run_in_threadpool(app.library.save_pdf_paper, save, owner=owner)
    return view.to_dict()
