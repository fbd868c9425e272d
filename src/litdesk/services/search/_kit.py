"""The per-provider pieces the search service composes, and :func:`default_kit` — the
project's query compilers (``litdesk.core.query``) and the providers' adapter
declarations (``litdesk.adapters.providers``: parsers, parser identities, follow-up
requests)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from litdesk.adapters.http import ErrorMessageFn
from litdesk.adapters.providers import ADAPTERS, error_message, parse_response
from litdesk.core.query import compile_lane
from litdesk.core.search import CompiledRequest, ParseFn, ProviderName, ProviderPage, SearchFilters
from litdesk.core.trace import ParserIdentity

__all__ = ["CompileFn", "ProviderKit", "default_kit"]


class CompileFn(Protocol):
    def __call__(
        self,
        provider: ProviderName,
        query: str,
        filters: SearchFilters,
        limit: int,
        cursor: str | None,
    ) -> CompiledRequest: ...


@dataclass(frozen=True, slots=True)
class ProviderKit:
    """The per-provider pieces the service composes: compiler, parser, error reader and
    the parser's identity (for the trace and the evidence cache key)."""

    compile: CompileFn
    parse: ParseFn
    error_message: ErrorMessageFn | None
    parser_identity: Callable[[str], ParserIdentity]
    #: A second request completing a page (PubMed: efetch for the PMIDs esearch found).
    follow_up: Callable[[CompiledRequest, ProviderPage], CompiledRequest | None] | None = None


def _compile(
    provider: ProviderName, query: str, filters: SearchFilters, limit: int, cursor: str | None
) -> CompiledRequest:
    return compile_lane(provider, query, filters, cursor=cursor, limit=limit)


def _identity(provider: str) -> ParserIdentity:
    adapter = ADAPTERS.get(provider)
    if adapter is None:
        return ParserIdentity(f"litdesk.providers.{provider}", "unknown")
    return ParserIdentity(*adapter.parser)


def _follow_up(request: CompiledRequest, page: ProviderPage) -> CompiledRequest | None:
    adapter = ADAPTERS.get(request.provider)
    if adapter is None or adapter.follow_up is None:
        return None
    return adapter.follow_up(request, page)


def default_kit() -> ProviderKit:
    """The project's query compilers and provider response parsers."""
    return ProviderKit(
        compile=_compile,
        parse=parse_response,
        error_message=error_message,
        parser_identity=_identity,
        follow_up=_follow_up,
    )
