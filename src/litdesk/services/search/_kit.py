"""The per-provider pieces the search service composes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from litdesk.adapters.http import ErrorMessageFn
from litdesk.core.search import CompiledRequest, ParseFn, ProviderName, ProviderPage, SearchFilters
from litdesk.core.trace import ParserIdentity

__all__ = ["CompileFn", "ProviderKit"]


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
