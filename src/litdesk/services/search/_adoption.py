"""Adoption lookups, the pure part: the exact-identifier search for a PDF's DOI or arXiv id
(OpenAlex, the arXiv API), and reading its answer — used by ``Providers.adoption_lookup``
and the library's synchronous ``search_lookup``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from litdesk._errors import ExternalError
from litdesk.core.records import Paper
from litdesk.core.trace import SearchRequest, validate_request

__all__ = ["AdoptionLookupFailed", "adopted_paper", "adoption_request"]


class AdoptionLookupFailed(ExternalError):
    """The provider search for a PDF's identifier failed."""

    default_code = "adoption_lookup_failed"


def adoption_request(namespace: str, value: str) -> SearchRequest | None:
    """The exact-identifier search for a PDF's identifier: OpenAlex for a DOI, the arXiv
    API for an arXiv id (``None`` for other namespaces)."""
    provider = {"doi": "openalex", "arxiv": "arxiv"}.get(namespace)
    if provider is None:
        return None
    return validate_request(value, [provider], limit=1)


class _TraceLike(Protocol):
    @property
    def status(self) -> str: ...

    @property
    def warnings(self) -> tuple[str, ...]: ...

    def sightings_of(self, provider: str) -> Sequence[_SightingLike]: ...


class _SightingLike(Protocol):
    @property
    def paper(self) -> Paper: ...


def adopted_paper(trace: _TraceLike, provider: str) -> Paper | None:
    """The record an adoption lookup found, ``None`` when none; a failed search raises
    :class:`AdoptionLookupFailed`."""
    if getattr(trace, "status", "success") == "failed":
        detail = "; ".join(str(w) for w in getattr(trace, "warnings", ())[:2]) or "no answer"
        raise AdoptionLookupFailed(f"{provider} lookup failed ({detail})", provider=provider)
    sightings = trace.sightings_of(provider)
    return sightings[0].paper if sightings else None
