"""Screening in a team (issue 28): the resolution queue of conflicts and the reveal (the
Study owner), agreement between reviewers (Cohen's kappa, overall and over time, as a table
and a small chart), decisions imported from other tools and exported; with their
``/api/v1/studies/{id}/screening/...`` twins. The forms work without JavaScript."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk._errors import InputError
from litdesk.services.app import App
from litdesk.services.screening import (
    CONFLICTS_PAGE,
    MAX_CONFLICTS_PAGE,
    AgreementRequest,
    ConflictsRequest,
    ConflictStatus,
    ExportDecisionsRequest,
    ImportDecisionsRequest,
    ResolveRequest,
    StudyStageRequest,
    parse_reviewer_map,
)

from .._deps import AppDep, OwnerDep
from .._render import page
from ._common import StudyRef, download
from ._screen_view import agreement_chart
from .screening import (
    RECORD_KEY,
    STAGE_LABELS,
    Stage,
    StageName,
    VerdictName,
    may_screen,
    study_brief,
)

__all__ = ["IMPORT_LIMIT", "IMPORT_PATH", "api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["screening"])

_PREFIX: Final = "/studies/{ref}/screening"
#: a decisions file read at most (the request's body limit is set on these paths)
IMPORT_LIMIT: Final = 32 * 1024 * 1024
#: where decision files are posted: a fixed prefix (the Study after it), so that the
#: security middleware's body limit by path prefix can allow a large file there only
IMPORT_PATH: Final = "/screening-imports"
FormatName = Literal["csv", "asreview", "rayyan"]
#: the queue's filter, page and page size as the page, its forms and the API take them (the
#: screening pages' ``?page=N``); the area checks each (``bad_page``, ``bad_status``)
StatusQ = Annotated[ConflictStatus, Query(description="unresolved (waiting), resolved, or all")]
PageQ = Annotated[int, Query(alias="page", description="Page of the queue, from 1")]
PerPageQ = Annotated[int, Query(description=f"Conflicts per page, 1 to {MAX_CONFLICTS_PAGE}")]


class ResolveBody(BaseModel):
    stage: StageName = "title_abstract"
    record_key: str = Field(pattern=RECORD_KEY)
    verdict: VerdictName
    reason: str = Field("", max_length=500)
    note: str = Field("", max_length=20_000)


class StageBody(BaseModel):
    stage: StageName = "title_abstract"


# --- views shared by each page and its twin -----------------------------------------------


def conflicts_view(app: App, owner: str, asked: ConflictsRequest) -> dict[str, Any]:
    data: dict[str, Any] = app.screening.conflicts(asked, owner=owner).to_dict()
    return data


def _pair_label(pair: dict[str, Any], owner: str) -> str:
    """A pair by its reviewers' names (the acting account as "you")."""
    ids = [str(r) for r in pair.get("reviewers", ())]
    names = list(pair.get("reviewer_names") or ids)
    return " and ".join("you" if i == owner else str(n) for i, n in zip(ids, names, strict=False))


def agreement_view(app: App, owner: str, ref: str) -> dict[str, Any]:
    """Agreement per pair and stage, with the chart of kappa over time per stage (its
    lines labelled by the reviewers' names)."""
    data: dict[str, Any] = app.screening.agreement(AgreementRequest(ref), owner=owner).to_dict()
    charts: dict[str, Any] = {}
    for stage in STAGE_LABELS:
        series = {
            _pair_label(p, owner): list(p.get("over_time") or ())
            for p in data.get("pairs", ())
            if p.get("stage") == stage
        }
        if series:
            charts[stage] = agreement_chart(series).to_dict()
    data["charts"] = charts
    return data


# --- pages and their forms ---------------------------------------------------------------


@pages.get("/study/{ref}/screen/conflicts", response_class=HTMLResponse)
def conflicts_page(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    stage: Stage = "title_abstract",
    status: StatusQ = "unresolved",
    page_no: PageQ = 1,
) -> Response:
    data = conflicts_view(app, owner, ConflictsRequest(ref, stage, status, page_no))
    data["screen"] = {"stage": stage, "stage_label": STAGE_LABELS[stage], "stages": STAGE_LABELS}
    data["study"] = study_brief(app, owner, ref)
    return page(request, "screen_conflicts.html", data, title="Screening · conflicts")


