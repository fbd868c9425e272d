"""Result views of the desk's use cases. Each has ``to_dict()``: the JSON the API returns
and the data the matching page renders (one builder for both, so they cannot drift)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from litdesk.core.records import Paper
from litdesk.core.runs import SearchRun
from litdesk.services.studies import Export

__all__ = [
    "Export",
    "QueryCheck",
    "SearchView",
    "SelectionResult",
    "paper_card",
]

_LANE_LABELS = {
    "keyword": "keyword search",
    "semantic": "semantic search",
    "lookup": "identifier lookup",
}


def paper_card(paper: Paper) -> dict[str, Any]:
    """A paper as the pages and the API show it (plain values; rendered as text)."""
    return paper.to_dict()


@dataclass(frozen=True, slots=True)
class QueryCheck:
    ok: bool
    message: str | None = None
    code: str | None = None
    position: int | None = None
    end: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "message": self.message,
            "code": self.code,
            "position": self.position,
            "end": self.end,
        }


def _why(contributions: list[dict[str, Any]]) -> list[str]:
    out = []
    for c in contributions:
        lane = str(c.get("lane", ""))
        kind = lane.rsplit("-", 1)[-1] if "-" in lane else lane
        out.append(f"{c.get('provider')} {_LANE_LABELS.get(kind, kind)}, rank {c.get('rank')}")
    return out


@dataclass(frozen=True, slots=True)
class SearchView:
    """A search run plus what the page shows about it (why, notices, paging)."""

    run: SearchRun
    page: int = 1
    page_size: int = 20
    cursor: str | None = None
    studies: list[dict[str, Any]] = field(default_factory=list)  # for "add to a Study"

    def to_dict(self) -> dict[str, Any]:
        run = self.run.to_dict()
        frozen = self.run.coverage == "bounded-discovery"
        hits = run["hits"]
        if frozen:
            pages = max(1, -(-len(hits) // self.page_size))
            page = min(max(1, self.page), pages)
            shown = hits[(page - 1) * self.page_size : page * self.page_size]
        else:
            pages, page, shown = 1, 1, hits
        cards = []
        for h in shown:
            paper = h["paper"]
            sources = h.get("field_sources") or {}
            abstract_from = (sources.get("abstract") or {}).get("provider")
            primary = h["contributions"][0]["provider"] if h["contributions"] else None
            cards.append(
                {
                    "paper": paper,
                    "score": h["score"],
                    "why": _why(h["contributions"]),
                    "conflicts": h["conflicts"],
                    "field_sources": sources,
                    "abstract_elsewhere": bool(
                        abstract_from and primary and abstract_from != primary
                    ),
                }
            )
        failed = [lane for lane in run["lanes"] if lane["status"] != "ok"]
        return {
            "run": {k: v for k, v in run.items() if k != "hits"},
            "cards": cards,
            "paging": {
                "kind": "frozen" if frozen else "cursor",
                "page": page,
                "pages": pages,
                "page_size": self.page_size,
                "next_cursor": run["next_cursor"] if not frozen else None,
                "cursor": self.cursor,
            },
            "partial_failure": bool(failed) and len(failed) < len(run["lanes"]),
            "all_failed": len(failed) == len(run["lanes"]),
            "reused": run["reuse"],
            "studies": self.studies,
        }


@dataclass(frozen=True, slots=True)
class SelectionResult:
    saved: list[str] = field(default_factory=list)
    created: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)
    study_id: str | None = None
    study_name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "saved": self.saved,
            "created": self.created,
            "failed": self.failed,
            "study_id": self.study_id,
            "study_name": self.study_name,
        }
