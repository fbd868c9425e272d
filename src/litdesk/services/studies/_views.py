"""The views the studies area returns. Each has ``to_dict()``: the JSON the API answers
and the data the matching page renders (one builder for both, so they cannot drift)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Literal, TypedDict

from litdesk.core.imports import ImportTrace
from litdesk.core.providers import lane_label
from litdesk.services.jobs import JobView
from litdesk.services.search import (
    Export,  # one download view for every area
    KeptRun,
)
from litdesk.services.workspace import RecoveredStudy, StudyImport, StudySummary

if TYPE_CHECKING:  # the file readers are imported by an import
    from litdesk.services.imports import RefusedFile

__all__ = [
    "GroupRow",
    "MemberRow",
    "RecordRow",
    "RecordsView",
    "StudyCounts",
    "WorkingSetView",
    "AttachedPdfView",
    "Export",
    "ImportOutcome",
    "ImportRow",
    "ImportView",
    "NotebookExport",
    "EvidenceTable",
    "FulltextCheckRow",
    "FULLTEXT_PAGE",
    "FULLTEXT_SHOWS",
    "FulltextCounts",
    "FulltextShow",
    "FulltextView",
    "NotebookView",
    "PaperFulltextRow",
    "PaperRetrieval",
    "PdfLinkRow",
    "PrismaView",
    "RecoveredView",
    "SavedRow",
    "SavedView",
    "StudiesView",
    "StudyRetrieval",
    "StudyRow",
    "StudyView",
    "WorkspaceCounts",
]


class StudyRow(TypedDict):
    """A Study in a list (with its paper count)."""

    id: str
    name: str
    description: str | None
    created_at: str
    papers: int


class SavedRow(TypedDict):
    """A saved paper in the saved list."""

    id: str
    title: str
    authors: list[str]
    more_authors: int
    journal: str | None
    year: int | None
    doi: str | None
    status: str | None
    retracted: bool
    #: the paper's PDF in the library (attached by the account or linked in one of its
    #: Studies): ``{"sha256", "file"}``, else ``None``
    pdf: dict[str, str] | None


@dataclass(frozen=True, slots=True)
class StudiesView:
    studies: list[StudyRow]

    def to_dict(self) -> dict[str, object]:
        return {"studies": self.studies}


class ImportRow(TypedDict):
    """One of a Study's imports for a person: the file's name, its format, records and when
    (an import that cannot be read says so in ``label``, with no format and no records)."""

    id: str
    source: str
    #: "psycinfo_64.ris, 64 records, 5 Dec 2026"
    label: str
    format: str
    records: int
    created_at: str
    #: the source PRISMA counts its records under ("Embase"; before sources were named:
    #: "Import: file.ris (ris)") and its kind (database, register, other)
    counted_as: str
    prisma_kind: str


@dataclass(frozen=True, slots=True)
class StudyView:
    """A Study's page: one page of its papers with its counts (``summary``), its kept
    search runs (with their definitions, so a page can restore one into the search form)
    and its imports, where the page sits among the pages, each listed paper's PDF and full
    text with the counts over all its papers, its working set's numbers and its whole
    searches by round."""

    summary: StudySummary
    runs: list[KeptRun]
    import_rows: list[ImportRow]
    page: int
    pages: int
    per_page: int
    retrieval: StudyRetrieval
    working_set: StudyCounts
    rounds: SearchRoundsView

    @property
    def id(self) -> str:
        return self.summary.id

    @property
    def papers_total(self) -> int:
        """How many papers the Study holds (its page lists some of them)."""
        return self.summary.papers_total

    def to_dict(self) -> dict[str, object]:
        # fresh rows: a face adds to them (each kept run's restore address)
        return self.summary.to_dict() | {
            "runs": [dict(run) for run in self.runs],
            "import_rows": [dict(row) for row in self.import_rows],
            "page": self.page,
            "pages": self.pages,
            "per_page": self.per_page,
            "retrieval": self.retrieval.to_dict(),
            "working_set": self.working_set.to_dict(),
            "search_rounds": list(self.rounds.rounds),
            "latest_update": self.rounds.latest_update,
            "begun_rounds": list(self.rounds.begun),
        }


@dataclass(frozen=True, slots=True)
class SavedView:
    rows: list[SavedRow]
    total_saved: int
    matched: int
    cap: int
    capped: bool
    page: int
    pages: int
    filters: dict[str, str | None]
    studies: list[StudyRow]

    def to_dict(self) -> dict[str, object]:
        return {
            "papers": self.rows,
            "total_saved": self.total_saved,
            "matched": self.matched,
            "cap": self.cap,
            "capped": self.capped,
            "page": self.page,
            "pages": self.pages,
            "filters": self.filters,
            "studies": self.studies,
        }


@dataclass(frozen=True, slots=True)
class NotebookView:
    notes: list[dict[str, object]]
    total: int
    problems: list[str]
    filters: dict[str, str | None]
    studies: list[StudyRow]

    def to_dict(self) -> dict[str, object]:
        return {
            "notes": self.notes,
            "total": self.total,
            "matched": len(self.notes),
            "problems": self.problems,
            "filters": self.filters,
            "studies": self.studies,
        }


@dataclass(frozen=True, slots=True)
class NotebookExport:
    """The review notebook (Markdown) of a Study, or of every saved paper."""

    title: str
    study_id: str | None
    papers: int
    notes: int
    evidence: int
    text: str

    def to_dict(self) -> dict[str, object]:
        return {
            "title": self.title,
            "study_id": self.study_id,
            "papers": self.papers,
            "notes": self.notes,
            "evidence": self.evidence,
            "markdown": self.text,
        }

    def download(self) -> Export:
        return Export(
            self.text.encode("utf-8"),
            "review-notebook.md",
            "text/markdown; charset=utf-8",
            self.notes + self.evidence,
        )


@dataclass(frozen=True, slots=True)
class EvidenceTable:
    """The evidence table as spreadsheet-safe CSV."""

    study_id: str | None
    rows: int
    text: str
    problems: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "rows": self.rows,
            "csv": self.text,
            "problems": list(self.problems),
        }

    def download(self) -> Export:
        return Export(
            self.text.encode("utf-8"), "evidence.csv", "text/csv; charset=utf-8", self.rows
        )


@dataclass(frozen=True, slots=True)
class PrismaView:
    """A Study's PRISMA-S report as data (the page and the API render the same)."""

    study_id: str
    report: dict[str, object]

    def to_dict(self) -> dict[str, object]:
        return {"study_id": self.study_id} | self.report


