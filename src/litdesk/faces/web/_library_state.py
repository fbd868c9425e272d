"""Request → the PDF library services of the web face (viewer, paper chat, reports),
built once per app on first use over the desk's store and closed with the app."""

from __future__ import annotations

import threading
from typing import Annotated

from fastapi import Depends, FastAPI, Request

from litdesk._errors import RefusedError
from litdesk.services.desk import Desk
from litdesk.services.jobs import Handler, Jobs
from litdesk.services.library import CHAT_KIND, ChatService, Library, PdfViewer
from litdesk.services.library_desk import INDEX_KIND
from litdesk.services.synthesis import JOB_KIND, ReportDesk

from ._deps import DeskDep

__all__ = [
    "ChatDep",
    "LibraryState",
    "ReportsDep",
    "ViewerDep",
    "close_library_state",
    "open_library_state",
    "get_chat",
    "get_reports",
    "get_viewer",
]

# Guards only the app's LibraryState attribute while it is opened and closed (the lifespan;
# services objects over the store). It decides nothing: which PDFs exist is the data
# directory's and the catalogue's (in the store), which index jobs run is the job queue's.
_LOCK = threading.Lock()


class LibraryState:
    """The viewer, the paper chat and the report wizard over one library."""

    def __init__(self, library: Library, jobs: Jobs) -> None:
        self.library = library
        self.viewer = PdfViewer(library)

        def indexing() -> bool:  # an index job of the (shared) library is running or queued,
            return jobs.any_active([INDEX_KIND])  # whichever account started it

        self.chat = ChatService(library, indexing=indexing, jobs=jobs)
        self.reports = ReportDesk(library, jobs, self.chat)

    def handlers(self) -> dict[str, Handler]:
        """The job handlers by kind, for the app's job runner."""
        return {JOB_KIND: self.reports.run_job}

    def chat_handlers(self) -> dict[str, Handler]:
        """The paper chat's question handler, for a runner of its own: a question never
        waits behind a long index job or report build of the same process."""
        return {CHAT_KIND: self.chat.run_job}


def open_library_state(app: FastAPI, desk: Desk, jobs: Jobs) -> LibraryState:
    """Open the library services over the desk's store (the lifespan calls this, and adds
    :meth:`LibraryState.handlers` to its job runner; :func:`close_library_state` closes)."""
    with _LOCK:
        state = LibraryState(Library(desk.settings, store=desk.store, clock=desk.clock), jobs)
        app.state.pdf_library = state
    return state


def _state(request: Request) -> LibraryState:
    state: LibraryState | None = getattr(request.app.state, "pdf_library", None)
    if state is None:  # a stand-in desk (tests) gets no library services
        raise RefusedError("the PDF library is not open in this app", code="no_library")
    return state


def get_viewer(request: Request) -> PdfViewer:
    return _state(request).viewer


def get_chat(request: Request, desk: DeskDep) -> ChatService:
    """The paper chat acting for the request's owner (team mode: the signed-in account)."""
    return _state(request).chat.for_owner(desk.owner)


def get_reports(request: Request) -> ReportDesk:
    return _state(request).reports


def close_library_state(app: FastAPI) -> None:
    """Close the library the app opened (its embedder client; the store is the desk's)."""
    with _LOCK:
        state: LibraryState | None = getattr(app.state, "pdf_library", None)
        app.state.pdf_library = None
    if state is not None:  # the job runner has stopped (a running build went back to the queue)
        state.library.close()


ViewerDep = Annotated[PdfViewer, Depends(get_viewer)]
ChatDep = Annotated[ChatService, Depends(get_chat)]
ReportsDep = Annotated[ReportDesk, Depends(get_reports)]
