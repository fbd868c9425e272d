"""Background jobs over ``/api/v1/jobs``: list, watch (poll) and cancel the jobs of the
request's owner. Any page may watch a job by its id; another owner's job is not found."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from starlette.concurrency import run_in_threadpool

from litdesk.services.jobs import Jobs

from .._deps import OwnerDep, opened_app

__all__ = ["JobId", "api", "jobs_of", "pages"]

pages = APIRouter()
api = APIRouter(tags=["jobs"])

JobId = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$", description="A job's id.")]


def jobs_of(request: Request) -> Jobs:
    """The app's job queue (opened by the lifespan)."""
    return opened_app(request).jobs


@api.get("/jobs", summary="The owner's jobs, newest first")
async def list_api(
    request: Request,
    owner: OwnerDep,
    kind: Annotated[str | None, Query(max_length=80, pattern=r"^[a-z0-9_.]+$")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    kinds = [kind] if kind else None
    found = await run_in_threadpool(jobs_of(request).list, owner=owner, kinds=kinds, limit=limit)
    return {"jobs": [j.to_dict() for j in found]}


@api.get("/jobs/{job_id}", summary="One job: status, progress (done/total, current, rate), result")
async def job_api(request: Request, owner: OwnerDep, job_id: JobId) -> dict[str, Any]:
    view = await run_in_threadpool(jobs_of(request).get, job_id, owner=owner)
    return view.to_dict()


@api.post("/jobs/{job_id}/cancel", summary="Cancel a job (a running one stops at its next step)")
async def cancel_api(request: Request, owner: OwnerDep, job_id: JobId) -> dict[str, Any]:
    view = await run_in_threadpool(jobs_of(request).cancel, job_id, owner=owner)
    return view.to_dict()