@dataclass(frozen=True, slots=True)
class RecoveredView:
    """A Study recovered from its ZIP export: its id, name and what was stored."""

    study: RecoveredStudy
    #: per stage, the ZIP's screening decisions recorded (as the recovering account's),
    #: already there, rows without a decision and rows matched to no record (``error``: the
    #: stage's file was refused, the Study is stored without its decisions)
    decisions: Mapping[str, Mapping[str, int | str]] = field(default_factory=dict)
    #: the ZIP's history's reviewers: ``name`` (as in the ZIP), ``as`` (``account``: their
    #: own account here; ``you``: the recovering account; ``name``: no account here, their
    #: name kept as the reviewer, recorded by you), ``reviewer`` (as recorded), ``events``
    reviewers: tuple[Mapping[str, object], ...] = ()

    def to_dict(self) -> dict[str, object]:
        return self.study.to_dict() | {
            "decisions": {k: dict(v) for k, v in self.decisions.items()},
            "reviewers": [
                {k: v for k, v in r.items() if k != "reviewer" or r.get("as") == "name"}
                for r in self.reviewers
            ],
        }


def _imported(traces: tuple[ImportTrace, ...], done: StudyImport | None) -> list[dict[str, object]]:
    """One summary per read file (format, encoding, records, notices by kind) with what
    was saved from it; a repeat is named in its ``repeats``."""
    if done is None:
        return []
    out: list[dict[str, object]] = []
    for trace, result in zip(traces, done.files, strict=True):
        kinds: dict[str, int] = {}
        for notice in trace.notices:
            kinds[notice.kind] = kinds.get(notice.kind, 0) + 1
        for record in trace.records:
            for notice in record.notices:
                kinds[notice.kind] = kinds.get(notice.kind, 0) + 1
        out.append(
            {
                "file": trace.source.path,
                "format": trace.source.format,
                "encoding": trace.source.encoding,
                "bytes": trace.source.bytes,
                "records": len(trace.records),
                "notices": dict(sorted(kinds.items())),
            }
            | result.to_dict()
        )
    return out


