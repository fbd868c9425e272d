"""Screening a Study's working set (issue 28): the page a reviewer spends hours in (one
record at a time, the criteria beside it, decisions by keyboard or buttons), progress and
stopping guidance, the records behind every number, a record's history and the Study's
screening settings; with their ``/api/v1/studies/{id}/screening/...`` twins. Every form
works without JavaScript (POST, then a redirect to the next record); ``static/js/screen.js``
decides through the JSON API and shows the next record without a reload."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk._errors import InputError, RefusedError
from litdesk.services.app import App
from litdesk.services.screening import (
    CardRequest,
    ConfigureRequest,
    HistoryRequest,
    ItemsRequest,
    NextRequest,
    ProgressRequest,
    RetrievalRequest,
    StudyScreenRequest,
    UndoRequest,
)
from litdesk.services.screening import DecideRequest as ScreenDecision

from .._deps import AppDep, OwnerDep
from .._render import page
from ._common import StudyRef
from ._screen_view import recall_chart, segments_of

__all__ = [
    "RECORD_KEY",
    "STAGE_LABELS",
    "api",
    "pages",
    "screen_url",
    "screening_summary",
    "may_configure",
    "may_screen",
    "study_brief",
]

pages = APIRouter()
api = APIRouter(tags=["screening"])

StageName = Literal["title_abstract", "full_text"]
OrderName = Literal["ranked", "random", "original"]
ModelName = Literal["litdesk-svm-2", "litdesk-handover"]
VerdictName = Literal["include", "exclude", "maybe"]
StatusName = Literal[
    "all", "remaining", "screened", "included", "excluded", "maybe", "conflict", "mine"
]
#: a record's key in its Study (``<import>:<n>``, ``<run>:<n>:<m>``, ``paper:<id>``)
RECORD_KEY: Final = r"^[^\x00-\x1f]{1,200}$"
STAGES: Final[tuple[StageName, ...]] = ("title_abstract", "full_text")
STAGE_LABELS: Final[dict[StageName, str]] = {
    "title_abstract": "Title and abstract",
    "full_text": "Full text",
}
MAX_SEED: Final = 2**32 - 1

Stage = Annotated[StageName, Query(description="The screening stage.")]
Order = Annotated[
    OrderName | None, Query(description="ranked (by the model), random (by seed) or original")
]
Seed = Annotated[int, Query(ge=0, le=MAX_SEED, description="Draws the random order.")]
RecordKey = Annotated[str, Query(pattern=RECORD_KEY, description="A record's key in the Study.")]


# --- request bodies of the JSON API ------------------------------------------------------


class DecisionBody(BaseModel):
    stage: StageName = "title_abstract"
    record_key: str = Field(pattern=RECORD_KEY)
    verdict: VerdictName
    reason: str = Field("", max_length=500)
    note: str = Field("", max_length=20_000)


class UndoBody(BaseModel):
    stage: StageName = "title_abstract"
    record_key: str | None = Field(None, pattern=RECORD_KEY)


class RetrievalBody(BaseModel):
    record_key: str = Field(pattern=RECORD_KEY)
    retrieved: bool
    note: str = Field("", max_length=20_000)


class SettingsBody(BaseModel):
    """Only the settings given change."""

    reasons: list[str] | None = Field(None, max_length=50)
    inclusion: str | None = Field(None, max_length=20_000)
    exclusion: str | None = Field(None, max_length=20_000)
    include_keywords: list[str] | None = Field(None, max_length=200)
    exclude_keywords: list[str] | None = Field(None, max_length=200)
    dual_review: dict[StageName, bool] | None = None
    maybe_is_conflict: bool | None = None
    default_order: OrderName | None = None
    model: ModelName | None = None


# --- the views shared by each page and its twin ------------------------------------------


def screen_url(
    ref: str, stage: str, order: str | None = None, seed: int | None = None, **more: str
) -> str:
    """The screening page's address (the order and seed kept while screening)."""
    params: dict[str, Any] = {"stage": stage}
    if order:
        params["order"] = order
    if seed is not None and order == "random":
        params["seed"] = seed
    params.update({k: v for k, v in more.items() if v})
    return f"/study/{ref}/screen?{urlencode(params)}"


