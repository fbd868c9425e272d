"""The project's query compilers (``litdesk.core.query``) and provider parsers
(``litdesk.adapters.providers``) as a :class:`ProviderKit` (plain imports)."""

from __future__ import annotations

from litdesk.adapters.providers import PARSERS, error_message, parse_response
from litdesk.core.query import compile_fetch, compile_lane
from litdesk.core.search import CompiledRequest, ProviderName, ProviderPage, SearchFilters
from litdesk.core.trace import ParserIdentity

from ._kit import ProviderKit

__all__ = ["default_kit", "kit"]


def _compile(
    provider: ProviderName, query: str, filters: SearchFilters, limit: int, cursor: str | None
) -> CompiledRequest:
    return compile_lane(provider, query, filters, cursor=cursor, limit=limit)


def _identity(provider: str) -> ParserIdentity:
    pid = PARSERS.get(provider)
    if pid is None:
        return ParserIdentity(f"litdesk.providers.{provider}", "unknown")
    return ParserIdentity(pid[0], pid[1])


def _follow_up(request: CompiledRequest, page: ProviderPage) -> CompiledRequest | None:
    if request.provider != "pubmed" or request.operation == "fetch":
        return None
    pmids = [p.pmid for p in page.papers if p.pmid and not p.title]
    if not pmids:
        return None
    return compile_fetch("pubmed", pmids)


def kit() -> ProviderKit:
    return ProviderKit(
        compile=_compile,
        parse=parse_response,
        error_message=error_message,
        parser_identity=_identity,
        follow_up=_follow_up,
    )


def default_kit() -> ProviderKit:
    """The project's query compilers and provider response parsers."""
    return kit()