@dataclass(frozen=True, slots=True)
class ImportView:
    """Files imported into a Study: what was saved from each read file (``done``, None
    when every file was refused and nothing was stored) and the refused files."""

    study_id: str
    study_name: str
    traces: tuple[ImportTrace, ...]
    refused: tuple[RefusedFile, ...]
    done: StudyImport | None

    @property
    def study_created(self) -> bool:
        return self.done is not None and self.done.study_created

    def to_dict(self) -> dict[str, object]:
        """The web's (and the import job's) answer."""
        return {
            "study_id": self.study_id,
            "study_name": self.study_name,
            "imported": _imported(self.traces, self.done),
            "refused": [
                {"file": r.path, "code": r.code, "message": r.message} for r in self.refused
            ],
        }


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    """An import's result (imported within the call) or its queued job."""

    result: ImportView | None = None
    job: JobView | None = None

    def to_dict(self) -> dict[str, object]:
        if self.job is not None:
            return {"job": self.job.to_dict()}
        return self.result.to_dict() if self.result is not None else {}


# --- whole searches into a Study and its update rounds (issue 27) --------------------------


class LanePreview(TypedDict):
    """One lane of a whole search before it starts: the provider's total, what the cap
    lets through, the requests that takes and the allowance left for it (``None`` on a
    replay, which spends none)."""

    provider: str
    lane: str
    total: int | None
    cap: int
    over_cap: bool
    records: int
    requests: int
    allowance_left: int | None
    enough: bool
    problem: str | None


@dataclass(frozen=True, slots=True)
class AddSearchPreview:
    """What adding a search whole will do (the preview asked one record per lane: that
    is ``spent`` requests of the allowance already). ``replay``: the answers come from a
    cassette (``--replay``), which spends no allowance: ``spent`` is 0 and no lane has an
    allowance left."""

    study_id: str
    study_name: str
    query: str
    definition: dict[str, object]
    cap: int
    lanes: list[LanePreview]
    spent: int
    replay: bool = False

    @property
    def records(self) -> int:
        return sum(lane["records"] for lane in self.lanes)

    @property
    def requests(self) -> int:
        return sum(lane["requests"] for lane in self.lanes)

    @property
    def warnings(self) -> list[str]:
        out: list[str] = []
        for lane in self.lanes:
            if lane["over_cap"]:
                out.append(
                    f"{lane_label(lane['lane'])}: {lane['total']:,} records, over the cap of "
                    f"{lane['cap']:,}: only the first {lane['cap']:,} are added (recorded as capped)"
                )
            if not lane["enough"]:
                out.append(
                    f"{lane_label(lane['lane'])}: {lane['requests']:,} requests needed, "
                    f"{lane['allowance_left']:,} left today: the search stops when it is spent"
                )
            if lane["problem"]:
                out.append(f"{lane_label(lane['lane'])}: {lane['problem']}")
        return out

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "study_name": self.study_name,
            "query": self.query,
            "definition": self.definition,
            "cap": self.cap,
            "lanes": list(self.lanes),
            "records": self.records,
            "requests": self.requests,
            "spent": self.spent,
            "replay": self.replay,
            "warnings": self.warnings,
        }


@dataclass(frozen=True, slots=True)
class WholeSearchJob:
    """A whole-search or update job of a Study, as queued or as it stands."""

    study_id: str
    study_name: str
    job: JobView
    searches: int
    exit_status: int | None = None  # once the job ended (see _whole_jobs.exit_status)
    #: its word once the job ended: done, failed, partial, cancelled, allowance_spent or
    #: refused (see _whole_jobs.outcome)
    outcome: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "study_name": self.study_name,
            "searches": self.searches,
            "exit_status": self.exit_status,
            "outcome": self.outcome,
            "job": self.job.to_dict(),
        }


class RoundSummary(TypedDict):
    """One whole search of a Study: the round that brought it and its report."""

    run_id: str
    round: int
    kind: str
    query: str
    cap: int
    by: str
    created_at: str
    records: int
    new: int
    already_known: int
    changed: int
    retracted_since: int
    lanes: list[dict[str, object]]