def card_view(
    app: App,
    owner: str,
    ref: str,
    stage: StageName,
    *,
    order: OrderName | None = None,
    seed: int = 1,
    record: str | None = None,
    skip: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The record to screen (``record``, else the next one in ``order``) with its title and
    abstract cut into highlight segments."""
    if record:
        view = app.screening.card(CardRequest(ref, stage, record), owner=owner)
    else:
        asked = NextRequest(ref, stage, order, seed, skip)
        view = app.screening.next(asked, owner=owner)
    return segments_of(view.to_dict())


def progress_view(app: App, owner: str, ref: str, stage: StageName) -> dict[str, Any]:
    """Progress and stopping guidance, with the recall curve's chart geometry."""
    data: dict[str, Any] = app.screening.progress(
        ProgressRequest(ref, stage), owner=owner
    ).to_dict()
    guidance = data.get("guidance") or {}
    curve = guidance.get("recall_curve") or []
    data["chart"] = recall_chart(curve, int(data.get("total") or 0)).to_dict()
    return data


def may_screen(app: App, owner: str, ref: str) -> None:
    """Refuse an account that may read the Study but not screen it (a viewer) before a
    request's data is read (a file parsed, a form checked): a non-member finds no Study."""
    if not study_brief(app, owner, ref)["can_screen"]:
        raise RefusedError("only the Study's members who screen may do this", code="not_screener")


def may_configure(app: App, owner: str, ref: str) -> None:
    """Refuse an account that is not the Study's owner before its settings are read (a form
    checked): a non-member finds no Study."""
    if not study_brief(app, owner, ref)["can_configure"]:
        raise RefusedError(
            "only the Study's owner changes its screening settings", code="not_owner"
        )


def study_brief(app: App, owner: str, ref: str) -> dict[str, Any]:
    """The Study's name, the acting account's role and the exclusion reasons (a page's
    heading and forms; the JSON twins answer the area's views alone)."""
    view = app.screening.settings(StudyScreenRequest(ref), owner=owner)
    settings = view.to_dict()
    keep = ("study_id", "study_name", "role", "can_configure", "can_screen", "reasons")
    brief = {k: settings[k] for k in keep}
    # full text waits for an account that may not see title/abstract while it is blind
    brief["full_text_waits"] = view.role != "owner" and view.settings.blind("title_abstract")
    # the end of the queue says "its two reviews" only where a stage has two
    brief["dual_review"] = dict(view.settings.dual_review)
    return brief


def screening_summary(app: App, owner: str, ref: str) -> dict[str, Any]:
    """The Study page's screening line: each stage's progress (``None`` when it cannot be
    read, e.g. for an account that may not see it)."""
    stages = app.screening.progress_stages(ref, owner=owner)  # one read for every stage
    return {stage: None if view is None else view.to_dict() for stage, view in stages.items()}


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _screen_page(
    request: Request,
    app: App,
    owner: str,
    ref: str,
    stage: StageName,
    order: OrderName | None,
    seed: int,
    record: str | None,
    *,
    error: str | None = None,
    form: dict[str, str] | None = None,
    flash: str | None = None,
) -> Response:
    data = card_view(app, owner, ref, stage, order=order, seed=seed, record=record)
    data["study"] = study_brief(app, owner, ref)
    data["screen"] = {
        "stage": stage,
        "stage_label": STAGE_LABELS[stage],
        "stages": STAGE_LABELS,
        "order": order,
        "seed": seed,
        "asked_record": record,
        "error": error,
        "form": {"verdict": "", "reason": "", "note": ""} | (form or {}),
        "flash": flash,
    }
    title = f"Screening · {STAGE_LABELS[stage]}"
    return page(request, "screen.html", data, title=title, status=400 if error else 200)


# --- the screening page and its forms (no JavaScript needed) ------------------------------


@pages.get("/study/{ref}/screen", response_class=HTMLResponse)
def screen_page(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    stage: Stage = "title_abstract",
    order: Order = None,
    seed: Seed = 1,
    record: Annotated[str | None, Query(pattern=RECORD_KEY)] = None,
    done: Annotated[Literal["decided", "undone", "retrieval"] | None, Query()] = None,
) -> Response:
    flash = {
        "decided": "Decision saved.",
        "undone": "Your last decision was undone; it stays in the history. Decide again.",
        "retrieval": "Full-text retrieval recorded.",
    }.get(done or "")
    return _screen_page(request, app, owner, ref, stage, order, seed, record, flash=flash)


@pages.post("/study/{ref}/screen/decide")
def decide_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    record_key: Annotated[str, Form(pattern=RECORD_KEY)],
    verdict: Annotated[VerdictName, Form()],
    stage: Annotated[StageName, Form()] = "title_abstract",
    reason: Annotated[str, Form(max_length=500)] = "",
    note: Annotated[str, Form(max_length=20_000)] = "",
    order: Annotated[OrderName | None, Form()] = None,
    seed: Annotated[int, Form(ge=0, le=MAX_SEED)] = 1,
) -> Response:
    try:
        asked = ScreenDecision(ref, stage, record_key, verdict, reason, note, source="web")
        app.screening.decide(asked, owner=owner)
    except InputError as exc:  # shown beside the form, as it was filled
        form = {"verdict": verdict, "reason": reason, "note": note}
        return _screen_page(
            request, app, owner, ref, stage, order, seed, record_key, error=exc.message, form=form
        )
    return RedirectResponse(screen_url(ref, stage, order, seed, done="decided"), status_code=303)


