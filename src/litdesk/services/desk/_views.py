"""Result views of the desk's use cases. Each has ``to_dict()``: the JSON the API returns
and the data the matching page renders (one builder for both, so they cannot drift)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litdesk.core.evidence import EVIDENCE_FIELDS
from litdesk.core.records import Paper
from litdesk.services.search import Export

__all__ = [
    "EvidenceTableView",
    "Export",
    "NotebookView",
    "SavedView",
    "StudiesView",
    "StudyView",
    "paper_card",
]


def paper_card(paper: Paper) -> dict[str, Any]:
    """A paper as the pages and the API show it (plain values; rendered as text)."""
    return paper.to_dict()


@dataclass(frozen=True, slots=True)
class SavedView:
    rows: list[dict[str, Any]]
    total_saved: int
    matched: int
    cap: int
    capped: bool
    page: int
    pages: int
    filters: dict[str, Any]
    studies: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
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
class EvidenceTableView:
    rows: list[dict[str, Any]]
    problems: list[str]
    study: str | None
    studies: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "evidence": self.rows,
            "problems": self.problems,
            "filters": {"study": self.study},
            "studies": self.studies,
            "evidence_fields": [list(f) for f in EVIDENCE_FIELDS],
        }


@dataclass(frozen=True, slots=True)
class NotebookView:
    notes: list[dict[str, Any]]
    total: int
    problems: list[str]
    filters: dict[str, Any]
    studies: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "notes": self.notes,
            "total": self.total,
            "matched": len(self.notes),
            "problems": self.problems,
            "filters": self.filters,
            "studies": self.studies,
        }


@dataclass(frozen=True, slots=True)
class StudiesView:
    studies: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {"studies": self.studies}


@dataclass(frozen=True, slots=True)
class StudyView:
    summary: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return dict(self.summary)
