"""The demo workspace's HTTP transport: requests to the demo sample's host are answered
in-process from the bundled sample (the query evaluated by :func:`litdesk.core.demo.
search_sample`); every other request goes to the network as usual. The provider transport
above it checks, meters and traces demo requests like any other, so a demo search has a
real trace (request, status, digest, parser) — only the answer is made here."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Final

import httpx

from litdesk._errors import LitdeskError
from litdesk.core.demo import SampleIndex, search_sample
from litdesk.core.providers import HOSTS
from litdesk.core.query import parse_query

from ._data import sample_index

__all__ = ["DemoTransport", "answer"]

_HOSTS: Final = HOSTS["demo"]
_MAX_LIMIT: Final = 1000


def _int(value: str | None, default: int | None, lo: int, hi: int) -> int | None:
    if value is None or value == "":
        return default
    if not value.isascii() or not value.isdigit() or len(value) > 9:
        raise ValueError(f"not a whole number: {value[:20]!r}")
    return min(max(int(value), lo), hi)


def _json(status: int, payload: object) -> httpx.Response:
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    return httpx.Response(
        status, content=body, headers={"content-type": "application/json; charset=utf-8"}
    )


def answer(request: httpx.Request, index: SampleIndex) -> httpx.Response:
    """The demo host's answer to ``request`` (``/search`` or ``/record``)."""
    params = request.url.params
    path = request.url.path
    if request.method != "GET" or path not in ("/search", "/record"):
        return _json(404, {"error": f"no such demo resource: {request.method} {path[:60]}"})
    if path == "/record":
        for namespace in ("doi", "pmid", "openalex"):
            value = params.get(namespace)
            if value:
                found = index.lookup(namespace, value)
                if found is None:
                    return _json(404, {"error": "not in the demo sample"})
                return _json(200, {"total": 1, "start": 0, "results": [found.to_dict()]})
        return _json(400, {"error": "name a doi, pmid or openalex id"})
    field = params.get("field", "all")
    sort = params.get("sort", "relevance")
    if field not in ("all", "title", "abstract", "author") or sort not in ("relevance", "newest"):
        return _json(400, {"error": "unknown field or sort"})
    try:
        query = parse_query(params.get("q", ""), field=field)
        start = _int(params.get("start"), 0, 0, 10**8) or 0
        limit = _int(params.get("limit"), 20, 1, _MAX_LIMIT) or 20
        year_from = _int(params.get("year_from"), None, 0, 9999)
        year_to = _int(params.get("year_to"), None, 0, 9999)
    except (LitdeskError, ValueError) as exc:
        message = exc.message if isinstance(exc, LitdeskError) else str(exc)
        return _json(400, {"error": message[:300]})
    hits = search_sample(
        index,
        query,
        sort="newest" if sort == "newest" else "relevance",
        year_from=year_from,
        year_to=year_to,
        start=start,
        limit=limit,
    )
    return _json(
        200,
        {
            "total": hits.total,
            "start": hits.start,
            "results": [r.to_dict() for r in hits.records],
        },
    )


class DemoTransport(httpx.AsyncBaseTransport):
    """Answers the demo sample's host from ``index`` (the bundled sample by default);
    hands every other request to ``inner`` (a real HTTP transport unless given)."""

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport | None = None,
        *,
        index: Callable[[], SampleIndex] = sample_index,
    ) -> None:
        self._inner = inner
        self._index = index

    def _network(self) -> httpx.AsyncBaseTransport:
        if self._inner is None:
            self._inner = httpx.AsyncHTTPTransport(
                verify=httpx.create_ssl_context(trust_env=False), trust_env=False
            )
        return self._inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.host in _HOSTS:
            await request.aread()
            # the first answer builds the sample's index (CPU): off the event loop
            return await asyncio.to_thread(lambda: answer(request, self._index()))
        return await self._network().handle_async_request(request)

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()
