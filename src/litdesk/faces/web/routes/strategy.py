"""The search page's strategy tools: the concept-group builder (``/api/v1/strategy/build``,
no model) and the model's suggested concept groups (``/api/v1/strategy/suggest``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk.core.strategy import ConceptGroup
from litdesk.services.assist import Assistant
from litdesk.services.desk import Desk
from litdesk.services.strategy import build_strategy, suggest_strategy, suggestion_notice

from .._deps import DeskDep

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


class QuestionBody(BaseModel):
    question: str = Field(max_length=4_000)


class SuggestBody(QuestionBody):
    consent: str = Field(min_length=1, max_length=100)


def _notice(desk: Desk, question: str) -> dict[str, Any]:
    with Assistant(desk.store, desk.settings) as assistant:
        return suggestion_notice(assistant, question).to_dict()


@api.post("/strategy/notice", summary="What a strategy suggestion sends, where, and its token")
async def strategy_notice(desk: DeskDep, body: QuestionBody) -> dict[str, Any]:
    return await run_in_threadpool(_notice, desk, body.question)


@api.post("/strategy/suggest", summary="One model call: suggested concept groups (unverified)")
async def strategy_suggest(desk: DeskDep, body: SuggestBody) -> dict[str, Any]:
    with Assistant(desk.store, desk.settings) as assistant:
        view = await suggest_strategy(
            assistant, body.question, owner=desk.owner, consent=body.consent
        )
    return view.to_dict()
