"""The requests of the studies area, validated once here for every face."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Final

from litdesk._errors import InputError
from litdesk.adapters.store import READING_STATUSES
from litdesk.core.imports import ImportTrace, SourceLabel, default_source, source_label
from litdesk.core.providers import DECLARED
from litdesk.core.vocab import parse_subject_ref
from litdesk.services.workspace import MAX_ZIP_BYTES

if TYPE_CHECKING:  # the search area is imported by the use cases that search
    from litdesk.services.search import SearchRequest

__all__ = [
    "WHOLE_DEFAULT_CAP",
    "WHOLE_MAX_CAP",
    "AddSearchRequest",
    "UpdateStudyRequest",
    "WORKING_PAGE",
    "RecordsRequest",
    "STUDY_PAGE",
    "STUDY_MAX_PAGE",
    "StudyRequest",
    "WorkingSetExportRequest",
    "WorkingSetRequest",
    "EXPORT_MEDIA",
    "MAX_DESCRIPTION",
    "MAX_IMPORT_BYTES",
    "MAX_IMPORT_FILES",
    "MAX_IMPORT_FILE_BYTES",
    "MAX_STUDY_NAME",
    "MAX_STUDY_ZIP_BYTES",
    "PRISMA_FORMATS",
    "AttachPdfRequest",
    "CreateStudyRequest",
    "EvidenceExportRequest",
    "ImportInputError",
    "ImportRequest",
    "NotebookExportRequest",
    "NotebookRequest",
    "PdfLinkRequest",
    "PrismaExportRequest",
    "RecoverRequest",
    "RenameStudyRequest",
    "SavedExportRequest",
    "SavedRequest",
    "StudiesInputError",
]

MAX_STUDY_NAME: Final = 200
MAX_DESCRIPTION: Final = 4_000
MAX_TEXT: Final = 300
MAX_IMPORT_FILES: Final = 20
MAX_IMPORT_FILE_BYTES: Final = 20_000_000
#: The files of one web import together (the request's limit): what a job keeps stored.
MAX_IMPORT_BYTES: Final = 60_000_000
#: A ZIP uploaded through the web face (the workspace itself accepts up to MAX_ZIP_BYTES).
MAX_STUDY_ZIP_BYTES: Final = min(MAX_ZIP_BYTES, 100_000_000)
EXPORT_MEDIA: Final = {
    "ris": ("application/x-research-info-systems", "ris"),
    "csv": ("text/csv; charset=utf-8", "csv"),
    "bibtex": ("application/x-bibtex", "bib"),
}
PRISMA_FORMATS: Final[dict[str, tuple[str, str]]] = {
    "md": ("text/markdown; charset=utf-8", "md"),
    "html": ("text/html; charset=utf-8", "html"),
    "svg": ("image/svg+xml", "svg"),
}


class StudiesInputError(InputError):
    """A request to the studies area does not fit (a name, a format, a filter)."""

    default_code = "desk_input"


class ImportInputError(StudiesInputError):
    """An upload to import does not fit (no file, too many files, too many bytes)."""


def _name(name: str) -> str:
    name = " ".join(name.split())
    if not name or len(name) > MAX_STUDY_NAME:
        raise StudiesInputError(
            f"a Study name is 1 to {MAX_STUDY_NAME} characters", code="bad_name"
        )
    return name


def _status(status: str | None) -> None:
    if status is not None and status not in READING_STATUSES:
        raise StudiesInputError(
            f"reading status is one of {', '.join(READING_STATUSES)}", code="status"
        )


def _blank(value: str | None) -> str | None:
    return value if value else None


@dataclass(frozen=True, slots=True)
class CreateStudyRequest:
    """A new Study: its name (unique per owner) and an optional description."""

    name: str
    description: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", _name(self.name))
        object.__setattr__(self, "description", _blank(self.description))
        if self.description is not None and len(self.description) > MAX_DESCRIPTION:
            raise StudiesInputError(
                f"a description is at most {MAX_DESCRIPTION:,} characters", code="description"
            )


@dataclass(frozen=True, slots=True)
class RenameStudyRequest:
    """A Study (id or name) and its new name."""

    ref: str
    name: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", _name(self.name))


@dataclass(frozen=True, slots=True)
class SavedRequest:
    """One page of the saved papers, filtered by words, Study and reading status."""

    text: str = ""
    study: str | None = None
    status: str | None = None
    page: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _blank(self.study))
        _status(self.status)
        if len(self.text) > MAX_TEXT:
            raise StudiesInputError(f"a filter is at most {MAX_TEXT} characters", code="text")
        object.__setattr__(self, "page", max(1, self.page))


@dataclass(frozen=True, slots=True)
class SavedExportRequest:
    """The filtered saved list as RIS, CSV or BibTeX."""

    format: str = "ris"
    text: str = ""
    study: str | None = None
    status: str | None = None

    def __post_init__(self) -> None:
        if self.format not in EXPORT_MEDIA:
            raise StudiesInputError(
                f"export format is one of {', '.join(EXPORT_MEDIA)}", code="format"
            )
        object.__setattr__(self, "study", _blank(self.study))
        _status(self.status)


@dataclass(frozen=True, slots=True)
class NotebookRequest:
    """The review notebook's notes, filtered by words, kind and Study."""

    text: str = ""
    kind: str | None = None
    study: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", _blank(self.kind))
        object.__setattr__(self, "study", _blank(self.study))
        if self.kind not in (None, "highlight", "comment"):
            raise StudiesInputError("kind is highlight or comment", code="kind")


