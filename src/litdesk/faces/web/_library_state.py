"""Request → the PDF library services of the web face (viewer, paper chat, reports),
built once per app on first use over the desk's store and closed with the app."""

from __future__ import annotations

import threading
from typing import Annotated

from fastapi import Depends, FastAPI, Request

from litdesk.services.desk import Desk
from litdesk.services.jobs import Handler, JobRunner, Jobs
from litdesk.services.library import ChatService, Library, PdfViewer
from litdesk.services.synthesis import JOB_KIND, ReportDesk

from ._deps import get_desk

__all__ = [
    "ChatDep",
    "ReportsDep",
    "ViewerDep",
    "close_library_state",
    "open_library_state",
    "get_chat",
    "get_reports",
    "get_viewer",
]

_LOCK = threading.Lock()


class _LibraryState:
    def __init__(self, library: Library, jobs: Jobs) -> None:
        self.library = library
        self.viewer = PdfViewer(library)
        self.chat = ChatService(library)
        self.reports = ReportDesk(library, jobs, self.chat)
        handlers: dict[str, Handler] = {JOB_KIND: self.reports.run_job}
        self.runner = JobRunner(jobs, handlers)


def open_library_state(app: FastAPI, desk: Desk) -> None:
    """Open the library services over the desk's store and start the report job runner
    (the lifespan calls this; :func:`close_library_state` stops it)."""
    with _LOCK:
        state = _LibraryState(Library(desk.settings, store=desk.store), Jobs(desk.store))
        app.state.pdf_library = state
    state.runner.start()


def _state(request: Request) -> _LibraryState:
    state: _LibraryState | None = getattr(request.app.state, "pdf_library", None)
    if state is None:  # the lifespan did not run (an app used without its lifespan)
        open_library_state(request.app, get_desk(request))
        state = request.app.state.pdf_library
    assert state is not None
    return state


def get_viewer(request: Request) -> PdfViewer:
    return _state(request).viewer


def get_chat(request: Request) -> ChatService:
    return _state(request).chat


def get_reports(request: Request) -> ReportDesk:
    return _state(request).reports


def close_library_state(app: FastAPI) -> None:
    """Close the library the app opened (its embedder client; the store is the desk's)."""
    with _LOCK:
        state: _LibraryState | None = getattr(app.state, "pdf_library", None)
        app.state.pdf_library = None
    if state is not None:
        state.runner.stop()  # a running build goes back to the queue and resumes later
        state.library.close()


ViewerDep = Annotated[PdfViewer, Depends(get_viewer)]
ChatDep = Annotated[ChatService, Depends(get_chat)]
ReportsDep = Annotated[ReportDesk, Depends(get_reports)]
