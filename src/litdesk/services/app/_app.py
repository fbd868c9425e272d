"""The application object: the one place that builds the service layer's parts, and the
one object both faces, the benches and the tests open.

:func:`open_app` opens the store (migrated once), the provider transport (one HTTP
client, one pacer, a meter per owner), the evidence cache, the model parts (embedder,
chat backend: made on first use), the PDF library over them, the job queue and its
runners (built here, started only by :meth:`App.start_workers`, which ``serve`` calls),
the live-search registry and the areas — one per capability (``app.search``,
``app.studies``, ``app.reader``, ``app.dedup``, ``app.library``, ``app.reports``,
``app.assist``, ``app.zotero``, ``app.screening``; accounts and jobs) — and closes them once, in reverse
order::

    async with open_app(get_settings()) as app:
        view = await app.search.search(SearchRequest("malaria vaccine"), owner=app.owner)

:func:`open_app_sync` opens the same class with the same construction for code without
an event loop (the CLI's store-only commands); its provider calls are refused.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import httpx

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._settings import Settings
from litdesk.adapters.embeddings import Embedder
from litdesk.adapters.http import EvidenceCache, ProviderTransport
from litdesk.adapters.llm import ChatBackend, close_idle_clients
from litdesk.adapters.objects import open_objects
from litdesk.adapters.store import Store, open_store
from litdesk.core.library import RetrievalParams
from litdesk.services.accounts import Accounts, SingleSignOn, sso_configured
from litdesk.services.assist import AssistArea
from litdesk.services.dedup import DedupArea, keep_working_sets
from litdesk.services.jobs import Handler, JobRunner, Jobs
from litdesk.services.library import CHAT_KIND, Library, LibraryArea, Lookup
from litdesk.services.models import Models
from litdesk.services.providers import LOCAL_OWNER, Providers
from litdesk.services.reader import ReaderArea
from litdesk.services.screening import ScreeningArea
from litdesk.services.search import LiveRegistry, ProviderKit, SearchArea
from litdesk.services.studies import FulltextParts, StudiesArea, fetch_through
from litdesk.services.subjects import RemoteSuggestions, SubjectsArea
from litdesk.services.synthesis import ChatServiceLink, ReportsArea
from litdesk.services.workspace import Workspace
from litdesk.services.zotero import ZoteroArea

from ._parts import provider_transport

__all__ = ["App", "open_app", "open_app_sync"]


class App:
    """The parts of one open app and the services on them (see the module docstring).

    Build it with :func:`open_app` (or :func:`open_app_sync`); every attribute is shared
    by the tasks and threads of the process for the app's lifetime."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        transport: ProviderTransport,
        *,
        owner: str = LOCAL_OWNER,
        clock: Clock = SYSTEM_CLOCK,
        kit: ProviderKit | None = None,
    ) -> None:
        self.settings = settings
        self.owner = owner
        #: the one clock every part that decides by time reads (tests: a ManualClock)
        self.clock = clock
        self.store = store
        keep_working_sets(store)  # writes keep the Studies' records in step; reads never write
        self.transport = transport
        data_dir = settings.resolved_data_dir()
        self.evidence = EvidenceCache(data_dir / "cache" / "provider-evidence")
        self.providers = Providers(
            settings, store, transport, evidence=self.evidence, owner=owner, kit=kit, clock=clock
        )
        self.models = Models(settings)
        #: the PDF library over the app's store and model parts (viewer, chat, reports)
        #: the object store of the files users need (the data dir, or one shared by hosts)
        self.objects = open_objects(settings)
        self.pdfs = Library(
            settings, store=store, models=self.models, clock=clock, objects=self.objects
        )
        self.jobs = Jobs(store, clock=clock, max_active=settings.jobs_max_active_per_account)
        self.live = LiveRegistry(store, stale_seconds=settings.live_stale_seconds, clock=clock)
        self.accounts = Accounts(store, settings, clock=clock)
        # -- areas: one per capability, each use case one method taking ``owner=``
        # (each area's line below; keep one line per area)
        self.library = LibraryArea(settings, store=store, jobs=self.jobs, providers=self.providers, pdfs=self.pdfs, make_library=self.make_library)  # fmt: skip
        self.subjects = SubjectsArea(store=store, remote=RemoteSuggestions(self.providers.transport_for, clock=clock))  # fmt: skip
        self.reader = ReaderArea(self.providers, clock=clock, subjects=self.subjects.resolve)
        self.reports = ReportsArea(self.pdfs, self.jobs, chat=ChatServiceLink(self.library.chats), study_pdfs=self.library.study_pdfs, lookup=lambda owner: self.providers.thread_lookup(owner=owner))  # fmt: skip
        self.assist = AssistArea(store, settings, self.providers, self.jobs, clock=clock, wake=lambda: self.assist_runner.wake())  # noqa: PLW0108  # fmt: skip
        self.dedup = DedupArea(settings, store, self.jobs, wake=lambda: self.job_runner.wake())  # noqa: PLW0108 (the runner is built below)
        self.studies = StudiesArea(store, self.jobs, settings, wake=lambda: self.job_runner.wake(), fulltext=FulltextParts(self.pdfs, fetch_through(self.providers), settings.library_upload_max_bytes), providers=self.providers, clock=clock)  # noqa: PLW0108  # fmt: skip
        self.search = SearchArea(self.providers, self.live, clock=clock)
        self.screening = ScreeningArea(store, self.jobs, clock=clock, wake=lambda: self.job_runner.wake(), lease_s=settings.jobs_lease_seconds, embedder=self.models.sentence_embedder)  # noqa: PLW0108  # fmt: skip
        self.zotero = ZoteroArea(store=store, pdfs=self.pdfs, screening=self.screening)

        self._sso: SingleSignOn | None = None
        # guards only the lazy single sign-on object (sessions, rights and runs live in
        # the store)
        self._lock = threading.Lock()
        self.job_runner, self.assist_runner, self.chat_runner = self._runners()
        self._started = False

    def recorded(self) -> dict[str, int]:
        """Provider exchanges written to the ``record`` cassette so far, per provider
        (``{}`` when nothing was recorded or no cassette is being recorded)."""
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

    def _runners(self) -> tuple[JobRunner, JobRunner, JobRunner]:
        """The job runners (not started): indexing, dedup, imports and report builds; the
        AI-assistance calls; the paper chat's questions — so that a person waiting for a
        suggestion or an answer never waits behind a long indexing, import or build."""
        s = self.settings
        library = self.library.handlers()
        chat = {CHAT_KIND: library.pop(CHAT_KIND)}  # the paper chat's own runner
        main: dict[str, Handler] = {
            **library,
            **self.reports.handlers(),
            **self.dedup.handlers(),
            **self.studies.handlers(),
            **self.screening.handlers(),
        }
        groups: tuple[dict[str, Handler], ...] = (
            main,
            self.assist.handlers(),
            chat,
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
        return made[0], made[1], made[2]

    # -- lifetime -----------------------------------------------------------------------

    @property
    def runners(self) -> tuple[JobRunner, JobRunner, JobRunner]:
        return self.job_runner, self.assist_runner, self.chat_runner

    def start_workers(self) -> None:
        """Start this process's job runners (``serve`` calls this when it has slots)."""
        for runner in self.runners:
            runner.start()
        self._started = True

    def catch_up_shelf(self) -> None:
        """Store what this host kept before its object store was shared (vectors, protocols,
        chat sessions, report builds): ``serve`` calls this at start; other processes do it
        at each folder's first use (once per process)."""
        self.pdfs.catch_up()
        self.library.chats.catch_up()
        self.reports.catch_up()

    def _stop_workers(self) -> None:
        if self._started:
            for runner in self.runners:
                runner.stop()  # running jobs go back to the queue
            self._started = False

    def _close_parts(self) -> None:
        """Close the synchronous parts, in reverse order of construction."""
        self.pdfs.close()
        self.objects.close()
        self.models.close()
        self.store.dispose()
        close_idle_clients()  # the model clients no backend holds (shared per process)

    # -- views of the app ---------------------------------------------------------------

    def workspace(self, owner: str | None = None) -> Workspace:
        """The workspace (saved papers, Studies, notes, evidence) acting as ``owner``."""
        return Workspace(self.store, owner=owner or self.owner)

    def sso(self) -> SingleSignOn | None:
        """The app's one single sign-on service (its provider client caches discovery and
        keys), or ``None`` when not configured."""
        if not sso_configured(self.settings):
            return None
        with self._lock:
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
) -> tuple[App, ProviderTransport]:
    """Open the store and the transport and build the app on them (closing what was
    opened when a later step fails)."""
    store = open_store(settings)
    try:
        transport = provider_transport(
            settings,
            store,
            owner=owner,
            record=record,
            replay=replay,
            http_transport=http_transport,
            base_urls=base_urls,
            clock=clock,
        )
    except BaseException:
        store.dispose()
        raise
    try:
        return App(settings, store, transport, owner=owner, clock=clock, kit=kit), transport
    except BaseException:
        asyncio.run(transport.aclose())  # a worker thread or sync code: no loop runs here
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
) -> AsyncIterator[App]:
    """Open the app on the running event loop; close every part once on exit (running
    live searches stop and started job runners hand their jobs back first).

    ``replay`` answers provider requests from a cassette folder, ``record`` writes one;
    ``http_transport``, ``base_urls`` and ``kit`` are test hooks."""
    app, transport = await asyncio.to_thread(
        _build,
        settings,
        owner=owner,
        record=record,
        replay=replay,
        clock=clock,
        kit=kit,
        http_transport=http_transport,
        base_urls=base_urls,
    )
    app.providers.bind(asyncio.get_running_loop())
    try:
        yield app
    finally:
        try:
            await asyncio.to_thread(app._stop_workers)
            await app.live.aclose()  # live searches stop before the transport closes
        finally:
            try:
                await transport.aclose()
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
    app, transport = _build(
        settings,
        owner=owner,
        record=None,
        replay=None,
        clock=clock,
        kit=None,
        http_transport=None,
        base_urls=None,
    )
    try:
        yield app
    finally:
        try:
            app._stop_workers()
            asyncio.run(_aclose(app, transport))
        finally:
            app._close_parts()


async def _aclose(app: App, transport: ProviderTransport) -> None:
    try:
        await app.live.aclose()
    finally:
        await transport.aclose()
