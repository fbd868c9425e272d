"""The views of the screening area (``to_dict()``: the JSON the API answers and the data
the pages render)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

from litdesk.core.screening import Outcome, Stage, StoppingGuidance

from ._config import ScreeningConfig

__all__ = [
    "CardFullText",
    "CardOrder",
    "CardProgress",
    "CheckSet",
    "DecisionEntry",
    "CardView",
    "DecisionView",
    "Guidance",
    "HistoryView",
    "ItemRow",
    "ItemsView",
    "LicensedText",
    "MemberRecord",
    "ModelState",
    "PaperFields",
    "PdfRef",
    "ProgressView",
    "RetrievalNote",
    "RetrievalView",
    "ScreeningSettingsView",
]


class DecisionEntry(TypedDict):
    """A decision, undo or resolution as stored, with its reviewer's name, its status in
    the history (``current``, ``superseded``, ``undone``, ``undo``; ``not_applied``) and
    the working-set group its record belongs to."""

    id: int
    record_key: str
    stage: str
    reviewer: str
    kind: str
    verdict: str | None
    reason: str
    note: str
    source: str
    made_at: str
    undoes: int | None
    reviewer_name: str
    status: str
    group_key: str
    #: why the entry, though recorded, is not counted now (a full-text decision on a
    #: report recorded not retrieved); empty when it counts
    not_counted: str


class RetrievalNote(TypedDict):
    """A note of whether a record's full text was retrieved (the latest one counts)."""

    status: str
    note: str
    at: str
    by: str
    by_name: str


class MemberRecord(TypedDict):
    """One record of a working-set group: where it came from."""

    key: str
    title: str
    source: str
    database: str
    #: its update round's PRISMA column ("Update 1 (6 Dec 2026)"; "" without updates)
    round: str


class PaperFields(TypedDict):
    """The merged record's fields a card shows."""

    title: str
    authors: tuple[str, ...]
    year: int | None
    venue: str | None
    abstract: str | None
    keywords: tuple[str, ...]
    doi: str | None
    pmid: str | None


class PdfRef(TypedDict):
    """A record's linked PDF (the sha256 opens it in the viewer)."""

    paper_id: str
    file: str
    sha256: str
    #: the PDF was uploaded for this paper but its first pages are another paper's: why
    #: (:func:`litdesk.core.pdfmeta.attach_doubt`); None: nothing to doubt
    doubt: str | None


class LicensedText(TypedDict):
    """A record's licensed full text, as checked."""

    paper_id: str
    licence: str | None
    url: str | None


class CardFullText(TypedDict):
    """What a full-text card offers to read: the group's papers' PDF or licensed full
    text, the record's own full-text address, and the latest retrieval note."""

    paper_ids: list[str]
    pdf: PdfRef | None
    licensed_full_text: LicensedText | None
    url: str | None
    open_access: bool | None
    retrieval: RetrievalNote | None


class ItemRow(TypedDict):
    """A record behind a number at a stage (``verdict``, ``status`` and ``reason`` are
    ``None`` while the stage is blind)."""

    record_key: str
    title: str
    year: int | None
    members: int
    my_verdict: str | None
    verdict: str | None
    status: str | None
    reason: str | None
    remaining: bool


class CheckSet(TypedDict):
    """The random check set of the stopping estimate: its size, how many are decided and
    how it was drawn (in words)."""

    size: int
    decided: int
    method: str


@dataclass(frozen=True, slots=True)
class ScreeningSettingsView:
    """A Study's screening settings and what the acting account may do with them."""

    study_id: str
    study_name: str
    settings: ScreeningConfig
    role: str
    can_configure: bool
    can_screen: bool
    updated_at: str | None = None
    updated_by: str | None = None
    #: the account's user name (``updated_by`` is its id)
    updated_by_name: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "study_name": self.study_name,
            **self.settings.to_json(),
            "role": self.role,
            "can_configure": self.can_configure,
            "can_screen": self.can_screen,
            "updated_at": self.updated_at,
            "updated_by": self.updated_by,
            "updated_by_name": self.updated_by_name,
        }