@pages.post("/study/{ref}/screen/reveal")
def reveal_form(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    stage: Annotated[StageName, Form()] = "title_abstract",
) -> Response:
    app.screening.reveal(StudyStageRequest(ref, stage), owner=owner)
    return RedirectResponse(f"/study/{ref}/screen/conflicts?stage={stage}", status_code=303)


def _queue_url(ref: str, asked: ConflictsRequest, anchor: str = "") -> str:
    query = urlencode({"stage": asked.stage, "status": asked.status, "page": asked.page})
    return f"/study/{ref}/screen/conflicts?{query}{anchor}"


@pages.post("/study/{ref}/screen/resolve")
def resolve_form(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    record_key: Annotated[str, Form(pattern=RECORD_KEY)],
    verdict: Annotated[VerdictName, Form()],
    stage: Annotated[StageName, Form()] = "title_abstract",
    reason: Annotated[str, Form(max_length=500)] = "",
    note: Annotated[str, Form(max_length=20_000)] = "",
    status: Annotated[ConflictStatus, Form()] = "unresolved",
    page_no: Annotated[int, Form(alias="page")] = 1,
    at: Annotated[int, Form(ge=1, le=MAX_CONFLICTS_PAGE)] = 1,
) -> Response:
    """Settle a conflict, then back to the same page of the queue at the same place: the
    card that took the settled one's place (``at``, its position on the page), else the
    page's last (the page shrank; a page past the last is the last)."""
    back = ConflictsRequest(ref, stage, status, page_no)  # bad paging input: nothing written
    asked = ResolveRequest(ref, stage, record_key, verdict, reason, note)
    app.screening.resolve(asked, owner=owner)
    now = app.screening.conflicts(back, owner=owner)
    back = ConflictsRequest(ref, stage, status, now.page)
    shown = min(at, len(now.conflicts))
    return RedirectResponse(
        _queue_url(ref, back, f"#conflict-{shown}" if shown else "#conflicts-state"),
        status_code=303,
    )


@pages.get("/study/{ref}/screen/agreement", response_class=HTMLResponse)
def agreement_page(request: Request, app: AppDep, owner: OwnerDep, ref: StudyRef) -> Response:
    data = agreement_view(app, owner, ref)
    data["study"] = study_brief(app, owner, ref)
    data["stages"] = STAGE_LABELS
    return page(request, "screen_agreement.html", data, title="Screening · agreement")


def _exchange_page(
    request: Request,
    app: App,
    owner: str,
    ref: str,
    stage: StageName,
    *,
    report: dict[str, Any] | None = None,
    error: str | None = None,
) -> Response:
    data: dict[str, Any] = {
        "study": study_brief(app, owner, ref),
        "screen": {"stage": stage, "stage_label": STAGE_LABELS[stage], "stages": STAGE_LABELS},
        "report": report,
        "error": error,
    }
    status = 400 if error else 200
    return page(
        request, "screen_exchange.html", data, title="Screening · import and export", status=status
    )


@pages.get("/study/{ref}/screen/exchange", response_class=HTMLResponse)
def exchange_page(
    request: Request, app: AppDep, owner: OwnerDep, ref: StudyRef, stage: Stage = "title_abstract"
) -> Response:
    return _exchange_page(request, app, owner, ref, stage)


@pages.post(IMPORT_PATH + "/{ref}", response_class=HTMLResponse)
async def import_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    file: Annotated[
        UploadFile,
        File(
            description="CSV, ASReview export, litdesk's own export or Rayyan export (CSV or RIS)"
        ),
    ],
    stage: Annotated[StageName, Form()] = "title_abstract",
    reviewer: Annotated[str, Form(max_length=200)] = "",
    file_format: Annotated[FormatName | Literal[""], Form(alias="format")] = "",
    reviewer_map: Annotated[str, Form(max_length=20_000)] = "",
) -> Response:
    await run_in_threadpool(may_screen, app, owner, ref)  # before the file is read
    data = await file.read(IMPORT_LIMIT + 1)
    try:
        asked = ImportDecisionsRequest(
            ref,
            data,
            file.filename or "decisions.csv",
            stage,
            reviewer.strip() or None,
            file_format or None,
            parse_reviewer_map([reviewer_map]),
        )
        view = await run_in_threadpool(app.screening.import_decisions, asked, owner=owner)
    except InputError as exc:  # shown beside the form (a file that cannot be read)
        return await run_in_threadpool(
            _exchange_page, request, app, owner, ref, stage, error=exc.message
        )
    report = view.to_dict()
    return await run_in_threadpool(_exchange_page, request, app, owner, ref, stage, report=report)