@dataclass(frozen=True, slots=True)
class NotebookExportRequest:
    """The review notebook (Markdown) of a Study, or of every saved paper."""

    study: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _blank(self.study))


@dataclass(frozen=True, slots=True)
class EvidenceExportRequest:
    """The evidence table (CSV) of a Study, or of every saved paper (only the records
    linked to ``subject``, as in ``mesh:D003920``, when given)."""

    study: str | None = None
    subject: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _blank(self.study))
        object.__setattr__(self, "subject", _blank(self.subject))
        if self.subject is not None:
            parse_subject_ref(self.subject)


@dataclass(frozen=True, slots=True)
class PrismaExportRequest:
    """A Study's PRISMA-S report as Markdown, self-contained HTML or the SVG diagram."""

    ref: str
    format: str = "md"

    def __post_init__(self) -> None:
        if self.format not in PRISMA_FORMATS:
            raise StudiesInputError(
                f"PRISMA-S format is one of {', '.join(PRISMA_FORMATS)}", code="format"
            )


@dataclass(frozen=True, slots=True)
class RecoverRequest:
    """A Study's ZIP export to recover as a new Study (``name``: the new Study's name);
    ``limit``: the bytes a face accepts (the web: :data:`MAX_STUDY_ZIP_BYTES`)."""

    data: bytes
    name: str | None = None
    limit: int = MAX_STUDY_ZIP_BYTES

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", _blank(self.name and self.name.strip()))
        if len(self.data) > self.limit:
            raise StudiesInputError(f"the ZIP has more than {self.limit:,} bytes", code="too_large")
        if not self.data:
            raise StudiesInputError("the uploaded file is empty", code="empty_file")