@dataclass(frozen=True, slots=True)
class ModelState:
    """The prioritisation model of a stage: ``ready`` (scores in force), ``retraining``
    (decisions came since; a job is queued or running), ``none`` (no model yet); ``due``: no
    model yet although the decisions hold an include and an exclude (its first training is
    queued: a server's worker runs it, or ``litdesk screen retrain``). ``blind``: the stage
    is blind and the model is the reader's own, trained on their decisions only (the shared
    one learnt every reviewer's: its scores, order and count would tell theirs); its
    ``due`` and ``trained_on`` count their decisions."""

    state: str
    version: int | None = None
    trained_on: int | None = None
    trained_at: str | None = None
    name: str = "litdesk-svm-2"
    due: bool = False
    #: the reader's own model (the stage is blind until the Study's owner reveals it)
    blind: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            "state": self.state,
            "version": self.version,
            "trained_on": self.trained_on,
            "trained_at": self.trained_at,
            "name": self.name,
            "due": self.due,
            "blind": self.blind,
        }

    @property
    def waiting_for(self) -> str:
        """Why there is no model yet, in words (``state`` ``none``)."""
        if self.blind:
            return (
                "the first training of your own model is queued"
                if self.due
                else "your own model needs an include and an exclude of yours"
            )
        if self.due:
            return "its first training is queued"
        return "it needs an include and an exclude"


@dataclass(frozen=True, slots=True)
class CardOrder:
    """The order a card was chosen in: ``mode`` (``ranked``, ``random``, ``original``;
    ``record``: chosen by key), in words, the model then in force, the random order's
    seed, and whether the ranked order was asked for (``wants_model``: also when there is
    no model yet and the order fell back to random)."""

    mode: str
    label: str
    model: ModelState
    seed: int | None = None
    wants_model: bool = False

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "mode": self.mode,
            "model": self.model.to_dict(),
            "wants_model": self.wants_model,
        }
        out["label"] = self.label
        if self.seed is not None:
            out["seed"] = self.seed
        return out


@dataclass(frozen=True, slots=True)
class UpdateNews:
    """What a living review's update rounds brought to title/abstract screening: the
    records they added to screen (``added``; PRISMA 2020's "records to screen" of the
    update columns, summed), those of the latest one (``latest``, its column's label, as
    PRISMA names it: "Update 2 (6 Dec 2026)"), and how many of them are still the
    reviewer's to screen (``awaiting``)."""

    rounds: int
    latest_label: str
    latest_at: str
    added: int
    latest: int
    awaiting: int

    def to_dict(self) -> dict[str, object]:
        return {
            "rounds": self.rounds,
            "latest_label": self.latest_label,
            "latest_at": self.latest_at,
            "added": self.added,
            "latest": self.latest,
            "awaiting": self.awaiting,
        }


@dataclass(frozen=True, slots=True)
class CardProgress:
    """Progress at a card's stage: the reviewer's own figures, everyone's (``None`` while
    blind); ``updates``: what the update rounds brought (title/abstract, once there is one)."""

    mine: dict[str, int]
    all: dict[str, int] | None
    blind: bool
    updates: UpdateNews | None = None

    def to_dict(self) -> dict[str, object]:
        news = None if self.updates is None else self.updates.to_dict()
        return {"mine": self.mine, "all": self.all, "blind": self.blind, "updates": news}


@dataclass(frozen=True, slots=True)
class Guidance:
    """Stopping guidance at a stage (never an automatic stop): the recall curve as points
    (decisions on x, includes found on y), consecutive irrelevant records, the includes
    remaining estimated from the random check set, and that set."""

    stopping: StoppingGuidance
    check_set: CheckSet

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = self.stopping.to_dict()
        del out["curve"]
        out["recall_curve"] = [[i + 1, int(v)] for i, v in enumerate(self.stopping.curve)]
        out["check_set"] = dict(self.check_set)
        return out


