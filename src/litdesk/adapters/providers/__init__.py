"""The provider adapters: one edge declaration per provider (:data:`ADAPTERS`: parser,
pacing, credential, polite parameters, body limits, allowance settings, follow-up request)
and the response parsers, each body → :class:`ProviderPage`.

* :func:`parse_response` — a 200 body (or a 404 for an exact lookup, an empty page)
  parsed by the provider's parser; anything that does not match raises
  :class:`ProviderParseError` (provider, short reason, body digest — never the body).
* :func:`error_message` — a short sanitised message from an error body.
* :data:`ADAPTERS` — provider → :class:`ProviderAdapter` (read by the transport, the
  allowance meter and the search service).
* :data:`PARSERS` — provider → (parser id, version) for the trace.
* ``parse_<provider>(body)`` — the parsers, usable without a request.
* :func:`parse_openalex_links` — one OpenAlex work's citation links.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from litdesk._errors import LitdeskError
from litdesk.core.providers import DECLARED
from litdesk.core.search import CompiledRequest, ProviderPage

from . import _arxiv, _crossref, _demo, _europepmc, _openalex, _pubmed, _semanticscholar
from ._adapter import JSON_ACCEPT, Credential, ProviderAdapter, request_param
from ._arxiv import parse_arxiv
from ._common import ProviderParseError, ProviderReportedError
from ._crossref import crossref_interval, parse_crossref
from ._demo import parse_demo
from ._errors import error_message
from ._europepmc import MAX_FULLTEXT_BYTES, parse_europepmc
from ._openalex import OPENALEX_KEY_MESSAGE, SEMANTIC_GAP_SECONDS, parse_openalex
from ._openalex_links import MAX_LINKS, WorkLinks, parse_openalex_links
from ._pubmed import parse_pubmed
from ._semanticscholar import parse_semanticscholar

__all__ = [
    "ADAPTERS",
    "JSON_ACCEPT",
    "MAX_FULLTEXT_BYTES",
    "MAX_LINKS",
    "OPENALEX_KEY_MESSAGE",
    "PARSERS",
    "SEMANTIC_GAP_SECONDS",
    "Credential",
    "ProviderAdapter",
    "ProviderParseError",
    "ProviderReportedError",
    "WorkLinks",
    "adapter_for",
    "crossref_interval",
    "error_message",
    "parse_arxiv",
    "parse_body",
    "parse_crossref",
    "parse_demo",
    "parse_europepmc",
    "parse_openalex",
    "parse_openalex_links",
    "parse_pubmed",
    "parse_response",
    "parse_semanticscholar",
    "request_param",
]

#: provider → its edge declaration, for every declared provider (checked at import).
ADAPTERS: Final[Mapping[str, ProviderAdapter]] = MappingProxyType(
    {
        a.name: a
        for a in (
            _europepmc.ADAPTER,
            _openalex.ADAPTER,
            _semanticscholar.ADAPTER,
            _crossref.ADAPTER,
            _pubmed.ADAPTER,
            _arxiv.ADAPTER,
            _demo.ADAPTER,
        )
    }
)
if tuple(ADAPTERS) != DECLARED:  # pragma: no cover - a declaration bug
    raise LitdeskError("every declared provider needs exactly one adapter declaration")

#: provider → (parser id, parser version), recorded in the search trace.
PARSERS: Final[Mapping[str, tuple[str, str]]] = MappingProxyType(
    {name: a.parser for name, a in ADAPTERS.items()}
)


def adapter_for(provider: str) -> ProviderAdapter:
    """The edge declaration of ``provider`` (:class:`ProviderParseError` for another name)."""
    adapter = ADAPTERS.get(provider) if isinstance(provider, str) else None
    if adapter is None:
        raise ProviderParseError(str(provider)[:40], "unknown provider")
    return adapter


def parse_body(provider: str, body: bytes) -> ProviderPage:
    """Parse a saved 200 body of ``provider`` without its request."""
    return adapter_for(provider).parse_body(body)


def parse_response(
    provider: str, request: CompiledRequest, status: int, body: bytes
) -> ProviderPage:
    """Parse one provider response.

    ``status`` must be 2xx (normally 200), or 404 for an exact lookup (``request.operation ==
    "lookup"``), which is an empty page with total 0. Other statuses are the
    transport's to map (use :func:`error_message` for their bodies) and raise.
    """
    adapter = adapter_for(provider)
    if request.provider != provider:
        raise ProviderParseError(provider, f"request is for {request.provider}, not {provider}")
    if status == 404 and request.operation == "lookup":
        return ProviderPage(papers=[], total=0, next_cursor=None)
    if not 200 <= status < 300:
        raise ProviderParseError(provider, f"HTTP {status} is not a success body", body)
    return adapter.parse(request, body)
