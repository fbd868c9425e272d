"""Wire the project's query compilers (``litdesk.core.query``) and provider parsers
(``litdesk.adapters.providers``) into a :class:`ProviderKit`."""

from __future__ import annotations

import importlib
from typing import Any

from litdesk._errors import ConfigError
from litdesk.core.search import CompiledRequest, ProviderName, ProviderPage, SearchFilters
from litdesk.core.trace import ParserIdentity

from ._service import ProviderKit

__all__ = ["kit"]


def _need(module: str, name: str) -> Any:
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(f"{module} is not available ({exc.name})") from None
    value = getattr(mod, name, None)
    if value is None:
        raise ConfigError(f"{module} has no {name}")
    return value


def kit() -> ProviderKit:
    compile_search = _need("litdesk.core.query", "compile_search")
    compile_lookup = _need("litdesk.core.query", "compile_lookup")
    plan_identifier = _need("litdesk.core.query", "plan_identifier")
    parse_response = _need("litdesk.adapters.providers", "parse_response")
    error_message = _need("litdesk.adapters.providers", "error_message")
    parsers: Any = getattr(importlib.import_module("litdesk.adapters.providers"), "PARSERS", {})

    def _compile(
        provider: ProviderName, query: str, filters: SearchFilters, limit: int, cursor: str | None
    ) -> CompiledRequest:
        exact = plan_identifier(query, field=filters.field) if cursor is None else None
        if exact is not None:  # an exact identifier: one lookup (a 404 is an empty success)
            found: CompiledRequest = compile_lookup(provider, exact.namespace, exact.value)
            return found
        result: CompiledRequest = compile_search(
            provider, query, filters, cursor=cursor, limit=limit
        )
        return result

    def _parse(provider: str, request: CompiledRequest, status: int, body: bytes) -> ProviderPage:
        page: ProviderPage = parse_response(provider, request, status, body)
        return page

    def _error_message(provider: str, status: int, body: bytes) -> str:
        return str(error_message(provider, status, body))

    def _identity(provider: str) -> ParserIdentity:
        pid = parsers.get(provider) if isinstance(parsers, dict) else None
        if isinstance(pid, tuple) and len(pid) == 2:
            return ParserIdentity(str(pid[0]), str(pid[1]))
        return ParserIdentity(f"litdesk.providers.{provider}", "unknown")

    compile_fetch = _need("litdesk.core.query", "compile_fetch")

    def _follow_up(request: CompiledRequest, page: ProviderPage) -> CompiledRequest | None:
        if request.provider != "pubmed" or request.operation == "fetch":
            return None
        pmids = [p.pmid for p in page.papers if p.pmid and not p.title]
        if not pmids:
            return None
        fetch: CompiledRequest = compile_fetch("pubmed", pmids)
        return fetch

    return ProviderKit(
        compile=_compile,
        parse=_parse,
        error_message=_error_message,
        parser_identity=_identity,
        follow_up=_follow_up,
    )
