"""Shared search types (pure): providers (re-exported from their declarations in
:mod:`litdesk.core.providers`), search requests, compiled provider requests, provider pages
and lane outcomes. The query compilers produce :class:`CompiledRequest`;
the transport sends it; a provider adapter parses the body into a :class:`ProviderPage`;
the search service records a :class:`LaneOutcome` per attempt in the trace."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from litdesk._errors import RefusedError
from litdesk.core.providers import HOSTS, PROVIDERS, ProviderName
from litdesk.core.records import Paper

__all__ = [
    "HOSTS",
    "PROVIDERS",
    "CompileRefused",
    "CompiledRequest",
    "LaneOutcome",
    "LaneStatus",
    "ParseFn",
    "ProviderName",
    "ProviderPage",
    "SearchFilters",
]

LaneStatus = Literal[
    "ok", "rate_limited", "unsupported", "unavailable", "timeout", "parse_error", "budget_exhausted"
]


class CompileRefused(RefusedError):
    """A provider cannot represent the query or a filter exactly; nothing is sent."""

    default_code = "unsupported"

    def __init__(self, provider: str, reason: str) -> None:
        super().__init__(f"{provider}: {reason}", provider=provider, reason=reason)
        self.provider = provider
        self.reason = reason


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Filters every compiler understands (or refuses with the reason)."""

    field: Literal["all", "title", "abstract", "author"] = "all"
    year_from: int | None = None
    year_to: int | None = None
    open_access: bool = False
    include_retracted: bool = False
    type: Literal["all", "review", "preprint", "journal"] = "all"
    sort: Literal["relevance", "newest", "cited"] = "relevance"
    #: Europe PMC's vocabulary expansion (its ``synonym`` parameter): ``None`` leaves it to
    #: Europe PMC; other providers have no such option (the request refuses ``True`` then)
    synonyms: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "field": self.field,
            "year_from": self.year_from,
            "year_to": self.year_to,
            "open_access": self.open_access,
            "include_retracted": self.include_retracted,
            "type": self.type,
            "sort": self.sort,
        }
        if self.synonyms is not None:  # only when chosen: earlier definitions read the same
            out["synonyms"] = self.synonyms
        return out


@dataclass(frozen=True, slots=True)
class CompiledRequest:
    """An exact provider request, without credentials (the transport adds them at send time).

    ``url`` is ``https://<host><path>`` with no query string; ``params`` are the query
    parameters in order. ``executed_query`` is the provider's own expression as run (for
    the trace and the PRISMA-S report). ``operation`` is ``search`` or ``lookup`` (an exact
    identifier: a 404 is an empty success).
    """

    provider: ProviderName
    operation: Literal["search", "lookup", "fetch"]
    method: Literal["GET", "POST"]
    url: str
    params: tuple[tuple[str, str], ...]
    executed_query: str
    lane: str = ""
    body: str | None = None  # JSON body for POST (Semantic Scholar batch)
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "operation": self.operation,
            "method": self.method,
            "url": self.url,
            "params": [list(p) for p in self.params],
            "executed_query": self.executed_query,
            "lane": self.lane,
            "body": self.body,
            "warnings": list(self.warnings),
        }


@dataclass(slots=True)
class ProviderPage:
    """One parsed provider response: papers in provider order, totals and the next cursor."""

    papers: list[Paper]
    total: int | None = None
    next_cursor: str | None = None
    warnings: list[str] = field(default_factory=list)
    #: Per-record notices (index in ``papers`` → messages), e.g. a malformed DOI dropped.
    notices: dict[int, list[str]] = field(default_factory=dict)


class ParseFn(Protocol):
    """The one parser signature: a provider's answer to ``request`` → :class:`ProviderPage`
    (``litdesk.adapters.providers.parse_response``). Raises a LitdeskError (or ValueError)
    for a body it cannot read."""

    def __call__(
        self, provider: str, request: CompiledRequest, status: int, body: bytes
    ) -> ProviderPage: ...


@dataclass(slots=True)
class LaneOutcome:
    """The typed result of one provider attempt."""

    provider: ProviderName
    lane: str
    status: LaneStatus
    request: CompiledRequest | None = None
    page: ProviderPage | None = None
    http_status: int | None = None
    retry_after: float | None = None
    message: str = ""
    elapsed_ms: float | None = None
    response_digest: str | None = None
    response_bytes: int | None = None
