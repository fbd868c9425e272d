"""The provider-facing use cases over the app's one transport: searches (a trace, a fused
run), full text, citations and adoption lookups, each reserved once in the owner's daily
allowance. Built only by :func:`litdesk.services.app.open_app` (``app.providers``); safe to
share between the tasks and threads of one process (allowance reservations run off the
event loop; nothing here changes ``os.environ``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Final, TypeVar

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import ConfigError, RefusedError
from litdesk._settings import Settings
from litdesk.adapters.http import EvidenceCache, ProviderTransport, StoreMeter
from litdesk.adapters.store import Store, allowance_owner
from litdesk.core.providers import check_sources
from litdesk.core.records import Paper
from litdesk.core.runs import RunDefinition, SearchRun
from litdesk.core.trace import SearchRequest, SearchTrace
from litdesk.services.citations import OPENALEX_KEY_NEEDED, CitationResult, CitationService, Mode
from litdesk.services.fulltext import FullTextResult, FullTextService
from litdesk.services.search import (
    AdoptionLookupFailed,
    FusedSearch,
    LaneObserver,
    ProviderKit,
    SearchService,
    adopted_paper,
    adoption_request,
    save_run,
)
from litdesk.services.workspace import Workspace

__all__ = [
    "LOCAL_OWNER",
    "AdoptionLookupFailed",
    "Providers",
    "adopted_paper",
    "adoption_request",
]

T = TypeVar("T")
LOCAL_OWNER: Final = "local"
#: Longest a worker thread waits for an adoption lookup on the app's loop (seconds).
_THREAD_LOOKUP_SECONDS: Final = 120.0


class Providers:
    """The provider use cases over the app's store, transport and evidence cache.

    Methods that reach a provider are ``async``; each takes ``owner`` (whose allowance the
    calls are reserved in). :meth:`bind` ties it to the app's event loop."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        transport: ProviderTransport,
        *,
        evidence: EvidenceCache,
        owner: str = LOCAL_OWNER,
        kit: ProviderKit | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.store = store
        self.transport = transport
        self.owner = owner
        self._kit = kit
        self._views: dict[str, ProviderTransport] = {owner: transport}
        self._fused: dict[tuple[str, bool], FusedSearch] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._evidence = evidence
        self._fulltext_dir = settings.resolved_data_dir() / "fulltext"

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop the app runs on (:meth:`from_thread`, :meth:`thread_lookup`)."""
        self._loop = loop

    # -- pieces -------------------------------------------------------------------------

    def transport_for(self, owner: str | None = None) -> ProviderTransport:
        """The shared transport, reserving in ``owner``'s allowance."""
        who = owner or self.owner
        view = self._views.get(who)
        if view is None:
            meter = StoreMeter(
                self.store, self.settings, owner=allowance_owner(who), clock=self.clock
            )
            view = self.transport.for_meter(meter)
            self._views[who] = view
        return view

    def provider_calls(self) -> int:
        """Provider requests answered so far by the app's transport (sent or replayed)."""
        return sum(self.transport.calls.values())

    def search_service(self, *, owner: str | None = None, use_cache: bool = True) -> SearchService:
        cache = self._evidence if use_cache else None
        return SearchService(self.settings, self.transport_for(owner), kit=self._kit, cache=cache)

    def fulltext_service(self, *, owner: str | None = None) -> FullTextService:
        return FullTextService(self.transport_for(owner), cache_dir=self._fulltext_dir)

    def citation_service(self, *, owner: str | None = None) -> CitationService:
        return CitationService(self.transport_for(owner))

    def workspace(self) -> Workspace:
        return Workspace(self.store)

    def _fused_search(self, owner: str, use_cache: bool) -> FusedSearch:
        key = (owner, use_cache)
        fused = self._fused.get(key)
        if fused is None:  # one per owner: concurrent identical searches coalesce
            service = SearchService(self.settings, self.transport_for(owner), kit=self._kit)
            fused = FusedSearch(service, self.store if use_cache else None, owner=owner)
            self._fused[key] = fused
        return fused

    # -- use cases ----------------------------------------------------------------------

    async def search(
        self, request: SearchRequest, *, owner: str | None = None, use_cache: bool = True
    ) -> SearchTrace:
        """Every sighting of ``request``'s lanes (not deduplicated), as a trace."""
        return await self.search_service(owner=owner, use_cache=use_cache).search(request)

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
    ) -> SearchRun:
        """The fused run for ``definition`` (store cache and coalescing unless
        ``use_cache`` is false); saved (and attached to ``study``) when asked and a lane
        succeeded. ``on_lane`` hears each lane finish (live progress); with ``stop_alone``
        cancelling this call stops the lanes unless another caller waits for them."""
        # the demo sample only in the demo workspace, and never with a real database
        check_sources(definition.providers, demo=self.settings.demo)
        who = owner or self.owner
        fused = self._fused_search(who, use_cache)
        if use_cache:
            run = await fused.search(definition, cursor, on_lane=on_lane, stop_alone=stop_alone)
        else:
            run = await fused.execute(definition, cursor, on_lane=on_lane)
        if (save or study is not None) and any(lane.status == "ok" for lane in run.lanes):
            await asyncio.to_thread(save_run, self.store, run, owner=who, study=study)
        return run

    async def fulltext(
        self, paper_id: str, *, refresh: bool = False, owner: str | None = None
    ) -> FullTextResult:
        """The Europe PMC full text of ``paper_id`` (cached for 30 days)."""
        return await self.fulltext_service(owner=owner).get(paper_id, refresh=refresh)

    async def citations(
        self, mode: Mode, seeds: Sequence[str], *, page: int = 1, owner: str | None = None
    ) -> CitationResult:
        """References, citing, related or shared references of the seeds (OpenAlex)."""
        if self.settings.openalex_api_key is None and self.transport.replay is None:
            raise ConfigError(OPENALEX_KEY_NEEDED, code="openalex_key")
        return await self.citation_service(owner=owner).discover(mode, list(seeds), page=page)

    async def adoption_lookup(
        self, namespace: str, value: str, *, owner: str | None = None
    ) -> Paper | None:
        """The record for a PDF's identifier: an exact lookup (OpenAlex for a DOI, arXiv
        for an arXiv id), or ``None`` when the provider has none."""
        request = adoption_request(namespace, value)
        if request is None:
            return None
        trace = await self.search(request, owner=owner)
        return adopted_paper(trace, request.providers[0])

    def from_thread(self, coro: Coroutine[object, object, T]) -> Future[T]:
        """Run ``coro`` on the app's event loop from a worker thread (a job handler);
        the caller waits on the future (and may cancel it, which cancels the task)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            coro.close()
            raise RefusedError("the app is not open", code="app_closed")
        return asyncio.run_coroutine_threadsafe(coro, loop)

    def thread_lookup(self, *, owner: str | None = None) -> Callable[[str, str], Paper | None]:
        """:meth:`adoption_lookup` for synchronous code running in a worker thread (PDF
        indexing): each call runs on the app's event loop and waits for it."""
        loop = self._loop
        if loop is None:
            raise RefusedError("the app is not open", code="app_closed")

        def lookup(namespace: str, value: str) -> Paper | None:
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is loop:
                raise RefusedError(
                    "a thread lookup was called on the app's own loop (use await)",
                    code="app_thread",
                )
            future = asyncio.run_coroutine_threadsafe(
                self.adoption_lookup(namespace, value, owner=owner), loop
            )
            try:
                return future.result(timeout=_THREAD_LOOKUP_SECONDS)
            except FutureTimeout:
                future.cancel()
                raise AdoptionLookupFailed(
                    f"the {namespace} lookup took over {_THREAD_LOOKUP_SECONDS:g} s"
                ) from None

        return lookup
