"""The views of the screening area (``to_dict()``: the JSON the API answers and the data
the pages render)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from litdesk.core.screening import Stage

__all__ = [
    "CardView",
    "DecisionView",
    "HistoryView",
    "ItemsView",
    "ModelState",
    "ProgressView",
    "RetrievalView",
    "ScreeningSettingsView",
]


@dataclass(frozen=True, slots=True)
class ScreeningSettingsView:
    """A Study's screening settings and what the acting account may do with them."""

    study_id: str
    study_name: str
    settings: dict[str, Any]
    role: str
    can_configure: bool
    can_screen: bool
    updated_at: str | None = None
    updated_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "study_id": self.study_id,
            "study_name": self.study_name,
            **self.settings,
            "role": self.role,
            "can_configure": self.can_configure,
            "can_screen": self.can_screen,
            "updated_at": self.updated_at,
            "updated_by": self.updated_by,
        }


@dataclass(frozen=True, slots=True)
class ModelState:
    """The prioritisation model of a stage: ``ready`` (scores in force), ``retraining``
    (decisions came since; a job is queued or running), ``none`` (no model yet)."""

    state: str
    version: int | None = None
    trained_on: int | None = None
    trained_at: str | None = None
    name: str = "litdesk-svm-2"

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "version": self.version,
            "trained_on": self.trained_on,
            "trained_at": self.trained_at,
            "name": self.name,
        }


@dataclass(frozen=True, slots=True)
class CardView:
    """One record to screen (``done``: nothing is left for this reviewer; no record)."""

    study_id: str
    stage: Stage
    done: bool
    order: dict[str, Any]
    progress: dict[str, Any]
    record_key: str | None = None
    title: str = ""
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    abstract: str | None = None
    keywords: tuple[str, ...] = ()
    doi: str | None = None
    pmid: str | None = None
    members: tuple[dict[str, Any], ...] = ()
    decisions: tuple[dict[str, Any], ...] = ()
    my_verdict: str | None = None
    highlight: dict[str, list[str]] = field(default_factory=dict)
    criteria: dict[str, str] = field(default_factory=dict)
    reasons: tuple[str, ...] = ()
    full_text: dict[str, Any] | None = None
    score: float | None = None

    def to_dict(self) -> dict[str, Any]:
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
            "order": self.order,
            "score": self.score,
            "progress": self.progress,
        }


@dataclass(frozen=True, slots=True)
class DecisionView:
    """A decision, undo or resolution as appended, and where the record stands now for
    the acting reviewer (``outcome`` only where the reviewer may see the others)."""

    study_id: str
    stage: Stage
    record_key: str
    entry: dict[str, Any]
    my_verdict: str | None
    outcome: dict[str, Any] | None
    retrain_queued: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "study_id": self.study_id,
            "stage": self.stage,
            "record_key": self.record_key,
            "entry": self.entry,
            "my_verdict": self.my_verdict,
            "outcome": self.outcome,
            "retrain_queued": self.retrain_queued,
        }


@dataclass(frozen=True, slots=True)
class HistoryView:
    """Every entry on a record (its group's member keys) the reviewer may see, oldest
    first, each with its status (``current``, ``superseded``, ``undone``, ``undo``)."""

    study_id: str
    record_key: str
    title: str
    entries: tuple[dict[str, Any], ...]
    blind: dict[str, bool]
    retrieval: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
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

    def to_dict(self) -> dict[str, Any]:
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
    guidance: dict[str, Any]
    model: ModelState
    order: str
    #: one reviewer at this stage: no dual review and no one but the acting reviewer has
    #: decided (everyone's figures are then the reviewer's own)
    single_reviewer: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "study_id": self.study_id,
            "stage": self.stage,
            "total": self.total,
            "mine": self.mine,
            "all": self.all,
            "blind": self.blind,
            "single_reviewer": self.single_reviewer,
            "guidance": self.guidance,
            "model": self.model.to_dict(),
            "default_order": self.order,
        }


@dataclass(frozen=True, slots=True)
class ItemsView:
    """One page of the records behind a number at a stage."""

    study_id: str
    stage: Stage
    status: str
    rows: tuple[dict[str, Any], ...]
    total: int
    page: int
    pages: int
    blind: bool

    def to_dict(self) -> dict[str, Any]:
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
