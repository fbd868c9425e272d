"""Search types shared by the query compilers, the transport, the provider adapters
and the search service."""

from ._types import (
    HOSTS,
    PROVIDERS,
    CompiledRequest,
    CompileRefused,
    LaneOutcome,
    LaneStatus,
    ParseFn,
    ProviderName,
    ProviderPage,
    SearchFilters,
)

__all__ = [
    "HOSTS",
    "PROVIDERS",
    "CompileRefused",
    "CompiledRequest",
    "LaneOutcome",
    "LaneStatus",
    "ParseFn",
    "ProviderName",
    "ProviderPage",
    "SearchFilters",
]
