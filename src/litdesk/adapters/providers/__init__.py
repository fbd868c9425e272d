"""Provider response parsers: one per provider, each body → :class:`ProviderPage`.

* :func:`parse_response` — a 200 body (or a 404 for an exact lookup, an empty page)
  parsed by the provider's parser; anything that does not match raises
  :class:`ProviderParseError` (provider, short reason, body digest — never the body).
* :func:`error_message` — a short sanitised message from an error body.
* :data:`PARSERS` — provider → (parser id, version) for the trace.
* ``parse_<provider>(body)`` — the parsers, usable without a request.
* :func:`parse_openalex_links` — one OpenAlex work's citation links.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final
from urllib.parse import parse_qsl

from litdesk.core.search import PROVIDERS, CompiledRequest, ProviderPage

from . import _arxiv, _crossref, _europepmc, _openalex, _pubmed, _semanticscholar
from ._arxiv import parse_arxiv
from ._common import ProviderParseError, ProviderReportedError
from ._crossref import parse_crossref
from ._errors import error_message
from ._europepmc import parse_europepmc
from ._openalex import parse_openalex
from ._openalex_links import MAX_LINKS, WorkLinks, parse_openalex_links
from ._pubmed import parse_pubmed
from ._semanticscholar import parse_semanticscholar

__all__ = [
    "MAX_LINKS",
    "PARSERS",
    "ProviderParseError",
    "ProviderReportedError",
    "WorkLinks",
    "error_message",
    "parse_arxiv",
    "parse_body",
    "parse_crossref",
    "parse_europepmc",
    "parse_openalex",
    "parse_openalex_links",
    "parse_pubmed",
    "parse_response",
    "parse_semanticscholar",
]

#: provider → (parser id, parser version), recorded in the search trace.
PARSERS: Final[dict[str, tuple[str, str]]] = {
    "europepmc": _europepmc.PARSER,
    "openalex": _openalex.PARSER,
    "semanticscholar": _semanticscholar.PARSER,
    "crossref": _crossref.PARSER,
    "pubmed": _pubmed.PARSER,
    "arxiv": _arxiv.PARSER,
}

_PARSE: Final[dict[str, Callable[[bytes], ProviderPage]]] = {
    "europepmc": parse_europepmc,
    "openalex": parse_openalex,
    "semanticscholar": parse_semanticscholar,
    "crossref": parse_crossref,
    "pubmed": parse_pubmed,
    "arxiv": parse_arxiv,
}


def parse_body(provider: str, body: bytes) -> ProviderPage:
    """Parse a saved 200 body of ``provider`` without its request."""
    parse = _PARSE.get(provider)
    if parse is None:
        raise ProviderParseError(str(provider)[:40], "unknown provider")
    return parse(body)


def parse_response(
    provider: str, request: CompiledRequest, status: int, body: bytes
) -> ProviderPage:
    """Parse one provider response.

    ``status`` must be 2xx (normally 200), or 404 for an exact lookup (``request.operation ==
    "lookup"``), which is an empty page with total 0. Other statuses are the
    transport's to map (use :func:`error_message` for their bodies) and raise.
    """
    if provider not in PROVIDERS:
        raise ProviderParseError(str(provider)[:40], "unknown provider")
    if request.provider != provider:
        raise ProviderParseError(provider, f"request is for {request.provider}, not {provider}")
    if status == 404 and request.operation == "lookup":
        return ProviderPage(papers=[], total=0, next_cursor=None)
    if not 200 <= status < 300:
        raise ProviderParseError(provider, f"HTTP {status} is not a success body", body)
    if provider == "europepmc":
        return parse_europepmc(body, cursor=_param(request, "cursorMark"))
    page = parse_body(provider, body)
    if provider == "openalex" and _param(request, "search.semantic") is not None:
        # Semantic search ranks one bounded shortlist: no total, no further pages.
        page.total = None
        page.next_cursor = None
        page.warnings.append(
            f"OpenAlex semantic search returns a bounded shortlist of {len(page.papers)} works"
        )
    if (
        provider == "crossref"
        and page.next_cursor is not None
        and page.next_cursor == _param(request, "cursor")
    ):
        page.next_cursor = None
    return page


def _param(request: CompiledRequest, name: str) -> str | None:
    for key, value in request.params:
        if key == name:
            return value
    if request.body and request.method == "POST" and "=" in request.body:
        for key, value in parse_qsl(request.body):
            if key == name:
                return value
    return None