@dataclass(frozen=True, slots=True)
class SearchRoundsView:
    """A Study's whole searches by round (0: added before the first update; 1, 2, ...:
    update rounds, with the searches added while each was the latest)."""

    study_id: str
    study_name: str
    rounds: list[RoundSummary]
    #: the update rounds begun by hand (``study round``): round, by, began_at, note
    begun: list[dict[str, object]] = field(default_factory=list)

    @property
    def latest_update(self) -> RoundSummary | None:
        updates = [r for r in self.rounds if r["kind"] == "update"]
        return updates[-1] if updates else None

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "study_name": self.study_name,
            "rounds": list(self.rounds),
            "latest_update": self.latest_update,
            "begun_rounds": list(self.begun),
        }


# --- PDFs and licensed full text of a Study's papers -------------------------------------


class PdfLinkRow(TypedDict):
    """A Study paper's PDF: which library file, how it was found, linked or suggested."""

    file: str
    sha256: str
    how: str  # doi | arxiv | pmid | pmcid | title | upload | person
    detail: str
    state: str  # linked | suggested (a rejected link is not shown as a PDF)
    by: str
    at: str
    #: a PDF uploaded for this paper whose first pages are another paper's (``detail`` says
    #: which and how: :func:`litdesk.core.pdfmeta.attach_doubt`)
    doubt: bool


class FulltextCheckRow(TypedDict):
    """A Study paper's latest check for open licensed full text (Europe PMC)."""

    available: bool
    pmcid: str | None
    licence: str | None
    source_url: str | None
    reason: str | None
    checked_at: str


class PaperRetrieval(TypedDict):
    """A paper's PDF and licensed full text in a Study, or neither."""

    pdf: PdfLinkRow | None
    fulltext: FulltextCheckRow | None
    #: pdf | fulltext | both | missing (a suggested PDF counts as missing until confirmed)
    retrieved: str


class PaperFulltextRow(TypedDict):
    """One paper of the Study: its PDF, its licensed full text, or neither."""

    id: str
    title: str
    year: int | None
    doi: str | None
    pdf: PdfLinkRow | None
    fulltext: FulltextCheckRow | None
    #: pdf | fulltext | both | missing (a suggested PDF counts as missing until confirmed)
    retrieved: str


class FulltextCounts(TypedDict):
    """What the Study's papers have at hand: PDFs and licensed full text. These count
    papers, not PRISMA's reports (those are the records that passed title/abstract, and
    the ones recorded not retrieved during full-text screening: the PRISMA 2020 flow)."""

    papers: int
    with_pdf: int
    suggested: int
    with_fulltext: int
    checked: int
    unchecked: int
    #: papers with neither a linked PDF nor licensed full text
    without_full_text: int


@dataclass(frozen=True, slots=True)
class StudyRetrieval:
    """Each Study paper's PDF / full text (by paper id) and the counts (the Study page)."""

    papers: dict[str, PaperRetrieval]
    counts: FulltextCounts

    def to_dict(self) -> dict[str, object]:
        return {"papers": self.papers, "counts": self.counts}


#: Which papers the full-text page lists (see :class:`FulltextView`).
FulltextShow = Literal["sought", "missing", "all"]
FULLTEXT_SHOWS: Final[tuple[FulltextShow, ...]] = ("sought", "missing", "all")
#: Papers a page of the full-text list shows.
FULLTEXT_PAGE: Final = 50


@dataclass(frozen=True, slots=True)
class FulltextView:
    """Which of a Study's papers have a PDF, licensed full text, or neither; with the
    Study's full-text check job (latest) and what a matching pass just did."""

    study_id: str
    study_name: str
    rows: list[PaperFulltextRow]
    counts: FulltextCounts
    library_files: int
    job: JobView | None
    #: what this call changed: {"linked": n, "suggested": n} after matching
    changed: dict[str, int]
    notices: tuple[str, ...] = ()
    #: which papers ``rows`` lists: "sought" (the studies sought for retrieval at screening),
    #: "missing" (neither a PDF nor licensed full text) or "all"; ``listed`` of them in all
    show: FulltextShow = "all"
    listed: int = 0
    #: the Study's papers sought for retrieval (included or "maybe" at title/abstract;
    #: ``None``: not asked, every paper listed)
    sought: int | None = None
    #: ``rows`` is page ``page`` of ``pages`` (``FULLTEXT_PAGE`` papers a page)
    page: int = 1
    pages: int = 1
    #: the sought papers recorded not retrieved while screening full texts (PRISMA's
    #: "reports not retrieved"; asked with ``sought``)
    not_retrieved: frozenset[str] = frozenset()

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "study_name": self.study_name,
            "papers": self.rows,
            "counts": self.counts,
            "library_files": self.library_files,
            "job": self.job.to_dict() if self.job else None,
            "changed": self.changed,
            "notices": list(self.notices),
            "show": self.show,
            "listed": self.listed,
            "sought": self.sought,
            "page": self.page,
            "pages": self.pages,
            "not_retrieved": sorted(self.not_retrieved),
        }


