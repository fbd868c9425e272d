"""The default metadata lookup for adoption: an exact-identifier search through the
one provider transport (OpenAlex for a DOI, the arXiv API for an arXiv id), reserved
once in the store's allowance. The app's faces call ``app.providers.adoption_lookup`` (or
hand the library ``app.providers.thread_lookup()``); this form wraps any search runner."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litdesk._settings import Settings
from litdesk.core.records import Paper
from litdesk.core.trace import SearchRequest
from litdesk.services.search import (
    AdoptionLookupFailed,
    adopted_paper,
    adoption_request,
)

__all__ = ["AdoptionLookupFailed", "search_lookup"]


def search_lookup(
    settings: Settings,
    *,
    runner: Callable[[Settings, SearchRequest], Any],
) -> Callable[[str, str], Paper | None]:
    """A lookup ``(namespace, id) -> Paper | None`` over a search ``runner``.

    ``runner(settings, request)`` returns the search trace; errors it raises
    (``LitdeskError``) reach the caller, which reports them as warnings. The app's own
    lookup is ``app.providers.thread_lookup()`` (the app's one transport)."""

    def lookup(namespace: str, value: str) -> Paper | None:
        request = adoption_request(namespace, value)
        if request is None:
            return None
        trace: Any = runner(settings, request)
        return adopted_paper(trace, request.providers[0])

    return lookup
