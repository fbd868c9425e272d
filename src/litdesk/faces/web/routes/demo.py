"""The demo workspace's own page: ``/demo/export.ris`` — the demo export a newcomer
downloads and imports into the demo Study (36 RIS records, some already in it). Only the
demo workspace answers it; elsewhere it does not exist (404)."""

from __future__ import annotations

from fastapi import APIRouter, Response
from starlette.concurrency import run_in_threadpool

from litdesk._errors import NotFoundError
from litdesk.services.demo import demo_export

from .._deps import DemoDep

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["demo"])


@pages.get("/demo/export.ris")
async def demo_export_file(demo: DemoDep) -> Response:
    if not demo:
        raise NotFoundError("there is no such page", code="not_found")
    body = await run_in_threadpool(demo_export)
    return Response(
        body,
        media_type="application/x-research-info-systems",
        headers={"Content-Disposition": 'attachment; filename="demo-export.ris"'},
    )
