"""The Zotero pages: import a Zotero library (a data directory on this machine, or a
library of zotero.org through the Web API with the account's own key) into Studies, and see
what the import did; push a Study's reading statuses, screening decisions
and notes back (the plan shown → confirmed → the result). The forms work without
JavaScript and have their ``/api/v1`` twins. Only the single-user workspace imports,
writes RIS files or reaches Zotero's local API: a team server's accounts never name folders
of the server's machine nor reach the Zotero running there (they push through the Web API
with their own key, which is never shown back in a page)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field

from litdesk._errors import LitdeskError, RefusedError
from litdesk.services.app import App
from litdesk.services.zotero import ZoteroImportRequest, ZoteroPushRequest, ZoteroWebImportRequest

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
    data["web_key_set"] = _key_set(app, owner)
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
    data["web_key_set"] = _key_set(app, owner)
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


class WebImportBody(BaseModel):
    library: str = Field(max_length=40)
    api_key: str | None = Field(default=None, max_length=200)
    collections: list[str] = Field(default_factory=list, max_length=100)
    study: str | None = Field(default=None, max_length=400)
    sub_studies: bool = False
    pdfs: bool = False
    full: bool = False


def _web_request(app: App, owner: str, body: WebImportBody) -> ZoteroWebImportRequest:
    """The request with the account's key: the one given, or (the single-user workspace
    only) the setting ``LITDESK_ZOTERO_API_KEY`` — never the server's key for a team
    account."""
    key = body.api_key.strip() if body.api_key and body.api_key.strip() else None
    setting = app.settings.zotero_api_key
    if key is None and owner == app.owner and setting is not None:
        key = setting.get_secret_value().strip() or None
    return ZoteroWebImportRequest(
        library=body.library,
        api_key=key,
        collections=tuple(body.collections),
        study=body.study,
        sub_studies=body.sub_studies,
        pdfs=body.pdfs,
        full=body.full,
    )


@pages.post("/zotero/import-web", response_class=HTMLResponse)
async def import_web_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    library: Annotated[str, Form(min_length=1, max_length=40)],
    api_key: Annotated[str, Form(max_length=200)] = "",
    collections: Annotated[str, Form(max_length=20_000)] = "",
    study: Annotated[str, Form(max_length=400)] = "",
    sub_studies: Annotated[bool, Form()] = False,
    pdfs: Annotated[bool, Form()] = False,
) -> Response:
    """Import a library of zotero.org; the result (or the error) beside the form, as it
    was filled — never the key."""
    names = [c for c in collections.splitlines() if c.strip()]
    web = {
        "library": library,
        "collections": names,
        "study": study,
        "sub_studies": sub_studies,
        "pdfs": pdfs,
    }
    data: dict[str, Any] = {"result": None, "error": None, "form": ImportBody().model_dump()}
    data |= {"team": owner != app.owner, "web": web, "web_key_set": _key_set(app, owner)}
    try:
        body = WebImportBody(
            library=library,
            api_key=api_key or None,
            collections=names,
            study=study or None,
            sub_studies=sub_studies,
            pdfs=pdfs,
        )
        view = await app.zotero.import_web(_web_request(app, owner, body), owner=owner)
        data["result"] = view.to_dict()
    except LitdeskError as exc:
        data["error"] = exc.message
        return page(request, "zotero.html", data, title="Zotero", status=status_of(exc))
    return page(request, "zotero.html", data, title="Zotero")


@api.post("/zotero/web-imports", summary="Import a library of zotero.org through the Web API")
async def import_web_api(body: WebImportBody, app: AppDep, owner: OwnerDep) -> dict[str, object]:
    view = await app.zotero.import_web(_web_request(app, owner, body), owner=owner)
    return view.to_dict()


def _key_set(app: App, owner: str) -> bool:
    """Whether the form may be sent without a key (the workspace's setting holds one)."""
    setting = app.settings.zotero_api_key
    return owner == app.owner and setting is not None and bool(setting.get_secret_value())


class PushBody(BaseModel):
    study: str = Field(max_length=400)
    ris_path: str | None = Field(default=None, max_length=4_096)
    library: str | None = Field(default=None, max_length=40)
    api_key: str | None = Field(default=None, max_length=200)
    local: bool = False
    #: ``False``: only the plan (nothing is sent); ``True``: write it
    confirm: bool = False


def _push_request(app: App, owner: str, body: PushBody) -> ZoteroPushRequest:
    if owner != app.owner and (body.local or body.ris_path):
        raise RefusedError(
            "a team server writes no file on its machine and reaches no Zotero running "
            "there; push through the Zotero Web API with your library and key, or use "
            "`litdesk zotero push` on your computer",
            code="zotero_team",
        )
    app.workspace(owner).study(body.study)  # a Study the owner may read (else 404)
    return ZoteroPushRequest(
        study=body.study,
        ris_path=body.ris_path,
        library=body.library,
        api_key=body.api_key,
        local=body.local,
    )


def _push_form(
    study: str, target: str, ris_path: str, library: str, api_key: str, *, confirm: bool
) -> PushBody:
    return PushBody(
        study=study,
        ris_path=(ris_path or None) if target == "ris" else None,
        library=(library or None) if target == "web" else None,
        api_key=(api_key or None) if target == "web" else None,
        local=target == "local",
        confirm=confirm,
    )


@pages.get("/zotero/push", response_class=HTMLResponse)
def push_page(request: Request, app: AppDep, owner: OwnerDep, study: str = "") -> Response:
    team = owner != app.owner
    if study:
        app.workspace(owner).study(study[:400])  # a Study the owner may read (else 404)
    form = {
        "study": study[:400],
        "target": "web" if team else "local",
        "ris_path": "",
        "library": "",
    }
    data: dict[str, Any] = {"plan": None, "result": None, "error": None, "form": form}
    data["team"] = team
    return page(request, "zotero_push.html", data, title="Zotero: give back")


@pages.post("/zotero/push", response_class=HTMLResponse)
async def push_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    study: Annotated[str, Form(max_length=400)] = "",
    target: Annotated[str, Form(max_length=10)] = "local",
    ris_path: Annotated[str, Form(max_length=4_096)] = "",
    library: Annotated[str, Form(max_length=40)] = "",
    api_key: Annotated[str, Form(max_length=200)] = "",
    confirm: Annotated[bool, Form()] = False,
) -> Response:
    """Without ``confirm``: the plan, with a form to confirm it; with: the write."""
    form = {"study": study, "target": target, "ris_path": ris_path, "library": library}
    data: dict[str, Any] = {"plan": None, "result": None, "error": None, "form": form}
    data["team"] = owner != app.owner
    try:
        body = _push_form(study, target, ris_path, library, api_key, confirm=confirm)
        req = _push_request(app, owner, body)
        if confirm:
            data["result"] = (await app.zotero.push(req, owner=owner, confirm=True)).to_dict()
        else:
            data["plan"] = app.zotero.plan_push(req, owner=owner).to_dict()
    except LitdeskError as exc:  # shown beside the form, as it was filled (never the key)
        data["error"] = exc.message
        status = status_of(exc)
        return page(request, "zotero_push.html", data, title="Zotero: give back", status=status)
    return page(request, "zotero_push.html", data, title="Zotero: give back")


@api.post("/zotero/pushes", summary="Plan (confirm=false) or write (true) a push to Zotero")
async def push_api(body: PushBody, app: AppDep, owner: OwnerDep) -> dict[str, object]:
    req = _push_request(app, owner, body)
    if not body.confirm:
        return {"plan": app.zotero.plan_push(req, owner=owner).to_dict(), "written": False}
    return {**(await app.zotero.push(req, owner=owner, confirm=True)).to_dict(), "written": True}
