"""The application object: the one place that builds the service layer's parts, and the
one object both faces, the benches and the tests open.

:func:`open_app` opens the store (migrated once) and the provider transport (one HTTP
client, one pacer, a meter per owner); the app builds every other part on first use, once,
importing its module then: the evidence cache, the model parts (embedder, chat backend:
made on first use), the PDF library over them, the job queue and its runners (started only
by :meth:`App.start_workers`, which ``serve`` calls), the live-search registry and the
areas — one per capability (``app.search``, ``app.studies``, ``app.reader``,
``app.dedup``, ``app.library``, ``app.reports``, ``app.assist``, ``app.zotero``,
``app.screening``; accounts and jobs) — so that a command imports and builds only what it
uses. It closes what was built once, in reverse order::

    async with open_app(get_settings()) as app:
        view = await app.search.search(SearchRequest("malaria vaccine"), owner=app.owner)

:func:`open_app_sync` opens the same class with the same construction for code without
an event loop (the CLI's store-only commands); its provider calls are refused.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._settings import Settings
from litdesk.adapters.store import LOCAL_OWNER, Store, open_store

from ._lazy import Parts, part
from ._parts import provider_transport

if TYPE_CHECKING:  # each part's module is imported when the part is built (see App)
    import httpx

    from litdesk.adapters.embeddings import Embedder
    from litdesk.adapters.http import EvidenceCache, ProviderTransport
    from litdesk.adapters.llm import ChatBackend
    from litdesk.adapters.objects import ObjectStore
    from litdesk.core.library import RetrievalParams
    from litdesk.services.accounts import Accounts, SingleSignOn
    from litdesk.services.assist import AssistArea
    from litdesk.services.dedup import DedupArea
    from litdesk.services.jobs import JobRunner, Jobs, JobView
    from litdesk.services.library import Library, LibraryArea, Lookup
    from litdesk.services.models import Models
    from litdesk.services.providers import Providers
    from litdesk.services.reader import ReaderArea
    from litdesk.services.screening import ScreeningArea
    from litdesk.services.search import LiveRegistry, ProviderKit, SearchArea
    from litdesk.services.studies import FulltextParts, StudiesArea
    from litdesk.services.subjects import SubjectsArea
    from litdesk.services.synthesis import ReportsArea
    from litdesk.services.workspace import Workspace
    from litdesk.services.zotero import ZoteroArea

__all__ = ["App", "open_app", "open_app_sync"]


class App(Parts):
    """The parts of one open app and the services on them (see the module docstring).

    Build it with :func:`open_app` (or :func:`open_app_sync`); every attribute is shared
    by the tasks and threads of the process for the app's lifetime. The store and the
    transport are opened by :func:`open_app` (:func:`open_app_sync`: the transport on
    first use); every other part (the model parts, the PDF
    library, the job queue and runners, the areas) is built here on first access, once,
    with its module imported then (a command imports only the areas it uses), and closed
    only if it was built."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        transport: Callable[[], ProviderTransport],
        *,
        owner: str = LOCAL_OWNER,
        clock: Clock = SYSTEM_CLOCK,
        kit: ProviderKit | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.owner = owner
        #: the one clock every part that decides by time reads (tests: a ManualClock)
        self.clock = clock
        self.store = store
        self._make_transport = transport
        self._kit = kit
        #: the event loop :func:`open_app` runs on (``app.providers`` is bound to it)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sso: SingleSignOn | None = None
        self._started = False
        from litdesk.services.dedup import keep_working_sets

        keep_working_sets(store)  # writes keep the Studies' records in step; reads never write

    # -- parts: built on first access (each one's modules imported then) ----------------

    @part
    def transport(self) -> ProviderTransport:
        """The one provider transport (one HTTP client, one pacer, a meter per owner):
        :func:`open_app` opens it at once, :func:`open_app_sync` on first use."""
        return self._make_transport()

    @part
    def evidence(self) -> EvidenceCache:
        """The cache of provider evidence (full texts, citations) in the data folder."""
        from litdesk.adapters.http import EvidenceCache

        return EvidenceCache(self.settings.resolved_data_dir() / "cache" / "provider-evidence")

    @part
    def providers(self) -> Providers:
        """The provider use cases over the one transport (bound to the app's loop)."""
        from litdesk.services.providers import Providers

        made = Providers(
            self.settings,
            self.store,
            self.transport,
            evidence=self.evidence,
            owner=self.owner,
            kit=self._kit,
            clock=self.clock,
        )
        if self._loop is not None:
            made.bind(self._loop)
        return made

    @part
    def models(self) -> Models:
        """The model parts (embedder, chat backend: made on first use)."""
        from litdesk.services.models import Models

        return Models(self.settings)

    @part
    def objects(self) -> ObjectStore:
        """The object store of the files users need (the data dir, or one shared by hosts)."""
        from litdesk.adapters.objects import open_objects

        return open_objects(self.settings)

    @part
    def pdfs(self) -> Library:
        """The PDF library over the app's store and model parts (viewer, chat, reports)."""
        from litdesk.services.library import Library

        s = self.settings
        return Library(s, store=self.store, models=self.models, clock=self.clock, objects=self.objects)  # fmt: skip

    @part
    def jobs(self) -> Jobs:
        """The job queue."""
        from litdesk.services.jobs import Jobs

        s = self.settings
        return Jobs(self.store, clock=self.clock, max_active=s.jobs_max_active_per_account)

    @part
    def live(self) -> LiveRegistry:
        """The registry of live searches."""
        from litdesk.services.search import LiveRegistry

        s = self.settings
        return LiveRegistry(self.store, stale_seconds=s.live_stale_seconds, clock=self.clock)

    @part
    def accounts(self) -> Accounts:
        """Accounts, sessions and rights (team mode)."""
        from litdesk.services.accounts import Accounts

        return Accounts(self.store, self.settings, clock=self.clock)

    # -- areas: one per capability, each use case one method taking ``owner=``
    # (each area's build below; keep one line per area)

    @part
    def library(self) -> LibraryArea:
        from litdesk.services.library import LibraryArea

        return LibraryArea(self.settings, store=self.store, jobs=self.jobs, providers=self.providers, pdfs=self.pdfs, make_library=self.make_library)  # fmt: skip

    @part
    def subjects(self) -> SubjectsArea:
        from litdesk.services.subjects import RemoteSuggestions, SubjectsArea

        return SubjectsArea(store=self.store, remote=RemoteSuggestions(self.providers.transport_for, clock=self.clock))  # fmt: skip

    @part
    def reader(self) -> ReaderArea:
        from litdesk.services.reader import ReaderArea

        return ReaderArea(self.providers, clock=self.clock, subjects=self.subjects.resolve, pdf_files=self._pdf_path)  # fmt: skip

    def _pdf_path(self, sha: str) -> Path:
        """The library's file of a PDF (the library area is built on first use only)."""
        return self.library.pdf_path(sha)

    @part
    def reports(self) -> ReportsArea:
        from litdesk.services.synthesis import ChatServiceLink, ReportsArea

        return ReportsArea(self.pdfs, self.jobs, chat=ChatServiceLink(self.library.chats), study_pdfs=self.library.study_pdfs, lookup=lambda owner: self.providers.thread_lookup(owner=owner))  # fmt: skip

    @part
    def assist(self) -> AssistArea:
        from litdesk.services.assist import AssistArea

        return AssistArea(self.store, self.settings, self.providers, self.jobs, clock=self.clock, wake=lambda: self._wake(1))  # fmt: skip

    @part
    def dedup(self) -> DedupArea:
        from litdesk.services.dedup import DedupArea

        return DedupArea(self.settings, self.store, self.jobs, wake=lambda: self._wake(0))

    @part
    def studies(self) -> StudiesArea:
        from litdesk.services.studies import StudiesArea

        return StudiesArea(self.store, self.jobs, self.settings, wake=lambda: self._wake(0), fulltext=self._fulltext_parts, providers=lambda: self.providers, screening=lambda: self.screening, clock=self.clock)  # fmt: skip

    def _fulltext_parts(self) -> FulltextParts:
        """The studies area's full-text parts (made when a Study's PDFs are first used)."""
        from litdesk.services.studies import FulltextParts, fetch_through

        s = self.settings
        return FulltextParts(self.pdfs, fetch_through(self.providers), s.library_upload_max_bytes)

    @part
    def search(self) -> SearchArea:
        from litdesk.services.search import SearchArea

        return SearchArea(self.providers, self.live, clock=self.clock)

    @part
    def screening(self) -> ScreeningArea:
        from litdesk.services.screening import ScreeningArea

        return ScreeningArea(self.store, self.jobs, clock=self.clock, wake=lambda: self._wake(3), lease_s=self.settings.jobs_lease_seconds, embedder=self.models.sentence_embedder)  # fmt: skip

    @part
    def zotero(self) -> ZoteroArea:
        from litdesk.services.zotero import ZoteroArea

        return ZoteroArea(store=self.store, pdfs=self.pdfs, screening=self.screening)

    def recorded(self) -> dict[str, int]:
        """Provider exchanges written to the ``record`` cassette so far, per provider
        (``{}`` when nothing was recorded or no cassette is being recorded)."""
        if not self.built("transport"):
            return {}
        recorder = self.transport.recorder
        return dict(recorder.written) if recorder is not None else {}

    # -- construction -------------------------------------------------------------------

    def make_library(
        self,
        *,
        lookup: Lookup | None = None,
        embedder: Embedder | None = None,
        backend: ChatBackend | None = None,
        workers: int | None = None,
        params: RetrievalParams | None = None,
    ) -> Library:
        """A library over the app's store and model parts with ``lookup`` for adoption
        (closing it closes its catalogue only); ``embedder``/``backend`` replace the
        models' own (tests)."""
        from litdesk.services.library import Library

        return Library(
            self.settings,
            store=self.store,
            models=self.models,
            lookup=lookup,
            embedder=embedder,
            backend=backend,
            workers=workers,
            params=params,
            clock=self.clock,
            objects=self.objects,
        )

    @part
    def runners(self) -> tuple[JobRunner, JobRunner, JobRunner, JobRunner]:
        """The job runners (not started): indexing, dedup, imports and report builds; the
        AI-assistance calls; the paper chat's questions; screening's retrains and record
        embeddings — so that a person waiting for a suggestion, an answer or the next
        record's order never waits behind a long indexing, import or build. Building them
        builds every area that has job handlers."""
        from litdesk.services.jobs import Handler, JobRunner
        from litdesk.services.library import CHAT_KIND

        s = self.settings
        library = self.library.handlers()
        chat = {CHAT_KIND: library.pop(CHAT_KIND)}  # the paper chat's own runner
        main: dict[str, Handler] = {
            **library,
            **self.reports.handlers(),
            **self.dedup.handlers(),
            **self.studies.handlers(),
        }
        groups: tuple[dict[str, Handler], ...] = (
            main,
            self.assist.handlers(),
            chat,
            self.screening.handlers(),
        )
        slots = max(1, s.jobs_worker_slots)
        made = [
            JobRunner(
                self.jobs,
                handlers,
                slots=slots,
                lease_s=s.jobs_lease_seconds,
                poll_s=s.jobs_poll_seconds,
            )
            for handlers in groups
        ]
        return made[0], made[1], made[2], made[3]

    @property
    def job_runner(self) -> JobRunner:
        """Indexing, dedup, imports, report builds."""
        return self.runners[0]

    @property
    def assist_runner(self) -> JobRunner:
        """The AI-assistance calls."""
        return self.runners[1]

    @property
    def chat_runner(self) -> JobRunner:
        """The paper chat's questions."""
        return self.runners[2]

    @property
    def screening_runner(self) -> JobRunner:
        """Screening's retrains and the hand-over model's record embeddings (a job embeds
        for a slice at a time, so retrains run in between)."""
        return self.runners[3]

    def _wake(self, which: int) -> None:
        """Wake one runner when a job was just submitted; runners not built yet are not
        running either (:meth:`start_workers` builds them), so there is nothing to wake."""
        if self.built("runners"):
            self.runners[which].wake()

    # -- lifetime -----------------------------------------------------------------------

    def start_workers(self) -> None:
        """Start this process's job runners (``serve`` calls this when it has slots)."""
        for runner in self.runners:
            runner.start()
        self._started = True

    def interrupt_held(self, reason: str) -> list[JobView]:
        """This process is being stopped (Ctrl-C, SIGTERM): the jobs it submitted held and
        still runs end failed at once, saying ``reason``, when and what to run again
        (:meth:`~litdesk.services.jobs.Jobs.interrupt_held`); none if it used no job."""
        return self.jobs.interrupt_held(reason) if self.built("jobs") else []

    def catch_up_shelf(self) -> None:
        """Store what this host kept before its object store was shared (vectors, protocols,
        chat sessions, report builds): ``serve`` calls this at start; other processes do it
        at each folder's first use (once per process)."""
        self.pdfs.catch_up()
        self.library.chats.catch_up()
        self.reports.catch_up()

    def _stop_workers(self) -> None:
        """Stop this app's job runners that run — also one started on its own (a test's, a
        one-shot worker's ``app.job_runner.start()``), which would otherwise poll the closed
        store every ``jobs_poll_seconds`` for as long as the process lives."""
        if self._started or self.built("runners"):
            for runner in self.runners:
                runner.stop()  # running jobs go back to the queue
            self._started = False

    async def _close_transport(self) -> None:
        """Close the transport, if it was opened."""
        if self.built("transport"):
            await self.transport.aclose()

    async def _close_live(self) -> None:
        """Stop the live searches (before the transport closes), if any were started."""
        if self.built("live"):
            await self.live.aclose()

    def _close_parts(self) -> None:
        """Close the synchronous parts that were built, in reverse order of construction."""
        if self.built("pdfs"):
            self.pdfs.close()
        if self.built("objects"):
            self.objects.close()
        if self.built("models"):
            self.models.close()
        self.store.dispose()
        if "litdesk.adapters.llm" in sys.modules:  # else no model client was ever made
            from litdesk.adapters.llm import close_idle_clients

            close_idle_clients()  # the model clients no backend holds (shared per process)

    # -- views of the app ---------------------------------------------------------------

    def workspace(self, owner: str | None = None) -> Workspace:
        """The workspace (saved papers, Studies, notes, evidence) acting as ``owner``."""
        from litdesk.services.workspace import Workspace

        return Workspace(self.store, owner=owner or self.owner)

    def sso(self) -> SingleSignOn | None:
        """The app's one single sign-on service (its provider client caches discovery and
        keys), or ``None`` when not configured."""
        from litdesk.services.accounts import SingleSignOn, sso_configured

        if not sso_configured(self.settings):
            return None
        with self._parts_lock:
            if self._sso is None:
                self._sso = SingleSignOn(self.store, self.settings, clock=self.clock)
            return self._sso


