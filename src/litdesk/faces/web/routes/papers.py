"""Saved papers (list, filters, exports) and the reader ``/paper/<id>`` (abstract and,
on request, licensed Europe PMC full text; highlights on either, comments, reading
status), with their ``/api/v1`` twins."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field, field_validator

from litdesk.services.app import App
from litdesk.services.desk import Desk
from litdesk.services.studies import SavedExportRequest, SavedRequest

from .._deps import AppDep, DeskDep, OwnerDep
from .._render import page
from ._common import PaperId, download

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


@api.get("/saved", summary="Saved papers, filtered (text, Study, reading status), paged")
def saved_api(
    app: AppDep, owner: OwnerDep, params: Annotated[SavedParams, Query()]
) -> dict[str, Any]:
    return saved_view(app, owner, params)


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

    @field_validator("section", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if value == "" else value  # "all sections"


async def reader_view(desk: Desk, paper_id: str, p: ReaderParams) -> dict[str, Any]:
    view = await desk.reading.open_paper(paper_id, fulltext=p.fulltext, section=p.section)
    return view.to_dict()


@pages.get("/paper/{paper_id}", response_class=HTMLResponse)
async def reader_page(
    request: Request, desk: DeskDep, paper_id: PaperId, params: Annotated[ReaderParams, Query()]
) -> Response:
    return page(request, "reader.html", await reader_view(desk, paper_id, params), title="Reader")


@api.get(
    "/papers/{paper_id}",
    summary="A paper's reader data (store, recent run, else looked up; full text on request)",
)
async def reader_api(
    desk: DeskDep, paper_id: PaperId, params: Annotated[ReaderParams, Query()]
) -> dict[str, Any]:
    return await reader_view(desk, paper_id, params)


@api.get(
    "/papers/{paper_id}/occurrences",
    summary="Exact occurrences of a passage in the abstract or the full text's paragraphs",
)
async def occurrences_api(
    desk: DeskDep,
    paper_id: PaperId,
    text: Annotated[str, Query(min_length=1, max_length=MAX_HIGHLIGHT)],
    scope: Literal["abstract", "fulltext"] = "abstract",
) -> dict[str, Any]:
    return {"occurrences": await desk.reading.occurrences(paper_id, text, scope=scope)}


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


class CommentBody(BaseModel):
    comment: str = Field(min_length=1, max_length=MAX_COMMENT)


class SaveBody(BaseModel):
    study: str | None = Field(None, max_length=200)


@api.post("/papers/{paper_id}/status", summary="Set (or clear) the reading status")
def status_api(desk: DeskDep, paper_id: PaperId, body: StatusBody) -> dict[str, Any]:
    return desk.reading.set_status(paper_id, body.status).to_dict()


async def _highlight(desk: Desk, paper_id: str, body: HighlightBody) -> dict[str, Any]:
    view = await desk.reading.highlight(
        paper_id,
        text=body.text,
        start=body.start,
        occurrence=body.occurrence,
        comment=body.comment or None,
        block=body.block or None,
        snapshot=body.snapshot or None,
    )
    return view.to_dict()


@api.post(
    "/papers/{paper_id}/highlights",
    summary="Highlight a passage of the abstract or of a full-text paragraph",
)
async def highlight_api(desk: DeskDep, paper_id: PaperId, body: HighlightBody) -> dict[str, Any]:
    return await _highlight(desk, paper_id, body)


@api.post("/papers/{paper_id}/comments", summary="A paper-level comment")
def comment_api(desk: DeskDep, paper_id: PaperId, body: CommentBody) -> dict[str, Any]:
    return desk.reading.comment(paper_id, body.comment).to_dict()


@api.post("/papers/{paper_id}/save", summary="Save a paper shown from a recent search")
def save_api(desk: DeskDep, paper_id: PaperId, body: SaveBody) -> dict[str, Any]:
    return desk.reading.save_paper(paper_id, study=body.study or None).to_dict()


def _back(paper_id: str, anchor: str = "", *, fulltext: bool = False) -> RedirectResponse:
    query = "?fulltext=1" if fulltext else ""
    return RedirectResponse(f"/paper/{paper_id}{query}{anchor}", status_code=303)


@pages.post("/paper/{paper_id}/status")
def status_form(
    desk: DeskDep,
    paper_id: PaperId,
    status: Annotated[Literal["", "to-read", "reading", "read"], Form()] = "",
) -> Response:
    desk.reading.set_status(paper_id, status or None)
    return _back(paper_id)


@pages.post("/paper/{paper_id}/highlight")
async def highlight_form(
    desk: DeskDep,
    paper_id: PaperId,
    text: Annotated[str, Form(min_length=1, max_length=MAX_HIGHLIGHT)],
    start: Annotated[str, Form(max_length=12)] = "",
    occurrence: Annotated[int, Form(ge=1, le=100)] = 1,
    comment: Annotated[str, Form(max_length=MAX_COMMENT)] = "",
    block: Annotated[str, Form(pattern=OPTIONAL_BLOCK_ID)] = "",
    snapshot: Annotated[str, Form(pattern=OPTIONAL_SNAPSHOT)] = "",
) -> Response:
    await desk.reading.highlight(
        paper_id,
        text=text,
        start=int(start) if start.isdigit() else None,
        occurrence=occurrence,
        comment=comment.strip() or None,
        block=block or None,
        snapshot=snapshot or None,
    )
    return _back(paper_id, "#notes", fulltext=bool(block))


@pages.post("/paper/{paper_id}/comment")
def comment_form(
    desk: DeskDep,
    paper_id: PaperId,
    comment: Annotated[str, Form(min_length=1, max_length=MAX_COMMENT)],
) -> Response:
    desk.reading.comment(paper_id, comment)
    return _back(paper_id, "#notes")


@pages.post("/paper/{paper_id}/save")
def save_form(
    desk: DeskDep, paper_id: PaperId, study: Annotated[str, Form(max_length=200)] = ""
) -> Response:
    desk.reading.save_paper(paper_id, study=study or None)
    return _back(paper_id)
