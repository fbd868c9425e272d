"""AI assistance in the web workspace: the reader's "Suggest evidence" (preview of what
is sent and where, consent bound to that text, one model call, a verified draft, review,
save with provenance). JSON under ``/api/v1/assist``; the reader includes the panel."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from litdesk._errors import LitdeskError
from litdesk.core.assist import ConsentRequired
from litdesk.services.assist import AllowanceRefused, EvidenceAssistant
from litdesk.services.desk import Desk

from .._deps import DeskDep
from ._common import PAPER_ID, PaperId

__all__ = ["api", "pages"]

pages = APIRouter()
api = APIRouter(prefix="/assist", tags=["AI assistance"])

DraftId = Annotated[str, Path(pattern=r"^ad-[0-9a-f]{8,40}$", description="A draft id.")]
EvidenceId = Annotated[str, Path(pattern=r"^ev-[0-9a-f]{8,40}$", description="An evidence id.")]
_FIELD = Field(None, max_length=4_000)


class ExtractBody(BaseModel):
    paper_id: str = Field(pattern=PAPER_ID, max_length=130)
    source: Literal["abstract", "fulltext"] = "abstract"
    section: str | None = Field(None, max_length=200)


class SuggestBody(ExtractBody):
    consent: str = Field(pattern=r"^sha256:[0-9a-f]{64}$", description="The preview's token.")


class Values(BaseModel):
    question: str | None = _FIELD
    population: str | None = _FIELD
    method: str | None = _FIELD
    intervention: str | None = _FIELD
    finding: str | None = _FIELD
    limitations: str | None = _FIELD


class SaveBody(BaseModel):
    reviewed: bool = False
    values: Values = Field(default_factory=Values)
    study: str | None = Field(None, max_length=200)


def _assistant(desk: Desk) -> EvidenceAssistant:
    return EvidenceAssistant(desk.runtime, owner=desk.owner)


def _refusal(exc: LitdeskError, status: int) -> JSONResponse:
    body: dict[str, Any] = {"error": type(exc).__name__, "code": exc.code, "message": exc.message}
    retry = exc.details.get("retry_after")
    headers = {"retry-after": str(retry)} if isinstance(retry, int) else None
    return JSONResponse(body, status_code=status, headers=headers)


@api.post("/extract/preview", summary="What would be sent to the model, where, and its token")
async def preview_api(desk: DeskDep, body: ExtractBody) -> dict[str, Any]:
    ea = _assistant(desk)
    try:
        prev = await ea.preview(body.paper_id, source=body.source, section=body.section or None)
    finally:
        ea.close()
    return prev.to_dict()


@api.post(
    "/extract",
    summary="Suggest evidence (one model call, with the preview's consent token); a draft",
    response_model=None,
)
async def extract_api(desk: DeskDep, body: SuggestBody) -> dict[str, Any] | JSONResponse:
    ea = _assistant(desk)
    try:
        draft = await ea.suggest(
            body.paper_id, consent=body.consent, source=body.source, section=body.section or None
        )
    except ConsentRequired as exc:
        return _refusal(exc, 409)  # the text changed: review it again
    except AllowanceRefused as exc:
        return _refusal(exc, 503 if exc.code == "store_unavailable" else 429)
    finally:
        ea.close()
    return draft.to_dict()


@api.get("/drafts/{draft_id}", summary="A stored draft of suggested evidence")
def draft_api(desk: DeskDep, draft_id: DraftId) -> dict[str, Any]:
    ea = _assistant(desk)
    try:
        return ea.draft(draft_id).to_dict()
    finally:
        ea.close()


@api.post("/drafts/{draft_id}/save", summary="Save a reviewed draft as evidence")
def save_api(desk: DeskDep, draft_id: DraftId, body: SaveBody) -> dict[str, Any]:
    ea = _assistant(desk)
    try:
        values = body.values.model_dump(exclude_unset=True)  # absent: keep the suggestion
        return ea.save(
            draft_id, reviewed=body.reviewed, values=values, study=body.study or None
        ).to_dict()
    finally:
        ea.close()


@api.get("/evidence/{evidence_id}/provenance", summary="Assistance provenance, quotes re-checked")
def provenance_api(desk: DeskDep, evidence_id: EvidenceId) -> dict[str, Any]:
    ea = _assistant(desk)
    try:
        return ea.provenance(evidence_id).to_dict()
    finally:
        ea.close()


@api.get("/papers/{paper_id}/provenance", summary="Provenance of a paper's assisted evidence")
def paper_provenance_api(desk: DeskDep, paper_id: PaperId) -> dict[str, Any]:
    ea = _assistant(desk)
    try:
        return {"records": [p.to_dict() for p in ea.paper_provenance(paper_id)]}
    finally:
        ea.close()
