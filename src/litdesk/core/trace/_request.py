"""The validated search request and its cache identity (pure)."""

from __future__ import annotations

import hashlib
import json
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Final

from litdesk._errors import InputError
from litdesk.core.providers import DECLARED
from litdesk.core.search import PROVIDERS, ProviderName, SearchFilters

__all__ = [
    "MAX_CURSOR_CHARS",
    "MAX_LIMIT",
    "MAX_QUERY_CHARS",
    "SearchRequest",
    "SearchRequestError",
    "cache_identity",
    "canonical_json",
    "validate_request",
]

MAX_QUERY_CHARS: Final = 4_000
MAX_CURSOR_CHARS: Final = 4_096
MAX_LIMIT: Final = 100
MIN_YEAR: Final = 1000
MAX_YEAR: Final = 2999


class SearchRequestError(InputError):
    """A search request is invalid (blank query, unknown provider, bad years or limits)."""

    default_code = "invalid_search"


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """What the user asked: a validated query, providers in the order given, filters,
    page size, an optional provider cursor and whether raw bodies are wanted."""

    query: str
    providers: tuple[ProviderName, ...]
    filters: SearchFilters = field(default_factory=SearchFilters)
    limit: int = 20
    cursor: str | None = None
    include_raw: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "providers": list(self.providers),
            "filters": self.filters.to_dict(),
            "limit": self.limit,
            "cursor": self.cursor,
            "include_raw": self.include_raw,
        }


def _has_control(text: str) -> bool:
    return any(unicodedata.category(ch) in {"Cc", "Cs"} and ch not in "\t" for ch in text)


def validate_request(
    query: str,
    providers: list[str] | tuple[str, ...],
    *,
    filters: SearchFilters | None = None,
    limit: int = 20,
    cursor: str | None = None,
    include_raw: bool = False,
) -> SearchRequest:
    """Check every part of a search request; raise :class:`SearchRequestError` naming the fault."""
    if not isinstance(query, str) or not query.strip():
        raise SearchRequestError("the query is blank", field="query")
    text = query.strip()
    if len(text) > MAX_QUERY_CHARS:
        raise SearchRequestError(
            f"the query has {len(text)} characters; at most {MAX_QUERY_CHARS} are allowed",
            field="query",
        )
    if _has_control(text):
        raise SearchRequestError("the query contains control characters", field="query")
    if not providers:
        raise SearchRequestError(
            f"choose at least one provider ({', '.join(PROVIDERS)})", field="providers"
        )
    chosen: list[ProviderName] = []
    for raw in providers:
        name = str(raw).strip().lower()
        # the demo sample is a known name; where it may be searched is the services' call
        match = next((p for p in DECLARED if p == name), None)
        if match is None:
            raise SearchRequestError(
                f"unknown provider {str(raw)[:40]!r}; known: {', '.join(PROVIDERS)}",
                field="providers",
            )
        if match in chosen:
            raise SearchRequestError(f"provider {match} is given twice", field="providers")
        chosen.append(match)
    flt = filters or SearchFilters()
    for label, year in (("year_from", flt.year_from), ("year_to", flt.year_to)):
        if year is not None and (
            isinstance(year, bool) or not isinstance(year, int) or not MIN_YEAR <= year <= MAX_YEAR
        ):
            raise SearchRequestError(
                f"{label} must be a year between {MIN_YEAR} and {MAX_YEAR}", field=label
            )
    if flt.year_from is not None and flt.year_to is not None and flt.year_from > flt.year_to:
        raise SearchRequestError(
            f"the year range is inverted ({flt.year_from} > {flt.year_to})", field="year_from"
        )
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise SearchRequestError(f"limit must be between 1 and {MAX_LIMIT}", field="limit")
    if cursor is not None:
        if not isinstance(cursor, str) or not cursor or len(cursor) > MAX_CURSOR_CHARS:
            raise SearchRequestError(
                f"cursor must be 1 to {MAX_CURSOR_CHARS} characters", field="cursor"
            )
        if _has_control(cursor):
            raise SearchRequestError("the cursor contains control characters", field="cursor")
        if len(chosen) != 1:
            raise SearchRequestError(
                "a cursor belongs to one provider: choose exactly one provider with a cursor",
                field="cursor",
            )
    return SearchRequest(
        query=text,
        providers=tuple(chosen),
        filters=flt,
        limit=limit,
        cursor=cursor,
        include_raw=bool(include_raw),
    )


def canonical_json(data: Any) -> str:
    """Canonical JSON: sorted keys, no whitespace, UTF-8 text kept."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cache_identity(request: SearchRequest) -> str:
    """sha256 over query, filters, limit, cursor, the *sorted* providers and the raw-data flag.

    Run ids, timings, credentials, paths and URLs are not part of it, so the same question
    asked with the providers in another order has the same identity.
    """
    payload = {
        "v": 1,
        "query": request.query,
        "filters": request.filters.to_dict(),
        "limit": request.limit,
        "cursor": request.cursor,
        "providers": sorted(request.providers),
        "include_raw": request.include_raw,
    }
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()
