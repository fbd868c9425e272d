"""Subjects: suggestions from the offline vocabularies for the search form's active term
(``/api/v1/subjects/suggest``) and the vocabularies' declarations
(``/api/v1/subjects/vocabularies``: package, version, licence, source and its terms)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from starlette.concurrency import run_in_threadpool

from litdesk.services.subjects import MAX_SUGGEST_QUERY, SuggestRequest

from .._deps import AppDep, OwnerDep

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["subjects"])


@api.get(
    "/subjects/suggest",
    summary="Subjects for the query's active term (exact and prefix first, then spelling)",
)
async def suggest(
    app: AppDep,
    owner: OwnerDep,
    q: Annotated[str, Query(max_length=MAX_SUGGEST_QUERY)] = "",
    caret: Annotated[int | None, Query(ge=0, le=MAX_SUGGEST_QUERY)] = None,
    mode: Annotated[str, Query(max_length=20)] = "keyword",
    field: Annotated[str, Query(max_length=20)] = "all",
) -> dict[str, Any]:
    del owner  # packaged public data; the owner is checked by the session gate alone
    request = SuggestRequest(q, caret if caret is None else min(caret, len(q)), mode, field)
    # the first call builds the index (about half a second): off the event loop
    view = await run_in_threadpool(app.subjects.suggest, request)
    return view.to_dict()


@api.get("/subjects/vocabularies", summary="The offline vocabularies: package, licence, terms")
async def vocabularies(app: AppDep) -> dict[str, Any]:
    return (await run_in_threadpool(app.subjects.vocabularies)).to_dict()
