"""The typed views of the library area's page and uploads (each with ``to_dict()``, JSON
ready). The other views the area returns live beside the parts that make them:
:class:`~._results.Answer` and :class:`~._results.Adoption`, :class:`~._viewer.ViewerPage`
and :class:`~._viewer.PageImageBytes`, :class:`~._chat.ChatSession` and
:class:`~._chat.ChatRound`, :class:`~._chat_jobs.ChatJob`,
:class:`~._model_status.ModelStatus`, and the job queue's ``JobView``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Required, TypedDict

from litdesk.services.jobs import JobView

from ._indexer import IndexReport
from ._model_status import ModelStatus

__all__ = [
    "ArrivingRow",
    "arriving_rows",
    "FileRow",
    "IndexCounts",
    "IndexOutcome",
    "LibraryStatus",
    "LibraryView",
    "ProtocolView",
    "RefusedUpload",
    "SourceChange",
    "SourceRow",
    "StatusRow",
    "StatusSource",
    "StoredUpload",
    "StudyLink",
    "UploadReport",
    "VectorIndexSummary",
]


class SourceRow(TypedDict):
    """A source of the library, in its order (earlier wins on a duplicate file name)."""

    order: int
    path: str
    origin: str
    recursive: bool
    exists: bool
    files: int


class StudyLink(TypedDict):
    id: str
    name: str


class FileRow(TypedDict):
    """One library PDF with its index state, adopted record and the Studies (the
    asking account may see) of its paper."""

    file: str
    origin: str
    sha256: str | None
    indexed: bool
    pages: int | None
    text_layer: bool | None
    excluded: str | None
    excluded_code: str | None
    #: an indexed PDF without a text layer: where its text came from (else ``None``)
    text_source: str | None
    doi: str | None
    arxiv: str | None
    chunks: int
    adopted_title: str | None
    authors: list[str]
    year: int | None
    adopted_doi: str | None
    adopted_arxiv: str | None
    studies: list[StudyLink]
    #: the title ``owner`` confirmed for the PDF (else ``None``)
    confirmed_title: str | None
    #: the saved paper the PDF is for ``owner`` (attached, or linked in one of its Studies)
    paper: dict[str, Any] | None


class ArrivingRow(TypedDict):
    """Another host's PDF on its way here (a shared object store): listed once copied,
    in the background (a page never waits for it). ``sha256``: ``None`` for an upload
    (the object store knows it by name only)."""

    file: str
    sha256: str | None


def arriving_rows(pending: list[tuple[str, str | None]]) -> list[ArrivingRow]:
    """The other hosts' PDFs not copied here yet, as rows (an upload's hash: ``None``)."""
    return [ArrivingRow(file=name, sha256=sha) for name, sha in pending]


class IndexCounts(TypedDict):
    indexed: int
    excluded: int
    waiting: int


@dataclass(frozen=True, slots=True)
class LibraryView:
    """The library page: sources in order, warnings, one page of files, the index job;
    the upload limits; the model status when asked for."""

    sources: list[SourceRow]
    warnings: list[str]
    files: list[FileRow]
    total: int
    page: int
    per_page: int
    inbox: str
    embedder: str
    job: JobView | None
    counts: IndexCounts
    upload_limit: int
    upload_files: int
    models: ModelStatus | None = None
    #: the other hosts' PDFs not copied here yet (not in ``files`` nor ``total``)
    arriving: list[ArrivingRow] = field(default_factory=list)

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "sources": self.sources,
            "warnings": self.warnings,
            "files": self.files,
            "total": self.total,
            "page": self.page,
            "per_page": self.per_page,
            "pages": self.pages,
            "inbox": self.inbox,
            "embedder": self.embedder,
            "job": self.job.to_dict() if self.job is not None else None,
            "counts": self.counts,
            "upload_limit": self.upload_limit,
            "upload_files": self.upload_files,
            "arriving": self.arriving,
        }
        if self.models is not None:
            out["models"] = self.models.to_dict()
        return out


@dataclass(frozen=True, slots=True)
class StoredUpload:
    file: str
    bytes: int
    sha256: str
    #: the library file that already has these bytes (indexed once)
    same_content_as: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "bytes": self.bytes,
            "sha256": self.sha256,
            "same_content_as": self.same_content_as,
        }


class RefusedUpload(TypedDict):
    file: str
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class UploadReport:
    """What one upload request did: each file stored or refused, and the index job."""

    stored: tuple[StoredUpload, ...]
    refused: tuple[RefusedUpload, ...]
    inbox: str
    job: JobView | None

    def to_dict(self) -> dict[str, object]:
        return {
            "stored": [s.to_dict() for s in self.stored],
            "refused": list(self.refused),
            "inbox": self.inbox,
            "job": self.job.to_dict() if self.job is not None else None,
        }


class StatusSource(TypedDict):
    path: str
    recursive: bool
    origin: str


class StatusRow(TypedDict):
    """One library PDF as ``litdesk library list`` shows it."""

    file: str
    path: str
    origin: str
    sha256: str | None
    indexed: bool
    pages: int | None
    text_layer: bool | None
    excluded: str | None
    excluded_code: str | None
    #: an indexed PDF without a text layer: where its text came from (else ``None``)
    text_source: str | None
    doi: str | None
    arxiv: str | None
    chunks: int
    adopted_title: str | None


@dataclass(frozen=True, slots=True)
class LibraryStatus:
    """Every library PDF with its index state, the sources, the discovery warnings."""

    files: list[StatusRow]
    sources: list[StatusSource]
    warnings: list[str]
    embedder: str
    chunking: str
    #: the other hosts' PDFs not copied here yet (not in ``files``)
    arriving: list[ArrivingRow] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "files": self.files,
            "sources": self.sources,
            "warnings": self.warnings,
            "embedder": self.embedder,
            "chunking": self.chunking,
            "arriving": self.arriving,
        }


@dataclass(frozen=True, slots=True)
class SourceChange:
    """A folder or PDF added to (or removed from) the library's sources."""

    path: str
    #: added: newly added (``False``: it was already there); removed: always ``True``
    changed: bool
    removed: bool = False
    #: its PDFs stored for the other hosts (a shared object store; else 0)
    shared: int = 0
    #: what could not be stored for them
    warnings: tuple[str, ...] = ()
    #: removed: its PDFs deleted from the shared object store (no host's folder holds them)
    unshared: int = 0

    def to_dict(self) -> dict[str, object]:
        if self.removed:
            out_removed: dict[str, object] = {"path": self.path, "removed": True}
            if self.unshared:
                out_removed["unshared"] = self.unshared
            return out_removed
        out: dict[str, object] = {"path": self.path, "added": self.changed}
        if self.shared or self.warnings:
            out |= {"shared": self.shared, "warnings": list(self.warnings)}
        return out


class VectorIndexSummary(TypedDict, total=False):
    """The whole library's vector index after an index run: ``exact`` search below
    ``exact_below`` chunks, else an IVF layout with its cells, whether it was ``trained``,
    ``updated`` or ``reused`` and in how many seconds."""

    kind: Required[str]
    chunks: Required[int]
    cells: int
    built: str
    seconds: float


@dataclass(frozen=True, slots=True)
class IndexOutcome:
    """One index run here and now (``litdesk library index``): the report, the discovery
    warnings and the vector index built after it (``None`` when interrupted)."""

    report: IndexReport
    warnings: list[str]
    vector_index: VectorIndexSummary | None

    def to_dict(self) -> dict[str, object]:
        return self.report.to_dict() | {
            "warnings": self.warnings,
            "vector_index": self.vector_index,
        }


@dataclass(frozen=True, slots=True)
class ProtocolView:
    """One day's protocol of questions (``litdesk library protocol``): every answer of the
    day, whichever host gave it, in time order."""

    day: str
    answers: int
    text: str

    def to_dict(self) -> dict[str, object]:
        return {"day": self.day, "answers": self.answers, "text": self.text}
