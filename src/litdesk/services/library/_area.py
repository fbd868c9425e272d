"""The PDF library as one area of the app (``app.library``): every use case of the library
for both faces — the library page, its sources, uploads into the inbox, indexing (here and
now, or as the background ``library.index`` job), adoption of one PDF's record, the model
status, a grounded answer, the PDF viewer's pages, and the paper chat (its scope, its
questions as ``chat.answer`` jobs, its rounds).

Each use case is one method taking ``owner=`` (whose Studies a PDF links to, whose
allowance a model call or a lookup is reserved from, whose chat session a token opens).
The index is the app's one :class:`~._library.Library` (``app.pdfs``); the area never
builds a store, transport or model itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, cast

from litdesk._errors import NotFoundError
from litdesk._settings import Settings
from litdesk.adapters.llm import Thinking
from litdesk.adapters.objects import ObjectStoreError, ObjectTooLarge
from litdesk.adapters.store import Store, studies_by_keys, studies_by_pdfs
from litdesk.adapters.store import fulltext as study_fulltext
from litdesk.core.library import CHUNKING_VERSION
from litdesk.core.records import normalize_doi, split_arxiv
from litdesk.services.jobs import Handler, Jobs, JobView
from litdesk.services.providers import LOCAL_OWNER, Providers
from litdesk.services.workspace import Workspace

from ._answering import read_protocol
from ._catalogue import Entry
from ._chat import ChatHistoryChat, ChatHistoryItem, ChatRound, ChatService, ChatSession
from ._chat_jobs import CHAT_KIND, ChatJob
from ._index_job import INDEX_KIND, index_handler
from ._indexer import Progress, hash_files
from ._library import Library, Lookup
from ._model_status import ModelStatus, model_status
from ._record_views import (
    AttachPdfPaperRequest,
    ConfirmPdfRequest,
    PdfRecordView,
    SavePdfPaperRequest,
)
from ._records import PdfRecords
from ._requests import (
    AdoptRequest,
    AskRequest,
    ChatQuestionRequest,
    ChatScopeRequest,
    LibraryPageRequest,
    PageRequest,
    ProtocolRequest,
    UploadRequest,
)
from ._results import Adoption, Answer
from ._sources import LibraryFile, Source, discover
from ._uploads import UploadRefused, store_upload
from ._viewer import PageImageBytes, PdfViewer, ViewerPage
from ._views import (
    FileRow,
    IndexCounts,
    IndexOutcome,
    LibraryStatus,
    LibraryView,
    ProtocolView,
    RefusedUpload,
    SourceChange,
    SourceRow,
    StatusRow,
    StoredUpload,
    StudyLink,
    UploadReport,
    VectorIndexSummary,
    arriving_rows,
)

__all__ = ["AUTHORS_SHOWN", "LibraryArea", "MakeLibrary", "NotInLibrary"]

#: A library over the app's parts with an adoption lookup (closing it closes its catalogue).
MakeLibrary = Callable[..., Library]
AUTHORS_SHOWN: Final = 6


class NotInLibrary(NotFoundError):
    """The named PDF is not in the library."""

    default_code = "not_in_library"


class LibraryArea:
    """The PDF library's use cases (see the module docstring); one per app, shared by the
    tasks and threads of the process."""

    def __init__(
        self,
        settings: Settings,
        *,
        store: Store,
        jobs: Jobs,
        providers: Providers,
        pdfs: Library,
        make_library: MakeLibrary,
    ) -> None:
        """``pdfs``: the app's library (its index); ``make_library(lookup=…)``: a library
        over the same parts with an adoption lookup (for adoption, and the index job's)."""
        self.settings = settings
        self._store = store
        self._jobs = jobs
        self._providers = providers
        self._pdfs = pdfs
        self._make = make_library
        jobs.share(INDEX_KIND)  # one library for every account: its index job's progress too
        self._viewer = PdfViewer(pdfs)
        #: the paper chat's sessions and questions (the report desk reads its answers)
        self.chats = ChatService(
            pdfs,
            indexing=self.indexing,
            jobs=jobs,
            lookup=lambda owner: providers.thread_lookup(owner=owner),
        )
        #: a library PDF as a paper, per account (its description, the paper it is)
        self.records = PdfRecords(store, pdfs)

    # --- plumbing --------------------------------------------------------------------
    def handlers(self) -> dict[str, Handler]:
        """This area's job handlers: ``library.index`` and ``chat.answer`` (the app runs
        the chat's on a runner of its own)."""
        return {INDEX_KIND: index_handler(self._make), CHAT_KIND: self.chats.run_job}

    def indexing(self) -> bool:
        """An index job of the (shared) library is running or queued, whoever started it."""
        return self._jobs.any_active([INDEX_KIND])

    def _lookup_library(self, owner: str) -> Library:
        """A library whose adoption lookups go through the app's transport (``owner``'s
        allowance); close it after."""
        lookup: Lookup = self._providers.thread_lookup(owner=owner)
        return self._make(lookup=lookup)

    # --- the page and the sources ------------------------------------------------------
    def view(self, request: LibraryPageRequest, *, owner: str) -> LibraryView:
        """Sources in their order, the discovery warnings (shadowed names first), one
        page of files with their state and the Studies ``owner`` may see, the library's
        index job; with ``request.models`` the model status."""
        lib = self._pdfs
        page, per_page = request.page, request.per_page
        sources = lib.sources()
        corpus = lib.corpus()
        per_source: dict[str, int] = {}
        for f in corpus.files:
            key = _source_of(f, sources)
            per_source[key] = per_source.get(key, 0) + 1
        team = owner != LOCAL_OWNER  # a team account sees no directory of the server
        source_rows = [
            SourceRow(
                order=n, path=_label(s) if team else str(s.path), origin=s.origin,
                recursive=s.recursive, exists=s.path.exists(),
                files=per_source.get(str(s.path), 0),
            )
            for n, s in enumerate(sources, start=1)
        ]  # fmt: skip
        total = len(corpus.files)
        chunk = corpus.files[(page - 1) * per_page : page * per_page]
        states = lib.file_states(chunk)
        meta = lib.catalogue.metadata()
        entries = lib.catalogue.entries(lib.embedder_id, CHUNKING_VERSION)
        counts = _counts(entries, lib.known_hashes(corpus.files), total)
        rows = [self._row(state, meta) for state in states]
        keys_of = [
            _keys(r["adopted_doi"] or r["doi"], r["adopted_arxiv"] or r["arxiv"]) for r in rows
        ]
        links = studies_by_keys(self._store, [k for ks in keys_of for k in ks], visible_to=owner)
        # and the Studies that link the PDF itself to one of their papers (saved from it,
        # attached, uploaded, matched): a PDF without a DOI or arXiv id is in them too
        linked = studies_by_pdfs(
            self._store, [r["sha256"] for r in rows if r["sha256"]], visible_to=owner
        )
        for row, keys in zip(rows, keys_of, strict=True):
            pairs = [p for key in keys for p in links.get(key, [])]
            for sid, name in pairs + linked.get(row["sha256"] or "", []):
                if all(s["id"] != sid for s in row["studies"]):
                    row["studies"].append(StudyLink(id=sid, name=name))
        self._as_papers(rows, owner)
        shadow_first = sorted(corpus.warnings, key=lambda w: "shadowed" not in w)
        if team:
            shadow_first = [_unrooted(w, sources, lib.inbox) for w in shadow_first]
        return LibraryView(
            source_rows, shadow_first, rows, total, page, per_page,
            "the inbox" if team else str(lib.inbox),
            lib.embedder_id, self._index_job(owner), counts,
            self.settings.library_upload_max_bytes, self.settings.library_upload_max_files,
            self.models(owner=owner, check=request.check) if request.models else None,
            arriving_rows(corpus.arriving),
        )  # fmt: skip

    def study_pdfs(self, study: str, *, owner: str) -> tuple[str, tuple[str, ...]]:
        """The Study's name and the library's PDFs attached to its papers, in library
        order: the PDFs linked to its papers (matched, confirmed, uploaded or attached in
        the library) and those whose DOI or arXiv id (printed on an indexed PDF's first
        pages, or adopted) is a paper's. ``study`` is its id or name; a Study ``owner``
        is not a member of is not found; ``StudyNotLinked`` when none of its papers has
        a PDF here."""
        ws = Workspace(self._store, owner=owner)
        row = ws.study(study)  # members only (NotFoundError otherwise)
        lib = self._pdfs
        files = lib.corpus().files
        hashes = hash_files(lib.catalogue, files)
        with self._store.read() as conn:
            linked = {
                link.sha256
                for link in study_fulltext.pdf_links(conn, row.id).values()
                if link.state == "linked"
            }
        meta = lib.catalogue.metadata()
        rows = [self._row(state, meta) for state in lib.file_states(files)]
        keys_of = [
            _keys(r["adopted_doi"] or r["doi"], r["adopted_arxiv"] or r["arxiv"]) for r in rows
        ]
        links = studies_by_keys(self._store, [k for ks in keys_of for k in ks], visible_to=owner)
        names: list[str] = []
        for f, r, keys in zip(files, rows, keys_of, strict=True):
            by_key = any(sid == row.id for key in keys for sid, _n in links.get(key, []))
            if (by_key or hashes.get(f.path) in linked) and r["file"] not in names:
                names.append(r["file"])
        if not names:
            raise StudyNotLinked(
                f"no PDF of the library is attached to a paper of the Study {row.name[:80]}: "
                "attach PDFs on the Study's full-text page or the library's PDF pages"
            )
        return row.name, tuple(names)

    def chat_scope_study(self, token: str, study_id: str, *, owner: str) -> ChatSession:
        """Keep a Study as the session's scope: the PDFs attached to its papers (the
        Study is named on the page and in the chat's history)."""
        name, names = self.study_pdfs(study_id, owner=owner)
        study_id = Workspace(self._store, owner=owner).study(study_id).id  # a name: its id
        request = ChatScopeRequest(token, names, False)
        return self.chats.set_scope(request, owner=owner, study={"id": study_id, "name": name})

    @staticmethod
    def _row(state: StatusRow, meta: dict[str, dict[str, Any]]) -> FileRow:
        """A file's page row (its state, its adopted record; never the server's path)."""
        adopted = meta.get(state["sha256"] or "", {})
        return FileRow(
            file=state["file"], origin=state["origin"], sha256=state["sha256"],
            indexed=state["indexed"], pages=state["pages"], text_layer=state["text_layer"],
            excluded=state["excluded"], excluded_code=state["excluded_code"],
            text_source=state["text_source"],
            doi=state["doi"], arxiv=state["arxiv"], chunks=state["chunks"],
            adopted_title=state["adopted_title"],
            authors=list(adopted.get("authors") or [])[:AUTHORS_SHOWN],
            year=adopted.get("year"), adopted_doi=adopted.get("doi"),
            adopted_arxiv=adopted.get("arxiv_id"), studies=[], confirmed_title=None,
            paper=None,
        )  # fmt: skip

    def _as_papers(self, rows: list[FileRow], owner: str) -> None:
        """Each row's paper for ``owner`` and the title it confirmed (in place)."""
        shas = [r["sha256"] for r in rows if r["sha256"]]
        found = self.records.titles([s for s in shas if s], owner=owner)
        for r in rows:
            got = found.get(r["sha256"] or "")
            if got is not None:
                r["confirmed_title"] = got["title"]
                r["paper"] = got["paper"]

    def _index_job(self, owner: str) -> JobView | None:
        """The library's active index job (whoever started it: its progress only when
        another account did), else ``owner``'s latest one."""
        mine = self._jobs.list(owner=owner, kinds=[INDEX_KIND], limit=1)
        if mine and mine[0].active:
            return mine[0]
        active = self._jobs.active_of(INDEX_KIND, owner=owner)
        return active or (mine[0] if mine else None)

    def status(self, *, owner: str) -> LibraryStatus:
        """Every PDF with its index state (``litdesk library list``), the sources, the
        discovery warnings."""
        del owner  # one library per data dir
        return self._pdfs.status()

    def add_source(self, path: Path, *, owner: str) -> SourceChange:
        """Add a folder (read recursively) or one PDF to the library's sources."""
        del owner  # the sources are the data dir's
        lib = self._pdfs
        target, new = lib.add(path)
        # with a shared object store its PDFs are stored now for the other hosts
        shared, problems = lib.share(discover([Source(target, True, "added")]).files)
        return SourceChange(str(target), new, shared=shared, warnings=tuple(problems))

    def remove_source(self, path: Path, *, owner: str) -> SourceChange:
        """Remove an added folder or PDF (its index entries stay, by content hash); with a
        shared object store its PDFs no host's folder holds any more leave the store and,
        at their next listing, every host's library."""
        del owner
        removed, gone = self._pdfs.remove(path)
        return SourceChange(str(removed), True, removed=True, unshared=len(gone))

    def protocol(self, request: ProtocolRequest, *, owner: str) -> ProtocolView:
        """One day's protocol of questions (``litdesk library protocol``): every answer of
        the day, whichever host of a team server gave it (a shared object store)."""
        del owner  # the library's protocol (the data dir's, or the object store's)
        day = request.day or datetime.now(UTC).date().isoformat()
        text, answers = read_protocol(self._pdfs.shelf, self._pdfs.root, day)
        return ProtocolView(day, answers, text)

    # --- uploads and indexing ------------------------------------------------------------
    def upload(self, request: UploadRequest, *, owner: str) -> UploadReport:
        """Store each PDF in the inbox (or refuse it, with the reason) and start the index
        job (one for the library at a time: a running one picks the new files up)."""
        limit_files = self.settings.library_upload_max_files
        if len(request.files) > limit_files:
            raise UploadRefused(
                f"{len(request.files)} files in one upload; at most {limit_files}",
                code="too_many_files",
            )
        lib = self._pdfs
        inbox = lib.inbox
        lib.shelf.look(inbox, force=True)  # another host's uploads of these names, just now
        corpus = lib.corpus()
        taken = {f.name: _where(f) for f in corpus.files}
        for name, sha in corpus.arriving:  # another host's upload on its way: taken all the same
            if sha is None:
                taken.setdefault(name, _WHERE["inbox"])
        hashes: dict[str, str] = {}
        known = lib.known_hashes(corpus.files)  # files never hashed: the index finds them
        for f in corpus.files:
            if f.path in known:
                hashes.setdefault(known[f.path], f.name)
        stored: list[StoredUpload] = []
        refused: list[RefusedUpload] = []
        for up in request.files:
            try:
                done = store_upload(
                    inbox, up, limit=self.settings.library_upload_max_bytes, taken=taken,
                    hashes=hashes,
                )  # fmt: skip
                lib.publish_upload(done.file)  # for every host (a shared object store)
            except (UploadRefused, ObjectStoreError, ObjectTooLarge) as exc:
                refused.append(
                    RefusedUpload(file=_shown(up.name), code=exc.code, message=exc.message)
                )
                continue
            stored.append(done)
            taken[done.file] = "the inbox"
            hashes.setdefault(done.sha256, done.file)
        job = self.index(owner=owner) if stored else None
        shown = str(inbox) if owner == LOCAL_OWNER else "the inbox"  # no server path in team
        return UploadReport(tuple(stored), tuple(refused), shown, job)

    def index(self, *, owner: str) -> JobView:
        """The active index job of the shared library, or a new one: one at a time across
        every account and process (the store's transaction decides); another account's
        job is shown by its progress only."""
        return self._jobs.submit(INDEX_KIND, {}, owner=owner, reuse_active=True, shared=True)

    def index_now(
        self,
        *,
        owner: str,
        progress: Progress | None = None,
        on_vector_index: Callable[[], None] | None = None,
    ) -> IndexOutcome:
        """Index new or changed PDFs here and now (``litdesk library index``; unchanged ones
        cost a hash-cache check; an interrupt leaves what is done for the next run), then
        build the vector index so that questions do not pay for it."""
        del owner
        lib = self._pdfs
        lib.bring_shared()  # the other hosts' PDFs, copied here to be read
        corpus = lib.corpus()
        report = lib.index(corpus.files, progress=progress)
        _n, problems = lib.share(corpus.files)  # PDFs put in this host's folders since
        vector_index: VectorIndexSummary | None = None
        if not report.interrupted:
            if on_vector_index is not None:
                on_vector_index()
            vector_index = lib.prepare_vector_index()
        return IndexOutcome(report, [*corpus.warnings, *problems], vector_index)

    # --- adoption, models, answers -------------------------------------------------------
    async def adopt(self, request: AdoptRequest, *, owner: str) -> Adoption:
        """Look up the DOI/arXiv id printed on the PDF and adopt the record when its title
        is printed on pages 1–2; the lookup goes through the app's transport, in
        ``owner``'s allowance."""
        return await asyncio.to_thread(self._adopt, request.file, owner)

    def _adopt(self, name: str, owner: str) -> Adoption:
        with self._lookup_library(owner) as lib:
            found = [f for f in lib.corpus().files if f.name == name]
            if not found:
                raise NotInLibrary(f"{name[:120]} is not in the library")
            sha = hash_files(lib.catalogue, found).get(found[0].path)
            entries = lib.catalogue.entries(lib.embedder_id, CHUNKING_VERSION)
            entry = entries.get(sha) if sha else None
            if sha is None or entry is None:
                return Adoption(name, False, None, None, [f"{name} is not indexed yet"])
            if entry.status != "ok":
                return Adoption(
                    name, False, None, None, [f"{name} is excluded: {entry.reason or ''}"]
                )
            return lib.adopt_entry(sha, entry, name)

    def models(self, *, owner: str, check: bool = False) -> ModelStatus:
        """The backend and models in use; with ``check``, whether they are reachable."""
        del owner
        return model_status(self.settings, check=check)

    async def ask(self, request: AskRequest, *, owner: str) -> Answer:
        """A grounded answer (every citation names a file and page), its model calls in
        ``owner``'s allowance; with ``request.adopt`` unmatched PDFs of the scope are
        looked up through the app's transport."""
        return await asyncio.to_thread(self._ask, request, owner)

    def _ask(self, request: AskRequest, owner: str) -> Answer:
        papers = list(request.papers)
        if request.study is not None:  # members only; the PDFs attached to its papers
            papers = list(self.study_pdfs(request.study, owner=owner)[1])

        def ask(lib: Library) -> Answer:
            return lib.ask(
                request.question,
                papers=papers or None,
                top_k=request.top_k,
                thinking=cast(Thinking | None, request.thinking),
                owner=owner,
            )

        if not request.adopt:
            return ask(self._pdfs)
        with self._lookup_library(owner) as lib:
            return ask(lib)

    # --- the PDF viewer ------------------------------------------------------------------
    def page(self, request: PageRequest, *, owner: str) -> ViewerPage:
        """One page of a library PDF, its size and the passage's boxes (only the library's
        PDFs, named by content hash)."""
        del owner  # the library is the server's
        return self._viewer.view(
            request.sha, request.page, passage=request.passage, zoom=request.zoom
        )

    def pdf_path(self, sha: str) -> Path:
        """The library's file of the PDF with content hash ``sha`` (``PdfNotInLibrary``
        when there is none). Which account may use it is the caller's check."""
        return self._viewer.resolve(sha).path

    def page_image(self, request: PageRequest, *, owner: str) -> PageImageBytes:
        """The page's JPEG (rendered once per page and zoom, then from a bounded cache)."""
        del owner
        return self._viewer.page_image(request.sha, request.page, request.zoom)

    @property
    def renders(self) -> int:
        """Page renders done (cache misses), for tests and the benchmark."""
        return self._viewer.renders

    # --- the paper chat ------------------------------------------------------------------
    def chat(self, token: str, *, owner: str) -> ChatSession:
        """The chat session ``token`` of ``owner``: its scope, rounds, the library's names
        and its latest question job when in flight or not answered."""
        return self.chats.session(token, owner=owner)

    def chat_scope(self, request: ChatScopeRequest, *, owner: str) -> ChatSession:
        """Keep the session's scope (unknown file names are refused with the real list)."""
        return self.chats.set_scope(request, owner=owner)

    def chat_ask(self, request: ChatQuestionRequest, *, owner: str) -> ChatJob:
        """Queue the question as a ``chat.answer`` job (one in flight per session, on any
        worker: ``ChatBusy`` names the one in flight)."""
        return self.chats.submit(request, owner=owner)

    def chat_job(self, token: str, job_id: str, *, owner: str) -> ChatJob:
        """A question job of the session (another session's is not found), with its
        round once written."""
        return self.chats.job(token, job_id, owner=owner)

    def chat_cancel(self, token: str, job_id: str, *, owner: str) -> ChatJob:
        """Cancel a queued question; ask a running one to stop (nothing is written)."""
        return self.chats.cancel(token, job_id, owner=owner)

    def chat_round(self, token: str, number: int, *, owner: str) -> ChatRound:
        """An earlier round of the session, to reopen."""
        return self.chats.round(token, number, owner=owner)

    def chat_list(self, *, owner: str, study_id: str | None = None) -> list[ChatHistoryItem]:
        """``owner``'s chats with rounds (over one Study's PDFs with ``study_id``), the
        latest first (kept in the store: from any browser, after a server or browser
        restart)."""
        if study_id is not None:  # a Study the account may not read is not found
            study_id = Workspace(self._store, owner=owner).study(study_id).id
        return self.chats.history(owner=owner, study_id=study_id)

    def chat_past(self, chat_id: str, *, owner: str) -> ChatHistoryChat:
        """One chat of ``owner``'s history with its rounds (``ChatNotFound`` for another
        account's or an unknown one)."""
        return self.chats.past(chat_id, owner=owner)

    def chat_past_round(self, chat_id: str, number: int, *, owner: str) -> ChatRound:
        """One round of one chat of ``owner``'s history: a stable address."""
        return self.chats.past_round(chat_id, number, owner=owner)

    def chat_forget(self, chat_id: str, *, owner: str) -> None:
        """Delete one chat of ``owner``'s history with its rounds."""
        self.chats.forget(chat_id, owner=owner)

    # --- a library PDF as a paper ---------------------------------------------------------
    def pdf_record(self, pdf: str, *, owner: str) -> PdfRecordView:
        """The PDF (file name or SHA-256) as ``owner``'s paper: its description read from
        the first pages or confirmed, the paper it is, the papers it matches."""
        return self.records.view(pdf, owner=owner)

    def confirm_pdf(self, request: ConfirmPdfRequest, *, owner: str) -> PdfRecordView:
        """Keep a person's description of the PDF ("confirmed by you")."""
        return self.records.confirm(request, owner=owner)

    def attach_pdf(self, request: AttachPdfPaperRequest, *, owner: str) -> PdfRecordView:
        """Attach the PDF to a saved paper (and so to the paper in its Studies)."""
        return self.records.attach(request, owner=owner)

    def attach_matching(self, *, owner: str) -> list[tuple[str, str]]:
        """Attach each library PDF to the one saved paper sharing its identifier."""
        return self.records.attach_matching(owner=owner)

    def save_pdf_paper(self, request: SavePdfPaperRequest, *, owner: str) -> PdfRecordView:
        """A saved paper from the PDF's description, with the PDF attached."""
        return self.records.save_as_paper(request, owner=owner)

    def chat_history(self, token: str, *, owner: str) -> tuple[str, ...]:
        """The session's questions, oldest first (each once)."""
        return tuple(self.chats.session(token, owner=owner).questions)

    def chat_session_id(self, token: str, *, owner: str) -> str:
        """The session's id (the hash of ``owner`` and the token: never the token), which
        a report keeps to reuse the chat's answers."""
        return self.chats.session_id(token, owner=owner)

    def chat_answers(
        self, session_id: str, papers: Sequence[str], *, whole_library: bool = False
    ) -> dict[str, dict[str, Any]]:
        """The session's latest grounded answer card per question asked over exactly
        ``papers`` (or the whole library), for a report to reuse."""
        return self.chats.answers_for(session_id, list(papers), whole_library=whole_library)


class StudyNotLinked(NotFoundError):
    """No PDF of the library is attached to a paper of the Study (or it is not visible)."""

    default_code = "study_not_linked"


def _keys(doi: str | None, arxiv: str | None) -> list[str]:
    out: list[str] = []
    d = normalize_doi(doi) if doi else None
    if d:
        out.append(f"doi:{d}")
    a = split_arxiv(arxiv) if arxiv else None
    if a:
        out.append(f"arxiv:{a.base}")
    return out


def _source_of(f: LibraryFile, sources: Sequence[Source]) -> str:
    for s in sources:
        if s.origin == f.origin and (f.path == s.path or s.path in f.path.parents):
            return str(s.path)
    return ""


_WHERE: Final = {"inbox": "the inbox", "added": "an added folder",
                 "settings": "a library folder", "shared": "another server's folder"}  # fmt: skip


def _where(f: LibraryFile) -> str:
    return _WHERE.get(f.origin, f.origin)


def _label(source: Source) -> str:
    """A source as a team account sees it: the inbox, or its folder's (file's) name."""
    if source.origin in ("inbox", "shared"):
        return {"inbox": "the inbox", "shared": "the other servers' folders"}[source.origin]
    return source.path.name or "a library folder"


def _unrooted(text: str, sources: Sequence[Source], inbox: Path) -> str:
    """``text`` with every source's directory (longest first) and the inbox's replaced by
    their labels: what a team account reads of a discovery warning."""
    for s in sorted(sources, key=lambda s: len(str(s.path)), reverse=True):
        text = text.replace(str(s.path), _label(s))
    return text.replace(str(inbox), "the inbox")


def _shown(raw: str) -> str:
    return "".join(c if c.isprintable() else "\ufffd" for c in raw or "")[:120]


def _counts(entries: dict[str, Entry], hashes: dict[Path, str], total: int) -> IndexCounts:
    """Files indexed, excluded and waiting (by file, from the hash cache: a file never
    hashed is waiting)."""
    ok = sum(1 for s in hashes.values() if s in entries and entries[s].status == "ok")
    excluded = sum(1 for s in hashes.values() if s in entries and entries[s].status == "excluded")
    return IndexCounts(indexed=ok, excluded=excluded, waiting=total - ok - excluded)
