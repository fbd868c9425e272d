"""The SearchTrace (pure): what was asked, attempted, observed and warned about.

The trace is the primary output of a search, not a deduplicated corpus: sightings keep the
provider order and every duplicate; nothing here elects a representative.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Literal

from litdesk.core.records import Paper
from litdesk.core.search import LaneOutcome, ProviderName

from ._request import SearchRequest, cache_identity

__all__ = [
    "NONCLAIMS",
    "TRACE_VERSION",
    "AttemptStatus",
    "ParserIdentity",
    "SearchAttempt",
    "SearchSighting",
    "SearchTrace",
    "attempt_from_outcome",
    "build_trace",
]

TRACE_VERSION: Final = 1

NONCLAIMS: Final[tuple[str, ...]] = (
    "No completeness: a provider's results are what it returned for this request, not all "
    "matching literature.",
    "No cross-provider coverage: providers index different literature; totals are never added.",
    "No deduplication: the same work seen by several providers (or twice by one) stays as "
    "separate sightings.",
)

AttemptStatus = Literal["success", "partial", "failed"]


@dataclass(frozen=True, slots=True)
class ParserIdentity:
    id: str
    version: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "version": self.version}


@dataclass(frozen=True, slots=True)
class SearchAttempt:
    """One provider attempt with its evidence."""

    provider: ProviderName
    lane: str
    status: AttemptStatus
    outcome: str
    message: str
    request: dict[str, Any] | None
    http_status: int | None
    elapsed_ms: float | None
    retry_after: float | None
    response_digest: str | None
    response_bytes: int | None
    parser: ParserIdentity | None
    requested_cursor: str | None
    next_cursor: str | None
    total: int | None
    returned: int
    warnings: tuple[str, ...] = ()
    reuse: str | None = None
    received_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "lane": self.lane,
            "status": self.status,
            "outcome": self.outcome,
            "message": self.message,
            "request": self.request,
            "http_status": self.http_status,
            "elapsed_ms": self.elapsed_ms,
            "retry_after": self.retry_after,
            "response_digest": self.response_digest,
            "response_bytes": self.response_bytes,
            "parser": self.parser.to_dict() if self.parser else None,
            "pagination": {
                "requested_cursor": self.requested_cursor,
                "next_cursor": self.next_cursor,
                "total": self.total,
                "returned": self.returned,
            },
            "warnings": list(self.warnings),
            "reuse": self.reuse,
            "received_at": self.received_at,
        }


@dataclass(frozen=True, slots=True)
class SearchSighting:
    """One record as a provider returned it, at its provider rank (1-based)."""

    provider: ProviderName
    rank: int
    identifiers: dict[str, str]
    paper: Paper
    notices: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "rank": self.rank,
            "identifiers": dict(self.identifiers),
            "paper": self.paper.to_dict(),
            "notices": list(self.notices),
        }


@dataclass(frozen=True, slots=True)
class SearchTrace:
    trace_id: str
    created_at: datetime
    request: SearchRequest
    cache_identity: str
    attempts: tuple[SearchAttempt, ...]
    sightings: tuple[SearchSighting, ...]
    warnings: tuple[str, ...] = ()
    raw: dict[str, str] = field(default_factory=dict)
    nonclaims: tuple[str, ...] = NONCLAIMS

    @property
    def status(self) -> AttemptStatus:
        """success when every attempt succeeded, failed when none did, else partial."""
        states = {a.status for a in self.attempts}
        if not states or states == {"failed"}:
            return "failed"
        if states == {"success"}:
            return "success"
        return "partial"

    def sightings_of(self, provider: str) -> list[SearchSighting]:
        return [s for s in self.sightings if s.provider == provider]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "version": TRACE_VERSION,
            "trace_id": self.trace_id,
            "created_at": self.created_at.isoformat(),
            "request": self.request.to_dict(),
            "cache_identity": self.cache_identity,
            "status": self.status,
            "attempts": [a.to_dict() for a in self.attempts],
            "sightings": [s.to_dict() for s in self.sightings],
            "warnings": list(self.warnings),
            "nonclaims": list(self.nonclaims),
            "summary": {
                "attempts": len(self.attempts),
                "succeeded": sum(a.status != "failed" for a in self.attempts),
                "failed": sum(a.status == "failed" for a in self.attempts),
                "sightings": len(self.sightings),
            },
        }
        if self.request.include_raw:
            out["raw"] = dict(self.raw)
        return out


def attempt_from_outcome(
    outcome: LaneOutcome,
    *,
    parser: ParserIdentity | None,
    requested_cursor: str | None,
    reuse: str | None = None,
    received_at: str | None = None,
) -> SearchAttempt:
    """Turn a lane outcome into a trace attempt (status success / partial / failed)."""
    page = outcome.page if outcome.status == "ok" else None
    warnings: list[str] = []
    if outcome.request is not None:
        warnings.extend(outcome.request.warnings)
    if page is not None:
        warnings.extend(page.warnings)
    status: AttemptStatus
    if outcome.status != "ok":
        status = "failed"
    elif page is not None and page.notices:
        status = "partial"
    else:
        status = "success"
    return SearchAttempt(
        provider=outcome.provider,
        lane=outcome.lane,
        status=status,
        outcome=outcome.status,
        message=outcome.message,
        request=outcome.request.to_dict() if outcome.request else None,
        http_status=outcome.http_status,
        elapsed_ms=outcome.elapsed_ms,
        retry_after=outcome.retry_after,
        response_digest=outcome.response_digest,
        response_bytes=outcome.response_bytes,
        parser=parser if outcome.status in {"ok", "parse_error"} else None,
        requested_cursor=requested_cursor,
        next_cursor=page.next_cursor if page else None,
        total=page.total if page else None,
        returned=len(page.papers) if page else 0,
        warnings=tuple(warnings),
        reuse=reuse,
        received_at=received_at,
    )


def _sightings(outcome: LaneOutcome) -> list[SearchSighting]:
    if outcome.status != "ok" or outcome.page is None:
        return []
    page = outcome.page
    return [
        SearchSighting(
            provider=outcome.provider,
            rank=index + 1,
            identifiers=paper.identifiers(),
            paper=paper,
            notices=tuple(page.notices.get(index, ())),
        )
        for index, paper in enumerate(page.papers)
    ]


def build_trace(
    request: SearchRequest,
    attempts: list[tuple[LaneOutcome, SearchAttempt]],
    *,
    trace_id: str,
    created_at: datetime,
    warnings: list[str] | None = None,
    raw: dict[str, str] | None = None,
) -> SearchTrace:
    """Assemble the trace: attempts in the order given, sightings in provider order then rank."""
    sightings: list[SearchSighting] = []
    notes = list(warnings or [])
    for outcome, attempt in attempts:
        sightings.extend(_sightings(outcome))
        if attempt.status == "failed":
            notes.append(f"{attempt.provider}: {attempt.outcome}: {attempt.message}".rstrip(": "))
    return SearchTrace(
        trace_id=trace_id,
        created_at=created_at,
        request=request,
        cache_identity=cache_identity(request),
        attempts=tuple(a for _, a in attempts),
        sightings=tuple(sightings),
        warnings=tuple(notes),
        raw=dict(raw or {}),
    )
