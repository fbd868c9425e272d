"""AI assistance in the web workspace: the reader's "Suggest evidence" (preview of what
is sent and where, consent bound to that text, one model call, a verified draft, review,
save with provenance). JSON under ``/api/v1/assist``; the reader includes the panel.

The model calls (this suggestion, a Study's summary, a strategy suggestion) run as jobs of
the store's queue: the request answers 202 with the job, watched (and cancelled) under
``/api/v1/assist/jobs/{id}`` by its owner from any worker."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from litdesk.core.assist import ConsentRequired
from litdesk.services.assist import AllowanceRefused, EvidenceAssistant
from litdesk.services.desk import EXTRACT_KIND, Desk

from .._deps import DeskDep
from ._assist_jobs import AssistDep, accepted, job_body, refusal
from ._common import PAPER_ID, PaperId
from .jobs import JobId

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
    return EvidenceAssistant(desk.providers, owner=desk.owner)


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
    summary="Suggest evidence (one model call, with the preview's consent token): a job",
    status_code=202,
    response_model=None,
)
async def extract_api(assist: AssistDep, body: SuggestBody) -> JSONResponse:
    """Checks the consent token against the text at once (409 when it changed) and the
    allowance (429 with ``Retry-After``), then answers 202 with the job; its
    ``status_url`` gives the draft when done, or the error the call met."""
    try:
        job = await assist.suggest_evidence(
            body.paper_id, consent=body.consent, source=body.source, section=body.section or None
        )
    except (ConsentRequired, AllowanceRefused) as exc:
        return refusal(exc, EXTRACT_KIND)
    return accepted(job)


@api.get("/jobs/{job_id}", summary="An assistance call's job: its state, then result or error")
async def job_api(assist: AssistDep, job_id: JobId) -> dict[str, Any]:
    return job_body(await run_in_threadpool(assist.job, job_id))


@api.post("/jobs/{job_id}/cancel", summary="Stop waiting for the model (the call still counts)")
async def cancel_api(assist: AssistDep, job_id: JobId) -> dict[str, Any]:
    return job_body(await run_in_threadpool(assist.cancel, job_id))


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
