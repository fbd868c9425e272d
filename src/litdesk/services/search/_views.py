"""The views the search area returns. Each has ``to_dict()``: the JSON the API returns and
the data the matching page (or the CLI's ``--json``) renders — one builder for both."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, TypedDict

from litdesk.adapters.store import LiveRow, LiveState
from litdesk.core.providers import lane_label, lane_notice, status_words
from litdesk.core.runs import LaneResult, SearchRun
from litdesk.services.workspace import StudySummary

__all__ = [
    "PAGE_SIZE",
    "Export",
    "KeptRun",
    "KeptRunsView",
    "LaneProgress",
    "ProgressView",
    "QueryCheck",
    "RunListView",
    "SearchView",
    "SelectionFailure",
    "SelectionResult",
    "StudyChoice",
    "StudyChoices",
    "lane_progress",
]

#: Results a page of a bounded-discovery shortlist shows.
PAGE_SIZE: Final = 20


class StudyChoice(TypedDict):
    """A Study a search page offers for "add to a Study"."""

    id: str
    name: str
    description: str | None
    created_at: str
    papers: int


class SelectionFailure(TypedDict):
    id: str
    #: the paper's title (what a person knows it by; "" when not in the run)
    title: str
    reason: str


class LaneProgress(TypedDict):
    """One lane of a live search as the page follows it."""

    lane: str
    provider: str
    status: str
    returned: int
    total: int | None
    message: str
    #: the lane named for people ("Europe PMC, keyword search")
    label: str
    #: what happened and what to do, for a lane that failed ("" when it answered)
    notice: str


class KeptRun(TypedDict):
    """A run kept in a Study: its definition (to restore it into the search form), or the
    problem that stops it from being read."""

    id: str
    #: the search named for people: its query and day ("“sepsis”, 5 Dec 2026")
    label: str
    executed_at: str | None
    definition: dict[str, object] | None
    hits: int
    problem: str | None


def lane_progress(lane: LaneResult) -> LaneProgress:
    return {
        "lane": lane.lane,
        "provider": lane.provider,
        "status": lane.status,
        "returned": lane.returned,
        "total": lane.total,
        "message": lane.message,
        "label": lane_label(lane.lane),
        "notice": lane_notice(
            lane.status, lane.lane, message=lane.message, retry_after=lane.retry_after
        ),
    }


def _for_people(lane: dict[str, Any]) -> dict[str, Any]:
    """A run's lane with its ``label``, ``notice`` (see :class:`LaneProgress`) and
    ``state`` (its status in words: "no answer in time")."""
    name = str(lane.get("lane", ""))
    notice = lane_notice(
        str(lane.get("status", "")),
        name,
        message=str(lane.get("message") or ""),
        retry_after=lane.get("retry_after"),
    )
    state = status_words(str(lane.get("status", "")))
    return lane | {"label": lane_label(name), "notice": notice, "state": state}


@dataclass(frozen=True, slots=True)
class QueryCheck:
    """A query checked as the user types: its problem and 1-based span, if any."""

    ok: bool
    message: str | None = None
    code: str | None = None
    position: int | None = None
    end: int | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "message": self.message,
            "code": self.code,
            "position": self.position,
            "end": self.end,
        }


def _why(contributions: list[dict[str, Any]]) -> list[str]:
    return [f"{lane_label(str(c.get('lane', '')))}: rank {c.get('rank')}" for c in contributions]


@dataclass(frozen=True, slots=True)
class SearchView:
    """A search run plus what the page shows about it (why, notices, paging)."""

    run: SearchRun
    page: int = 1
    page_size: int = PAGE_SIZE
    cursor: str | None = None
    studies: list[StudyChoice] = field(default_factory=list)  # for "add to a Study"

    def to_dict(self) -> dict[str, object]:
        run = self.run.to_dict()
        frozen = self.run.coverage == "bounded-discovery"
        hits: list[dict[str, Any]] = run["hits"]
        if frozen:
            pages = max(1, -(-len(hits) // self.page_size))
            page = min(max(1, self.page), pages)
            shown = hits[(page - 1) * self.page_size : page * self.page_size]
        else:
            pages, page, shown = 1, 1, hits
        cards = []
        for h in shown:
            sources = h.get("field_sources") or {}
            abstract_from = (sources.get("abstract") or {}).get("provider")
            primary = h["contributions"][0]["provider"] if h["contributions"] else None
            cards.append(
                {
                    "paper": h["paper"],
                    "score": h["score"],
                    "why": _why(h["contributions"]),
                    "conflicts": h["conflicts"],
                    "field_sources": sources,
                    "abstract_elsewhere": bool(
                        abstract_from and primary and abstract_from != primary
                    ),
                }
            )
        lanes: list[dict[str, Any]] = [_for_people(lane) for lane in run["lanes"]]
        run["lanes"] = lanes
        failed = [lane for lane in lanes if lane["status"] != "ok"]
        return {
            "run": {k: v for k, v in run.items() if k != "hits"},
            "cards": cards,
            "paging": {
                "kind": "frozen" if frozen else "cursor",
                "page": page,
                "pages": pages,
                "page_size": self.page_size,
                # bound to this run (and so to its owner and search): see CursorRefused
                "next_cursor": ("run." + run["id"] if not frozen and run["next_cursor"] else None),
                "cursor": self.cursor,
            },
            "partial_failure": bool(failed) and len(failed) < len(lanes),
            # the databases that failed were never asked: each refused the query itself
            # (Crossref and a Boolean query), so none "did not answer"
            "only_refused": bool(failed)
            and all(lane["status"] == "unsupported" for lane in failed),
            "all_failed": len(failed) == len(lanes),
            "reused": run["reuse"],
            "studies": self.studies,
        }


@dataclass(frozen=True, slots=True)
class SelectionResult:
    """Papers of a selection saved (``created``: new to the store), and each failure."""

    saved: list[str] = field(default_factory=list)
    created: int = 0
    failed: list[SelectionFailure] = field(default_factory=list)
    study_id: str | None = None
    study_name: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "saved": self.saved,
            "created": self.created,
            "failed": self.failed,
            "study_id": self.study_id,
            "study_name": self.study_name,
        }


@dataclass(frozen=True, slots=True)
class Export:
    """A file to download (or write): its bytes, name, media type and how many records."""

    body: bytes
    filename: str
    media_type: str
    count: int

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    def to_dict(self) -> dict[str, object]:
        return {
            "filename": self.filename,
            "media_type": self.media_type,
            "count": self.count,
            "bytes": len(self.body),
        }


@dataclass(frozen=True, slots=True)
class StudyChoices:
    """The owner's Studies a search page offers."""

    studies: list[StudyChoice]

    def to_dict(self) -> dict[str, object]:
        return {"studies": self.studies}


