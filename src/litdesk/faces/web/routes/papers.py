"""Saved papers (list, filters, exports; ``/api/v1/counts``, the header's counts) and the reader ``/paper/<id>`` (abstract and,
on request, licensed Europe PMC full text; highlights on either, comments, reading
status), with their ``/api/v1`` twins."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field, field_validator

from litdesk.services.app import App
from litdesk.services.reader import (
    CommentRequest,
    HighlightRequest,
    OccurrencesRequest,
    OpenPaperRequest,
    SavePaperRequest,
    StatusRequest,
)
from litdesk.services.studies import SavedExportRequest, SavedRequest

from .._deps import AppDep, OwnerDep
from .._render import page
from ._common import JsonView, PaperId, download, json_answer

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["papers"])

Status = Literal["to-read", "reading", "read"]
MAX_COMMENT = 4_000
MAX_HIGHLIGHT = 8_000
BLOCK_ID = r"^p[1-9][0-9]{0,5}$"
SNAPSHOT = r"^sha256:[0-9a-f]{64}$"
OPTIONAL_BLOCK_ID = r"^(p[1-9][0-9]{0,5})?$"
OPTIONAL_SNAPSHOT = r"^(sha256:[0-9a-f]{64})?$"


class SavedParams(BaseModel):
    text: str = Field("", max_length=300, description="Identifier, words, or a misspelt long word.")
    study: str | None = Field(None, max_length=200)
    status: Status | None = None
    page: int = Field(1, ge=1, le=10_000)

    @field_validator("study", "status", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if value == "" else value  # "any" in the page's select


def saved_view(app: App, owner: str, p: SavedParams) -> dict[str, Any]:
    request = SavedRequest(p.text, p.study, p.status, p.page)
    return app.studies.saved(request, owner=owner).to_dict()


@pages.get("/saved", response_class=HTMLResponse)
def saved_page(
    request: Request, app: AppDep, owner: OwnerDep, params: Annotated[SavedParams, Query()]
) -> Response:
    return page(request, "saved.html", saved_view(app, owner, params), title="Saved papers")


@api.get(
    "/saved",
    summary="Saved papers, filtered (text, Study, reading status), paged",
    response_model=JsonView,
)
def saved_api(app: AppDep, owner: OwnerDep, params: Annotated[SavedParams, Query()]) -> Response:
    # the view is plain JSON already: answered as it is, not re-encoded and re-validated
    # field by field as a ``dict[str, Any]`` return would be (a third of the request's cost)
    return json_answer(saved_view(app, owner, params))


@api.get(
    "/counts",
    summary="The header's live counts: saved papers and review notes (highlights, comments)",
)
def counts_api(app: AppDep, owner: OwnerDep) -> dict[str, int]:
    return app.studies.counts(owner=owner).to_dict()


@pages.get("/saved/export")
@api.get("/saved/export", summary="The filtered saved list as RIS, CSV or BibTeX")
def saved_export(
    app: AppDep,
    owner: OwnerDep,
    params: Annotated[SavedParams, Query()],
    format: Literal["ris", "csv", "bibtex"] = "ris",
) -> Response:
    request = SavedExportRequest(format, params.text, params.study, params.status)
    return download(app.studies.export_saved(request, owner=owner))


class ReaderParams(BaseModel):
    fulltext: bool = Field(False, description="Load the licensed Europe PMC full text.")
    section: str | None = Field(None, max_length=500, description="Show one section only.")
    study: str | None = Field(
        None,
        max_length=200,
        description="The Study the page works in: its evidence form; new highlights, comments "
        "and evidence go to it.",
    )
    pdf_page: int | None = Field(
        None, ge=1, le=2_000, description="Open the evidence form on this page of the PDF."
    )
    passage: str | None = Field(
        None, max_length=8_000, description="The passage the evidence form starts with."
    )

    @field_validator("section", "study", "pdf_page", "passage", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if value == "" else value  # "all sections"


async def reader_view(app: App, owner: str, paper_id: str, p: ReaderParams) -> dict[str, object]:
    request = OpenPaperRequest(paper_id, fulltext=p.fulltext, section=p.section, study=p.study)
    return (await app.reader.open_paper(request, owner=owner)).to_dict()


@pages.get("/paper/{paper_id}", response_class=HTMLResponse)
async def reader_page(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    paper_id: PaperId,
    params: Annotated[ReaderParams, Query()],
) -> Response:
    data = await reader_view(app, owner, paper_id, params)
    data["context"] = _context(data, params.study)
    if params.pdf_page is not None and data.get("pdf"):  # from the PDF viewer's page
        data["evidence_preset"] = {"page": params.pdf_page, "passage": params.passage or ""}
    return page(request, "reader.html", data, title="Reader")


def _context(data: dict[str, object], study: str | None) -> dict[str, object] | None:
    """The Study the page works in (one of the owner's Studies; None: no Study)."""
    rows = data.get("studies")
    if not study or not isinstance(rows, list):
        return None
    return next(
        (r for r in rows if isinstance(r, dict) and study in (r.get("id"), r.get("name"))), None
    )


@api.get(
    "/papers/{paper_id}",
    summary="A paper's reader data (store, recent run, else looked up; full text on request)",
    response_model=JsonView,
)
async def reader_api(
    app: AppDep, owner: OwnerDep, paper_id: PaperId, params: Annotated[ReaderParams, Query()]
) -> Response:
    return json_answer(await reader_view(app, owner, paper_id, params))


@api.get(
    "/papers/{paper_id}/occurrences",
    summary="Exact occurrences of a passage in the abstract or the full text's paragraphs",
)
async def occurrences_api(
    app: AppDep,
    owner: OwnerDep,
    paper_id: PaperId,
    text: Annotated[str, Query(min_length=1, max_length=MAX_HIGHLIGHT)],
    scope: Literal["abstract", "fulltext"] = "abstract",
) -> dict[str, object]:
    request = OccurrencesRequest(paper_id, text, scope)
    return (await app.reader.occurrences(request, owner=owner)).to_dict()


class StatusBody(BaseModel):
    status: Status | None = None


class HighlightBody(BaseModel):
    text: str = Field(min_length=1, max_length=MAX_HIGHLIGHT)
    start: int | None = Field(None, ge=0, le=10_000_000)
    occurrence: int = Field(1, ge=1, le=100)
    comment: str | None = Field(None, max_length=MAX_COMMENT)
    block: str | None = Field(
        None, pattern=BLOCK_ID, description="A full-text paragraph (p1, p2, …); else the abstract."
    )
    snapshot: str | None = Field(
        None, pattern=SNAPSHOT, description="The digest of the paragraph the page showed."
    )

    study: str | None = Field(None, max_length=200, description="The Study it is made in.")


class CommentBody(BaseModel):
    comment: str = Field(min_length=1, max_length=MAX_COMMENT)
    study: str | None = Field(None, max_length=200, description="The Study it is made in.")


class SaveBody(BaseModel):
    study: str | None = Field(None, max_length=200)


@api.post("/papers/{paper_id}/status", summary="Set (or clear) the reading status")
def status_api(
    app: AppDep, owner: OwnerDep, paper_id: PaperId, body: StatusBody
) -> dict[str, object]:
    return app.reader.set_status(StatusRequest(paper_id, body.status), owner=owner).to_dict()


@api.post(
    "/papers/{paper_id}/highlights",
    summary="Highlight a passage of the abstract or of a full-text paragraph",
)
async def highlight_api(
    app: AppDep, owner: OwnerDep, paper_id: PaperId, body: HighlightBody
) -> dict[str, object]:
    request = HighlightRequest(
        paper_id,
        text=body.text,
        start=body.start,
        occurrence=body.occurrence,
        comment=body.comment or None,
        block=body.block or None,
        snapshot=body.snapshot or None,
        study=body.study or None,
    )
    return (await app.reader.highlight(request, owner=owner)).to_dict()


@api.post("/papers/{paper_id}/comments", summary="A paper-level comment")
def comment_api(
    app: AppDep, owner: OwnerDep, paper_id: PaperId, body: CommentBody
) -> dict[str, object]:
    request = CommentRequest(paper_id, body.comment, study=body.study or None)
    return app.reader.comment(request, owner=owner).to_dict()


@api.post("/papers/{paper_id}/save", summary="Save a paper shown from a recent search")
def save_api(app: AppDep, owner: OwnerDep, paper_id: PaperId, body: SaveBody) -> dict[str, Any]:
    request = SavePaperRequest(paper_id, study=body.study or None)
    return app.reader.save_paper(request, owner=owner).to_dict()


def _back(
    paper_id: str, anchor: str = "", *, fulltext: bool = False, study: str = ""
) -> RedirectResponse:
    params = {k: v for k, v in (("fulltext", "1" if fulltext else ""), ("study", study)) if v}
    query = "?" + urlencode(params) if params else ""
    return RedirectResponse(f"/paper/{paper_id}{query}{anchor}", status_code=303)


@pages.post("/paper/{paper_id}/status")
def status_form(
    app: AppDep,
    owner: OwnerDep,
    paper_id: PaperId,
    status: Annotated[Literal["", "to-read", "reading", "read"], Form()] = "",
) -> Response:
    app.reader.set_status(StatusRequest(paper_id, status or None), owner=owner)
    return _back(paper_id)


@pages.post("/paper/{paper_id}/highlight")
async def highlight_form(
    app: AppDep,
    owner: OwnerDep,
    paper_id: PaperId,
    text: Annotated[str, Form(min_length=1, max_length=MAX_HIGHLIGHT)],
    start: Annotated[str, Form(max_length=12)] = "",
    occurrence: Annotated[int, Form(ge=1, le=100)] = 1,
    comment: Annotated[str, Form(max_length=MAX_COMMENT)] = "",
    block: Annotated[str, Form(pattern=OPTIONAL_BLOCK_ID)] = "",
    snapshot: Annotated[str, Form(pattern=OPTIONAL_SNAPSHOT)] = "",
    study: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    request = HighlightRequest(
        paper_id,
        text=text,
        start=int(start) if start.isdigit() else None,
        occurrence=occurrence,
        comment=comment.strip() or None,
        block=block or None,
        snapshot=snapshot or None,
        study=study or None,
    )
    await app.reader.highlight(request, owner=owner)
    return _back(paper_id, "#notes", fulltext=bool(block), study=study)


@pages.post("/paper/{paper_id}/comment")
def comment_form(
    app: AppDep,
    owner: OwnerDep,
    paper_id: PaperId,
    comment: Annotated[str, Form(min_length=1, max_length=MAX_COMMENT)],
    study: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    app.reader.comment(CommentRequest(paper_id, comment, study=study or None), owner=owner)
    return _back(paper_id, "#notes", study=study)


@pages.post("/paper/{paper_id}/save")
def save_form(
    app: AppDep,
    owner: OwnerDep,
    paper_id: PaperId,
    study: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    app.reader.save_paper(SavePaperRequest(paper_id, study=study or None), owner=owner)
    return _back(paper_id)
