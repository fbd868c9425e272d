"""A Study's papers with their PDFs and licensed full text: the page (which papers have a
PDF, full text, or neither; PRISMA's reports sought / not retrieved), matching library
PDFs, confirming or undoing a link, "check full text for all" (a job) and a PDF uploaded
for one paper; each with its ``/api/v1`` twin."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk.services.studies import AttachPdfRequest, FulltextShow, PdfLinkRequest

from .._deps import AppDep, OwnerDep
from .._render import page
from ._common import StudyRef

__all__ = ["ATTACH_PATH", "api", "attach_limit", "pages"]

pages = APIRouter()
api = APIRouter(tags=["studies"])

#: The upload of a PDF for one paper (the form without script, and the API's): the app
#: gives this path the library's upload limit (see :func:`attach_limit`).
ATTACH_PATH: Final = "/study-pdfs"
#: What a page's form returns to: the Study's page or its full-text page.
Back = Literal["study", "fulltext"]


def attach_limit(max_bytes: int) -> int:
    """The body limit of an attach request: the PDF (the library's limit) with room for
    the multipart framing and the form's fields, so the library's check answers."""
    return 2 * max_bytes + 64_000


class PaperBody(BaseModel):
    paper_id: str = Field(
        min_length=1, max_length=200, description="A paper of the Study (id, DOI, PMID, …)."
    )


def _back(ref: str, back: Back) -> RedirectResponse:
    where = f"/study/{ref}" if back == "study" else f"/study/{ref}/fulltext"
    return RedirectResponse(where + "#papers-pdf", status_code=303)


# --- the page and its JSON --------------------------------------------------------------


@pages.get("/study/{ref}/fulltext", response_class=HTMLResponse)
def fulltext_page(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    show: FulltextShow | None = None,
    page_no: Annotated[int, Query(ge=1, le=100_000)] = 1,
) -> Response:
    """One page of the papers: by default those screening sought for retrieval."""
    view = app.studies.fulltext(ref, owner=owner, show=show, page=page_no)
    return page(request, "study_fulltext.html", view.to_dict(), title="PDFs and full text")


@api.get(
    "/studies/{ref}/fulltext",
    summary="A Study's papers with their PDF, licensed full text or neither (PRISMA counts)",
)
def fulltext_api(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    show: FulltextShow = "all",
    page_no: Annotated[int | None, Query(ge=1, le=100_000)] = None,
) -> dict[str, Any]:
    """Every paper (``show``: only those sought for retrieval, or without full text;
    ``page_no``: one page of them)."""
    return app.studies.fulltext(ref, owner=owner, show=show, page=page_no).to_dict()


# --- matching ---------------------------------------------------------------------------


@pages.post("/study/{ref}/fulltext/match")
def match_form(
    app: AppDep, owner: OwnerDep, ref: StudyRef, back: Annotated[Back, Form()] = "fulltext"
) -> Response:
    view = app.studies.match_pdfs(ref, owner=owner)
    return _back(view.study_id, back)


@api.post(
    "/studies/{ref}/fulltext/match",
    summary="Link library PDFs to the Study's papers (identifiers: linked; a verified title: "
    "suggested)",
)
def match_api(app: AppDep, owner: OwnerDep, ref: StudyRef) -> dict[str, Any]:
    return app.studies.match_pdfs(ref, owner=owner).to_dict()


@pages.post("/study/{ref}/fulltext/confirm")
def confirm_form(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    paper_id: Annotated[str, Form(min_length=1, max_length=200)],
    back: Annotated[Back, Form()] = "fulltext",
) -> Response:
    view = app.studies.confirm_pdf(PdfLinkRequest(ref, paper_id), owner=owner)
    return _back(view.study_id, back)


@api.post("/studies/{ref}/fulltext/confirm", summary="Confirm the PDF suggested for a paper")
def confirm_api(app: AppDep, owner: OwnerDep, ref: StudyRef, body: PaperBody) -> dict[str, Any]:
    return app.studies.confirm_pdf(PdfLinkRequest(ref, body.paper_id), owner=owner).to_dict()


@pages.post("/study/{ref}/fulltext/undo")
def undo_form(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    paper_id: Annotated[str, Form(min_length=1, max_length=200)],
    back: Annotated[Back, Form()] = "fulltext",
) -> Response:
    view = app.studies.undo_pdf(PdfLinkRequest(ref, paper_id), owner=owner)
    return _back(view.study_id, back)


@api.post(
    "/studies/{ref}/fulltext/undo",
    summary="Undo a paper's PDF link (that PDF is not suggested for it again)",
)
def undo_api(app: AppDep, owner: OwnerDep, ref: StudyRef, body: PaperBody) -> dict[str, Any]:
    return app.studies.undo_pdf(PdfLinkRequest(ref, body.paper_id), owner=owner).to_dict()


# --- licensed full text -------------------------------------------------------------------


@pages.post("/study/{ref}/fulltext/check")
def check_form(
    app: AppDep, owner: OwnerDep, ref: StudyRef, back: Annotated[Back, Form()] = "fulltext"
) -> Response:
    view = app.studies.check_fulltext(ref, owner=owner)
    return _back(view.study_id, back)


@api.post(
    "/studies/{ref}/fulltext/check",
    summary="Check full text for all: a job checking the unchecked papers (your allowance)",
    status_code=202,
)
def check_api(app: AppDep, owner: OwnerDep, ref: StudyRef) -> dict[str, Any]:
    """Answers 202 with the Study's view and its ``job`` (watch it with ``GET
    /api/v1/jobs/{id}``)."""
    return app.studies.check_fulltext(ref, owner=owner).to_dict()


# --- a PDF for one paper ------------------------------------------------------------------


async def _attach(
    app: AppDep, owner: str, study: str, paper_id: str, file: UploadFile
) -> dict[str, Any]:
    limit = app.settings.library_upload_max_bytes
    data = await file.read(limit + 1)  # one byte over: the library's check refuses it
    request = AttachPdfRequest(study, paper_id, file.filename or "", data)
    done = await run_in_threadpool(app.studies.attach_pdf, request, owner=owner)
    return done.to_dict()


@pages.post(ATTACH_PATH)
async def attach_form(
    app: AppDep,
    owner: OwnerDep,
    study: Annotated[str, Query(min_length=1, max_length=200)],
    paper_id: Annotated[str, Query(min_length=1, max_length=200)],
    file: Annotated[UploadFile, File(description="The paper's PDF.")],
    back: Annotated[Back, Form()] = "fulltext",
) -> Response:
    """The upload form (without script too; the Study and paper in its action's query,
    as the API's): the PDF into the library, linked."""
    done = await _attach(app, owner, study, paper_id, file)
    return _back(str(done["study_id"]), back)


@api.post(
    ATTACH_PATH,
    summary="Upload a PDF for one paper of a Study (into the library, with its checks; linked)",
)
async def attach_api(
    app: AppDep,
    owner: OwnerDep,
    study: Annotated[str, Query(min_length=1, max_length=200, description="A Study.")],
    paper_id: Annotated[
        str, Query(min_length=1, max_length=200, description="A paper of the Study.")
    ],
    file: Annotated[UploadFile, File(description="The paper's PDF.")],
) -> Response:
    """The Study and paper are query parameters (as ``POST /api/v1/imports``' Study)."""
    return JSONResponse(await _attach(app, owner, study, paper_id, file))
