"""Request → the desk opened by the lifespan (FastAPI ``Depends``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from litdesk.services.desk import Desk

from ._auth import team_desk

__all__ = ["DeskDep", "get_desk"]


def get_desk(request: Request) -> Desk:
    """The app's desk; in team mode the signed-in account's (its rights checked below)."""
    desk: Desk = request.app.state.desk
    account = request.scope.get("state", {}).get("account")
    if account is not None:
        return team_desk(request.app, desk, account.id)
    return desk


DeskDep = Annotated[Desk, Depends(get_desk)]
