"""The citation browser ``/citations`` (references, citing newest first, related, shared
references of 2–5 papers; 20 per page; chosen works saved into a Study) and its
``/api/v1/citations`` twins."""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk._errors import InputError
from litdesk.services.citations import MAX_PAGE, MODES, CitationArgumentError, Mode
from litdesk.services.desk import MAX_SELECTION, Desk, listed_citations, save_citations

from .._deps import AppDep, DeskDep, OwnerDep
from .._render import page
from ._common import PAPER_ID

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["citations"])

MAX_SEEDS: Final = 5

_IDS: Final = "Paper ids (OAX-W…/W…, DOI, MED-…/PMID, PMCID): one, or 2–5 for shared."
Ids = Annotated[list[str], Query(min_length=1, max_length=MAX_SEEDS, description=_IDS)]
FormIds = Annotated[list[str] | None, Query(max_length=MAX_SEEDS, description=_IDS)]
Page = Annotated[int, Query(ge=1, le=MAX_PAGE, description="Page (20 works per page).")]


def _checked(ids: list[str]) -> list[str]:
    for i in ids:
        if len(i) > 200 or not i.isprintable():
            raise CitationArgumentError("a paper id is at most 200 printable characters")
    return ids


LISTING: Final = r"^[A-Za-z0-9_-]{16,64}$"


async def citations_view(desk: Desk, mode: Mode, ids: list[str], page_no: int) -> dict[str, Any]:
    """One page of works, with the id of the remembered list (to save chosen works)."""
    view, listing = await listed_citations(desk, mode, ids, page=page_no)
    return view.to_dict() | {"listing": listing}


def _here(request: Request) -> str:
    query = request.url.query
    return request.url.path + (f"?{query}" if query else "")


@pages.get("/citations", response_class=HTMLResponse)
async def citations_page(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    desk: DeskDep,
    mode: Mode = "references",
    ids: FormIds = None,
    page_no: Annotated[Page, Query(alias="page")] = 1,
) -> Response:
    wanted = [i.strip() for i in ids or [] if i.strip()]
    form = {"mode": mode, "ids": wanted, "modes": list(MODES), "max_seeds": MAX_SEEDS}
    if not wanted:  # the empty form
        return page(request, "citations.html", {"form": form, "result": None}, title="Citations")
    data = await citations_view(desk, mode, _checked(wanted), page_no)
    studies = (await run_in_threadpool(app.studies.studies, owner=owner)).to_dict()["studies"]
    return page(
        request,
        "citations.html",
        {"form": form, "result": data, "studies": studies, "back": _here(request)},
        title="Citations",
    )


@api.get("/citations", summary="References, citing (newest first), related or shared references")
async def citations_api(
    desk: DeskDep,
    ids: Ids,
    mode: Mode = "references",
    page_no: Annotated[Page, Query(alias="page")] = 1,
) -> dict[str, Any]:
    return await citations_view(desk, mode, _checked(ids), page_no)


class SaveBody(BaseModel):
    listing: str = Field(pattern=LISTING, description="The list's id (from /api/v1/citations).")
    paper_ids: list[Annotated[str, Field(pattern=PAPER_ID)]] = Field(
        min_length=1, max_length=MAX_SELECTION
    )
    study: str | None = Field(None, max_length=200)
    new_study: str | None = Field(None, max_length=200)


@api.post("/citations/save", summary="Save chosen works of a shown list into a Study")
def citations_save_api(desk: DeskDep, body: SaveBody) -> dict[str, Any]:
    return save_citations(
        desk,
        body.listing,
        body.paper_ids,
        study=body.study or None,
        new_study=(body.new_study or "").strip() or None,
    ).to_dict()


@pages.post("/citations/save", response_class=HTMLResponse)
def citations_save_form(
    request: Request,
    desk: DeskDep,
    listing: Annotated[str, Form(pattern=LISTING)],
    paper_ids: Annotated[list[str], Form(max_length=MAX_SELECTION)] = [],  # noqa: B006 - FastAPI form default
    study: Annotated[str, Form(max_length=200)] = "",
    new_study: Annotated[str, Form(max_length=200)] = "",
    back: Annotated[str, Form(max_length=4_000)] = "",
) -> Response:
    if not paper_ids:
        raise InputError("choose at least one work", code="empty_selection")
    result = save_citations(
        desk, listing, paper_ids, study=study or None, new_study=new_study.strip() or None
    )
    safe_back = back if back.startswith("/citations?") else "/citations"
    data = result.to_dict() | {"kind": "save", "back": safe_back, "back_label": "citations"}
    return page(request, "selection.html", data, title="Saved from citations")
