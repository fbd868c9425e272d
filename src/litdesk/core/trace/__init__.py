"""The search trace (pure): validated requests, cache identity, attempts, raw sightings,
non-claims, and the provider evidence cache policy."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._cache_policy import (
        CACHE_POLICIES,
        CachePolicy,
        EvidenceEntry,
        EvidenceKey,
        cache_mode_for,
        entry_is_fresh,
        evidence_key,
        request_digest,
    )
    from ._request import (
        MAX_CURSOR_CHARS,
        MAX_LIMIT,
        MAX_QUERY_CHARS,
        SearchRequest,
        SearchRequestError,
        cache_identity,
        canonical_json,
        validate_request,
    )
    from ._trace import (
        NONCLAIMS,
        TRACE_VERSION,
        AttemptStatus,
        ParserIdentity,
        SearchAttempt,
        SearchSighting,
        SearchTrace,
        attempt_from_outcome,
        build_trace,
    )

__all__ = [
    "CACHE_POLICIES",
    "MAX_CURSOR_CHARS",
    "MAX_LIMIT",
    "MAX_QUERY_CHARS",
    "NONCLAIMS",
    "TRACE_VERSION",
    "AttemptStatus",
    "CachePolicy",
    "EvidenceEntry",
    "EvidenceKey",
    "ParserIdentity",
    "SearchAttempt",
    "SearchRequest",
    "SearchRequestError",
    "SearchSighting",
    "SearchTrace",
    "attempt_from_outcome",
    "build_trace",
    "cache_identity",
    "cache_mode_for",
    "canonical_json",
    "entry_is_fresh",
    "evidence_key",
    "request_digest",
    "validate_request",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
