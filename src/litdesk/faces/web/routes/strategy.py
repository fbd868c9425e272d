"""The search page's strategy tools: the concept-group builder (``/api/v1/strategy/build``,
no model) and the model's suggested concept groups (``/api/v1/strategy/suggest``, a job
of the store's queue watched under ``/api/v1/assist/jobs/{id}``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk.core.assist import ConsentRequired
from litdesk.core.strategy import ConceptGroup
from litdesk.services.assist import AllowanceRefused, Assistant
from litdesk.services.desk import STRATEGY_KIND, Desk
from litdesk.services.strategy import build_strategy, suggestion_notice

from .._deps import DeskDep
from ._assist_jobs import AssistDep, accepted, refusal

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


@api.post(
    "/strategy/suggest",
    summary="One model call (a job): suggested concept groups (unverified)",
    status_code=202,
    response_model=None,
)
async def strategy_suggest(assist: AssistDep, body: SuggestBody) -> JSONResponse:
    """Checks the consent token (403 when the question changed) and the allowance (429
    with ``Retry-After``), then answers 202 with the job; its ``status_url`` gives the
    suggestion when done, or the error the call met."""
    try:
        job = await assist.suggest_strategy(body.question, consent=body.consent)
    except (ConsentRequired, AllowanceRefused) as exc:
        return refusal(exc, STRATEGY_KIND)
    return accepted(job)
