"""Search: the form, results, selection actions; ``/api/v1/search``,
``/api/v1/search/live`` (start a search, follow its lanes as an event stream, cancel it),
``/api/v1/query/check`` (validation as you type) and ``/api/v1/selection/*`` (save, RIS,
compare evidence, shared references)."""

from __future__ import annotations

import json
import math
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any, Final, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import (
    HTMLResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from pydantic import BaseModel, Field, field_validator
from starlette.concurrency import run_in_threadpool

from litdesk._errors import ExternalError, InputError, NotFoundError, RefusedError
from litdesk.core.providers import DEMO_PROVIDER, MODE_DEFAULTS, PROVIDERS, display_name
from litdesk.core.vocab import (
    EXPANSION_LIMITS,
    REMOTE_VOCABULARY_NAMES,
    Expansion,
    ExpansionInvalid,
    read_expansions,
)
from litdesk.services.app import App
from litdesk.services.reader import CompareRequest, SharedRequest
from litdesk.services.search import (
    FIELDS,
    MAX_PAGE,
    MAX_SELECTION,
    MODES,
    SORTS,
    TYPES,
    ProgressView,
    QueryCheckRequest,
    RunExportRequest,
    SaveSelectionRequest,
    SearchRequest,
)
from litdesk.services.subjects import VOCABULARY_NAMES

from ..._explain import explain, explain_code
from .._deps import AppDep, DemoDep, OwnerDep
from .._errors import status_of
from .._render import page
from ._common import PAPER_ID, JsonView, download, json_answer
from .studies import with_restore

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["search"])

LIVE_ID: Final = r"^[A-Za-z0-9_-]{16,64}$"
#: The web takes only bound cursors (``run.<id>``: the page after that run of the owner's).
BOUND_CURSOR: Final = r"^run\.[A-Za-z0-9_-]{1,100}$"
HISTORY_ENTRY: Final = r"^(run\.[A-Za-z0-9_-]{1,100})?$"
#: Pages "Previous" can go back through (the cursor history a page address carries).
MAX_HISTORY: Final = 50
STARTERS = (
    {"label": "Drug resistance", "mode": "keyword", "q": '"drug resistance" AND tuberculosis'},
    {
        "label": "Compare methods",
        "mode": "semantic",
        "q": "How do CRISPR screening methods compare for finding drug targets?",
    },
    {"label": "Explore a field", "mode": "discovery", "q": "gut microbiome depression"},
)


