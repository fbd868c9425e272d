"""Provider evidence cache policy (pure): which responses may be kept, how, for how long.

The provider evidence cache is separate from the search identity. Its key binds the
provider, the operation, the digest of the sanitised request, the digest of the page
request (cursor/offset) and the parser id/version. Only complete HTTP 200 responses are
eligible. A cache hit is a replay of the original receipt, never a new observation.

Retention per provider (declared with each provider in :mod:`litdesk.core.providers`;
``litdesk search`` documents the same table):

============== =========== ===========================================================
provider        mode        why
============== =========== ===========================================================
openalex        body, 14 d  OpenAlex data is CC0; bodies kept 14 days
semanticscholar digest      the licence grants no body retention: digest only
crossref        denied      no runtime caching of Crossref responses
europepmc       body, 7 d   public REST API; metadata reused under its terms
pubmed          body, 1 d   NCBI E-utilities; records change daily
arxiv           body, 1 d   arXiv metadata is CC0; listings change daily
============== =========== ===========================================================
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Any, Final

from litdesk.core.providers import PROVIDER_SPECS, CacheMode, CachePolicy
from litdesk.core.search import CompiledRequest

from ._request import canonical_json

__all__ = [
    "CACHE_POLICIES",
    "CachePolicy",
    "EvidenceEntry",
    "EvidenceKey",
    "cache_mode_for",
    "entry_is_fresh",
    "evidence_key",
    "request_digest",
]

#: provider → its evidence-cache policy (declared with the provider).
CACHE_POLICIES: Final[Mapping[str, CachePolicy]] = MappingProxyType(
    {name: spec.cache for name, spec in PROVIDER_SPECS.items()}
)

_DENY: Final = CachePolicy("deny", None, "no policy for this provider")


def cache_mode_for(provider: str, operation: str) -> CachePolicy:
    """The policy for ``provider``/``operation``; unknown providers and ``fetch`` are denied."""
    if operation not in {"search", "lookup"}:
        return _DENY
    return CACHE_POLICIES.get(provider, _DENY)


def request_digest(request: CompiledRequest) -> str:
    """sha256 of the sanitised request (method, URL, params, body) — never credentials."""
    payload = {
        "method": request.method,
        "url": request.url,
        "params": [list(p) for p in request.params],
        "body": request.body,
    }
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


_PAGE_PARAMS: Final = frozenset(
    {
        "cursor",
        "cursorMark",
        "offset",
        "start",
        "retstart",
        "page",
        "token",
        "rows",
        "per_page",
        "pageSize",
        "limit",
        "max_results",
        "retmax",
    }
)


@dataclass(frozen=True, slots=True)
class EvidenceKey:
    provider: str
    operation: str
    request_digest: str
    page_digest: str
    parser_id: str
    parser_version: str

    def digest(self) -> str:
        return hashlib.sha256(canonical_json(self.to_dict()).encode("utf-8")).hexdigest()

    def to_dict(self) -> dict[str, str]:
        return {
            "provider": self.provider,
            "operation": self.operation,
            "request_digest": self.request_digest,
            "page_digest": self.page_digest,
            "parser_id": self.parser_id,
            "parser_version": self.parser_version,
        }


def evidence_key(request: CompiledRequest, parser_id: str, parser_version: str) -> EvidenceKey:
    """The provider evidence key of ``request`` as parsed by ``parser_id``/``parser_version``."""
    page = [list(p) for p in request.params if p[0] in _PAGE_PARAMS]
    page_digest = hashlib.sha256(canonical_json(page).encode("utf-8")).hexdigest()
    return EvidenceKey(
        provider=request.provider,
        operation=request.operation,
        request_digest=request_digest(request),
        page_digest=page_digest,
        parser_id=parser_id,
        parser_version=parser_version,
    )


@dataclass(frozen=True, slots=True)
class EvidenceEntry:
    """One kept receipt: the key, the response digest and size, when it was received, until
    when it may answer a fresh request, and whether the body is kept."""

    key: EvidenceKey
    status: int
    response_digest: str
    response_bytes: int
    received_at: datetime
    fresh_until: datetime | None
    mode: CacheMode

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key.to_dict(),
            "status": self.status,
            "response_digest": self.response_digest,
            "response_bytes": self.response_bytes,
            "received_at": self.received_at.isoformat(),
            "fresh_until": self.fresh_until.isoformat() if self.fresh_until else None,
            "mode": self.mode,
        }


def entry_is_fresh(entry: EvidenceEntry, now: datetime) -> bool:
    """A body entry answers a fresh request only before ``fresh_until``; expired entries stay
    as evidence but never produce a hit."""
    return entry.mode == "body" and entry.fresh_until is not None and now < entry.fresh_until
