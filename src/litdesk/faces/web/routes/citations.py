"""The citation browser ``/citations`` (references, citing newest first, related, shared
references of 2–5 papers; 20 per page; chosen works saved into a Study) and its
``/api/v1/citations`` twins."""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field

from litdesk._errors import InputError
from litdesk.services.citations import MAX_PAGE, MODES, Mode
from litdesk.services.reader import (
    MAX_SEEDS,
    MAX_SELECTION,
    CitationsRequest,
    SaveCitationsRequest,
)

from .._deps import AppDep, OwnerDep
from .._render import page
from ._common import PAPER_ID

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["citations"])

_IDS: Final = "Paper ids (OAX-W…/W…, DOI, MED-…/PMID, PMCID): one, or 2–5 for shared."
Ids = Annotated[list[str], Query(min_length=1, max_length=MAX_SEEDS, description=_IDS)]
FormIds = Annotated[list[str] | None, Query(max_length=MAX_SEEDS, description=_IDS)]
Page = Annotated[int, Query(ge=1, le=MAX_PAGE, description="Page (20 works per page).")]


LISTING: Final = r"^[A-Za-z0-9_-]{16,64}$"


def _here(request: Request) -> str:
    query = request.url.query
    return request.url.path + (f"?{query}" if query else "")


@pages.get("/citations", response_class=HTMLResponse)
async def citations_page(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    mode: Mode = "references",
    ids: FormIds = None,
    page_no: Annotated[Page, Query(alias="page")] = 1,
) -> Response:
    wanted = [i.strip() for i in ids or [] if i.strip()]
    form = {"mode": mode, "ids": wanted, "modes": list(MODES), "max_seeds": MAX_SEEDS}
    if not wanted:  # the empty form
        return page(request, "citations.html", {"form": form, "result": None}, title="Citations")
    shown = await app.reader.citations(CitationsRequest(mode, tuple(wanted), page_no), owner=owner)
    return page(
        request,
        "citations.html",
        {
            "form": form,
            "result": shown.to_dict(),
            "studies": shown.studies,
            "back": _here(request),
        },
        title="Citations",
    )


@api.get("/citations", summary="References, citing (newest first), related or shared references")
async def citations_api(
    app: AppDep,
    owner: OwnerDep,
    ids: Ids,
    mode: Mode = "references",
    page_no: Annotated[Page, Query(alias="page")] = 1,
) -> dict[str, object]:
    request = CitationsRequest(mode, tuple(ids), page_no)
    return (await app.reader.citations(request, owner=owner)).to_dict()


class SaveBody(BaseModel):
    listing: str = Field(pattern=LISTING, description="The list's id (from /api/v1/citations).")
    paper_ids: list[Annotated[str, Field(pattern=PAPER_ID)]] = Field(
        min_length=1, max_length=MAX_SELECTION
    )
    study: str | None = Field(None, max_length=200)
    new_study: str | None = Field(None, max_length=200)


@api.post("/citations/save", summary="Save chosen works of a shown list into a Study")
def citations_save_api(app: AppDep, owner: OwnerDep, body: SaveBody) -> dict[str, Any]:
    request = SaveCitationsRequest(
        body.listing, tuple(body.paper_ids), study=body.study, new_study=body.new_study
    )
    return app.reader.save_citations(request, owner=owner).to_dict()


@pages.post("/citations/save", response_class=HTMLResponse)
def citations_save_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    listing: Annotated[str, Form(pattern=LISTING)],
    paper_ids: Annotated[list[str], Form(max_length=MAX_SELECTION)] = [],  # noqa: B006 - FastAPI form default
    study: Annotated[str, Form(max_length=200)] = "",
    new_study: Annotated[str, Form(max_length=200)] = "",
    back: Annotated[str, Form(max_length=4_000)] = "",
) -> Response:
    if not paper_ids:
        raise InputError("choose at least one work", code="empty_selection")
    result = app.reader.save_citations(
        SaveCitationsRequest(listing, tuple(paper_ids), study=study, new_study=new_study),
        owner=owner,
    )
    safe_back = back if back.startswith("/citations?") else "/citations"
    data = result.to_dict() | {"kind": "save", "back": safe_back, "back_label": "citations"}
    return page(request, "selection.html", data, title="Saved from citations")
