"""``create_app(settings)``: the FastAPI app of the web workspace. The lifespan opens the
application (:func:`litdesk.services.app.open_app`) once and starts its job runners when
the settings give this process worker slots; the security middleware guards every
request; one exception handler translates errors; static files come from the package."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from fastapi import FastAPI
from fastapi.responses import RedirectResponse

from litdesk import SYSTEM_CLOCK, Clock, __version__
from litdesk._settings import Settings
from litdesk.services.app import open_app
from litdesk.services.synthesis import report_csp

from . import _auth, _sso
from ._errors import CatchAll, install_error_handlers
from ._render import StaticAssets, asset_prefix
from ._security import DEFAULT_BODY_LIMIT, SecurityMiddleware
from ._timing import ServerTiming
from .routes import (
    about,
    assist,
    chat,
    citations,
    dedup,
    demo,
    forms,
    jobs,
    library,
    notes,
    papers,
    pdf_record,
    reports,
    screening,
    screening_team,
    search,
    strategy,
    studies,
    study_edit,
    study_files,
    study_fulltext,
    study_searches,
    subjects,
    summary,
    viewer,
    zotero,
)

__all__ = ["API_PREFIX", "create_app"]

API_PREFIX: Final = "/api/v1"


def create_app(
    settings: Settings,
    *,
    host: str | None = None,
    port: int | None = None,
    replay: Path | None = None,
    app: object | None = None,
    team: bool = False,
    app_hooks: Mapping[str, Any] | None = None,
    clock: Clock = SYSTEM_CLOCK,
) -> FastAPI:
    """The app for ``http://host:port`` (default: the settings' web address). Only that
    exact origin may write; only that Host is answered. ``replay`` answers provider
    requests from a cassette folder. ``app`` (tests) is a stand-in for the opened
    application (no store, no jobs); ``app_hooks`` are extra ``open_app`` test keywords.
    ``team``: accounts and sessions (see ``_auth``); the origin is the settings' public
    origin when set (the reverse proxy's), whose Host is answered too. ``clock``: what the
    job queue, sessions and throttles read (tests pass a :class:`~litdesk.ManualClock`)."""
    host = host or settings.web_host
    port = port or settings.web_port
    origin = f"http://{host}:{port}"
    hosts = {f"{host}:{port}"}
    if team:  # health checks on the machine itself; writes still need the exact origin
        hosts |= {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"}
    if team and settings.team_public_origin:
        origin = settings.team_public_origin
        hosts.add(urlsplit(origin).netloc)

    @asynccontextmanager
    async def lifespan(web: FastAPI) -> AsyncIterator[None]:
        if app is not None:  # a stand-in (tests): no store, no jobs
            web.state.app = app
            yield
            return
        async with open_app(
            settings, replay=replay, clock=clock, **dict(app_hooks or {})
        ) as opened:
            web.state.app = opened
            await asyncio.to_thread(opened.catch_up_shelf)  # a shared object store
            if settings.jobs_worker_slots > 0:
                opened.start_workers()
            yield

    web = FastAPI(
        title="litdesk web workspace",
        version=__version__,
        openapi_url=f"{API_PREFIX}/openapi.json",
        docs_url=None,  # the hosted docs pages need CDN scripts and inline code
        redoc_url=None,
        lifespan=lifespan,
    )
    web.state.demo = settings.demo  # every page of the demo workspace says so (base.html)
    hidden = (settings.resolved_data_dir(), settings.inbox_dir, *settings.library_dirs)
    install_error_handlers(web, hide=tuple(str(d) for d in hidden if d) if team else ())
    web.add_middleware(CatchAll)
    web.add_middleware(ServerTiming)
    if team:
        web.state.team_secure = origin.startswith("https://")
        web.state.team_origin = origin  # single sign-on's redirect URI starts with it
        web.add_middleware(_auth.SessionGate)  # inside: Host, Origin and CSRF come first
    web.add_middleware(
        SecurityMiddleware,
        origin=origin,
        hosts=frozenset(hosts),
        default_limit=DEFAULT_BODY_LIMIT,
        body_limits={
            f"{API_PREFIX}/query": 16_000,
            f"{API_PREFIX}/imports": studies.IMPORT_LIMIT,
            API_PREFIX + study_files.IMPORT_PATH: study_files.IMPORT_LIMIT,
            study_files.IMPORT_PATH: study_files.IMPORT_LIMIT,  # the form posted without JS
            **dict.fromkeys(
                (study_fulltext.ATTACH_PATH, API_PREFIX + study_fulltext.ATTACH_PATH),
                study_fulltext.attach_limit(settings.library_upload_max_bytes),
            ),
            **dict.fromkeys(
                library.UPLOAD_PATHS, library.upload_limit(settings.library_upload_max_bytes)
            ),
            **dict.fromkeys(  # decision files (screening); the Study follows the prefix
                (screening_team.IMPORT_PATH, API_PREFIX + screening_team.IMPORT_PATH),
                screening_team.IMPORT_LIMIT + 100_000,
            ),
        },
        csp_overrides={reports.VIEW_PREFIX: report_csp()},
        immutable_prefix=asset_prefix() + "/",
        # team: the CSRF token is bound to the signed-in session (see _security)
        session_cookie=_auth.SESSION_COOKIE if team else None,
    )
    if team:
        web.add_middleware(_auth.AccessLog)
        web.include_router(_auth.health)
        web.include_router(_auth.pages, include_in_schema=False)
        web.include_router(_sso.pages, include_in_schema=False)
        web.include_router(_auth.api, prefix=API_PREFIX)
    web.mount("/static", StaticAssets(), name="static")
    routes = (
        search,
        papers,
        notes,
        studies,
        forms,
        study_files,
        study_searches,
        citations,
        dedup,
        library,
        jobs,
    )
    for module in (
        *routes,
        assist,
        strategy,
        summary,
        viewer,
        pdf_record,
        chat,
        reports,
        zotero,
        study_fulltext,
        study_edit,
        screening,
        screening_team,
        subjects,
        about,
        demo,  # /demo/export.ris: the demo workspace only
    ):
        web.include_router(module.pages, include_in_schema=False)
        web.include_router(module.api, prefix=API_PREFIX)

    @web.get("/", include_in_schema=False)
    def _home() -> RedirectResponse:
        return RedirectResponse("/search", status_code=303)

    return web