@dataclass(frozen=True, slots=True)
class ImportRequest:
    """Export files to import into a Study: ``uploads`` a face holds as ``(name, bytes)``
    (the web; at most :data:`MAX_IMPORT_FILES` files and :data:`MAX_IMPORT_BYTES` bytes,
    into an existing Study) or ``paths`` to read (the CLI; ``create``: make the Study
    when it does not exist); ``status``: the reading status of every saved paper. ``refuse_all``: when every file is refused, raise the
    refusal (the CLI's exit status) instead of reporting it beside nothing."""

    study: str
    uploads: tuple[tuple[str, bytes], ...] = ()
    paths: tuple[str, ...] = ()
    format: str | None = None
    strict_ids: bool = False
    create: bool = False
    refuse_all: bool = False
    status: str | None = None
    #: the source PRISMA counts every file's records under (issue 28): its name ("Embase")
    #: and kind (database, register, other); unstated: what each file states, else its file
    source_name: str | None = None
    source_kind: str | None = None

    def __post_init__(self) -> None:
        # validated now (a kind without a name is named after each file when it is read)
        label = source_label(self.source_name, self.source_kind, fallback="file")
        if label is not None and self.source_name is not None and self.source_name.strip():
            object.__setattr__(self, "source_name", label.name)
        if self.source_kind is not None:
            object.__setattr__(self, "source_kind", self.source_kind.strip().lower() or None)
        if self.status is not None and self.status not in READING_STATUSES:
            raise ImportInputError(
                f"reading status must be one of {', '.join(READING_STATUSES)}", code="bad_status"
            )
        if not self.study.strip():
            raise ImportInputError("choose a Study to import into", code="no_study")
        if self.uploads and self.paths:
            raise ImportInputError("import uploads or paths, not both", code="sources")
        if not self.uploads and not self.paths:
            raise ImportInputError("choose at least one file", code="no_files")
        if self.uploads:
            if len(self.uploads) > MAX_IMPORT_FILES:
                raise ImportInputError(
                    f"more than {MAX_IMPORT_FILES} files chosen, and one import takes at "
                    f"most {MAX_IMPORT_FILES}: nothing was imported; import them "
                    f"{MAX_IMPORT_FILES} at a time (or all at once with litdesk import)",
                    code="too_many_files",
                )
            if self.size > MAX_IMPORT_BYTES:
                raise ImportInputError(
                    f"the files of one import total at most {MAX_IMPORT_BYTES:,} bytes",
                    code="import_too_large",
                )
            named = tuple(((n or "file")[:200], d) for n, d in self.uploads)
            object.__setattr__(self, "uploads", named)

    @property
    def size(self) -> int:
        """The uploads' bytes together (0 for paths)."""
        return sum(len(data) for _name, data in self.uploads)

    def source_for(self, trace: ImportTrace) -> SourceLabel | None:
        """The source a read file's records count under: the one stated (a kind alone:
        the file's own source name, else its file name), else ``None`` (what the file
        states, :func:`default_source`, else its file)."""
        if self.source_name is None and self.source_kind is None:
            return None
        stated = default_source(trace)
        fallback = stated.name if stated else PurePath(trace.source.path).name
        return source_label(self.source_name, self.source_kind, fallback=fallback)


# --- whole searches into a Study and its update rounds (issue 27) --------------------------

#: the cap per lane of a whole search unless the request states one, and the largest
WHOLE_DEFAULT_CAP: Final = 10_000
WHOLE_MAX_CAP: Final = 10_000


@dataclass(frozen=True, slots=True)
class AddSearchRequest:
    """Add every record of a search (each lane paged up to ``cap_per_lane``) to a Study.
    The search is the one ``litdesk search`` and the search page run (its cursor, page
    and limit do not apply: every page is read)."""

    study: str
    search: SearchRequest
    cap_per_lane: int = WHOLE_DEFAULT_CAP

    def __post_init__(self) -> None:
        if not self.study.strip():
            raise StudiesInputError("name the Study to add the search to", code="study")
        if not 1 <= self.cap_per_lane <= WHOLE_MAX_CAP:
            raise StudiesInputError(
                f"the cap per lane is 1 to {WHOLE_MAX_CAP:,} records", code="cap"
            )
        if self.search.mode in ("semantic", "identifier"):
            raise StudiesInputError(
                "only a keyword or discovery search can be added whole (a semantic search "
                "is a bounded shortlist, an identifier search one record)",
                code="whole_mode",
            )
        if self.search.cursor is not None:
            raise StudiesInputError(
                "a whole search starts at its first page (no cursor)", code="cursor"
            )


