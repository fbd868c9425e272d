"""The default metadata lookup for adoption: an exact-identifier search through the
one provider transport (OpenAlex for a DOI, the arXiv API for an arXiv id), reserved
once in the store's allowance. An async face calls ``Runtime.adoption_lookup`` (or hands
the library ``Runtime.thread_lookup()``); this synchronous form is for code without a
runtime."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from litdesk._settings import Settings
from litdesk.core.records import Paper
from litdesk.core.trace import SearchRequest, SearchTrace
from litdesk.services._adoption import AdoptionLookupFailed, adopted_paper, adoption_request

__all__ = ["AdoptionLookupFailed", "search_lookup"]


def _search_once(settings: Settings, request: SearchRequest, owner: str) -> SearchTrace:
    from litdesk.services._runtime import open_runtime  # the transport: only when used

    async def main() -> SearchTrace:
        async with open_runtime(settings, owner=owner) as runtime:
            return await runtime.search(request)

    return asyncio.run(main())


def search_lookup(
    settings: Settings,
    *,
    owner: str = "local",
    runner: Callable[[Settings, SearchRequest], Any] | None = None,
) -> Callable[[str, str], Paper | None]:
    """A lookup ``(namespace, id) -> Paper | None`` over the provider adapters.

    ``runner(settings, request)`` returns the search trace (default: one search through
    the runtime); errors it raises (``LitdeskError``) reach the caller, which reports them
    as warnings."""

    def lookup(namespace: str, value: str) -> Paper | None:
        request = adoption_request(namespace, value)
        if request is None:
            return None
        if runner is None:
            trace: Any = _search_once(settings, request, owner)
        else:
            trace = runner(settings, request)
        return adopted_paper(trace, request.providers[0])

    return lookup
