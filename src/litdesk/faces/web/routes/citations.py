"""The citation browser ``/citations`` (references, citing newest first, related, shared
references of 2–5 papers; 20 per page) and its ``/api/v1/citations`` twin."""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from litdesk.services.citations import MAX_PAGE, MODES, CitationArgumentError, Mode
from litdesk.services.desk import Desk, citation_browser

from .._deps import DeskDep
from .._render import page

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


async def citations_view(desk: Desk, mode: Mode, ids: list[str], page_no: int) -> dict[str, Any]:
    return (await citation_browser(desk, mode, ids, page=page_no)).to_dict()


@pages.get("/citations", response_class=HTMLResponse)
async def citations_page(
    request: Request,
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
    return page(request, "citations.html", {"form": form, "result": data}, title="Citations")


@api.get("/citations", summary="References, citing (newest first), related or shared references")
async def citations_api(
    desk: DeskDep,
    ids: Ids,
    mode: Mode = "references",
    page_no: Annotated[Page, Query(alias="page")] = 1,
) -> dict[str, Any]:
    return await citations_view(desk, mode, _checked(ids), page_no)
