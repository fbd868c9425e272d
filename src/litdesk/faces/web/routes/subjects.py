"""Subjects: suggestions from the offline vocabularies for the search form's active term
(``/api/v1/subjects/suggest``), remote ones from OpenAlex after them
(``/api/v1/subjects/remote``: spends the account's allowance, so same-origin only), the vocabularies' declarations
(``/api/v1/subjects/vocabularies``: package, version, licence, source and its terms), and a
subject's page (``/subject/<vocabulary>/<id>``, ``/api/v1/subjects/<vocabulary>/<id>``):
the searches it seeds and the evidence linked to it."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk.core.vocab import SUBJECT_ID, VOCABULARY_NAME
from litdesk.services.subjects import (
    MAX_ALIAS_TERM,
    MAX_SUGGEST_QUERY,
    AliasesRequest,
    SubjectRequest,
    SuggestRequest,
)

from .._deps import AppDep, OwnerDep
from .._render import page

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["subjects"])


class SuggestParams(BaseModel):
    """The search form's text and where its caret is (the active term), its mode and field."""

    q: str = Field("", max_length=MAX_SUGGEST_QUERY, description="The query as typed.")
    caret: int | None = Field(
        None, ge=0, le=MAX_SUGGEST_QUERY, description="The caret's offset (default: the end)."
    )
    mode: str = Field("keyword", max_length=20, description="keyword, discovery or semantic.")
    field: str = Field("all", max_length=20, description="The search field (author: none).")

    def request(self) -> SuggestRequest:
        caret = self.caret if self.caret is None else min(self.caret, len(self.q))
        return SuggestRequest(self.q, caret, self.mode, self.field)


@api.get(
    "/subjects/suggest",
    summary="Subjects for the query's active term (exact and prefix first, then spelling)",
)
async def suggest(
    app: AppDep, owner: OwnerDep, params: Annotated[SuggestParams, Query()]
) -> dict[str, Any]:
    del owner  # packaged public data; the owner is checked by the session gate alone
    # the first call builds the index (about half a second): off the event loop
    view = await run_in_threadpool(app.subjects.suggest, params.request())
    return view.to_dict()


@api.get(
    "/subjects/remote",
    summary="Remote subjects (OpenAlex autocomplete) for the active term, after the offline ones",
)
async def remote_suggest(
    app: AppDep, owner: OwnerDep, params: Annotated[SuggestParams, Query()]
) -> dict[str, Any]:
    """Always 200 with a ``status`` (``ok``, ``skipped``, ``unavailable``,
    ``allowance_spent``, ``rate_limited``) and one plain ``message``: a keystroke never
    meets an error box. A call spends ``owner``'s OpenAlex allowance (answers are kept on
    the server for an hour, so a retyped term costs nothing)."""
    return (await app.subjects.remote_suggest(params.request(), owner=owner)).to_dict()


@api.get(
    "/subjects/aliases",
    summary="The subject a concept group's first alternative names, and its synonyms",
)
async def aliases(
    app: AppDep, owner: OwnerDep, term: Annotated[str, Query(max_length=MAX_ALIAS_TERM)] = ""
) -> dict[str, Any]:
    del owner  # packaged public data; the owner is checked by the session gate alone
    request = AliasesRequest(term)
    return (await run_in_threadpool(app.subjects.aliases, request)).to_dict()


@api.get("/subjects/vocabularies", summary="The offline vocabularies: package, licence, terms")
async def vocabularies(app: AppDep) -> dict[str, Any]:
    return (await run_in_threadpool(app.subjects.vocabularies)).to_dict()


Vocabulary = Annotated[str, PathParam(pattern=f"^{VOCABULARY_NAME}$")]
SubjectId = Annotated[str, PathParam(pattern=f"^{SUBJECT_ID}$")]


@api.get(
    "/subjects/{vocabulary}/{subject_id}",
    summary="A subject: the searches it seeds and the evidence linked to it",
)
async def subject_api(
    app: AppDep, owner: OwnerDep, vocabulary: Vocabulary, subject_id: SubjectId
) -> dict[str, Any]:
    request = SubjectRequest(vocabulary, subject_id)
    return (await run_in_threadpool(lambda: app.subjects.subject(request, owner=owner))).to_dict()


@pages.get("/subject/{vocabulary}/{subject_id}", response_class=HTMLResponse)
async def subject_page(
    request: Request, app: AppDep, owner: OwnerDep, vocabulary: Vocabulary, subject_id: SubjectId
) -> HTMLResponse:
    asked = SubjectRequest(vocabulary, subject_id)
    view = await run_in_threadpool(lambda: app.subjects.subject(asked, owner=owner))
    data = view.to_dict()
    return page(request, "subject.html", data, title=data["subject"]["label"])
