"""About: each provider's terms (terms page, data licence, the date litdesk read them) and
the offline vocabularies (package, licence, source and its terms) — ``/about`` and its JSON
twin ``/api/v1/about``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from litdesk.core.providers import PROVIDER_SPECS
from litdesk.services.app import App

from .._deps import AppDep
from .._render import page

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["about"])


def about_view(app: App) -> dict[str, Any]:
    providers = [
        {
            "name": spec.name,
            "display_name": spec.display_name,
            "hosts": sorted(spec.hosts),
            "terms": spec.terms.to_dict() if spec.terms is not None else None,
        }
        for spec in PROVIDER_SPECS.values()
        if not spec.demo or app.settings.demo  # the demo sample only in the demo workspace
    ]
    return {"providers": providers} | app.subjects.vocabularies().to_dict()


@api.get("/about", summary="Each provider's terms and the offline vocabularies' terms")
async def about_api(app: AppDep) -> dict[str, Any]:
    return await run_in_threadpool(about_view, app)


@pages.get("/about", response_class=HTMLResponse)
async def about_page(request: Request, app: AppDep) -> HTMLResponse:
    data = await run_in_threadpool(about_view, app)
    return page(request, "about.html", data, title="About")
