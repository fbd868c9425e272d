"""What the search area needs of the app's providers: a protocol, so that
:class:`~litdesk.services.providers.Providers` (which builds on this package) and the
area's helpers (the bench) name it without importing the area."""

from __future__ import annotations

from typing import Protocol

from litdesk._settings import Settings
from litdesk.adapters.store import Store
from litdesk.core.runs import RunDefinition, SearchRun
from litdesk.core.trace import SearchRequest as ProviderRequest
from litdesk.core.trace import SearchTrace

from ._fused import LaneObserver

__all__ = ["FusedSearcher"]


class FusedSearcher(Protocol):
    """What the area needs of the app's providers (:class:`~litdesk.services.providers.
    Providers`, which builds on this package: a protocol keeps the packages acyclic)."""

    @property
    def store(self) -> Store: ...

    @property
    def settings(self) -> Settings: ...

    def provider_calls(self) -> int: ...

    async def search(
        self, request: ProviderRequest, *, owner: str | None = None, use_cache: bool = True
    ) -> SearchTrace: ...

    async def fused_search(
        self,
        definition: RunDefinition,
        *,
        cursor: str | None = None,
        owner: str | None = None,
        use_cache: bool = True,
        save: bool = False,
        study: str | None = None,
        on_lane: LaneObserver | None = None,
        stop_alone: bool = False,
    ) -> SearchRun: ...