@pages.get("/study/{ref}/screen/export")
def export_page(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    stage: Stage = "title_abstract",
    fmt: Annotated[Literal["csv", "ris"], Query(alias="format")] = "csv",
) -> Response:
    export = app.screening.export_decisions(ExportDecisionsRequest(ref, stage, fmt), owner=owner)
    return download(export)


# --- the JSON API ------------------------------------------------------------------------


@api.get(
    _PREFIX + "/conflicts",
    summary="One page of the resolution queue of a stage (empty while blind), with its counts",
)
def conflicts_api(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    stage: Stage = "title_abstract",
    status: StatusQ = "unresolved",
    page_no: PageQ = 1,
    per_page: PerPageQ = CONFLICTS_PAGE,
) -> dict[str, Any]:
    """``conflicts`` is one page; ``total``, ``page``, ``pages`` and ``per_page`` say where
    it is; ``waiting`` (also ``count``) and ``resolved`` count the whole queue."""
    return conflicts_view(app, owner, ConflictsRequest(ref, stage, status, page_no, per_page))


@api.post(_PREFIX + "/reveal", summary="Reveal a stage's decisions to the reviewers (the owner)")
def reveal_api(app: AppDep, owner: OwnerDep, ref: StudyRef, body: StageBody) -> dict[str, Any]:
    view = app.screening.reveal(StudyStageRequest(ref, body.stage), owner=owner)
    result: dict[str, Any] = view.to_dict()
    return result


@api.post(
    _PREFIX + "/resolutions", summary="Settle a conflict (both decisions stay in the history)"
)
def resolve_api(app: AppDep, owner: OwnerDep, ref: StudyRef, body: ResolveBody) -> dict[str, Any]:
    asked = ResolveRequest(ref, body.stage, body.record_key, body.verdict, body.reason, body.note)
    return app.screening.resolve(asked, owner=owner).to_dict()


@api.get(_PREFIX + "/agreement", summary="Cohen's kappa and percent agreement per pair and stage")
def agreement_api(app: AppDep, owner: OwnerDep, ref: StudyRef) -> dict[str, Any]:
    return agreement_view(app, owner, ref)


@api.post(
    IMPORT_PATH + "/{ref}",
    summary="Import decisions from a CSV, ASReview or Rayyan file (unmatched rows listed)",
)
async def import_api(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    file: Annotated[
        UploadFile,
        File(
            description="CSV, ASReview export, litdesk's own export or Rayyan export (CSV or RIS)"
        ),
    ],
    stage: Annotated[StageName, Query()] = "title_abstract",
    reviewer: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
    file_format: Annotated[FormatName | None, Query(alias="format")] = None,
    reviewer_map: Annotated[
        list[str] | None,
        Query(
            max_length=1000,
            description="'Rayyan name=reviewer' (repeat): a Rayyan reviewer's decisions "
            "recorded as this reviewer's",
        ),
    ] = None,
) -> dict[str, Any]:
    await run_in_threadpool(may_screen, app, owner, ref)  # before the file is read
    data = await file.read(IMPORT_LIMIT + 1)
    asked = ImportDecisionsRequest(
        ref, data, file.filename or "decisions.csv", stage, reviewer, file_format,
        parse_reviewer_map(reviewer_map or ()),
    )  # fmt: skip
    view = await run_in_threadpool(app.screening.import_decisions, asked, owner=owner)
    return view.to_dict()


@api.get(_PREFIX + "/export", summary="The decisions of a stage as CSV or RIS (a download)")
def export_api(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    stage: Stage = "title_abstract",
    fmt: Annotated[Literal["csv", "ris"], Query(alias="format")] = "csv",
) -> Response:
    export = app.screening.export_decisions(ExportDecisionsRequest(ref, stage, fmt), owner=owner)
    return download(export)