@pages.post("/study/{ref}/screen/undo")
def undo_form(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    stage: Annotated[StageName, Form()] = "title_abstract",
    record_key: Annotated[str | None, Form(pattern=RECORD_KEY)] = None,
    order: Annotated[OrderName | None, Form()] = None,
    seed: Annotated[int, Form(ge=0, le=MAX_SEED)] = 1,
) -> Response:
    undone = app.screening.undo(
        UndoRequest(ref, stage, record_key or None, source="web"), owner=owner
    )
    key = str(undone.to_dict().get("record_key") or "")
    url = screen_url(ref, stage, order, seed, record=key, done="undone")
    return RedirectResponse(url, status_code=303)


@pages.post("/study/{ref}/screen/retrieval")
def retrieval_form(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    record_key: Annotated[str, Form(pattern=RECORD_KEY)],
    retrieved: Annotated[Literal["yes", "no"], Form()],
    note: Annotated[str, Form(max_length=20_000)] = "",
    order: Annotated[OrderName | None, Form()] = None,
    seed: Annotated[int, Form(ge=0, le=MAX_SEED)] = 1,
) -> Response:
    asked = RetrievalRequest(ref, record_key, retrieved == "yes", note)
    app.screening.retrieval(asked, owner=owner)
    url = screen_url(ref, "full_text", order, seed, record=record_key, done="retrieval")
    return RedirectResponse(url, status_code=303)


# --- progress, the records behind a number, a record's history ----------------------------


@pages.get("/study/{ref}/screen/progress", response_class=HTMLResponse)
def progress_page(
    request: Request, app: AppDep, owner: OwnerDep, ref: StudyRef, stage: Stage = "title_abstract"
) -> Response:
    data = progress_view(app, owner, ref, stage)
    data["study"] = study_brief(app, owner, ref)
    data["screen"] = {"stage": stage, "stage_label": STAGE_LABELS[stage], "stages": STAGE_LABELS}
    title = f"Screening progress · {STAGE_LABELS[stage]}"
    return page(request, "screen_progress.html", data, title=title)


@pages.get("/study/{ref}/screen/items", response_class=HTMLResponse)
def items_page(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    stage: Stage = "title_abstract",
    status: Annotated[StatusName, Query()] = "all",
    page_no: Annotated[int, Query(alias="page", ge=1, le=100_000)] = 1,
) -> Response:
    data = app.screening.items(ItemsRequest(ref, stage, status, page_no), owner=owner).to_dict()
    data["screen"] = {"stage": stage, "stage_label": STAGE_LABELS[stage], "status": status}
    data["study"] = study_brief(app, owner, ref)
    return page(request, "screen_items.html", data, title="Screening · records")


@pages.get("/study/{ref}/screen/history", response_class=HTMLResponse)
def history_page(
    request: Request, app: AppDep, owner: OwnerDep, ref: StudyRef, record: RecordKey
) -> Response:
    data = app.screening.history(HistoryRequest(ref, record), owner=owner).to_dict()
    data["study"] = study_brief(app, owner, ref)
    return page(request, "screen_history.html", data, title="Screening · a record's history")


# --- settings (the Study's owner changes them) -------------------------------------------


def _settings_page(
    request: Request,
    app: App,
    owner: str,
    ref: str,
    *,
    error: str | None = None,
    saved: bool = False,
) -> Response:
    data = app.screening.settings(StudyScreenRequest(ref), owner=owner).to_dict()
    data["page"] = {"error": error, "saved": saved, "stages": STAGE_LABELS}
    status = 400 if error else 200
    return page(request, "screen_settings.html", data, title="Screening settings", status=status)


@pages.get("/study/{ref}/screen/settings", response_class=HTMLResponse)
def settings_page(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    saved: Annotated[bool, Query()] = False,
) -> Response:
    return _settings_page(request, app, owner, ref, saved=saved)