class SearchParams(BaseModel):
    """The search form's fields, parsed (the rules are :class:`SearchRequest`'s)."""

    q: str = Field("", description="The query (litdesk query language).")
    mode: str = Field("keyword", description=f"One of {', '.join(MODES)}.")
    provider: list[str] = Field(
        default_factory=list,
        description=f"Providers (default: the mode's): {', '.join(PROVIDERS)}.",
    )
    field: str = Field("all", description=f"One of {', '.join(FIELDS)}.")
    type: str = Field("all", description=f"One of {', '.join(TYPES)}.")
    year_from: int | None = None
    year_to: int | None = None
    open_access: bool = False
    include_retracted: bool = False
    sort: str = Field("relevance", description=f"One of {', '.join(SORTS)}.")
    synonyms: bool | None = Field(
        None,
        description="Europe PMC's vocabulary expansion (synonym=TRUE|FALSE; not given: "
        "Europe PMC's default). True is refused for semantic searches and without Europe PMC.",
    )
    cursor: str | None = Field(
        None,
        pattern=BOUND_CURSOR,
        description="The next page of a search: paging.next_cursor (bound to its run and owner).",
    )
    history: list[Annotated[str, Field(pattern=HISTORY_ENTRY)]] = Field(
        default_factory=list,
        max_length=MAX_HISTORY,
        description="The cursors of the pages before this one ('' for the first): Previous.",
    )
    page: int = 1
    subject_vocabulary: list[str] = Field(
        default_factory=list,
        max_length=EXPANSION_LIMITS["entries"],
        description="A subject picked into the query (expansion provenance): its vocabulary.",
    )
    subject_id: list[str] = Field(
        default_factory=list,
        max_length=EXPANSION_LIMITS["entries"],
        description="The picked subject's id in its vocabulary (one per subject_vocabulary).",
    )
    subject_label: list[str] = Field(
        default_factory=list,
        max_length=EXPANSION_LIMITS["entries"],
        description="The picked subject's label (one per subject_vocabulary).",
    )

    @field_validator("year_from", "year_to", "cursor", "synonyms", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if value == "" else value  # an empty form field means "not given"

    def expansions(self) -> tuple[Expansion, ...]:
        """The picked subjects (provenance), validated by the vocabulary's limits."""
        columns = (self.subject_vocabulary, self.subject_id, self.subject_label)
        if len({len(c) for c in columns}) > 1:
            raise ExpansionInvalid("each picked subject needs its vocabulary, id and label")
        return read_expansions(
            [{"vocabulary": v, "id": i, "terms": [t]} for v, i, t in zip(*columns, strict=True)]
        )

    def request(self) -> SearchRequest:
        """The search request (validated there: choices, syntax, years, cursor, page)."""
        return SearchRequest(
            query=self.q,
            mode=self.mode,
            providers=tuple(dict.fromkeys(self.provider)),
            field=self.field,
            type=self.type,
            year_from=self.year_from,
            year_to=self.year_to,
            open_access=self.open_access,
            include_retracted=self.include_retracted,
            sort=self.sort,
            cursor=self.cursor or None,
            page=self.page,
            expansions=self.expansions(),
            synonyms=self.synonyms,
        )


#: Lane statuses that mean "asked too often" or "allowance spent": a search whose lanes all
#: failed answers 429 when one of them did, else 503 (422 when every lane refused the query).
_LIMITED: Final = frozenset({"rate_limited", "budget_exhausted"})


def failure_status(result: dict[str, Any] | None) -> tuple[int, dict[str, str]]:
    """The status and headers of a search result: 200, or — when every lane failed — 429
    (a lane rate limited or its allowance exhausted), 503 (providers unavailable) or 422
    (every lane refused the query), with ``Retry-After`` from the first lane that gave one."""
    if result is None or not result["all_failed"]:
        return 200, {}
    lanes = result["run"]["lanes"]
    statuses = {lane["status"] for lane in lanes}
    if statuses & _LIMITED:
        status = 429
    elif statuses == {"unsupported"}:
        status = 422
    else:
        status = 503
    retry = next((lane["retry_after"] for lane in lanes if lane["retry_after"] is not None), None)
    headers = {"Retry-After": str(max(0, math.ceil(retry)))} if retry is not None else {}
    return status, headers


async def search_view(app: App, owner: str, params: SearchParams) -> dict[str, Any]:
    """The search page's data (and ``/api/v1/search``'s answer)."""
    return (await app.search.search(params.request(), owner=owner)).to_dict()


class PageParams(SearchParams):
    live: str | None = Field(
        None, max_length=64, pattern=LIVE_ID, description="A finished live search to show."
    )
    restore: bool = Field(
        False, description="Fill the form only (a kept run restored): the search is not run."
    )
    study: str | None = Field(
        None,
        max_length=200,
        description="The Study this search is for (its page's 'Search for more'): the page "
        "offers 'Add to this Study' for it.",
    )

    @field_validator("study", mode="before")
    @classmethod
    def _no_study(cls, value: object) -> object:
        return None if value == "" else value


def _query(params: SearchParams, **extra: Any) -> str:
    """The search page's address for ``params`` (defaults left out) plus ``extra``."""
    base = {
        k: ("true" if v is True else v)
        for k, v in params.model_dump(
            exclude_defaults=True, exclude={"page", "cursor", "history", "live", "restore"}
        ).items()
    }
    return "/search?" + urlencode(base | extra, doseq=True)


def _form_state(params: SearchParams, *, demo: bool = False) -> dict[str, Any]:
    # the demo workspace offers its offline sample first (and searches it when none is chosen)
    offered = (DEMO_PROVIDER, *PROVIDERS) if demo else PROVIDERS
    return params.model_dump() | {
        "providers_all": offered,
        "provider_names": {p: display_name(p) for p in offered},
        "demo": demo,
        "starters": STARTERS,
        "vocabulary_names": VOCABULARY_NAMES | REMOTE_VOCABULARY_NAMES,
        # a remote subject (OpenAlex) has no page here: it is shown as plain text
        "remote_vocabularies": sorted(REMOTE_VOCABULARY_NAMES),
        # "Use this query" (the concept-group builder) sets these databases, as a keyword
        # search without a choice would search them
        "keyword_defaults": (DEMO_PROVIDER,) if demo else MODE_DEFAULTS["keyword"],
    }


def _links(params: SearchParams, result: dict[str, Any] | None) -> dict[str, str]:
    """Paging addresses: frozen pages for bounded discovery, cursors for provider order."""
    if result is None:
        return {}
    paging = result["paging"]

    def href(**extra: Any) -> str:
        return _query(params, **extra)

    if paging["kind"] == "frozen":
        return {"prev": href(page=paging["page"] - 1), "next": href(page=paging["page"] + 1)}
    links = {"first": href()}
    if paging["next_cursor"] and len(params.history) < MAX_HISTORY:
        trail = [*params.history, params.cursor or ""]
        links["next"] = href(cursor=paging["next_cursor"], history=trail)
    if params.cursor:  # Previous: the cursor of the page before, from the history
        before = params.history[-1] if params.history else ""
        back: dict[str, Any] = {"history": params.history[:-1]} if params.history[:-1] else {}
        links["prev"] = href(**({"cursor": before} if before else {}), **back)
    return links


@pages.get("/search", response_class=HTMLResponse)
async def search_page(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    demo: DemoDep,
    params: Annotated[PageParams, Query()],
) -> Response:
    data: dict[str, Any] = {
        "form": _form_state(params, demo=demo),
        "result": None,
        "error": None,
    }
    error_status = 200
    shown = (
        await run_in_threadpool(_finished_live, app, owner, params.live) if params.live else None
    )
    if shown is not None:  # the live search the page followed ends in the same view
        data["result"] = shown
        data["studies"] = shown["studies"]
    elif params.restore:  # restored into the form: nothing is run, no allowance is spent
        data["restored"] = True
    elif params.q.strip():
        try:
            data["result"] = await search_view(app, owner, params)
            data["studies"] = data["result"]["studies"]
        except InputError as exc:
            placed = "position" in exc.details  # shown beside the query, as it is
            data["error"] = {
                "message": exc.message if placed else exc.message.rstrip(".") + ".",
                "hint": explain(exc).hint,
                "code": exc.code,
                **{k: v for k, v in exc.details.items() if k in ("position", "end")},
            }
            error_status = 400
        except (NotFoundError, RefusedError, ExternalError) as exc:  # the form stays
            said = explain(exc)
            data["error"] = {"message": said.text, "hint": said.hint, "code": exc.code}
            error_status = status_of(exc)
    if "studies" not in data:  # no search ran: the Study list is the page's one call
        choices = await run_in_threadpool(lambda: app.search.study_choices(owner=owner))
        data["studies"] = choices.studies
    # "Search for more" from a Study: that Study, if it is one the account may add to
    # (among its choices; any other id is ignored, saying nothing about it)
    data["for_study"] = next((s for s in data["studies"] if s["id"] == params.study), None)
    data["links"] = _links(params, data["result"])
    status, headers = failure_status(data["result"])
    response = page(
        request,
        "search.html",
        data,
        status=error_status if data["error"] else status,
        title="Search",
    )
    response.headers.update(headers)
    return response


def _finished_live(app: App, owner: str, live_id: str) -> dict[str, Any] | None:
    """A finished live search's result view; ``None`` (the search runs again as an
    ordinary one) when it is no longer open or did not finish (or kept no run)."""
    try:
        view = app.search.live_result(live_id, owner=owner)
    except NotFoundError:
        return None
    return view.to_dict() if view is not None else None


@api.get(
    "/search",
    summary="Run a search (fused lanes, why-this-paper, provenance)",
    response_model=JsonView,
    responses={
        429: {"description": "Every lane failed; one was rate limited or out of allowance"},
        503: {"description": "Every lane failed: the providers were unavailable"},
        422: {"description": "Every lane refused the query (the reasons are in the lanes)"},
    },
)
async def search_api(
    app: AppDep, owner: OwnerDep, params: Annotated[SearchParams, Query()]
) -> Response:
    data = await search_view(app, owner, params)
    status, headers = failure_status(data)
    return json_answer(data, status, headers)


@api.get("/query/check", summary="Validate a query as you type (error and position)")
def query_check(
    app: AppDep,
    q: Annotated[str, Query(max_length=4_000)] = "",
    field: str = "all",
) -> dict[str, Any]:
    return app.search.check_query(QueryCheckRequest(q, field)).to_dict()


# --- live searches ------------------------------------------------------------------------

LiveId = Annotated[str, PathParam(pattern=LIVE_ID, description="A live search's id.")]
#: Longest one event stream stays open (seconds, so that a stopping server is not held up
#: long); the browser's EventSource reconnects and the next stream starts with the full state.
STREAM_SECONDS: Final = 20.0


@api.post(
    "/search/live",
    status_code=202,
    summary="Start a search whose lanes the page follows (then /events, /cancel)",
)
async def live_start(app: AppDep, owner: OwnerDep, params: SearchParams) -> dict[str, Any]:
    view = (await app.search.start(params.request(), owner=owner)).to_dict()
    return view | {"result_url": _query(params, live=view["id"])}


def _told(view: ProgressView) -> dict[str, object]:
    """A live search's state, its failure (if any) in words for people (``hint``)."""
    data = view.to_dict()
    said = explain_code(view.code, view.message) if view.state == "failed" else None
    if said is not None:
        data["hint"] = str(said)
    return data


@api.get("/search/live/{live_id}", summary="A live search's lanes and state now")
async def live_state(app: AppDep, owner: OwnerDep, live_id: LiveId) -> dict[str, Any]:
    view = await run_in_threadpool(lambda: app.search.progress(live_id, owner=owner))
    return _told(view)


@api.get(
    "/search/live/{live_id}/events",
    summary="A live search's lanes as they finish (text/event-stream; the full state each time)",
    response_class=StreamingResponse,
)
async def live_events(app: AppDep, owner: OwnerDep, live_id: LiveId) -> StreamingResponse:
    # an unknown id (or another owner's) is a 404 here
    await run_in_threadpool(lambda: app.search.progress(live_id, owner=owner))

    async def stream() -> AsyncIterator[str]:
        after = -1
        ends = time.monotonic() + STREAM_SECONDS
        yield "retry: 1000\n\n"  # reconnect after a second when a stream ends
        while True:
            view = await app.search.watch(live_id, after, owner=owner)
            if view.version != after:
                after = view.version
                data = json.dumps(_told(view), ensure_ascii=True)
                yield f"event: progress\nid: {view.version}\ndata: {data}\n\n"
            else:
                yield ": still running\n\n"
            if view.final:
                yield "event: end\ndata: {}\n\n"
                return
            if time.monotonic() > ends:
                return

    return StreamingResponse(
        stream(), media_type="text/event-stream", headers={"x-accel-buffering": "no"}
    )


@api.post("/search/live/{live_id}/cancel", summary="Cancel a live search (its lanes stop)")
async def live_cancel(app: AppDep, owner: OwnerDep, live_id: LiveId) -> dict[str, Any]:
    return (await app.search.cancel(live_id, owner=owner)).to_dict()


# --- selection ------------------------------------------------------------------------------

RUN_ID: Final = r"^[A-Za-z0-9_-]+$"


class SelectionBody(BaseModel):
    """Papers of a run to save (the rules are :class:`SaveSelectionRequest`'s)."""

    run_id: str = Field(min_length=1, max_length=100, pattern=RUN_ID)
    paper_ids: list[Annotated[str, Field(pattern=PAPER_ID)]]
    study: str | None = Field(None, max_length=200)
    new_study: str | None = Field(None, max_length=200)

    def request(self) -> SaveSelectionRequest:
        return SaveSelectionRequest(
            self.run_id, tuple(self.paper_ids), study=self.study, new_study=self.new_study
        )


@api.post("/selection/save", summary="Save selected papers of a run (optionally into a Study)")
def selection_save(app: AppDep, owner: OwnerDep, body: SelectionBody) -> dict[str, Any]:
    return app.search.save_selection(body.request(), owner=owner).to_dict()


class PicksBody(BaseModel):
    run_id: str = Field(min_length=1, max_length=100, pattern=RUN_ID)
    paper_ids: list[Annotated[str, Field(pattern=PAPER_ID)]] = Field(
        min_length=1, max_length=MAX_SELECTION
    )


@api.post("/selection/compare", summary="The evidence recorded for selected papers, side by side")
def selection_compare(app: AppDep, owner: OwnerDep, body: PicksBody) -> dict[str, object]:
    request = CompareRequest(body.run_id, tuple(body.paper_ids))
    return app.reader.compare_evidence(request, owner=owner).to_dict()


@api.post(
    "/selection/shared",
    summary="References shared by 2–5 selected papers (referenced by n of m)",
)
async def selection_shared(app: AppDep, owner: OwnerDep, body: PicksBody) -> dict[str, object]:
    request = SharedRequest(body.run_id, tuple(body.paper_ids))
    return (await app.reader.shared_references(request, owner=owner)).to_dict()


@api.get(
    "/selection/page-ris",
    summary="RIS of the results a page of a recent run shows (conflicting records left out)",
)
def page_ris(
    app: AppDep,
    owner: OwnerDep,
    run_id: Annotated[str, Query(min_length=1, max_length=100, pattern=RUN_ID)],
    page: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 1,
) -> Response:
    return download(app.search.export_page(run_id, page, owner=owner))


@api.post("/selection/ris", summary="RIS of selected papers of a run")
def selection_ris(app: AppDep, owner: OwnerDep, body: PicksBody) -> Response:
    return download(app.search.export_selection(body.run_id, body.paper_ids, owner=owner))


@pages.post("/selection", response_class=HTMLResponse)
async def selection_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    run_id: Annotated[str, Form(max_length=100, pattern=RUN_ID)],
    action: Annotated[
        Literal["save", "study", "this_study", "ris", "page_ris", "compare", "shared"], Form()
    ],
    paper_ids: Annotated[list[str], Form(max_length=MAX_SELECTION)] = [],  # noqa: B006 - FastAPI form default
    study: Annotated[str, Form(max_length=200)] = "",
    for_study: Annotated[str, Form(max_length=200)] = "",
    new_study: Annotated[str, Form(max_length=200)] = "",
    back: Annotated[str, Form(max_length=4_000)] = "",
    result_page: Annotated[int, Form(alias="page", ge=1, le=MAX_PAGE)] = 1,
) -> Response:
    safe_back = back if back.startswith("/search?") else "/search"
    if action == "page_ris":  # "Export this page": the page's results, not the selection
        shown = await run_in_threadpool(
            lambda: app.search.export_page(run_id, result_page, owner=owner)
        )
        return download(shown)
    if action == "ris":
        exported = await run_in_threadpool(
            lambda: app.search.export_selection(run_id, paper_ids, owner=owner)
        )
        return download(exported)
    if action == "compare":
        picks = CompareRequest(run_id, tuple(paper_ids))
        compared = await run_in_threadpool(lambda: app.reader.compare_evidence(picks, owner=owner))
        data = {"kind": "compare", "compare": compared.to_dict(), "back": safe_back}
        return page(request, "selection.html", data, title="Compare evidence")
    if action == "shared":
        asked = SharedRequest(run_id, tuple(paper_ids))
        shared = await app.reader.shared_references(asked, owner=owner)
        data = {"kind": "shared", "shared": shared.to_dict(), "back": safe_back}
        return page(request, "selection.html", data, title="Shared references")
    if action == "this_study":  # "Add to this Study": the Study the search is for
        action, study, new_study = "study", for_study or study, ""
    if action == "study" and not (study or new_study.strip()):
        raise InputError("choose a Study or name a new one", code="study_choice")
    chosen = SaveSelectionRequest(
        run_id,
        tuple(paper_ids),
        study=(study or None) if action == "study" and not new_study.strip() else None,
        new_study=new_study.strip() or None if action == "study" else None,
    )
    result = await run_in_threadpool(lambda: app.search.save_selection(chosen, owner=owner))
    return page(
        request,
        "selection.html",
        result.to_dict() | {"kind": "save", "back": safe_back},
        title="Selection",
    )


