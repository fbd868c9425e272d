"""The app-lifetime container of the service layer: one settings object, one store, one
provider transport (one HTTP client, one pacer, one meter per owner) for as long as the
face runs, and the services built on them.

A face opens it once — the web workspace in its FastAPI lifespan, the CLI around each
command (``asyncio.run``) — and calls the async methods::

    async with open_runtime(get_settings()) as rt:
        run = await rt.fused_search(make_definition("malaria vaccine"))

Every provider request (search pages, exact lookups, full text, citations, adoption
lookups) goes through the transport built by :func:`provider_transport` and is reserved
exactly once in the store's daily allowance, for the owner given to the call (default
``local``). The runtime is safe to share between the tasks and threads of one process:
the store's engine pools its connections (SQLite file connections are not bound to a
thread), allowance reservations run off the event loop, and nothing here changes
``os.environ``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final, TypeVar

import httpx

from litdesk._errors import ConfigError, InputError, RefusedError
from litdesk._settings import Settings
from litdesk.adapters.http import (
    Cassette,
    CassetteRecorder,
    EvidenceCache,
    ProviderTransport,
    StoreMeter,
)
from litdesk.adapters.llm import close_idle_clients
from litdesk.adapters.store import Store, allowance_owner, open_store
from litdesk.core.records import Paper
from litdesk.core.runs import RunDefinition, SearchRun
from litdesk.core.trace import SearchRequest, SearchTrace
from litdesk.services.citations import OPENALEX_KEY_NEEDED, CitationResult, CitationService, Mode
from litdesk.services.fulltext import FullTextResult, FullTextService
from litdesk.services.search import (
    FusedSearch,
    LaneObserver,
    ProviderKit,
    SearchService,
    save_run,
)
from litdesk.services.workspace import Workspace

from ._adoption import AdoptionLookupFailed, adopted_paper, adoption_request

__all__ = [
    "LOCAL_OWNER",
    "AdoptionLookupFailed",
    "Runtime",
    "adopted_paper",
    "adoption_request",
    "open_runtime",
    "provider_transport",
]

T = TypeVar("T")
LOCAL_OWNER: Final = "local"
#: Longest a worker thread waits for an adoption lookup on the runtime's loop (seconds).
_THREAD_LOOKUP_SECONDS: Final = 120.0


def provider_transport(
    settings: Settings,
    store: Store,
    *,
    owner: str = LOCAL_OWNER,
    record: Path | None = None,
    replay: Path | None = None,
    http_transport: httpx.AsyncBaseTransport | None = None,
    base_urls: Mapping[str, str] | None = None,
) -> ProviderTransport:
    """The one provider transport: every network call reserved once in ``store``'s daily
    allowance for ``owner``; ``record`` writes a cassette, ``replay`` answers from one
    (nothing is sent, nothing is reserved). ``http_transport`` / ``base_urls`` are test
    hooks (an ``httpx`` transport, loopback origins)."""
    if record is not None and replay is not None:
        raise InputError("choose --record or --replay, not both", code="record_replay")
    return ProviderTransport(
        settings,
        transport=http_transport,
        base_urls=base_urls,
        recorder=CassetteRecorder(record) if record is not None else None,
        replay=Cassette(replay) if replay is not None else None,
        meter=StoreMeter(store, settings, owner=allowance_owner(owner)),
    )


class Runtime:
    """Settings, store and transport for the app's lifetime, and the services on them.

    Build it with :func:`open_runtime`. Methods that reach a provider are ``async``; each
    takes ``owner`` (whose allowance the calls are reserved in)."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        transport: ProviderTransport,
        *,
        owner: str = LOCAL_OWNER,
        kit: ProviderKit | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.transport = transport
        self.owner = owner
        self._kit = kit
        self._views: dict[str, ProviderTransport] = {owner: transport}
        self._fused: dict[tuple[str, bool], FusedSearch] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        data_dir = settings.resolved_data_dir()
        self._evidence = EvidenceCache(data_dir / "cache" / "provider-evidence")
        self._fulltext_dir = data_dir / "fulltext"

    # -- pieces -------------------------------------------------------------------------

    def transport_for(self, owner: str | None = None) -> ProviderTransport:
        """The shared transport, reserving in ``owner``'s allowance."""
        who = owner or self.owner
        view = self._views.get(who)
        if view is None:
            meter = StoreMeter(self.store, self.settings, owner=allowance_owner(who))
            view = self.transport.for_meter(meter)
            self._views[who] = view
        return view

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
        """Run ``coro`` on the runtime's event loop from a worker thread (a job handler);
        the caller waits on the future (and may cancel it, which cancels the task)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            coro.close()
            raise RefusedError("the runtime is not open", code="runtime_closed")
        return asyncio.run_coroutine_threadsafe(coro, loop)

    def thread_lookup(self, *, owner: str | None = None) -> Callable[[str, str], Paper | None]:
        """:meth:`adoption_lookup` for synchronous code running in a worker thread (PDF
        indexing): each call runs on the runtime's event loop and waits for it."""
        loop = self._loop
        if loop is None:
            raise RefusedError("the runtime is not open", code="runtime_closed")

        def lookup(namespace: str, value: str) -> Paper | None:
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is loop:
                raise RefusedError(
                    "a thread lookup was called on the runtime's own loop (use await)",
                    code="runtime_thread",
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


@asynccontextmanager
async def open_runtime(
    settings: Settings,
    *,
    owner: str = LOCAL_OWNER,
    record: Path | None = None,
    replay: Path | None = None,
    kit: ProviderKit | None = None,
    http_transport: httpx.AsyncBaseTransport | None = None,
    base_urls: Mapping[str, str] | None = None,
) -> AsyncIterator[Runtime]:
    """Open the store (migrated) and the transport; close both once on exit.

    ``kit``, ``http_transport`` and ``base_urls`` are test hooks."""
    store = await asyncio.to_thread(open_store, settings)
    try:
        transport = provider_transport(
            settings,
            store,
            owner=owner,
            record=record,
            replay=replay,
            http_transport=http_transport,
            base_urls=base_urls,
        )
        try:
            runtime = Runtime(settings, store, transport, owner=owner, kit=kit)
            runtime._loop = asyncio.get_running_loop()
            yield runtime
        finally:
            await transport.aclose()
    finally:
        store.dispose()
        close_idle_clients()  # the model clients no backend holds (shared per process)
