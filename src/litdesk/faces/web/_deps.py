"""Request → the application opened by the lifespan: the ONE dependency routes take
(``AppDep``), the owner an area method acts for (``OwnerDep``), and the views of it
they name (the job queue).
Routes never read ``request.app.state`` themselves."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request

from litdesk._errors import RefusedError
from litdesk.services.app import App
from litdesk.services.jobs import Jobs

__all__ = [
    "AppDep",
    "DemoDep",
    "JobsDep",
    "OwnerDep",
    "app_of",
    "get_app",
    "get_owner",
    "is_demo",
    "opened_app",
]


def app_of(web: Any) -> Any:
    """The application a web app's lifespan opened (or a test's stand-in)."""
    return web.state.app


def opened_app(request: Request) -> App:
    """The real application (a stand-in of the tests has no store, jobs or library)."""
    app = app_of(request.app)
    if not isinstance(app, App):
        raise RefusedError("this app has no store, job queue or library", code="no_jobs")
    return app


def get_app(request: Request) -> App:
    """The application opened by the lifespan (a test's stand-in passes through)."""
    app: App = app_of(request.app)
    return app


AppDep = Annotated[App, Depends(get_app)]


def get_owner(request: Request, app: AppDep) -> str:
    """Whose work a request acts on: the signed-in account in team mode (its rights are
    checked by the area's methods), the app's own owner otherwise."""
    account = request.scope.get("state", {}).get("account")
    if account is not None:
        owner: str = account.id
        return owner
    local: str = app.owner
    return local


#: The owner an area method takes as ``owner=`` (``app.<area>.<verb>(request, owner=owner)``).
OwnerDep = Annotated[str, Depends(get_owner)]


def get_jobs(request: Request) -> Jobs:
    return opened_app(request).jobs


JobsDep = Annotated[Jobs, Depends(get_jobs)]


def is_demo(request: Request) -> bool:
    """Whether this server is the demo workspace (``litdesk serve --demo``)."""
    return bool(getattr(request.app.state, "demo", False))


#: True on the demo workspace: its own pages and hints
DemoDep = Annotated[bool, Depends(is_demo)]