RunId = Annotated[str, PathParam(pattern=r"^[A-Za-z0-9_-]{1,100}$", description="A search run id.")]


class RunSaveBody(BaseModel):
    study: str = Field(min_length=1, max_length=200)


@api.post("/runs/{run_id}/save", summary="Keep a search run (immutable) in a Study")
def run_save_api(app: AppDep, owner: OwnerDep, run_id: RunId, body: RunSaveBody) -> dict[str, Any]:
    return with_restore(app.search.save_run(run_id, body.study, owner=owner).to_dict())


@pages.post("/runs/{run_id}/save")
def run_save_form(
    app: AppDep,
    owner: OwnerDep,
    run_id: RunId,
    study: Annotated[str, Form(min_length=1, max_length=200)],
) -> Response:
    kept = app.search.save_run(run_id, study, owner=owner)
    return RedirectResponse(f"/study/{kept.study_id}#runs", status_code=303)


@pages.get("/runs/{run_id}/export")
@api.get(
    "/runs/{run_id}/export",
    summary="A kept search run as JSON manifest, RIS, PRISMA-S Markdown or HTML",
)
def run_export(app: AppDep, owner: OwnerDep, run_id: RunId, format: str = "json") -> Response:
    return download(app.search.export_run(RunExportRequest(run_id, format), owner=owner))
