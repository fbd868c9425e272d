"""Search types shared by the query compilers, the transport, the provider adapters
and the search service."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
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

__getattr__ = lazy_exports(__name__, __file__, globals())
