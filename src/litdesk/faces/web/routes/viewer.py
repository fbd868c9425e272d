"""The PDF viewer ``/library/pdf/<sha>?page=N&passage=…``: a library PDF's page as an image
rendered by litdesk, the cited passage's boxes highlighted, next/previous page and zoom;
``/api/v1/library/pdf/<sha>`` is its JSON twin."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field

from litdesk.services.library import ZOOMS, PageRequest

from .._deps import AppDep, OwnerDep
from .._render import page

__all__ = ["SHA", "api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["library"])

SHA = r"^[0-9a-f]{64}$"
Sha = Annotated[str, Path(pattern=SHA, description="The PDF's SHA-256 (content hash).")]


class ViewParams(BaseModel):
    page: int = Field(1, ge=1, le=100_000, description="1-based page number.")
    passage: str | None = Field(None, max_length=4_000, description="A passage to highlight.")
    zoom: int = Field(100, description=f"Zoom in percent, one of {', '.join(map(str, ZOOMS))}.")
    paper: str | None = Field(
        None,
        max_length=200,
        description="The saved paper the PDF was opened from (offers to record evidence "
        "from the page shown).",
    )
    study: str | None = Field(
        None,
        max_length=200,
        description="The Study the reader worked in (the evidence form opened from the page "
        "records for it, with its extraction form).",
    )

    def request(self, sha: str) -> PageRequest:
        return PageRequest(sha, self.page, self.passage or None, self.zoom)


@pages.get("/library/pdf/{sha}", response_class=HTMLResponse)
def viewer_page(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    sha: Sha,
    params: Annotated[ViewParams, Query()],
) -> Response:
    data = app.library.page(params.request(sha), owner=owner).to_dict()
    data["paper"] = params.paper or None  # only a link back to the reader's evidence form
    data["study"] = (params.study or None) if data["paper"] else None  # the reader's Study
    return page(request, "viewer.html", data, title=f"{data['file']} · page {data['page']}")


@api.get("/library/pdf/{sha}", summary="A library PDF's page view: size, image, passage boxes")
def viewer_api(
    app: AppDep, owner: OwnerDep, sha: Sha, params: Annotated[ViewParams, Query()]
) -> dict[str, Any]:
    return app.library.page(params.request(sha), owner=owner).to_dict()


@pages.get("/library/pdf/{sha}/page/{number}.jpg")
@api.get("/library/pdf/{sha}/page/{number}.jpg", summary="A page image (JPEG, cached)")
def page_image(
    app: AppDep,
    owner: OwnerDep,
    sha: Sha,
    number: Annotated[int, Path(ge=1, le=100_000)],
    zoom: Annotated[int, Query()] = 100,
) -> Response:
    image = app.library.page_image(PageRequest(sha, number, None, zoom), owner=owner)
    return Response(image.data, media_type=image.media_type)
