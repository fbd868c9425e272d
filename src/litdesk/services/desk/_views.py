"""Result views of the desk's use cases. Each has ``to_dict()``: the JSON the API returns
and the data the matching page renders (one builder for both, so they cannot drift)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litdesk.core.evidence import EVIDENCE_FIELDS
from litdesk.core.records import Paper
from litdesk.services.studies import Export

__all__ = [
    "Export",
    "EvidenceTableView",
    "paper_card",
]


def paper_card(paper: Paper) -> dict[str, Any]:
    """A paper as the pages and the API show it (plain values; rendered as text)."""
    return paper.to_dict()


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
