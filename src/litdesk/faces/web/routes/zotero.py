"""The Zotero page: import a Zotero library (a data directory on this machine) into
Studies, and see what the import did; the form works without JavaScript and has its
``/api/v1`` twin. Only the single-user workspace imports: a team server's accounts never
name folders of the server's machine."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field

from litdesk._errors import LitdeskError, RefusedError
from litdesk.services.app import App
from litdesk.services.zotero import ZoteroImportRequest

from .._deps import AppDep, OwnerDep
from .._errors import status_of
from .._render import page

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["zotero"])


class ImportBody(BaseModel):
    data_dir: str | None = Field(default=None, max_length=4_096)
    collections: list[str] = Field(default_factory=list, max_length=100)
    study: str | None = Field(default=None, max_length=400)
    base_dir: str | None = Field(default=None, max_length=4_096)
    group: int | None = None
    pdfs: bool = True
    sub_studies: bool = False


def _single_user(app: App, owner: str) -> None:
    if owner != app.owner:
        raise RefusedError(
            "a team server does not import Zotero folders of its own machine; use "
            "`litdesk zotero import` on your computer",
            code="zotero_team",
        )


def _request(body: ImportBody) -> ZoteroImportRequest:
    return ZoteroImportRequest(
        data_dir=body.data_dir,
        collections=tuple(body.collections),
        study=body.study,
        base_dir=body.base_dir,
        group=body.group,
        pdfs=body.pdfs,
        sub_studies=body.sub_studies,
    )


@pages.get("/zotero", response_class=HTMLResponse)
def zotero_page(request: Request, app: AppDep, owner: OwnerDep) -> Response:
    data: dict[str, Any] = {"result": None, "error": None, "form": ImportBody().model_dump()}
    data["team"] = owner != app.owner
    return page(request, "zotero.html", data, title="Zotero")


@pages.post("/zotero/import", response_class=HTMLResponse)
def import_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    data_dir: Annotated[str, Form(max_length=4_096)] = "",
    collections: Annotated[str, Form(max_length=20_000)] = "",
    study: Annotated[str, Form(max_length=400)] = "",
    base_dir: Annotated[str, Form(max_length=4_096)] = "",
    pdfs: Annotated[bool, Form()] = False,
    sub_studies: Annotated[bool, Form()] = False,
) -> Response:
    body = ImportBody(
        data_dir=data_dir or None,
        collections=[c for c in collections.splitlines() if c.strip()],
        study=study or None,
        base_dir=base_dir or None,
        pdfs=pdfs,
        sub_studies=sub_studies,
    )
    data: dict[str, Any] = {"result": None, "error": None, "form": body.model_dump()}
    data["team"] = owner != app.owner
    try:
        _single_user(app, owner)
        data["result"] = app.zotero.import_library(_request(body), owner=owner).to_dict()
    except LitdeskError as exc:  # shown on the page beside the form, as it was filled
        data["error"] = exc.message
        return page(request, "zotero.html", data, title="Zotero", status=status_of(exc))
    return page(request, "zotero.html", data, title="Zotero")


@api.post("/zotero/imports", summary="Import a Zotero data directory into Studies")
def import_api(body: ImportBody, app: AppDep, owner: OwnerDep) -> dict[str, object]:
    _single_user(app, owner)
    return app.zotero.import_library(_request(body), owner=owner).to_dict()
