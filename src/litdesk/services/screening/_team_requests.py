"""Requests and views of the screening area's team half (issue 28): conflicts and their
resolution, agreement, decisions imported and exported, the PRISMA 2020 flow. Each request
is validated once when made (a :class:`ScreeningRequestError` naming the field)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from litdesk.core.screening import DECISION_FORMATS, DecisionsFormat, Stage, Verdict

from ._requests import (
    MAX_NOTE,
    ScreeningRequestError,
    _ref,
    _text,
    _verdict,
    parse_stage,
)

__all__ = [
    "CONFLICTS_PAGE",
    "CONFLICT_STATUSES",
    "EXPORT_FORMATS",
    "MAX_CONFLICTS_PAGE",
    "MAX_IMPORT_BYTES",
    "PRISMA_FLOW_FORMATS",
    "AgreementRequest",
    "AgreementView",
    "ConflictRow",
    "ConflictStatus",
    "ConflictsRequest",
    "ConflictsView",
    "ExportDecisionsRequest",
    "ImportDecisionsRequest",
    "ImportDecisionsView",
    "PrismaFlowRequest",
    "PrismaFlowView",
    "PrismaRecordsRequest",
    "PrismaRecordsView",
    "RECORD_BOXES",
    "ResolveRequest",
    "RevealView",
    "parse_reviewer_map",
]

ExportFormat = Literal["csv", "ris"]
EXPORT_FORMATS: Final[tuple[ExportFormat, ...]] = ("csv", "ris")
PrismaFlowFormat = Literal["json", "md", "csv", "svg"]
PRISMA_FLOW_FORMATS: Final[tuple[PrismaFlowFormat, ...]] = ("json", "md", "csv", "svg")
#: the largest decisions file read
MAX_IMPORT_BYTES: Final = 64 * 1024 * 1024
MAX_REASON: Final = 500
MAX_FILENAME: Final = 255
#: the PRISMA boxes with a list of records behind their number
RECORD_BOXES: Final = (
    "identified", "removed_duplicates",
    "to_screen", "screened", "awaiting_screening", "excluded_screening", "sought",
    "not_retrieved", "assessed", "awaiting_full_text", "excluded_reports", "included",
)  # fmt: skip
#: the boxes of source records (before deduplication), which a kind or a source narrows
SOURCE_BOXES: Final = ("identified", "removed_duplicates")
#: the kinds of source PRISMA 2020 counts records under
SOURCE_KIND_NAMES: Final = ("database", "register", "other")
RECORDS_PAGE: Final = 100
#: which records of the resolution queue a page lists: those waiting for a resolution,
#: those resolved (a resolution may be changed), or both (in the order first decided)
ConflictStatus = Literal["unresolved", "resolved", "all"]
CONFLICT_STATUSES: Final[tuple[ConflictStatus, ...]] = ("unresolved", "resolved", "all")
#: conflicts per page unless asked otherwise, and the most a page lists
CONFLICTS_PAGE: Final = 25
MAX_CONFLICTS_PAGE: Final = 100
#: at most this many ``Rayyan name=reviewer`` pairs in one import
MAX_REVIEWER_MAP: Final = 200


def parse_reviewer_map(items: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """``Rayyan name=reviewer`` items (one per option, or per line of the web form) as
    pairs; the name may hold ``=`` (the last one splits). Blank items are left out."""
    pairs: list[tuple[str, str]] = []
    for item in items:
        for text in item.splitlines():
            if not text.strip():
                continue
            name, sep, who = text.rpartition("=")
            if not sep or not name.strip() or not who.strip():
                raise ScreeningRequestError(
                    f"reviewer map {text.strip()[:80]!r} is not 'Rayyan name=reviewer'",
                    code="bad_reviewer_map",
                )
            pairs.append((name, who))
    return tuple(pairs)


@dataclass(frozen=True, slots=True)
class ResolveRequest:
    """The decision that settles a conflict (the Study owner, or a member when the Study
    lets the pair or a third reviewer decide); both original decisions stay."""

    study: str
    stage: Stage
    record_key: str
    verdict: Verdict
    reason: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        object.__setattr__(self, "stage", parse_stage(self.stage))
        object.__setattr__(self, "record_key", _ref(self.record_key, "a record key"))
        object.__setattr__(self, "verdict", _verdict(str(self.verdict).strip().lower()))
        reason = " ".join(_text(self.reason, MAX_REASON, "a reason").split())
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "note", _text(self.note, MAX_NOTE, "a note"))


@dataclass(frozen=True, slots=True)
class AgreementRequest:
    """Agreement per reviewer pair and stage (``stage`` None: both)."""

    study: str
    stage: Stage | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        if self.stage is not None:
            object.__setattr__(self, "stage", parse_stage(self.stage))


@dataclass(frozen=True, slots=True)
class ImportDecisionsRequest:
    """A decisions file (CSV, ASReview or Rayyan export; ``format`` None: detected) to
    record as ``reviewer``'s decisions at ``stage`` (``reviewer`` None: the acting
    account; a Rayyan file's own reviewer names when it holds several and none is given).
    ``reviewer_map``: (Rayyan name, reviewer) pairs — a Rayyan file's decisions recorded as
    the mapped reviewers' (an account's user name, or a name), those of reviewers not in
    the map reported, not recorded; with ``reviewer``, only that mapped reviewer's."""

    study: str
    data: bytes = field(repr=False)
    filename: str = "decisions.csv"
    stage: Stage = "title_abstract"
    reviewer: str | None = None
    format: DecisionsFormat | None = None
    reviewer_map: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        object.__setattr__(self, "stage", parse_stage(self.stage))
        if len(self.reviewer_map) > MAX_REVIEWER_MAP:
            raise ScreeningRequestError(
                f"at most {MAX_REVIEWER_MAP} reviewers in the map", code="bad_reviewer_map"
            )
        pairs: dict[str, tuple[str, str]] = {}
        for name, who in self.reviewer_map:
            pair = (" ".join(_ref(name, "a Rayyan name").split()), _ref(who, "a reviewer"))
            if pairs.setdefault(pair[0].casefold(), pair) != pair:
                raise ScreeningRequestError(
                    f"{pair[0]!r} is mapped twice in the reviewer map", code="bad_reviewer_map"
                )
        object.__setattr__(self, "reviewer_map", tuple(pairs.values()))
        if not isinstance(self.data, bytes):
            raise ScreeningRequestError("the file is bytes", code="bad_file")
        if len(self.data) > MAX_IMPORT_BYTES:
            raise ScreeningRequestError(
                f"the file is larger than {MAX_IMPORT_BYTES // 1024 // 1024} MB",
                code="too_large",
            )
        name = (self.filename or "").strip()[:MAX_FILENAME] or "decisions.csv"
        object.__setattr__(self, "filename", name)
        if self.reviewer is not None:
            object.__setattr__(self, "reviewer", _ref(self.reviewer, "a reviewer"))
        if self.format is not None and self.format not in DECISION_FORMATS:
            raise ScreeningRequestError(
                f"format must be one of {', '.join(DECISION_FORMATS)}", code="bad_format"
            )


