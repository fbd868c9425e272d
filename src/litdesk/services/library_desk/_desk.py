"""The web library's use cases: the library page (sources, files with their index state
and Study links, paginated), uploads into the inbox, the background index job, adoption
of one PDF's metadata, and the model status.

Store methods are plain (a web face runs them in its thread pool); each takes a
:class:`~litdesk.services.library.Library` from the app (``make_library``: its store and
model parts) for the call and closes its catalogue after.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from litdesk._errors import InputError, NotFoundError
from litdesk._settings import Settings
from litdesk.adapters.store import studies_by_keys
from litdesk.core.library import CHUNKING_VERSION
from litdesk.core.records import normalize_doi, split_arxiv
from litdesk.services.jobs import Handler, Jobs, JobView
from litdesk.services.library import (
    Adoption,
    Entry,
    Library,
    LibraryFile,
    Source,
    hash_files,
)
from litdesk.services.providers import Providers

from ._index_job import INDEX_KIND, index_handler
from ._models import ModelStatus, model_status
from ._uploads import Upload, UploadRefused, UploadReport, store_upload

__all__ = ["PER_PAGE", "LibraryDesk", "LibraryView", "NotInLibrary"]

PER_PAGE: Final = 50
MAX_PER_PAGE: Final = 200


class NotInLibrary(NotFoundError):
    """The named PDF is not in the library."""

    default_code = "not_in_library"


class LibraryPageInvalid(InputError):
    default_code = "library_page"


@dataclass(frozen=True, slots=True)
class LibraryView:
    """The library page: sources in order, warnings, one page of files, the index job."""

    sources: list[dict[str, Any]]
    warnings: list[str]
    files: list[dict[str, Any]]
    total: int
    page: int
    per_page: int
    inbox: str
    embedder: str
    job: dict[str, Any] | None
    counts: dict[str, int]

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    def to_dict(self) -> dict[str, Any]:
        return {
            "sources": self.sources,
            "warnings": self.warnings,
            "files": self.files,
            "total": self.total,
            "page": self.page,
            "per_page": self.per_page,
            "pages": self.pages,
            "inbox": self.inbox,
            "embedder": self.embedder,
            "job": self.job,
            "counts": self.counts,
        }


def _keys(doi: str | None, arxiv: str | None) -> list[str]:
    out: list[str] = []
    d = normalize_doi(doi) if doi else None
    if d:
        out.append(f"doi:{d}")
    a = split_arxiv(arxiv) if arxiv else None
    if a:
        out.append(f"arxiv:{a.base}")
    return out


class LibraryDesk:
    """The PDF library of the app's settings and store, for the web face."""

    def __init__(
        self,
        providers: Providers,
        jobs: Jobs,
        *,
        make_library: Callable[..., Library],
    ) -> None:
        self.providers = providers
        self.jobs = jobs
        jobs.share(INDEX_KIND)  # one library for every account: its index job's progress too
        self._make = make_library

    @property
    def settings(self) -> Settings:
        return self.providers.settings

    def library(self, *, owner: str | None = None, lookup: bool = False) -> Library:
        """A library from the app (close it after); ``lookup`` adds the adoption
        lookup through the app's transport (``owner``'s allowance)."""
        look = self.providers.thread_lookup(owner=owner) if lookup else None
        return self._make(lookup=look)

    def handlers(self) -> dict[str, Handler]:
        """This area's job handlers, for the app's job runner."""
        return {INDEX_KIND: index_handler(self.library)}

    # --- the page --------------------------------------------------------------------
    def view(self, *, owner: str, page: int = 1, per_page: int = PER_PAGE) -> LibraryView:
        """Sources in their order, the discovery warnings (shadowed names first), one
        page of files with their state, and the latest index job of ``owner``."""
        if page < 1 or not 1 <= per_page <= MAX_PER_PAGE:
            raise LibraryPageInvalid(f"page ≥ 1 and per_page 1–{MAX_PER_PAGE}")
        with self.library() as lib:
            sources = lib.sources()
            corpus = lib.corpus()
            per_source: dict[str, int] = {}
            for f in corpus.files:
                key = _source_of(f, sources)
                per_source[key] = per_source.get(key, 0) + 1
            source_rows = [
                {
                    "order": n,
                    "path": str(s.path),
                    "origin": s.origin,
                    "recursive": s.recursive,
                    "exists": s.path.exists(),
                    "files": per_source.get(str(s.path), 0),
                }
                for n, s in enumerate(sources, start=1)
            ]
            total = len(corpus.files)
            chunk = corpus.files[(page - 1) * per_page : page * per_page]
            rows = lib.file_states(chunk)
            meta = lib.catalogue.metadata()
            entries = lib.catalogue.entries(lib.embedder_id, CHUNKING_VERSION)
            counts = _counts(entries, lib.known_hashes(corpus.files), total)
            embedder = lib.embedder_id
        keys_of: dict[int, list[str]] = {}
        for i, row in enumerate(rows):
            adopted = meta.get(row["sha256"] or "", {})
            row["authors"] = list(adopted.get("authors") or [])[:6]
            row["year"] = adopted.get("year")
            row["adopted_doi"] = adopted.get("doi")
            row["adopted_arxiv"] = adopted.get("arxiv_id")
            keys_of[i] = _keys(
                row["adopted_doi"] or row["doi"], row["adopted_arxiv"] or row["arxiv"]
            )
        links = studies_by_keys(
            self.providers.store, [k for ks in keys_of.values() for k in ks], visible_to=owner
        )
        for i, row in enumerate(rows):
            studies: list[dict[str, str]] = []
            for key in keys_of[i]:
                for sid, name in links.get(key, []):
                    if all(s["id"] != sid for s in studies):
                        studies.append({"id": sid, "name": name})
            row["studies"] = studies
            row.pop("path", None)  # the page shows names and sources, not the server's paths
        shadow_first = sorted(corpus.warnings, key=lambda w: "shadowed" not in w)
        job = self._index_job(owner)
        return LibraryView(
            source_rows, shadow_first, rows, total, page, per_page,
            str(lib.inbox), embedder, job.to_dict() if job else None, counts,
        )  # fmt: skip

    def _index_job(self, owner: str) -> JobView | None:
        """The library's active index job (whoever started it: its progress only when
        another account did), else ``owner``'s latest one."""
        mine = self.jobs.list(owner=owner, kinds=[INDEX_KIND], limit=1)
        if mine and mine[0].active:
            return mine[0]
        active = self.jobs.active_of(INDEX_KIND, owner=owner)
        return active or (mine[0] if mine else None)

    # --- uploads ---------------------------------------------------------------------
    def upload(self, uploads: Sequence[Upload], *, owner: str) -> UploadReport:
        """Store each PDF in the inbox (or refuse it, with the reason) and start the index
        job (one for the library at a time: a running one picks the new files up)."""
        limit_files = self.settings.library_upload_max_files
        report = UploadReport()
        if len(uploads) > limit_files:
            raise UploadRefused(
                f"{len(uploads)} files in one upload; at most {limit_files}", code="too_many_files"
            )
        with self.library() as lib:
            inbox = lib.inbox
            report.inbox = str(inbox)
            corpus = lib.corpus()
            taken = {f.name: _where(f) for f in corpus.files}
            hashes: dict[str, str] = {}
            known = lib.known_hashes(corpus.files)  # files never hashed: the index finds them
            for f in corpus.files:
                if f.path in known:
                    hashes.setdefault(known[f.path], f.name)
        for up in uploads:
            try:
                stored = store_upload(
                    inbox,
                    up,
                    limit=self.settings.library_upload_max_bytes,
                    taken=taken,
                    hashes=hashes,
                )
            except UploadRefused as exc:
                report.refused.append(
                    {"file": _shown(up.name), "code": exc.code, "message": exc.message}
                )
                continue
            report.stored.append(stored)
            taken[stored.file] = "the inbox"
            hashes.setdefault(stored.sha256, stored.file)
        if report.stored:
            report.job = self.start_index(owner=owner).to_dict()
        return report

    # --- the index job ---------------------------------------------------------------
    def start_index(self, *, owner: str) -> JobView:
        """The active index job of the shared library, or a new one: one at a time across
        every account and process (the store's transaction decides); another account's
        job is shown by its progress only."""
        return self.jobs.submit(INDEX_KIND, {}, owner=owner, reuse_active=True, shared=True)

    # --- adoption --------------------------------------------------------------------
    def adopt(self, file: str, *, owner: str) -> Adoption:
        """Look up the DOI/arXiv id printed on ``file`` and adopt the record when its title
        is printed on pages 1–2 (the CLI's rules). Runs in a worker thread: the lookup
        goes through the app's transport, in ``owner``'s allowance."""
        name = file
        with self.library(owner=owner, lookup=True) as lib:
            corpus = lib.corpus()
            found = [f for f in corpus.files if f.name == name]
            if not found:
                raise NotInLibrary(f"{name[:120]} is not in the library")
            sha = hash_files(lib.catalogue, found).get(found[0].path)
            entries = lib.catalogue.entries(lib.embedder_id, CHUNKING_VERSION)
            entry = entries.get(sha) if sha else None
            if entry is None:
                return Adoption(name, False, None, None, [f"{name} is not indexed yet"])
            if entry.status != "ok":
                return Adoption(
                    name, False, None, None, [f"{name} is excluded: {entry.reason or ''}"]
                )
            assert sha is not None
            return lib.adopt_entry(sha, entry, name)

    # --- models ----------------------------------------------------------------------
    def models(self, *, check: bool) -> ModelStatus:
        """The backend and models in use; with ``check``, whether they are reachable."""
        return model_status(self.settings, check=check)


def _source_of(f: LibraryFile, sources: Sequence[Source]) -> str:
    for s in sources:
        if s.origin == f.origin and (f.path == s.path or s.path in f.path.parents):
            return str(s.path)
    return ""


def _where(f: LibraryFile) -> str:
    return {"inbox": "the inbox", "added": "an added folder", "settings": "a library folder"}.get(
        f.origin, f.origin
    )


def _shown(raw: str) -> str:
    return "".join(c if c.isprintable() else "\ufffd" for c in raw or "")[:120]


def _counts(entries: dict[str, Entry], hashes: dict[Path, str], total: int) -> dict[str, int]:
    """Files indexed, excluded and waiting (by file, from the hash cache: a file never
    hashed is waiting)."""
    ok = sum(1 for s in hashes.values() if s in entries and entries[s].status == "ok")
    excluded = sum(1 for s in hashes.values() if s in entries and entries[s].status == "excluded")
    return {"indexed": ok, "excluded": excluded, "waiting": total - ok - excluded}