@dataclass(frozen=True, slots=True)
class AttachedPdfView:
    """A PDF uploaded for one paper: stored in the library (or found there already by
    its content) and linked to the paper; the library's index job that reads it."""

    study_id: str
    paper_id: str
    paper_title: str
    file: str
    sha256: str
    stored: bool  # False: the same content was already in the library (linked to it)
    index_job: JobView | None
    #: why the PDF looks like another paper's (:func:`litdesk.core.pdfmeta.attach_doubt`):
    #: linked all the same, shown beside the link with its undo; None: nothing to doubt
    doubt: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "paper_id": self.paper_id,
            "paper_title": self.paper_title,
            "file": self.file,
            "sha256": self.sha256,
            "stored": self.stored,
            "index_job": self.index_job.to_dict() if self.index_job else None,
            "doubt": self.doubt,
        }


@dataclass(frozen=True, slots=True)
class WorkspaceCounts:
    """The header's live counts: the papers the account saved (the saved list's total) and
    its review notes (the notebook's highlights and comments), each one count query."""

    saved: int
    notes: int

    def to_dict(self) -> dict[str, int]:
        return {"saved": self.saved, "notes": self.notes}


# --- a Study's records and working set (issue 27) ------------------------------------------


@dataclass(frozen=True, slots=True)
class StudyCounts:
    """What a Study identified and what it screens — the numbers its page, its exports and
    its PRISMA report share: records per source and in all, duplicates removed, studies in
    the working set (``pending``: records not deduplicated yet, each a study of its own)."""

    identified: int
    per_source: dict[str, int]
    duplicates_removed: int
    studies: int
    pending: int

    def to_dict(self) -> dict[str, object]:
        return {
            "records_identified": self.identified,
            "records_per_source": dict(self.per_source),
            "duplicates_removed": self.duplicates_removed,
            "studies": self.studies,
            "not_deduplicated": self.pending,
        }


class RecordRow(TypedDict):
    """One identified record: its source and where it sits there, its group and rule."""

    key: str
    title: str
    year: int | None
    doi: str | None
    source_kind: str
    source_id: str
    source: str  # the source as people read it (file name and format, the search)
    database: str
    rank: int | None
    group: str | None
    rule: str | None


class MemberRow(TypedDict):
    key: str
    title: str
    year: int | None
    source: str
    database: str
    rank: int | None
    rule: str


class GroupRow(TypedDict):
    """A study of the working set: its merged record and its member records."""

    key: str
    title: str
    authors: list[str]
    year: int | None
    journal: str | None
    doi: str | None
    pending: bool
    members: list[MemberRow]


@dataclass(frozen=True, slots=True)
class RecordsView:
    study_id: str
    study_name: str
    counts: StudyCounts
    rows: list[RecordRow]
    page: int
    pages: int

    def to_dict(self) -> dict[str, object]:
        return {
            "study": {"id": self.study_id, "name": self.study_name},
            "counts": self.counts.to_dict(),
            "records": list(self.rows),
            "page": self.page,
            "pages": self.pages,
        }


@dataclass(frozen=True, slots=True)
class WorkingSetView:
    study_id: str
    study_name: str
    counts: StudyCounts
    groups: list[GroupRow]
    page: int
    pages: int

    def to_dict(self) -> dict[str, object]:
        return {
            "study": {"id": self.study_id, "name": self.study_name},
            "counts": self.counts.to_dict(),
            "working_set": list(self.groups),
            "page": self.page,
            "pages": self.pages,
        }