@dataclass(frozen=True, slots=True)
class UpdateStudyRequest:
    """Re-run a Study's saved searches as recorded (their definitions and caps);
    ``providers``: only those databases of them (say, the one that failed last time; none
    given: every database each search names)."""

    study: str
    providers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.study.strip():
            raise StudiesInputError("name the Study to update", code="study")
        names = tuple(dict.fromkeys(p.strip().lower() for p in self.providers if p.strip()))
        unknown = [p for p in names if p not in DECLARED]
        if unknown:
            raise StudiesInputError(
                f"no such database: {', '.join(unknown)[:120]} (one of {', '.join(DECLARED)})",
                code="providers",
            )
        object.__setattr__(self, "providers", names)


# --- PDFs and licensed full text of a Study's papers -------------------------------------

MAX_PAPER_REF: Final = 200


def _ref(value: str, what: str, code: str) -> str:
    value = (value or "").strip()
    if not value or len(value) > MAX_PAPER_REF:
        raise StudiesInputError(f"name {what} (1 to {MAX_PAPER_REF} characters)", code=code)
    return value


@dataclass(frozen=True, slots=True)
class PdfLinkRequest:
    """One paper of a Study (its id, DOI, PMID … as ``litdesk`` names papers) whose PDF
    link a person confirms or undoes."""

    study: str
    paper: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study", "study"))
        object.__setattr__(self, "paper", _ref(self.paper, "a paper of the Study", "paper"))


@dataclass(frozen=True, slots=True)
class AttachPdfRequest:
    """A PDF uploaded for one paper of a Study: it goes into the library (the library's
    upload checks — a safe ``.pdf`` name, ``%PDF-`` first, its size limit — made by the
    area after the Study's access check) and is linked to the paper."""

    study: str
    paper: str
    name: str
    data: bytes

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study", "study"))
        object.__setattr__(self, "paper", _ref(self.paper, "a paper of the Study", "paper"))
        if not self.data:
            raise StudiesInputError("the PDF is empty", code="empty")


# --- a Study's records and working set (issue 27) ------------------------------------------

#: rows per page of a Study's records and of its working set
WORKING_PAGE: Final = 50


def _study_ref(ref: str) -> str:
    if not ref.strip():
        raise StudiesInputError("a Study is named by its id or name", code="study")
    return ref.strip()


#: a Study page's papers per page (default) and the most one page may list
STUDY_PAGE: Final = 50
STUDY_MAX_PAGE: Final = 500


@dataclass(frozen=True, slots=True)
class StudyRequest:
    """A Study (id or name) and one page of its papers (``per_page`` of them, newest
    first; a page past the last shows the last)."""

    ref: str
    page: int = 1
    per_page: int = STUDY_PAGE

    def __post_init__(self) -> None:
        object.__setattr__(self, "ref", _study_ref(self.ref))
        if self.page < 1:
            raise StudiesInputError("page is 1 or more", code="page")
        if not 1 <= self.per_page <= STUDY_MAX_PAGE:
            raise StudiesInputError(f"a page lists 1 to {STUDY_MAX_PAGE} papers", code="per_page")


@dataclass(frozen=True, slots=True)
class RecordsRequest:
    """One page of a Study's records (everything its sources identified)."""

    ref: str
    page: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "ref", _study_ref(self.ref))
        if self.page < 1:
            raise StudiesInputError("page is 1 or more", code="page")


@dataclass(frozen=True, slots=True)
class WorkingSetRequest:
    """One page of a Study's working set (its studies to screen, each with its members)."""

    ref: str
    page: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "ref", _study_ref(self.ref))
        if self.page < 1:
            raise StudiesInputError("page is 1 or more", code="page")


@dataclass(frozen=True, slots=True)
class WorkingSetExportRequest:
    """The working set (one merged record per study) as RIS, CSV or BibTeX."""

    ref: str
    format: str = "ris"

    def __post_init__(self) -> None:
        object.__setattr__(self, "ref", _study_ref(self.ref))
        if self.format not in EXPORT_MEDIA:
            raise StudiesInputError(
                f"export format is one of {', '.join(EXPORT_MEDIA)}", code="format"
            )
