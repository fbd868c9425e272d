"""The review notebook (highlights and comments across papers, Markdown export) and the
evidence table (CSV export), plus the reader's evidence editor; with ``/api/v1`` twins."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from litdesk.core.vocab import MAX_LINKED_SUBJECTS
from litdesk.services.app import App
from litdesk.services.reader import EvidenceRequest
from litdesk.services.studies import (
    EvidenceExportRequest,
    NotebookExportRequest,
    NotebookRequest,
)

from .._deps import AppDep, OwnerDep
from .._render import page
from ._common import JsonView, PaperId, download, json_answer

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(tags=["notebook and evidence"])

MAX_FIELD = 4_000
MAX_PASSAGE = 8_000


class NotebookParams(BaseModel):
    text: str = Field("", max_length=300)
    kind: Literal["highlight", "comment"] | None = None
    study: str | None = Field(None, max_length=200)

    @field_validator("kind", "study", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if value == "" else value


class StudyParam(BaseModel):
    study: str | None = Field(None, max_length=200)
    subject: str | None = Field(
        None, max_length=120, description="Only evidence linked to this subject (mesh:D003920)."
    )

    @field_validator("study", "subject", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if value == "" else value


def notebook_view(app: App, owner: str, p: NotebookParams) -> dict[str, Any]:
    return app.studies.notebook(NotebookRequest(p.text, p.kind, p.study), owner=owner).to_dict()


def evidence_view(app: App, owner: str, p: StudyParam) -> dict[str, object]:
    return app.reader.evidence_table(study=p.study, subject=p.subject, owner=owner).to_dict()


@pages.get("/notebook", response_class=HTMLResponse)
def notebook_page(
    request: Request, app: AppDep, owner: OwnerDep, params: Annotated[NotebookParams, Query()]
) -> Response:
    view = notebook_view(app, owner, params)
    return page(request, "notebook.html", view, title="Review notebook")


@api.get(
    "/notebook",
    summary="Highlights and comments across papers (search, kind, Study)",
    response_model=JsonView,
)
def notebook_api(
    app: AppDep, owner: OwnerDep, params: Annotated[NotebookParams, Query()]
) -> Response:
    return json_answer(notebook_view(app, owner, params))


@pages.get("/notebook/export")
@api.get("/notebook/export", summary="The review notebook as Markdown")
def notebook_export(
    app: AppDep, owner: OwnerDep, params: Annotated[StudyParam, Query()]
) -> Response:
    book = app.studies.export_notebook(NotebookExportRequest(params.study), owner=owner)
    return download(book.download())


@pages.get("/evidence", response_class=HTMLResponse)
def evidence_page(
    request: Request, app: AppDep, owner: OwnerDep, params: Annotated[StudyParam, Query()]
) -> Response:
    data = evidence_view(app, owner, params)
    return page(request, "evidence.html", data, title="Evidence")


@api.get("/evidence", summary="Evidence across all findings or one Study")
def evidence_api(
    app: AppDep, owner: OwnerDep, params: Annotated[StudyParam, Query()]
) -> dict[str, object]:
    return evidence_view(app, owner, params)


@pages.get("/evidence/export")
@api.get("/evidence/export", summary="The evidence table as formula-safe CSV")
def evidence_export(
    app: AppDep, owner: OwnerDep, params: Annotated[StudyParam, Query()]
) -> Response:
    table = app.studies.export_evidence(
        EvidenceExportRequest(params.study, params.subject), owner=owner
    )
    return download(table.download())


FieldValue = Annotated[str, Field(max_length=MAX_FIELD)] | int | float | bool


class EvidenceFields(BaseModel):
    """The evidence form's fixed part (the page posts the form's fields as ``field.<key>``)."""

    finding: str | None = Field(None, max_length=MAX_FIELD)
    passage: str = Field(min_length=1, max_length=MAX_PASSAGE)
    source: Literal["abstract", "fulltext", "external", "pdf"] = "abstract"
    location: str | None = Field(None, max_length=500)
    page: int | None = Field(
        None, ge=1, le=2_000, description="The page of the paper's PDF (source pdf), 1-based."
    )
    pdf: str | None = Field(
        None,
        pattern=r"^([0-9a-f]{64})?$",
        description="The SHA-256 of the PDF the page showed (source pdf; refused if the "
        "paper's PDF is another now).",
    )
    block: str | None = Field(
        None,
        pattern=r"^(p[1-9][0-9]{0,5})?$",
        description="The full-text paragraph of a fulltext passage (p1, p2, …).",
    )
    snapshot: str | None = Field(
        None,
        pattern=r"^(sha256:[0-9a-f]{64})?$",
        description="The digest of the paragraph the page showed (refused if it changed).",
    )
    study: str | None = Field(None, max_length=200)
    question: str | None = Field(None, max_length=MAX_FIELD)
    population: str | None = Field(None, max_length=MAX_FIELD)
    method: str | None = Field(None, max_length=MAX_FIELD)
    intervention: str | None = Field(None, max_length=MAX_FIELD)
    limitations: str | None = Field(None, max_length=MAX_FIELD)
    subjects: list[Annotated[str, Field(max_length=120)]] = Field(
        default_factory=list,
        max_length=MAX_LINKED_SUBJECTS,
        description="Subjects to link the record to, as in mesh:D003920 (a bare id is MeSH).",
    )

    @field_validator("page", "pdf", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if value == "" else value

    def request(self, paper_id: str, values: Mapping[str, object] | None = None) -> EvidenceRequest:
        return EvidenceRequest(
            paper_id,
            finding=self.finding,
            passage=self.passage,
            source=self.source,
            location=self.location,
            block=self.block or None,
            snapshot=self.snapshot or None,
            study=self.study or None,
            question=self.question,
            population=self.population,
            method=self.method,
            intervention=self.intervention,
            limitations=self.limitations,
            values=dict(values or {}),
            subjects=tuple(self.subjects),
            page=self.page if self.source == "pdf" else None,
            pdf=(self.pdf or None) if self.source == "pdf" else None,
        )


class EvidenceBody(EvidenceFields):
    """The JSON API's evidence: a ``page`` or ``pdf`` with another source than ``pdf`` is
    refused (422), never dropped — a client that sent one meant a PDF passage. (The
    reader's form, :class:`EvidenceFields`, ignores them then: its page field keeps the
    page the PDF viewer showed while the person picks another source, as the form's other
    fields that do not apply to the chosen source are left out of the request.)"""

    values: dict[str, FieldValue] = Field(
        default_factory=dict,
        max_length=60,
        description="Values by the key of a field of the Study's form (see "
        "/api/v1/studies/{ref}/form); without a Study, the six default fields.",
    )

    @field_validator("page", "pdf")
    @classmethod
    def _only_with_the_pdf(cls, value: object, info: ValidationInfo) -> object:
        source = info.data.get("source")
        if value is not None and source != "pdf":
            raise PydanticCustomError(  # the message as it is (no "Value error, ")
                "pdf_only",
                'a page and a PDF go with source "pdf" (a passage from the paper\'s PDF), '
                'not with source "{source}": leave them out or send source "pdf"',
                {"source": str(source)},
            )
        return value


@api.post(
    "/papers/{paper_id}/evidence",
    summary="Record evidence (the Study's form fields, or the six default fields, + passage "
    "from the abstract, a full-text paragraph, a page of the paper's PDF (checked on that "
    "page) or an external source with its location)",
)
async def evidence_add_api(
    app: AppDep, owner: OwnerDep, paper_id: PaperId, body: EvidenceBody
) -> dict[str, object]:
    return (
        await app.reader.add_evidence(body.request(paper_id, body.values), owner=owner)
    ).to_dict()


@pages.post("/paper/{paper_id}/evidence")
async def evidence_add_form(
    request: Request,
    app: AppDep,
    owner: OwnerDep,
    paper_id: PaperId,
    body: Annotated[EvidenceFields, Form()],
) -> Response:
    posted = await request.form()
    values = {
        str(k)[6:]: v
        for k, v in posted.multi_items()
        if str(k).startswith("field.") and isinstance(v, str)
    }
    await app.reader.add_evidence(body.request(paper_id, values), owner=owner)
    query = {"fulltext": "1"} if body.source == "fulltext" else {}
    if body.study:
        query["study"] = body.study
    suffix = ("?" + urlencode(query)) if query else ""
    return RedirectResponse(f"/paper/{paper_id}{suffix}#evidence", status_code=303)