def _build(
    settings: Settings,
    *,
    owner: str,
    record: Path | None,
    replay: Path | None,
    clock: Clock,
    kit: ProviderKit | None,
    http_transport: httpx.AsyncBaseTransport | None,
    base_urls: Mapping[str, str] | None,
    pacing: Mapping[str, float] | None,
    transport_now: bool,
) -> App:
    """Open the store and build the app on it, with the transport opened now
    (``transport_now``) or on first use (closing what was opened when a later step
    fails)."""
    store = open_store(settings)

    def transport() -> ProviderTransport:
        return provider_transport(
            settings,
            store,
            owner=owner,
            record=record,
            replay=replay,
            http_transport=http_transport,
            base_urls=base_urls,
            pacing=pacing,
            clock=clock,
        )

    try:
        app = App(settings, store, transport, owner=owner, clock=clock, kit=kit)
        if transport_now:
            app.transport  # noqa: B018 (opened now: a bad cassette is refused at the start)
        return app
    except BaseException:
        store.dispose()
        raise


@asynccontextmanager
async def open_app(
    settings: Settings,
    *,
    replay: Path | None = None,
    record: Path | None = None,
    clock: Clock = SYSTEM_CLOCK,
    owner: str = LOCAL_OWNER,
    http_transport: httpx.AsyncBaseTransport | None = None,
    base_urls: Mapping[str, str] | None = None,
    kit: ProviderKit | None = None,
    pacing: Mapping[str, float] | None = None,
) -> AsyncIterator[App]:
    """Open the app on the running event loop; close every part once on exit (running
    live searches stop and started job runners hand their jobs back first).

    ``replay`` answers provider requests from a cassette folder, ``record`` writes one;
    ``http_transport``, ``base_urls``, ``kit`` and ``pacing`` (seconds between requests
    per provider, e.g. 0 for a mock that answers at once) are test hooks."""
    app = await asyncio.to_thread(
        _build,
        settings,
        owner=owner,
        record=record,
        replay=replay,
        clock=clock,
        kit=kit,
        http_transport=http_transport,
        base_urls=base_urls,
        pacing=pacing,
        transport_now=True,
    )
    app._loop = asyncio.get_running_loop()  # app.providers is bound to it when built
    try:
        yield app
    finally:
        try:
            await asyncio.to_thread(app._stop_workers)
            await app._close_live()  # live searches stop before the transport closes
        finally:
            try:
                await app._close_transport()
            finally:
                await asyncio.to_thread(app._close_parts)


@contextmanager
def open_app_sync(
    settings: Settings,
    *,
    owner: str = LOCAL_OWNER,
    clock: Clock = SYSTEM_CLOCK,
) -> Iterator[App]:
    """The same app for synchronous code (no event loop: provider calls are refused);
    for the CLI's store-only commands, benches and tests."""
    app = _build(
        settings,
        owner=owner,
        record=None,
        replay=None,
        clock=clock,
        kit=None,
        http_transport=None,
        base_urls=None,
        pacing=None,
        transport_now=False,  # a store-only command never opens it
    )
    try:
        yield app
    finally:
        try:
            app._stop_workers()
            if app.built("live") or app.built("transport"):
                asyncio.run(_aclose(app))
        finally:
            app._close_parts()


async def _aclose(app: App) -> None:
    try:
        await app._close_live()
    finally:
        await app._close_transport()