@dataclass(frozen=True, slots=True)
class ExportDecisionsRequest:
    """The decisions at ``stage`` as CSV or RIS (one row per study of the working set)."""

    study: str
    stage: Stage = "title_abstract"
    format: ExportFormat = "csv"

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        object.__setattr__(self, "stage", parse_stage(self.stage))
        if self.format not in EXPORT_FORMATS:
            raise ScreeningRequestError(
                f"format must be one of {', '.join(EXPORT_FORMATS)}", code="bad_format"
            )


@dataclass(frozen=True, slots=True)
class PrismaFlowRequest:
    """A Study's PRISMA 2020 flow as data, Markdown, CSV or SVG."""

    study: str
    format: PrismaFlowFormat = "json"

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        if self.format not in PRISMA_FLOW_FORMATS:
            raise ScreeningRequestError(
                f"format must be one of {', '.join(PRISMA_FLOW_FORMATS)}", code="bad_format"
            )


@dataclass(frozen=True, slots=True)
class PrismaRecordsRequest:
    """The records behind one number of the flow: a box, in one round (1-based; None: all
    rounds), one page at a time; narrowed to a reason (reports excluded) or to a kind of
    source or one source (records identified, duplicates removed)."""

    study: str
    box: str
    round: int | None = None
    page: int = 1
    #: with the box ``excluded_reports``: only the reports excluded for this reason
    reason: str | None = None
    #: with ``identified`` or ``removed_duplicates``: only the records of this kind of
    #: source (database, register, other) and of this source (its name in the flow)
    kind: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        if self.box not in RECORD_BOXES:
            raise ScreeningRequestError(
                f"box must be one of {', '.join(RECORD_BOXES)}", code="bad_box"
            )
        if (self.kind is not None or self.source is not None) and self.box not in SOURCE_BOXES:
            raise ScreeningRequestError(
                f"a kind or source narrows only the boxes {' and '.join(SOURCE_BOXES)}",
                code="bad_source",
            )
        if self.kind is not None and self.kind not in SOURCE_KIND_NAMES:
            raise ScreeningRequestError(
                f"the kind of source is one of {', '.join(SOURCE_KIND_NAMES)}", code="bad_source"
            )
        if self.source is not None and (
            not isinstance(self.source, str) or not 0 < len(self.source.strip()) <= MAX_REASON
        ):
            raise ScreeningRequestError(
                f"the source is 1 to {MAX_REASON} characters", code="bad_source"
            )
        if self.reason is not None:
            if self.box != "excluded_reports":
                raise ScreeningRequestError(
                    "a reason narrows only the box excluded_reports", code="bad_reason"
                )
            if not isinstance(self.reason, str) or not 0 < len(self.reason) <= MAX_REASON:
                raise ScreeningRequestError(
                    f"the reason is 1 to {MAX_REASON} characters", code="bad_reason"
                )
        for name, value in (("round", self.round), ("page", self.page)):
            if value is None and name == "round":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ScreeningRequestError(f"the {name} is a whole number from 1", code="bad_page")