@pages.post("/study/{ref}/screen/settings")
def settings_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    reasons: Annotated[str, Form(max_length=30_000)] = "",
    inclusion: Annotated[str, Form(max_length=20_000)] = "",
    exclusion: Annotated[str, Form(max_length=20_000)] = "",
    include_keywords: Annotated[str, Form(max_length=30_000)] = "",
    exclude_keywords: Annotated[str, Form(max_length=30_000)] = "",
    dual_title_abstract: Annotated[bool, Form()] = False,
    dual_full_text: Annotated[bool, Form()] = False,
    maybe_is_conflict: Annotated[bool, Form()] = False,
    default_order: Annotated[OrderName, Form()] = "ranked",
    model: Annotated[ModelName | None, Form()] = None,
) -> Response:
    may_configure(app, owner, ref)  # before the form is read
    try:
        asked = ConfigureRequest(
            ref,
            reasons=_lines(reasons),
            inclusion=inclusion,
            exclusion=exclusion,
            include_keywords=_lines(include_keywords),
            exclude_keywords=_lines(exclude_keywords),
            dual_review={"title_abstract": dual_title_abstract, "full_text": dual_full_text},
            maybe_is_conflict=maybe_is_conflict,
            default_order=default_order,
            model=model,
        )
        app.screening.configure(asked, owner=owner)
    except InputError as exc:
        return _settings_page(request, app, owner, ref, error=exc.message)
    return RedirectResponse(f"/study/{ref}/screen/settings?saved=true", status_code=303)


# --- the JSON API ------------------------------------------------------------------------

_PREFIX: Final = "/studies/{ref}/screening"


@api.get(_PREFIX + "/settings", summary="A Study's screening settings")
def settings_api(app: AppDep, owner: OwnerDep, ref: StudyRef) -> dict[str, Any]:
    return app.screening.settings(StudyScreenRequest(ref), owner=owner).to_dict()


@api.post(_PREFIX + "/settings", summary="Change a Study's screening settings (its owner)")
def configure_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, body: SettingsBody
) -> dict[str, Any]:
    may_configure(app, owner, ref)  # before the settings are checked
    asked = ConfigureRequest(ref, **body.model_dump(exclude_none=True))
    return app.screening.configure(asked, owner=owner).to_dict()


@api.get(
    _PREFIX + "/next",
    summary="The next record to screen for the acting reviewer (done when none is left)",
)
async def next_api(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    stage: Stage = "title_abstract",
    order: Order = None,
    seed: Seed = 1,
    skip: Annotated[
        list[Annotated[str, Field(pattern=RECORD_KEY)]],
        Query(max_length=20, description="Records to pass over (the one on screen)."),
    ] = [],  # noqa: B006 - FastAPI copies the default
) -> dict[str, Any]:
    return await run_in_threadpool(
        card_view, app, owner, ref, stage, order=order, seed=seed, skip=tuple(skip)
    )


@api.get(_PREFIX + "/card", summary="One record's screening card at a stage")
async def card_api(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    record_key: RecordKey,
    stage: Stage = "title_abstract",
) -> dict[str, Any]:
    return await run_in_threadpool(card_view, app, owner, ref, stage, record=record_key)


@api.post(
    _PREFIX + "/decisions", summary="Include, exclude or mark maybe (appended to the history)"
)
async def decide_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, body: DecisionBody
) -> dict[str, Any]:
    asked = ScreenDecision(
        ref, body.stage, body.record_key, body.verdict, body.reason, body.note, source="api"
    )
    view = await run_in_threadpool(app.screening.decide, asked, owner=owner)
    return view.to_dict()


@api.post(
    _PREFIX + "/undo", summary="Undo the acting reviewer's last decision (kept in the history)"
)
async def undo_api(app: AppDep, owner: OwnerDep, ref: StudyRef, body: UndoBody) -> dict[str, Any]:
    asked = UndoRequest(ref, body.stage, body.record_key, source="api")
    view = await run_in_threadpool(app.screening.undo, asked, owner=owner)
    return view.to_dict()


@api.post(_PREFIX + "/retrieval", summary="Record whether a record's full text was retrieved")
def retrieval_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, body: RetrievalBody
) -> dict[str, Any]:
    asked = RetrievalRequest(ref, body.record_key, body.retrieved, body.note)
    return app.screening.retrieval(asked, owner=owner).to_dict()


@api.get(_PREFIX + "/history", summary="Every decision on a record the acting reviewer may see")
def history_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, record_key: RecordKey
) -> dict[str, Any]:
    return app.screening.history(HistoryRequest(ref, record_key), owner=owner).to_dict()


@api.get(_PREFIX + "/progress", summary="Progress, stopping guidance and the model at a stage")
def progress_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, stage: Stage = "title_abstract"
) -> dict[str, Any]:
    return progress_view(app, owner, ref, stage)


@api.get(_PREFIX + "/items", summary="The records behind a number (a status), one page")
def items_api(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    stage: Stage = "title_abstract",
    status: Annotated[StatusName, Query()] = "all",
    page_no: Annotated[int, Query(alias="page", ge=1, le=100_000)] = 1,
) -> dict[str, Any]:
    asked = ItemsRequest(ref, stage, status, page_no)
    return app.screening.items(asked, owner=owner).to_dict()
