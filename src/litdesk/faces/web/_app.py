"""``create_app(settings)``: the FastAPI app of the web workspace. The lifespan opens the
desk (store, provider transport, fused search) once; the security middleware guards every
request; one exception handler translates errors; static files come from the package."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles

from litdesk import SYSTEM_CLOCK, Clock, __version__
from litdesk._settings import Settings
from litdesk.services.desk import (
    Desk,
    assist_handlers,
    dedup_handlers,
    import_handlers,
    open_desk,
)
from litdesk.services.jobs import Handler, JobRunner, Jobs
from litdesk.services.library_desk import LibraryDesk
from litdesk.services.synthesis import report_csp

from . import _auth, _sso
from ._errors import CatchAll, install_error_handlers
from ._library_state import close_library_state, open_library_state
from ._render import STATIC_DIR
from ._security import DEFAULT_BODY_LIMIT, SecurityMiddleware
from ._timing import ServerTiming
from .routes import (
    assist,
    chat,
    citations,
    dedup,
    jobs,
    library,
    notes,
    papers,
    reports,
    search,
    strategy,
    studies,
    study_files,
    summary,
    viewer,
)

__all__ = ["API_PREFIX", "create_app"]

API_PREFIX: Final = "/api/v1"


@asynccontextmanager
async def _background(
    app: FastAPI, desk: Desk, settings: Settings, clock: Clock = SYSTEM_CLOCK
) -> AsyncIterator[None]:
    """The job queue and this process's job runners (handlers by kind, a plain dict) for
    the app's lifetime; on shutdown running jobs are handed back to the queue. The
    AI-assistance calls and the paper chat's questions each have a runner of their own, so
    that a person waiting for a suggestion or an answer never waits behind a long PDF
    indexing, import or report build."""
    queue = Jobs(desk.store, clock=clock)
    shelf = LibraryDesk(desk.runtime, queue)
    pdfs = open_library_state(app, desk, queue)  # viewer, paper chat, report wizard
    handlers: dict[str, Handler] = {
        **shelf.handlers(),
        **pdfs.handlers(),
        **dedup_handlers(desk),  # a Study's deduplication runs (the dedup review page)
        **import_handlers(desk),  # large web imports into a Study (POST /api/v1/imports)
    }
    runner = JobRunner(
        queue,
        handlers,
        slots=max(1, settings.jobs_worker_slots),
        lease_s=settings.jobs_lease_seconds,
        poll_s=settings.jobs_poll_seconds,
    )
    assist = JobRunner(  # AI-assistance model calls (evidence, summary, strategy)
        queue,
        assist_handlers(desk),
        slots=max(1, settings.jobs_worker_slots),
        lease_s=settings.jobs_lease_seconds,
        poll_s=settings.jobs_poll_seconds,
    )
    # the paper chat's questions: their own worker threads (answers are interactive)
    answers = JobRunner(
        queue,
        pdfs.chat_handlers(),
        slots=max(1, settings.jobs_worker_slots),
        lease_s=settings.jobs_lease_seconds,
        poll_s=settings.jobs_poll_seconds,
    )
    app.state.jobs, app.state.library, app.state.runner = queue, shelf, runner
    app.state.assist_runner, app.state.chat_runner = assist, answers
    runners = (runner, assist, answers)
    if settings.jobs_worker_slots > 0:
        for r in runners:
            r.start()
    try:
        yield
    finally:
        await asyncio.gather(*(asyncio.to_thread(r.stop) for r in runners))
        close_library_state(app)


def create_app(
    settings: Settings,
    *,
    host: str | None = None,
    port: int | None = None,
    replay: Path | None = None,
    desk: Desk | None = None,
    team: bool = False,
    clock: Clock = SYSTEM_CLOCK,
) -> FastAPI:
    """The app for ``http://host:port`` (default: the settings' web address). Only that
    exact origin may write; only that Host is answered. ``replay`` answers provider
    requests from a cassette folder. ``desk`` (tests) replaces the lifespan's own.
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
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if desk is not None:
            app.state.desk = desk
            if not isinstance(desk, Desk):  # a stand-in desk (tests): no store, no jobs
                yield
                return
            async with _background(app, desk, settings, clock):
                yield
            return
        async with open_desk(settings, replay=replay, clock=clock) as opened:
            app.state.desk = opened
            async with _background(app, opened, settings, clock):
                yield

    app = FastAPI(
        title="litdesk web workspace",
        version=__version__,
        openapi_url=f"{API_PREFIX}/openapi.json",
        docs_url=None,  # the hosted docs pages need CDN scripts and inline code
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.clock = clock
    install_error_handlers(app)
    app.add_middleware(CatchAll)
    app.add_middleware(ServerTiming)
    if team:
        app.state.team_secure = origin.startswith("https://")
        app.state.team_origin = origin  # single sign-on's redirect URI starts with it
        app.add_middleware(_auth.SessionGate)  # inside: Host, Origin and CSRF come first
    app.add_middleware(
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
                library.UPLOAD_PATHS, library.upload_limit(settings.library_upload_max_bytes)
            ),
        },
        csp_overrides={reports.VIEW_PREFIX: report_csp()},
    )
    if team:
        app.add_middleware(_auth.AccessLog)
        app.include_router(_auth.health)
        app.include_router(_auth.pages, include_in_schema=False)
        app.include_router(_sso.pages, include_in_schema=False)
        app.include_router(_auth.api, prefix=API_PREFIX)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    routes = (search, papers, notes, studies, study_files, citations, dedup, library, jobs)
    for module in (*routes, assist, strategy, summary, viewer, chat, reports):
        app.include_router(module.pages, include_in_schema=False)
        app.include_router(module.api, prefix=API_PREFIX)

    @app.get("/", include_in_schema=False)
    def _home() -> RedirectResponse:
        return RedirectResponse("/search", status_code=303)

    return app