@dataclass(frozen=True, slots=True)
class PrismaRecordsView:
    """One page of the records behind a box (each with its title and, for reports excluded,
    its reason; in the boxes of source records, each source record with its source and
    study, and the record a duplicate removed duplicates)."""

    study_id: str
    box: str
    round: str
    total: int
    rows: tuple[dict[str, object], ...]
    page: int
    pages: int
    #: the box's label in the flow ("Reports excluded")
    label: str = ""
    reason: str | None = None
    #: the 1-based round asked for (None: all rounds)
    round_no: int | None = None
    study: str = ""
    kind: str | None = None
    source: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "study": self.study,
            "box": self.box,
            "label": self.label,
            "reason": self.reason,
            "kind": self.kind,
            "source": self.source,
            "round": self.round,
            "round_no": self.round_no,
            "total": self.total,
            "records": [dict(r) for r in self.rows],
            "page": self.page,
            "pages": self.pages,
        }


@dataclass(frozen=True, slots=True)
class ConflictsRequest:
    """One page of a stage's resolution queue: the conflicts waiting (``unresolved``), those
    resolved, or both (``all``), ``per_page`` at a time (1 to :data:`MAX_CONFLICTS_PAGE`);
    a page past the last gives the last."""

    study: str
    stage: Stage = "title_abstract"
    status: ConflictStatus = "unresolved"
    page: int = 1
    per_page: int = CONFLICTS_PAGE

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", _ref(self.study, "a Study"))
        object.__setattr__(self, "stage", parse_stage(self.stage))
        if self.status not in CONFLICT_STATUSES:
            raise ScreeningRequestError(
                f"the status is one of {', '.join(CONFLICT_STATUSES)}, not "
                f"{str(self.status)[:40]!r}",
                code="bad_status",
            )
        if isinstance(self.page, bool) or not isinstance(self.page, int) or self.page < 1:
            raise ScreeningRequestError("the page is a whole number from 1", code="bad_page")
        size = self.per_page
        if isinstance(size, bool) or not isinstance(size, int):
            raise ScreeningRequestError("per_page is a whole number", code="bad_page")
        if not 1 <= size <= MAX_CONFLICTS_PAGE:
            raise ScreeningRequestError(
                f"a page lists 1 to {MAX_CONFLICTS_PAGE} conflicts, not {size}", code="bad_page"
            )


@dataclass(frozen=True, slots=True)
class ConflictRow:
    """A record in the resolution queue: its title, the reviewers' current decisions, and
    (``status`` resolved) the resolution that settles it."""

    record_key: str
    title: str
    year: int | None
    decisions: tuple[dict[str, object], ...]
    status: Literal["conflict", "resolved"] = "conflict"
    resolution: dict[str, object] | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "record_key": self.record_key,
            "title": self.title,
            "year": self.year,
            "status": self.status,
            "decisions": [dict(d) for d in self.decisions],
            "resolution": None if self.resolution is None else dict(self.resolution),
        }