@dataclass(frozen=True, slots=True)
class KeptRunsView:
    """A Study after a run was kept in it: its summary and its kept runs."""

    summary: StudySummary
    runs: list[KeptRun]

    @property
    def study_id(self) -> str:
        return self.summary.id

    def to_dict(self) -> dict[str, object]:
        return self.summary.to_dict() | {"runs": [dict(run) for run in self.runs]}


@dataclass(frozen=True, slots=True)
class RunListView:
    """The owner's saved runs, newest first."""

    runs: list[SearchRun]

    def rows(self) -> list[dict[str, object]]:
        return [
            {
                "id": r.id,
                "executed_at": r.executed_at,
                "mode": r.definition.mode,
                "query": r.definition.query,
                "lanes": [f"{lane.lane}:{lane.status}" for lane in r.lanes],
                "hits": r.unique_retrieved,
                "reused_from": r.reused_from,
            }
            for r in self.runs
        ]

    def to_dict(self) -> dict[str, object]:
        return {"runs": self.rows()}


@dataclass(frozen=True, slots=True)
class ProgressView:
    """What the page shows while (and after) a live search runs."""

    id: str
    state: LiveState
    lanes: list[dict[str, Any]]
    message: str
    code: str
    run_id: str | None
    version: int
    seconds: float

    @property
    def final(self) -> bool:
        return self.state != "running"

    @classmethod
    def of(cls, row: LiveRow, now: float) -> ProgressView:
        """``now`` (epoch seconds): how long a running search has run is counted to it."""
        return cls(
            row.id,
            row.state,
            [dict(lane) for lane in row.lanes],
            row.message,
            row.code,
            row.run_id,
            row.version,
            round(max(0.0, (row.finished_at or now) - row.started_at), 3),
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "state": self.state,
            "final": self.final,
            "lanes": [_for_people(lane) for lane in self.lanes],
            "finished": sum(1 for row in self.lanes if row["status"] != "running"),
            "message": self.message,
            "code": self.code,
            "run_id": self.run_id,
            "version": self.version,
            "seconds": self.seconds,
        }
