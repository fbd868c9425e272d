"""The default metadata lookup for adoption: an exact-identifier search through the
search service (OpenAlex for a DOI, the arXiv API for an arXiv id)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litdesk._errors import ExternalError
from litdesk._settings import Settings
from litdesk.core.records import Paper

__all__ = ["AdoptionLookupFailed", "search_lookup"]


class AdoptionLookupFailed(ExternalError):
    """The provider search for a PDF's identifier failed."""

    default_code = "adoption_lookup_failed"


def search_lookup(
    settings: Settings, *, runner: Callable[..., Any] | None = None
) -> Callable[[str, str], Paper | None]:
    """A lookup ``(namespace, id) -> Paper | None`` over the provider adapters.

    ``runner`` defaults to :func:`litdesk.services.search.run_search`; errors it
    raises (``LitdeskError``) reach the caller, which reports them as warnings.
    """

    def lookup(namespace: str, value: str) -> Paper | None:
        from litdesk.core.trace import validate_request

        run = runner
        if run is None:
            from litdesk.services.search import run_search

            run = run_search
        provider = {"doi": "openalex", "arxiv": "arxiv"}.get(namespace)
        if provider is None:
            return None
        trace = run(settings, validate_request(value, [provider], limit=1))
        if getattr(trace, "status", "success") == "failed":
            detail = "; ".join(str(w) for w in getattr(trace, "warnings", ())[:2]) or "no answer"
            raise AdoptionLookupFailed(f"{provider} lookup failed ({detail})", provider=provider)
        sightings = trace.sightings_of(provider)
        return sightings[0].paper if sightings else None

    return lookup