@dataclass(frozen=True, slots=True)
class CardView:
    """One record to screen (``done``: nothing is left for this reviewer; no record)."""

    study_id: str
    stage: Stage
    done: bool
    order: CardOrder
    progress: CardProgress
    record_key: str | None = None
    title: str = ""
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    abstract: str | None = None
    keywords: tuple[str, ...] = ()
    doi: str | None = None
    pmid: str | None = None
    members: tuple[MemberRecord, ...] = ()
    decisions: tuple[DecisionEntry, ...] = ()
    my_verdict: str | None = None
    highlight: dict[str, list[str]] = field(default_factory=dict)
    criteria: dict[str, str] = field(default_factory=dict)
    reasons: tuple[str, ...] = ()
    full_text: CardFullText | None = None
    score: float | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "stage": self.stage,
            "done": self.done,
            "record_key": self.record_key,
            "title": self.title,
            "authors": list(self.authors),
            "year": self.year,
            "venue": self.venue,
            "abstract": self.abstract,
            "keywords": list(self.keywords),
            "doi": self.doi,
            "pmid": self.pmid,
            "members": list(self.members),
            "decisions": list(self.decisions),
            "my_verdict": self.my_verdict,
            "highlight": self.highlight,
            "criteria": self.criteria,
            "reasons": list(self.reasons),
            "full_text": self.full_text,
            "order": self.order.to_dict(),
            "score": self.score,
            "progress": self.progress.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class DecisionView:
    """A decision, undo or resolution as appended, and where the record stands now for
    the acting reviewer (``outcome`` only where the reviewer may see the others)."""

    study_id: str
    stage: Stage
    record_key: str
    entry: DecisionEntry
    my_verdict: str | None
    outcome: Outcome | None
    retrain_queued: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "stage": self.stage,
            "record_key": self.record_key,
            "entry": self.entry,
            "my_verdict": self.my_verdict,
            "outcome": None if self.outcome is None else self.outcome.to_dict(),
            "retrain_queued": self.retrain_queued,
        }


@dataclass(frozen=True, slots=True)
class HistoryView:
    """Every entry on a record (its group's member keys) the reviewer may see, oldest
    first, each with its status (``current``, ``superseded``, ``undone``, ``undo``)."""

    study_id: str
    record_key: str
    title: str
    entries: tuple[DecisionEntry, ...]
    blind: dict[str, bool]
    retrieval: tuple[RetrievalNote, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "record_key": self.record_key,
            "title": self.title,
            "entries": list(self.entries),
            "blind": self.blind,
            "retrieval": list(self.retrieval),
        }


@dataclass(frozen=True, slots=True)
class RetrievalView:
    """A record's full-text retrieval as now recorded (the latest note counts)."""

    study_id: str
    record_key: str
    status: str
    note: str
    at: str
    by: str

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "record_key": self.record_key,
            "status": self.status,
            "note": self.note,
            "at": self.at,
            "by": self.by,
        }


@dataclass(frozen=True, slots=True)
class ProgressView:
    """Progress at a stage: the reviewer's own figures (``mine``), everyone's (``all``,
    ``None`` while blind), stopping guidance and the model."""

    study_id: str
    stage: Stage
    total: int
    mine: dict[str, int]
    all: dict[str, int] | None
    blind: bool
    guidance: Guidance
    model: ModelState
    order: str
    #: one reviewer at this stage: no dual review and no one but the acting reviewer has
    #: decided (everyone's figures are then the reviewer's own)
    single_reviewer: bool = False
    #: what a living review's update rounds brought (title/abstract, once there is one)
    updates: UpdateNews | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "stage": self.stage,
            "total": self.total,
            "mine": self.mine,
            "all": self.all,
            "blind": self.blind,
            "single_reviewer": self.single_reviewer,
            "guidance": self.guidance.to_dict(),
            "model": self.model.to_dict(),
            "default_order": self.order,
            "updates": None if self.updates is None else self.updates.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class ItemsView:
    """One page of the records behind a number at a stage."""

    study_id: str
    stage: Stage
    status: str
    rows: tuple[ItemRow, ...]
    total: int
    page: int
    pages: int
    blind: bool

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "stage": self.stage,
            "status": self.status,
            "rows": list(self.rows),
            "total": self.total,
            "page": self.page,
            "pages": self.pages,
            "blind": self.blind,
        }
