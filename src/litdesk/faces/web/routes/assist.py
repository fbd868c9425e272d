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
from pydantic import BaseModel, Field, StringConstraints
from starlette.concurrency import run_in_threadpool

from litdesk.core.assist import ConsentRequired
from litdesk.services.assist import (
    EXTRACT_KIND,
    AllowanceRefused,
    EvidenceSource,
    SaveEvidence,
    SaveFormEvidence,
    SuggestEvidence,
)

from .._deps import AppDep, OwnerDep
from ._assist_jobs import accepted, job_body, refusal
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
    study: str | None = Field(
        None, max_length=200, description="Read in this Study: its own form's fields too."
    )


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


FormKey = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,39}$")]
FormValue = Annotated[str | None, Field(max_length=4_000)]


class AcceptBody(BaseModel):
    reviewed: bool = False
    values: dict[FormKey, FormValue] = Field(
        default_factory=dict, max_length=60, description="Changed values by form key."
    )


@api.post("/extract/preview", summary="What would be sent to the model, where, and its token")
async def preview_api(app: AppDep, owner: OwnerDep, body: ExtractBody) -> dict[str, object]:
    request = EvidenceSource(body.paper_id, body.source, body.section or None, body.study or None)
    return (await app.assist.evidence_preview(request, owner=owner)).to_dict()


@api.post(
    "/extract",
    summary="Suggest evidence (one model call, with the preview's consent token): a job",
    status_code=202,
    response_model=None,
)
async def extract_api(app: AppDep, owner: OwnerDep, body: SuggestBody) -> JSONResponse:
    """Checks the consent token against the text at once (409 when it changed) and the
    allowance (429 with ``Retry-After``), then answers 202 with the job; its
    ``status_url`` gives the draft when done, or the error the call met."""
    request = SuggestEvidence(
        body.paper_id, body.consent, body.source, body.section or None, body.study or None
    )
    try:
        job = await app.assist.suggest_evidence(request, owner=owner)
    except (ConsentRequired, AllowanceRefused) as exc:
        return refusal(exc, EXTRACT_KIND)
    return accepted(job)


@api.get("/jobs/{job_id}", summary="An assistance call's job: its state, then result or error")
async def job_api(app: AppDep, owner: OwnerDep, job_id: JobId) -> dict[str, Any]:
    return job_body(await run_in_threadpool(lambda: app.assist.job(job_id, owner=owner)))


@api.post("/jobs/{job_id}/cancel", summary="Stop waiting for the model (the call still counts)")
async def cancel_api(app: AppDep, owner: OwnerDep, job_id: JobId) -> dict[str, Any]:
    return job_body(await run_in_threadpool(lambda: app.assist.cancel(job_id, owner=owner)))


@api.get("/drafts/{draft_id}", summary="A stored draft of suggested evidence")
def draft_api(app: AppDep, owner: OwnerDep, draft_id: DraftId) -> dict[str, object]:
    return app.assist.evidence_draft(draft_id, owner=owner).to_dict()


@api.post("/drafts/{draft_id}/save", summary="Save a reviewed draft as evidence")
def save_api(app: AppDep, owner: OwnerDep, draft_id: DraftId, body: SaveBody) -> dict[str, object]:
    values = body.values.model_dump(exclude_unset=True)  # absent: keep the suggestion
    request = SaveEvidence(draft_id, body.reviewed, values, body.study or None)
    return app.assist.save_evidence(request, owner=owner).to_dict()


@api.post(
    "/drafts/{draft_id}/accept",
    summary="Record a reviewed form draft's values (as edited) in its Study",
)
def accept_api(
    app: AppDep, owner: OwnerDep, draft_id: DraftId, body: AcceptBody
) -> dict[str, object]:
    request = SaveFormEvidence(draft_id, body.reviewed, dict(body.values))
    return app.assist.save_form_evidence(request, owner=owner).to_dict()


@api.get("/evidence/{evidence_id}/provenance", summary="Assistance provenance, quotes re-checked")
def provenance_api(app: AppDep, owner: OwnerDep, evidence_id: EvidenceId) -> dict[str, object]:
    return app.assist.evidence_provenance(evidence_id, owner=owner).to_dict()


@api.get("/papers/{paper_id}/provenance", summary="Provenance of a paper's assisted evidence")
def paper_provenance_api(app: AppDep, owner: OwnerDep, paper_id: PaperId) -> dict[str, object]:
    return app.assist.paper_provenance(paper_id, owner=owner).to_dict()
