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
from litdesk.services.assist import (
    STRATEGY_KIND,
    AllowanceRefused,
    BuildStrategy,
    StrategyRequest,
)

from .._deps import AppDep, OwnerDep
from ._assist_jobs import accepted, refusal

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
async def strategy_build(app: AppDep, body: BuildBody) -> dict[str, Any]:
    groups = tuple(ConceptGroup(tuple(g.terms), g.label, g.included) for g in body.groups)
    view = await run_in_threadpool(lambda: app.assist.build_strategy(BuildStrategy(groups)))
    return view.to_dict()


class QuestionBody(BaseModel):
    question: str = Field(max_length=4_000)


class SuggestBody(QuestionBody):
    consent: str = Field(min_length=1, max_length=100)


@api.post("/strategy/notice", summary="What a strategy suggestion sends, where, and its token")
async def strategy_notice(app: AppDep, owner: OwnerDep, body: QuestionBody) -> dict[str, object]:
    request = StrategyRequest(body.question)
    notice = await run_in_threadpool(lambda: app.assist.strategy_notice(request, owner=owner))
    return notice.to_dict()


@api.post(
    "/strategy/suggest",
    summary="One model call (a job): suggested concept groups (unverified)",
    status_code=202,
    response_model=None,
)
async def strategy_suggest(app: AppDep, owner: OwnerDep, body: SuggestBody) -> JSONResponse:
    """Checks the consent token (403 when the question changed) and the allowance (429
    with ``Retry-After``), then answers 202 with the job; its ``status_url`` gives the
    suggestion when done, or the error the call met."""
    try:
        request = StrategyRequest(body.question, body.consent)
        job = await app.assist.suggest_strategy(request, owner=owner)
    except (ConsentRequired, AllowanceRefused) as exc:
        return refusal(exc, STRATEGY_KIND)
    return accepted(job)
