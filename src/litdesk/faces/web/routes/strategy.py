"""The search page's strategy tools: the concept-group builder (``/api/v1/strategy/build``,
no model) and the model's suggested concept groups (``/api/v1/strategy/suggest``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk.core.strategy import ConceptGroup
from litdesk.services.strategy import build_strategy

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["strategy"])

#: The request models admit a little more than the builder so that its own messages
#: (at most 6 groups, 8 terms, 160 characters) reach the person instead of a 422.
Term = Annotated[str, Field(max_length=400)]


class GroupBody(BaseModel):
    label: str = Field("", max_length=200)
    terms: list[Term] = Field(max_length=20)
    included: bool = True


class BuildBody(BaseModel):
    groups: list[GroupBody] = Field(max_length=12)


@api.post("/strategy/build", summary="Concept groups → one query, compiled for every provider")
async def strategy_build(body: BuildBody) -> dict[str, Any]:
    groups = [ConceptGroup(tuple(g.terms), g.label, g.included) for g in body.groups]
    view = await run_in_threadpool(build_strategy, groups)
    return view.to_dict()
