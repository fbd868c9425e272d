"""Studies: list, create, rename, and a Study's page; with their ``/api/v1`` twins."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk.services.app import App
from litdesk.services.studies import (
    MAX_IMPORT_BYTES,
    STUDY_MAX_PAGE,
    STUDY_PAGE,
    CreateStudyRequest,
    ImportRequest,
    RenameStudyRequest,
    StudyRequest,
)

from .._deps import AppDep, OwnerDep
from .._render import page
from ._common import JsonView, StudyRef, json_answer
from .screening import screening_summary

__all__ = ["api", "pages", "with_restore"]

pages = APIRouter()
api = APIRouter(tags=["studies"])


class StudyBody(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    description: str | None = Field(None, max_length=4_000)


class RenameBody(BaseModel):
    name: str = Field(min_length=1, max_length=200)


def studies_view(app: App, owner: str) -> dict[str, Any]:
    return app.studies.studies(owner=owner).to_dict()


def _restore(definition: dict[str, Any]) -> str:
    """The search form's address for a kept run's definition (restored, not rerun)."""
    f = definition.get("filters", {})
    params: list[tuple[str, Any]] = [("q", definition["query"]), ("mode", definition["mode"])]
    params += [("provider", p) for p in definition.get("providers", [])]
    for key in ("field", "type", "sort", "year_from", "year_to"):
        if f.get(key) not in (None, "all", "relevance"):
            params.append((key, f[key]))
    for key in ("open_access", "include_retracted"):
        if f.get(key):
            params.append((key, "true"))
    for e in definition.get("expansions", []):  # the picked subjects come back with it
        params += [
            ("subject_vocabulary", e["vocabulary"]),
            ("subject_id", e["id"]),
            ("subject_label", e["terms"][0]),
        ]
    params.append(("restore", "true"))  # fills the form; the search waits for the user
    return "/search?" + urlencode(params)


def with_restore(data: dict[str, Any]) -> dict[str, Any]:
    """A Study's data with each kept run's restore address."""
    for run in data["runs"]:
        run["restore"] = _restore(run["definition"]) if run.get("definition") else None
    return data


def study_view(
    app: App, owner: str, ref: str, page: int = 1, per_page: int = STUDY_PAGE
) -> dict[str, Any]:
    view = app.studies.study(StudyRequest(ref, page, per_page), owner=owner)
    return with_restore(view.to_dict())


#: ``?page=N`` of a Study's papers (and ``per_page`` on the API)
PageQ = Annotated[
    int, Query(alias="page", ge=1, le=1_000_000, description="Page of the Study's papers")
]
PerPageQ = Annotated[
    int, Query(ge=1, le=STUDY_MAX_PAGE, description="Papers per page (newest first)")
]


@pages.get("/studies", response_class=HTMLResponse)
def studies_page(request: Request, app: AppDep, owner: OwnerDep) -> Response:
    return page(request, "studies.html", studies_view(app, owner), title="Studies")


@api.get("/studies", summary="All Studies with their paper counts")
def studies_api(app: AppDep, owner: OwnerDep) -> dict[str, Any]:
    return studies_view(app, owner)


@api.post("/studies", summary="Create a Study")
def create_api(app: AppDep, owner: OwnerDep, body: StudyBody) -> dict[str, Any]:
    made = app.studies.create_study(CreateStudyRequest(body.name, body.description), owner=owner)
    return with_restore(made.to_dict())


@pages.post("/studies")
def create_form(
    app: AppDep,
    owner: OwnerDep,
    name: Annotated[str, Form(min_length=1, max_length=200)],
    description: Annotated[str, Form(max_length=4_000)] = "",
) -> Response:
    made = app.studies.create_study(CreateStudyRequest(name, description.strip()), owner=owner)
    return RedirectResponse(f"/study/{made.id}", status_code=303)


@pages.get("/study/{ref}", response_class=HTMLResponse)
def study_page(
    request: Request, app: AppDep, owner: OwnerDep, ref: StudyRef, page_n: PageQ = 1
) -> Response:
    data = study_view(app, owner, ref, page_n)
    data["screening"] = screening_summary(app, owner, data["id"])  # its link with counts
    return page(request, "study.html", data, title=str(data["name"]))


@api.get(
    "/studies/{ref}",
    summary="A Study: one page of its papers, counts, search runs, imports",
    response_model=JsonView,
)
def study_api(
    app: AppDep, owner: OwnerDep, ref: StudyRef, page: PageQ = 1, per_page: PerPageQ = STUDY_PAGE
) -> Response:
    """``papers`` is one page (newest first); ``papers_total``, ``page``, ``pages`` and
    ``per_page`` say where it is."""
    return json_answer(study_view(app, owner, ref, page, per_page))


@api.post("/studies/{ref}/rename", summary="Rename a Study")
def rename_api(app: AppDep, owner: OwnerDep, ref: StudyRef, body: RenameBody) -> dict[str, Any]:
    renamed = app.studies.rename_study(RenameStudyRequest(ref, body.name), owner=owner)
    return with_restore(renamed.to_dict())


@pages.post("/study/{ref}/rename")
def rename_form(
    app: AppDep,
    owner: OwnerDep,
    ref: StudyRef,
    name: Annotated[str, Form(min_length=1, max_length=200)],
) -> Response:
    renamed = app.studies.rename_study(RenameStudyRequest(ref, name), owner=owner)
    return RedirectResponse(f"/study/{renamed.id}", status_code=303)


#: the request (all files); each file at most 20 MB (the studies area's limits)
IMPORT_LIMIT = MAX_IMPORT_BYTES


@api.post(
    "/imports", summary="Import export files into a Study (per-file refusals beside the successes)"
)
async def import_api(
    app: AppDep,
    owner: OwnerDep,
    study: Annotated[str, Query(min_length=1, max_length=200)],
    files: Annotated[
        list[UploadFile],
        File(description="RIS, MEDLINE, WoS, BibTeX, CSV, EndNote XML, CSL-JSON …"),
    ],
    source: Annotated[
        str | None,
        Form(
            max_length=1000,
            description="The source PRISMA counts the files' records under (e.g. Embase; "
            "default: the database the file names, else its file name)",
        ),
    ] = None,
    source_kind: Annotated[
        str | None,
        Form(max_length=40, description="database, register or other (default: from the name)"),
    ] = None,
) -> Response:
    """Files totalling more than ``web_import_job_bytes`` are imported by a job: the
    answer is 202 with ``{"job": …}``, watched with ``GET /api/v1/jobs/{id}`` (its result
    is the dict a synchronous import answers). ``source`` and ``source_kind`` name where
    the files came from (PRISMA 2020's identification, issue 28)."""
    loaded = tuple([(f.filename or "file", await f.read(20_000_001)) for f in files[:21]])
    request = ImportRequest(
        study, uploads=loaded, source_name=source or None, source_kind=source_kind or None
    )
    outcome = await run_in_threadpool(app.studies.import_files, request, owner=owner)
    return JSONResponse(outcome.to_dict(), status_code=202 if outcome.job else 200)