@dataclass(frozen=True, slots=True)
class ConflictsView:
    """One page of the resolution queue of a stage (empty and ``revealed`` False while
    blind): ``waiting`` conflicts no resolution settles and ``resolved`` records in all;
    ``total`` records under ``status`` over ``pages`` pages of ``per_page``, ``conflicts``
    those of ``page``."""

    study_id: str
    stage: Stage
    dual_review: bool
    revealed: bool
    maybe_is_conflict: bool
    can_resolve: bool
    conflicts: tuple[ConflictRow, ...]
    resolved: int
    waiting: int = 0
    status: ConflictStatus = "unresolved"
    total: int = 0
    page: int = 1
    pages: int = 1
    per_page: int = CONFLICTS_PAGE

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "stage": self.stage,
            "dual_review": self.dual_review,
            "revealed": self.revealed,
            "maybe_is_conflict": self.maybe_is_conflict,
            "can_resolve": self.can_resolve,
            "conflicts": [c.to_dict() for c in self.conflicts],
            "count": self.waiting,  # conflicts waiting, every page (as before paging)
            "waiting": self.waiting,
            "resolved": self.resolved,
            "status": self.status,
            "total": self.total,
            "page": self.page,
            "pages": self.pages,
            "per_page": self.per_page,
        }


@dataclass(frozen=True, slots=True)
class RevealView:
    """A stage revealed by the Study owner: the conflicts now in the queue."""

    study_id: str
    stage: Stage
    revealed: bool
    conflicts: int

    def to_dict(self) -> dict[str, object]:
        return {"study_id": self.study_id, "stage": self.stage, "revealed": self.revealed,
                "conflicts": self.conflicts}  # fmt: skip


@dataclass(frozen=True, slots=True)
class AgreementView:
    """Cohen's kappa and percent agreement per reviewer pair and stage (overall and over
    time); ``hidden`` while a stage is blind and the reader is not the Study owner."""

    study_id: str
    pairs: tuple[dict[str, object], ...]
    hidden: tuple[Stage, ...]

    def to_dict(self) -> dict[str, object]:
        return {"study_id": self.study_id, "pairs": [dict(p) for p in self.pairs],
                "hidden_stages": list(self.hidden)}  # fmt: skip


@dataclass(frozen=True, slots=True)
class ImportDecisionsView:
    """What an import did: rows read, decisions recorded, those already recorded (a
    re-import records nothing again), lines skipped (no decision), rows matched to no
    record (with their lines and why), records that could not be read (``problems``:
    Rayyan notes that are malformed), each beside the others' outcome."""

    study_id: str
    filename: str
    format: str
    stage: Stage
    reviewers: tuple[str, ...]
    rows: int
    recorded: int
    unchanged: int
    skipped: tuple[int, ...]
    unmatched: tuple[dict[str, object], ...]
    refused: tuple[dict[str, object], ...]
    matched_by: dict[str, int]
    problems: tuple[dict[str, object], ...] = ()
    reviewer_names: tuple[str, ...] = ()  #: ``reviewers`` by user name where accounts

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "filename": self.filename,
            "format": self.format,
            "stage": self.stage,
            "reviewers": list(self.reviewers),
            "rows": self.rows,
            "recorded": self.recorded,
            "unchanged": self.unchanged,
            "skipped": list(self.skipped),
            "unmatched": [dict(u) for u in self.unmatched],
            "refused": [dict(r) for r in self.refused],
            "matched_by": dict(self.matched_by),
            "problems": [dict(p) for p in self.problems],
            "reviewer_names": list(self.reviewer_names),
        }


@dataclass(frozen=True, slots=True)
class PrismaFlowView:
    """A Study's PRISMA 2020 flow: per round and in total, the checks and the notes."""

    study_id: str
    study_name: str
    flow: dict[str, object]
    markdown: str
    csv: str
    #: the table for a terminal: the column heads (each round, then the total), then each
    #: line's label (indented by leading spaces) and counts
    heads: tuple[str, ...] = ()
    lines: tuple[tuple[str, tuple[int, ...]], ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {"study_id": self.study_id, "study": self.study_name, **self.flow}
