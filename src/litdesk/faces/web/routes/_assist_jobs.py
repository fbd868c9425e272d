"""The AI-assistance calls' jobs as the routes answer them: ``202`` with the job and its
status URL at submit, the job (with its error's HTTP status) when watched, and a refusal
at submit (stale consent, allowance) answered as the call itself answered it."""

from __future__ import annotations

from typing import Any, Final

from fastapi.responses import JSONResponse

from litdesk._errors import LitdeskError
from litdesk.services.assist import EXTRACT_KIND, AssistJob

from .._errors import status_of

__all__ = ["accepted", "consent_status", "job_body", "refusal", "refusal_status"]

#: HTTP status of an error by its category (as the app's error handler answers it).
_BY_CATEGORY: Final = {
    "input": 400,
    "refused": 403,
    "not_found": 404,
    "external": 502,
    "config": 503,
    "integrity": 500,
}
_ALLOWANCE: Final = "AllowanceRefused"


def refusal_status(error: str, code: str, category: str, *, consent_status: int) -> int:
    """The status an assistance call's error is answered with: a stale consent
    ``consent_status`` (the page shows the text again), an allowance refusal 429 (503 when
    the store could not be asked), else as the app's error handler answers."""
    if error == "ConsentRequired":
        return consent_status
    if error == _ALLOWANCE:
        return 503 if code == "store_unavailable" else 429
    probe = LitdeskError("", code=code)
    by_code = status_of(probe)
    if by_code != 500:
        return by_code
    return _BY_CATEGORY.get(category, 500)


def refusal(exc: LitdeskError, kind: str) -> JSONResponse:
    """A refusal at the submit of a ``kind`` job, as the call itself answered before
    (``Retry-After`` when waiting helps)."""
    status = status_of(exc)
    if type(exc).__name__ in ("ConsentRequired", _ALLOWANCE):
        status = refusal_status(
            type(exc).__name__, exc.code, "", consent_status=consent_status(kind)
        )
    body: dict[str, Any] = {"error": type(exc).__name__, "code": exc.code, "message": exc.message}
    retry = exc.details.get("retry_after")
    headers = {"retry-after": str(retry)} if isinstance(retry, int) else None
    return JSONResponse(body, status_code=status, headers=headers)


def consent_status(kind: str) -> int:
    """A stale consent: 409 for an evidence suggestion (the reader shows the text again),
    403 for a summary or a strategy suggestion (as they always answered)."""
    return 409 if kind == EXTRACT_KIND else 403


def job_body(job: AssistJob) -> dict[str, Any]:
    """The job as pages read it: its error carries the HTTP status the call would have
    answered with (and ``retry_after``)."""
    out = job.to_dict()
    out["status_url"] = f"/api/v1/assist/jobs/{job.id}"
    error = out.get("error")
    if isinstance(error, dict):
        error["status"] = refusal_status(
            str(error.get("error", "")),
            str(error.get("code", "")),
            str(error.get("category", "")),
            consent_status=consent_status(job.kind),
        )
    return out


def accepted(job: AssistJob) -> JSONResponse:
    """``202 Accepted`` with the job; the page polls its ``status_url``."""
    body = job_body(job)
    return JSONResponse(
        {"job": body, "status_url": body["status_url"]},
        status_code=202,
        headers={"location": body["status_url"]},
    )
