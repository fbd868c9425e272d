"""The PDF library service: sources, index, retrieval, adoption, grounded answers.

Faces (CLI now, a web face and the report generator later) call :class:`Library`;
retrieval (:meth:`Library.retrieve`) and answers (:meth:`Library.ask`) are separate
steps so a report can run many retrievals and reuse the gate.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import InputError, LitdeskError
from litdesk._settings import Settings
from litdesk.adapters.embeddings import (
    Embedder,
    JointEmbedder,
    UseEmbedder,
    WordLlamaEmbedder,
    embedder_name,
    is_local_embedder,
)
from litdesk.adapters.llm import ChatBackend, ChatRequest, NoModelBackend, Thinking
from litdesk.adapters.objects import ObjectStore, open_objects
from litdesk.adapters.store import LOCAL_OWNER, Store
from litdesk.core.library import (
    CHUNKING_VERSION,
    DEFAULT_TOP_K,
    MAX_TOP_K,
    DocFrequencies,
    Excerpt,
    RetrievalParams,
    RetrievalScope,
    VectorIndex,
    abstain_threshold,
    majority_language,
    rank_excerpts,
    relevance_needed,
    relevance_note,
    run_gate,
    split_relevant,
    uncovered_threshold,
)
from litdesk.core.records import Paper
from litdesk.core.words import plural
from litdesk.services.assist import CHAT_FEATURE, AllowanceRefused, AssistAllowance, MeteredBackend
from litdesk.services.models import Models

from . import _sources
from ._answering import abstained, near_misses, not_answered, with_note, write_protocol
from ._bridging import WordVectors
from ._catalogue import Catalogue, Entry, StoredChunk
from ._feed import IndexFeed, vector_loader
from ._files import LibraryFiles
from ._indexer import IndexReport, OnFile, Progress, ShouldStop, hash_files, index_files
from ._ivf import IvfLayout, IvfStore, LoadVectors
from ._results import Adoption, Answer, Hit, Retrieval, fold_text, title_printed
from ._shared import Copier, SharedPdfs
from ._shelf import Shelf
from ._sources import LibraryFile
from ._views import LibraryStatus, StatusRow, VectorIndexSummary, arriving_rows

__all__ = ["Adoption", "Answer", "Hit", "Library", "Lookup", "Retrieval", "title_printed"]

#: Look up a record by ("doi" | "arxiv", canonical id); ``None`` when nothing is found.
Lookup = Callable[[str, str], Paper | None]
#: Excerpts of a paper read to tell its language.
LANGUAGE_SAMPLE = 8


class Library(LibraryFiles):
    """The local PDF library of one data directory."""

    def __init__(
        self,
        settings: Settings,
        *,
        store: Store,
        models: Models,
        embedder: Embedder | None = None,
        backend: ChatBackend | None = None,
        lookup: Lookup | None = None,
        workers: int | None = None,
        params: RetrievalParams | None = None,
        clock: Clock = SYSTEM_CLOCK,
        objects: ObjectStore | None = None,
    ) -> None:
        """``store``, ``models`` and ``objects``: the app's
        (:func:`litdesk.services.app.open_app`; never closed here; ``objects`` by default
        the settings' object store). ``embedder`` and ``backend`` replace the models' own (tests).
        ``params``: the ranker's parameters (default: the settings' ``retrieval_*``).
        ``workers``: PDF reader processes of an index (default: the settings'
        ``library_index_workers``).
        ``clock``: what the model-call allowance reads."""
        self.settings, self.clock = settings, clock
        self.data_dir = settings.resolved_data_dir()
        self.root = self.data_dir / "library"
        self._models = models
        self._embedder = embedder
        self._embedder_name = embedder.name if embedder else embedder_name(settings.embedder)
        self._backend = backend
        self._lookup = lookup
        self.workers = settings.library_index_workers if workers is None else workers
        self._params = params or settings.retrieval_params()
        self._cat: Catalogue | None = None
        self._store = store
        self._vector_cache: dict[
            tuple[tuple[str, ...], bool, int], VectorIndex | npt.NDArray[np.float32]
        ] = {}
        self._df_cache: dict[tuple[str, ...], DocFrequencies] = {}
        self._lang_cache: dict[str, str | None] = {}
        self._word_vectors = WordVectors()
        #: the files users need, in the object store (shared by the hosts of a team server)
        self.shelf = Shelf(
            objects if objects is not None else open_objects(settings),
            self.data_dir,
            inbox=self.inbox,
            sync_seconds=settings.object_store_sync_seconds,
        )
        #: other hosts' folder PDFs (by content hash; a source of this library when shared)
        self.shared_pdfs = SharedPdfs(self.shelf, self.root / "pdfs")
        #: the thread copying them here (see :meth:`look_shared`)
        self.copier = Copier(self.shared_pdfs, self._remember_copies, uploads=self._bring_uploads)
        self._sources_seen: tuple[tuple[Path, ...], ...] | None = None

    # --- plumbing -------------------------------------------------------------------
    @property
    def params(self) -> RetrievalParams:
        """The ranker's parameters of every retrieval (unless one is given its own)."""
        return self._params

    @property
    def store(self) -> Store:
        """The app's store (the chat history's rows)."""
        return self._store

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the copier thread (what it copied stays) and close the catalogue (the
        store and the model parts are the app's)."""
        self.copier.close()
        if self._cat is not None:
            self._cat.close()
            self._cat = None

    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = self._models.embedder()
        return self._embedder

    def backend(self) -> ChatBackend:
        if self._backend is None:
            self._backend = self._models.backend()
        return self._backend

    def metered(self, owner: str, feature: str) -> ChatBackend:
        """The chat backend with each model call reserved from the store's allowance for
        ``owner`` under ``feature`` (``chat`` or ``report``); a wait while another of the
        owner's calls is in flight, up to that call's stale time."""
        inner = self.backend()
        if not inner.is_model:
            return inner
        return self.meter(inner, owner, feature)

    def allowance(self) -> AssistAllowance:
        """The model-call allowance in the library's store."""
        return AssistAllowance(self._store, self.settings, clock=self.clock)

    def meter(self, inner: ChatBackend, owner: str, feature: str) -> ChatBackend:
        """``inner`` metered for ``owner`` under ``feature`` (see :meth:`metered`)."""
        if not inner.is_model or isinstance(inner, MeteredBackend):
            return inner
        allowance = self.allowance()
        return MeteredBackend(
            inner, allowance, owner=owner, feature=feature, wait_seconds=allowance.stale_after
        )

    @property
    def embedder_id(self) -> str:
        """The embedder's name as the index entries are keyed (``wordllama-l2-256``)."""
        return self._embedder_name

    # --- index ----------------------------------------------------------------------
    def index(
        self,
        files: list[LibraryFile] | None = None,
        *,
        progress: Progress | None = None,
        on_file: OnFile | None = None,
        should_stop: ShouldStop | None = None,
    ) -> IndexReport:
        """Index the library (or ``files``); unchanged files cost a hash-cache check.
        ``should_stop`` ends the run early (interrupted; a later run resumes)."""
        return index_files(
            self.catalogue,
            self.corpus().files if files is None else files,
            embedder_name=self._embedder_name,
            embedder=self.embedder,
            workers=self.workers,
            progress=progress,
            on_file=on_file,
            should_stop=should_stop,
            local_embedder=self._local_embedder(),
        )

    def _local_embedder(self) -> tuple[str, Path] | None:
        """The embedder setting and its cache dir when pool workers may load the model
        themselves (a local model: wordllama, use-m3 or a joint of them; not one injected,
        not a server's)."""
        spec = self.settings.embedder.strip()
        if not is_local_embedder(spec):
            return None
        if self._embedder is not None and (
            not isinstance(self._embedder, (WordLlamaEmbedder, UseEmbedder, JointEmbedder))
            or self._embedder.name != embedder_name(spec)
        ):
            return None  # an injected model the workers could not rebuild from the setting
        return spec, self.data_dir / "models" / "wordllama"

    def status(self) -> LibraryStatus:
        """Every file with its index state (see :meth:`file_states`), the sources, the
        discovery warnings and the other hosts' PDFs not copied here yet."""
        corpus = self.corpus()
        return LibraryStatus(
            self.file_states(corpus.files),
            [
                {"path": str(s.path), "recursive": s.recursive, "origin": s.origin}
                for s in self.sources()
            ],
            corpus.warnings,
            self._embedder_name,
            CHUNKING_VERSION,
            arriving_rows(corpus.arriving),
        )

    def file_states(self, files: list[LibraryFile]) -> list[StatusRow]:
        """Each of ``files`` with its index state (pages, text layer, exclusion, ids,
        adopted title); only these files are hashed."""
        hashes = hash_files(self.catalogue, files)
        entries = self.catalogue.entries(self._embedder_name, CHUNKING_VERSION)
        meta = self.catalogue.metadata()
        rows: list[StatusRow] = []
        for f in files:
            sha = hashes.get(f.path)
            e = entries.get(sha) if sha else None
            adopted = meta.get(sha, {}) if sha else {}
            rows.append(
                {
                    "file": f.name,
                    "path": str(f.path),
                    "origin": f.origin,
                    "sha256": sha,
                    "indexed": bool(e and e.status == "ok"),
                    "pages": e.pages if e else None,
                    "text_layer": e.text_layer if e else None,
                    "excluded": e.reason if e and e.status == "excluded" else None,
                    "excluded_code": e.reason_code if e and e.status == "excluded" else None,
                    # indexed from a text beside the PDF (no text layer): where it came from
                    "text_source": e.reason if e and e.status == "ok" and e.reason_code else None,
                    "doi": e.doi if e else None,
                    "arxiv": e.arxiv if e else None,
                    "chunks": e.n_chunks if e else 0,
                    "adopted_title": adopted.get("title"),
                }
            )
        return rows

    # --- adoption -------------------------------------------------------------------
    def adopt(self, shas: list[str], entries: dict[str, Entry], names: dict[str, str]) -> list[str]:
        """Try to adopt metadata for unmatched PDFs; returns warnings."""
        if self._lookup is None:
            return []
        warnings: list[str] = []
        meta = self.catalogue.metadata()
        for sha in shas:
            e = entries.get(sha)
            if e is None or sha in meta or e.status != "ok":
                continue
            warnings += self.adopt_entry(sha, e, names[sha]).warnings
        return warnings

    def adopt_scope(self, papers: list[str] | None, lookup: Lookup) -> list[str]:
        """Adoption tried for the indexed PDFs of a chat or report scope (``None``: the
        whole library) that have no metadata yet but print a DOI or an arXiv id, through
        ``lookup`` (the owner's allowance). Answers the disclosure: what was looked up
        and what came of it (empty when nothing needed a lookup)."""
        files = self.corpus().select(papers)
        self.index(files)  # what the scope's retrieval does first anyway (cached)
        hashes = self.known_hashes(files)
        entries = self.catalogue.entries(self._embedder_name, CHUNKING_VERSION)
        meta = self.catalogue.metadata()
        adopted: list[str] = []
        not_adopted: list[str] = []
        warnings: list[str] = []
        seen: set[str] = set()
        for f in files:
            sha = hashes.get(f.path)
            e = entries.get(sha) if sha else None
            if sha is None or e is None or sha in seen or sha in meta or e.status != "ok":
                continue
            if not (e.doi or e.arxiv):
                continue
            seen.add(sha)
            result = self.adopt_entry(sha, e, f.name, lookup=lookup)
            (adopted if result.adopted else not_adopted).append(f.name)
            warnings += result.warnings
        if not seen:
            return []
        line = (
            f"metadata looked up for {plural(len(seen), 'PDF')} of the scope without it (their DOI "
            "or arXiv id, at OpenAlex or arXiv; counted in your daily allowance)"
        )
        if adopted:
            line += f"; adopted: {', '.join(adopted)}"
        if not_adopted:
            line += f"; not adopted (cited by file name and page): {', '.join(not_adopted)}"
        return [line, *warnings]

    def adopt_entry(
        self, sha: str, e: Entry, name: str, *, lookup: Lookup | None = None
    ) -> Adoption:
        """One adoption attempt for the indexed PDF ``name``: its DOI, then its arXiv id, is
        looked up (through ``lookup``, else the library's own); the record is adopted only
        when its title is printed on pages 1-2."""
        find = lookup or self._lookup
        if find is None:
            return Adoption(name, False, None, None, ["no lookup is configured"])
        warnings: list[str] = []
        tried: list[str] = []
        for ns, value in (("doi", e.doi), ("arxiv", e.arxiv)):
            if not value:
                continue
            tried.append(f"{ns} {value}")
            try:
                paper = find(ns, value)
            except LitdeskError as exc:
                warnings.append(f"{name}: lookup of {ns} {value} failed: {exc.message}")
                continue
            if paper is None:
                continue
            if title_printed(paper.title, e.head_text or ""):
                self.catalogue.adopt(sha, paper.to_dict(), f"{ns}:{value}")
                return Adoption(name, True, f"{ns}:{value}", paper.title, warnings)
            warnings.append(
                f"{name}: the record found for {ns} {value} has a title not printed "
                "on the first pages; not adopted"
            )
        return Adoption(name, False, None, None, warnings, tried)

    # --- retrieval ------------------------------------------------------------------
    def retrieve(
        self,
        question: str,
        *,
        papers: list[str] | None = None,
        top_k: int = DEFAULT_TOP_K,
        variant: str | None = None,
        index_missing: bool = True,
        params: RetrievalParams | None = None,
    ) -> Retrieval:
        """The ``top_k`` excerpts for ``question`` over the library or the named papers,
        ranked by :func:`~litdesk.core.library.rank_excerpts` with ``params`` (default:
        :attr:`params`); this method fetches what it ranks.

        ``index_missing=False`` (a server whose background job indexes) answers from the
        files indexed so far and names how many are not indexed yet, instead of indexing
        them first."""
        question = question.strip()
        if not question:
            raise InputError("the question is empty", code="empty_question")
        if not 1 <= top_k <= MAX_TOP_K:
            raise InputError(f"--top-k must be between 1 and {MAX_TOP_K}", code="top_k")
        corpus = self.corpus()
        whole = not papers
        files = corpus.select(papers)
        out = Retrieval(
            question, [], [f.name for f in files], whole, variant, list(corpus.warnings)
        )
        if not files:
            out.warnings.append(
                "the library is empty: add a folder with `litdesk library add PATH`"
            )
            return out
        cat = self.catalogue
        if index_missing:
            report = self.index(files)
            if report.rebuild:
                out.warnings.append(report.rebuild)
            if report.interrupted:
                out.warnings.append("indexing was interrupted; the answer uses what is indexed")
            hashes = hash_files(cat, files)
        else:
            hashes = self.known_hashes(files)
        entries = cat.entries(self._embedder_name, CHUNKING_VERSION)
        if not index_missing:
            waiting = [f.name for f in files if hashes.get(f.path) not in entries]
            if waiting:
                out.warnings.append(
                    f"{plural(len(waiting), 'file')} not indexed yet (indexing runs in the background); "
                    "the answer uses the indexed ones"
                )
        names: dict[str, str] = {}
        for f in files:
            sha = hashes.get(f.path)
            if sha is None:
                continue
            if sha in names:
                out.warnings.append(f"{f.name} has the same content as {names[sha]}: used once")
                continue
            names[sha] = f.name
        excluded = [
            f"{names[s]} ({entries[s].reason})"
            for s in names
            if s in entries and entries[s].status == "excluded"
        ]
        if excluded:
            out.warnings.append("excluded from the index: " + "; ".join(excluded))
        shas = [s for s in names if s in entries and entries[s].status == "ok"]
        if names and all(s in entries and entries[s].status == "excluded" for s in names):
            # every PDF of the scope is a scan, encrypted, broken or too large: nothing can
            # answer, which is not "no excerpt matches the question"
            raise InputError(
                "no PDF in the scope has text to answer from: "
                + "; ".join(
                    entries[s].reason or f"{names[s]}: {entries[s].reason_code}" for s in names
                )
                + ". Choose PDFs the library could index (the library list gives each one's state)",
                code="no_text",
            )
        out.warnings += self.adopt(shas, entries, names)
        if not shas:
            out.warnings.append("no indexed text in the scope")
            return out
        chunks = cat.chunks_of(shas, self._embedder_name, CHUNKING_VERSION)
        if not chunks:
            out.warnings.append("no indexed text in the scope")
            return out
        ranked = rank_excerpts(
            question,
            RetrievalScope(
                chunks, names, shas, whole, self._search_space(shas, entries, whole, params),
                self._languages(shas, chunks), self._doc_frequencies(shas, chunks),
                abstain_threshold(self._embedder_name), uncovered_threshold(self._embedder_name),
            ),
            IndexFeed(cat, self.embedder(), self._embedder_name, chunks, entries, self._word_vectors),
            params or self.params, variant=variant, top_k=top_k,
        )  # fmt: skip
        meta = cat.metadata()
        for rank, picked in enumerate(ranked.excerpts, start=1):
            ch: StoredChunk = chunks[picked.position]
            m = meta.get(ch.sha256, {})
            e = entries[ch.sha256]
            out.hits.append(
                Hit(
                    names[ch.sha256], _sources.path_of(files, hashes, ch.sha256), ch.sha256, ch.page, ch.text,
                    picked.score, rank, m.get("title"), m.get("doi") or e.doi, m.get("arxiv_id") or e.arxiv,
                    picked.support,
                )
            )  # fmt: skip
        if ranked.verdict is not None:
            v = ranked.verdict
            out.support, out.abstained, out.threshold = v.support, v.abstained, v.threshold
            out.uncovered = v.missing
        return out

    def relevance_needed(self, found: Retrieval) -> float:
        """The support an excerpt of ``found`` needs to be shown in an answer
        (:func:`~litdesk.core.library.relevance_needed`)."""
        threshold = found.threshold
        if threshold is None:
            threshold = abstain_threshold(self._embedder_name)
        return relevance_needed(threshold, found.support or 0.0)

    def _languages(self, shas: list[str], chunks: list[StoredChunk]) -> dict[str, str | None]:
        """Each paper's language, by majority over its first excerpts (cached per paper)."""
        missing = [s for s in shas if s not in self._lang_cache]
        if missing:
            wanted = set(missing)
            sample: dict[str, list[str]] = {s: [] for s in missing}
            for c in chunks:
                if c.sha256 in wanted and len(sample[c.sha256]) < LANGUAGE_SAMPLE:
                    sample[c.sha256].append(c.text)
            for s, texts in sample.items():
                self._lang_cache[s] = majority_language(texts)
        return {s: self._lang_cache[s] for s in shas}

    def _doc_frequencies(self, shas: list[str], chunks: list[StoredChunk]) -> DocFrequencies:
        """Term document frequencies of the scope's chunks (a sample; cached per scope)."""
        key = tuple(shas)
        hit = self._df_cache.get(key)
        if hit is None:
            hit = DocFrequencies.build([c.text for c in chunks])
            self._df_cache.clear()
            self._df_cache[key] = hit
        return hit

    def _search_space(
        self,
        shas: list[str],
        entries: dict[str, Entry],
        whole: bool,
        params: RetrievalParams | None = None,
    ) -> VectorIndex | npt.NDArray[np.float32]:
        """The whole library's vector index, or a chosen set's chunk vectors (ranked exactly).

        Exact for libraries under ``exact_below`` chunks (of ``params``, default
        :attr:`params`); above, an IVF index on the layout kept under ``library/ivf/``
        (see :mod:`._ivf`), each entry's vectors read once straight into cell order. Kept
        in memory per scope, so a long-running face (web, chat rounds) loads the vectors
        and builds the index once per library state.
        """
        exact_below = (params or self.params).exact_below
        key = (tuple(shas), whole, exact_below)
        hit = self._vector_cache.get(key)
        if hit is not None:
            return hit
        counts = {s: entries[s].n_chunks for s in shas}
        space: VectorIndex | npt.NDArray[np.float32]
        if whole and sum(counts.values()) >= exact_below:
            layout, load = self._ivf_layout(counts)
            space = layout.index(shas, load)
        else:
            vectors = np.vstack([self._loader(counts)(s) for s in shas])
            space = VectorIndex.build(vectors, exact_below=exact_below) if whole else vectors
        self._vector_cache.clear()  # one library state at a time
        self._vector_cache[key] = space
        return space

    def _loader(self, counts: dict[str, int]) -> LoadVectors:
        return vector_loader(self.catalogue, self._embedder_name, counts)

    def _ivf_layout(self, counts: dict[str, int]) -> tuple[IvfLayout, LoadVectors]:
        """The stored IVF layout of the entries ``counts`` (reused, updated entry by entry or
        trained anew: see :mod:`._ivf`) and the loader of their vectors."""
        load = self._loader(counts)
        dim = next(load(s) for s, c in counts.items() if c).shape[1]
        store = IvfStore(self.root / "ivf", self._embedder_name, CHUNKING_VERSION)
        return store.ensure(counts, load, dim), load

    def prepare_vector_index(self) -> VectorIndexSummary:
        """Build or update the whole library's IVF layout now (``library index`` calls this
        so questions do not pay); a summary for the index report.

        ``{"kind": "exact", "chunks": n}`` below ``exact_below`` chunks, else
        ``{"kind": "ivf", "chunks": n, "cells": …, "built": "trained" | "updated" |
        "reused", "seconds": …}``.
        """
        files = self.corpus().files
        hashes = hash_files(self.catalogue, files)
        entries = self.catalogue.entries(self._embedder_name, CHUNKING_VERSION)
        counts: dict[str, int] = {}
        for f in files:
            sha = hashes.get(f.path)
            if sha and sha not in counts and sha in entries and entries[sha].status == "ok":
                counts[sha] = entries[sha].n_chunks
        n = sum(counts.values())
        if n == 0 or n < self.params.exact_below:
            return {"kind": "exact", "chunks": n}
        ivf = self._ivf_layout(counts)[0].summary()
        return {
            "chunks": n,
            "kind": ivf["kind"],
            "cells": ivf["cells"],
            "built": ivf["built"],
            "seconds": ivf["seconds"],
        }

    # --- answers --------------------------------------------------------------------
    def english_variant(self, question: str, *, backend: ChatBackend | None = None) -> str | None:
        """An English translation of ``question`` by the model (``None``: no model, or English).
        ``backend``: the (metered) backend to ask; by default the local owner's chat."""
        backend = backend or self.metered(LOCAL_OWNER, CHAT_FEATURE)
        if not backend.is_model:
            return None
        reply = backend.complete(
            ChatRequest(
                system="Translate the user's question into English. Reply with the translation "
                "only, one line. If it is already English, repeat it unchanged.",
                user=question,
                max_tokens=200,
            )
        )
        text = reply.text.strip().strip('"').splitlines()[0] if reply.text.strip() else ""
        if not text or fold_text(text) == fold_text(question):
            return None
        return text[:500]

    def ask(
        self,
        question: str,
        *,
        papers: list[str] | None = None,
        top_k: int = DEFAULT_TOP_K,
        thinking: Thinking | None = None,
        index_missing: bool = True,
        owner: str = LOCAL_OWNER,
        backend: ChatBackend | None = None,
    ) -> Answer:
        """One grounded answer: retrieval, the citation gate, the protocol entry
        (``index_missing``: see :meth:`retrieve`).

        With a model every call (the English variant, the answer, its one retry) is
        reserved from ``owner``'s paper-chat allowance; a refusal raises
        :class:`AllowanceRefused` (nothing is answered or written to the protocol).
        ``backend``: the model to ask instead, already metered by the caller (a paper-chat
        job's, which keeps its replies for an attempt that takes the job over)."""
        backend = backend or self.metered(owner, CHAT_FEATURE)
        level: Thinking = thinking or self.settings.thinking  # type: ignore[assignment]
        warnings: list[str] = []
        variant = None
        if backend.is_model:
            try:
                variant = self.english_variant(question, backend=backend)
            except AllowanceRefused as exc:
                raise not_answered(exc) from None
            except LitdeskError as exc:
                warnings.append(f"no English retrieval variant: {exc.message}")
        found = self.retrieve(
            question, papers=papers, top_k=top_k, variant=variant, index_missing=index_missing
        )
        warnings += found.warnings
        if variant:
            warnings.append(f'retrieval also used an English variant of the question: "{variant}"')
        model = backend.model if backend.is_model else "none (extractive)"
        if found.abstained:  # the model is not asked: nothing close enough to ground on
            answer = abstained(found, warnings, model, self._embedder_name)
            write_protocol(self.shelf, self.root, answer, found.whole_library)
            return answer
        # only the excerpts relevant enough are shown; the others are near misses
        split = split_relevant([h.support for h in found.hits], self.relevance_needed(found))
        hits = [found.hits[i] for i in split.shown]
        excerpts = [
            Excerpt(i, h.file, h.page, h.text, h.title, h.doi, h.arxiv)
            for i, h in enumerate(hits, start=1)
        ]

        def ask_model(prompt: Any) -> str:
            req = ChatRequest(
                prompt.system, prompt.user, tuple(excerpts), thinking=level, question=found.question
            )
            return backend.complete(req).text

        try:
            gated = run_gate(found.question, excerpts, ask_model)
        except AllowanceRefused as exc:
            raise not_answered(exc) from None
        warnings += list(gated.warnings)
        by_number = {h_no: h for h_no, h in enumerate(hits, start=1)}
        citations = [
            {
                "label": str(ex.number),
                "file": ex.file,
                "page": ex.page,
                "text": ex.text,
                "title": ex.title,
                "link": by_number[ex.number].path.resolve().as_uri() + f"#page={ex.page}",
            }
            for ex in gated.cited
        ]
        note = relevance_note(split)
        answer = Answer(
            found.question,
            with_note(gated.answer, note),
            gated.grounded,
            citations,
            warnings,
            model,
            found.scope,
            variant,
            near_misses=near_misses([found.hits[i] for i in split.near]),
        )
        write_protocol(self.shelf, self.root, answer, found.whole_library)
        return answer


def no_model() -> ChatBackend:
    """The no-model backend (extractive answers)."""
    return NoModelBackend()
