"""Request → the PDF library services of the web face (viewer, paper chat, reports),
built once per app on first use over the desk's store and closed with the app."""

from __future__ import annotations

import threading
from typing import Annotated

from fastapi import Depends, FastAPI, Request

from litdesk.services.library import ChatService, Library, PdfViewer
from litdesk.services.synthesis import ReportDesk

from ._deps import get_desk

__all__ = [
    "ChatDep",
    "ReportsDep",
    "ViewerDep",
    "close_library_state",
    "get_chat",
    "get_reports",
    "get_viewer",
]

_LOCK = threading.Lock()


class _LibraryState:
    def __init__(self, library: Library) -> None:
        self.library = library
        self.viewer = PdfViewer(library)
        self.chat = ChatService(library)
        self.reports = ReportDesk(library)


def _state(request: Request) -> _LibraryState:
    app = request.app
    with _LOCK:
        state: _LibraryState | None = getattr(app.state, "pdf_library", None)
        if state is None:
            desk = get_desk(request)
            state = _LibraryState(Library(desk.settings, store=desk.store))
            app.state.pdf_library = state
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
        state.reports.close()
        state.library.close()


ViewerDep = Annotated[PdfViewer, Depends(get_viewer)]
ChatDep = Annotated[ChatService, Depends(get_chat)]
ReportsDep = Annotated[ReportDesk, Depends(get_reports)]
