"""The deduplication area's views: typed, frozen, each with ``to_dict()`` (JSON-ready)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from litdesk.adapters.store import DedupEntry
from litdesk.core.dedup import PairExplanation
from litdesk.core.records import Paper
from litdesk.services.jobs import JobView

from ._review import HistoryRow, ReviewRun
from ._service import DedupReport, RecordRef

__all__ = [
    "DecisionView",
    "DedupExplanation",
    "DedupJob",
    "DedupOutcome",
    "HistoryView",
    "JobState",
    "ReviewView",
    "UndoView",
]

JobState = Literal["running", "done", "cancelled", "failed"]
_CANCELLED: Final = "the run was cancelled; nothing was recorded"


@dataclass(frozen=True, slots=True)
class DedupOutcome:
    """A run's report plus what the run wrote (``study``: the Study whose history holds
    its decisions; ``new_decisions``: how many it added; ``written``: the merged file)."""

    report: DedupReport
    study: str | None = None
    new_decisions: int = 0
    written: str | None = None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = dict(self.report.to_dict())
        out["study"] = self.study
        out["new_decisions"] = self.new_decisions
        out["written"] = self.written
        return out


@dataclass(frozen=True, slots=True)
class DedupExplanation:
    """Why two records did or did not merge, with both records described."""

    a: RecordRef
    b: RecordRef
    papers: tuple[Paper, Paper]
    explanation: PairExplanation
    refs: tuple[RecordRef, ...]

    def to_dict(self) -> dict[str, object]:
        out = self.explanation.to_dict()
        out["a"] = {**self.a.to_dict(), "paper": self.papers[0].to_dict()}
        out["b"] = {**self.b.to_dict(), "paper": self.papers[1].to_dict()}
        out["via"] = [self.refs[i].to_dict() for i in self.explanation.via]
        for c in out["conflicts"]:
            c["members"] = [self.refs[i].to_dict() for i in c["members"]]
        return dict(out)


@dataclass(frozen=True, slots=True)
class HistoryView:
    """A Study's deduplication history, oldest first (every reviewer decision, every run)."""

    study: str
    entries: tuple[DedupEntry, ...]

    def to_dict(self) -> dict[str, object]:
        return {"study": self.study, "entries": [e.to_dict() for e in self.entries]}


@dataclass(frozen=True, slots=True)
class DedupJob:
    """A Study's run in progress or finished, from its job (``stage``: queued, reading,
    deduplicating, recording, done)."""

    id: str
    study_id: str
    study_name: str
    started_at: str
    state: JobState
    stage: str
    done: int
    total: int
    message: str | None
    cancel_requested: bool
    counts: dict[str, int] | None
    attempts: int

    @classmethod
    def from_view(cls, view: JobView) -> DedupJob:
        result = view.result or {}
        recorded = bool(result.get("recorded"))  # a cancel that came after the recording
        state: JobState
        if view.active:
            waiting = "queued" if view.status == "queued" else "starting"
            state, stage = "running", view.current or waiting
        elif view.status == "done" or (view.status == "cancelled" and recorded):
            state, stage = "done", "done"
        elif view.status == "cancelled":
            state, stage = "cancelled", "cancelled"
        else:
            state, stage = "failed", "failed"
        message = view.message or (_CANCELLED if state == "cancelled" else None)
        counts = result.get("counts") if state == "done" else None
        return cls(
            view.id, str(view.params.get("study_id", "")), str(view.params.get("study_name", "")),
            view.created, state, stage, view.done, view.total or 0, message,
            view.cancel_requested and state == "running",
            {str(k): int(v) for k, v in counts.items()} if isinstance(counts, dict) else None,
            view.attempts,
        )  # fmt: skip

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "study_id": self.study_id,
            "study_name": self.study_name,
            "started_at": self.started_at,
            "state": self.state,
            "stage": self.stage,
            "done": self.done,
            "total": self.total,
            "message": self.message,
            "cancel_requested": self.cancel_requested,
            "counts": self.counts,
            "attempts": self.attempts,
        }


@dataclass(frozen=True, slots=True)
class ReviewView:
    """The review page's data: the Study, its latest run (counts, queue with each pair's
    current decision), the running job if any, and the history (newest first)."""

    study_id: str
    study_name: str
    run: ReviewRun | None
    job: DedupJob | None
    #: the queued pairs as stored, each with its ``state`` and ``decision_seq`` now
    pairs: tuple[dict[str, object], ...]
    history: tuple[HistoryRow, ...]
    history_total: int

    def to_dict(self) -> dict[str, object]:
        return {
            "study": {"id": self.study_id, "name": self.study_name},
            "run": self.run.to_dict() if self.run is not None else None,
            "job": self.job.to_dict() if self.job is not None else None,
            "pairs": list(self.pairs),
            "history": [h.to_dict() for h in self.history],
            "history_total": self.history_total,
        }


@dataclass(frozen=True, slots=True)
class DecisionView:
    """A recorded decision: its history entry, the pair, the state now; ``new`` is false
    when the same decision was already in force (nothing recorded)."""

    seq: int
    pair: int
    state: str
    new: bool

    def to_dict(self) -> dict[str, object]:
        return {"seq": self.seq, "pair": self.pair, "state": self.state, "new": self.new}


@dataclass(frozen=True, slots=True)
class UndoView:
    """A withdrawal: its ``undone`` entry, the entry withdrawn, the pair of the latest run's
    queue it concerns (``None`` when not queued there), now waiting again."""

    seq: int
    undoes: int
    pair: int | None
    state: str = "waiting"

    def to_dict(self) -> dict[str, object]:
        return {"seq": self.seq, "undoes": self.undoes, "pair": self.pair, "state": self.state}
