"""Request → the desk opened by the lifespan (FastAPI ``Depends``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from litdesk.services.desk import Desk

__all__ = ["DeskDep", "get_desk"]


def get_desk(request: Request) -> Desk:
    desk: Desk = request.app.state.desk
    return desk


DeskDep = Annotated[Desk, Depends(get_desk)]
