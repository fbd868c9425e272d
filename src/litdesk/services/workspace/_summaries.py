"""The workspace's typed answers about a whole Study: its summary (papers and counts) and
what recovering one from its ZIP stored. Frozen; ``to_dict()`` is the JSON the faces show."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RecoveredStudy", "StudyPaper", "StudySummary"]


@dataclass(frozen=True, slots=True)
class StudyPaper:
    """One paper of a Study as its summary lists it."""

    id: str
    title: str
    year: int | None
    #: the reading status the asking account gave it (``None``: none yet)
    status: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "year": self.year, "status": self.status}


@dataclass(frozen=True, slots=True)
class StudySummary:
    """A Study with one page of its papers (newest first) and its other counts."""

    id: str
    name: str
    description: str | None
    created_at: str
    papers: tuple[StudyPaper, ...]
    #: how many papers the Study holds (``papers`` may be one page of them)
    papers_total: int
    #: how many notes and evidence records it holds
    notes: int
    evidence: int
    #: the ids of its kept search runs and of its import traces
    search_runs: tuple[str, ...]
    imports: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "created_at": self.created_at,
            "papers": [p.to_dict() for p in self.papers],
            "papers_total": self.papers_total,
            "notes": self.notes,
            "evidence": self.evidence,
            "search_runs": list(self.search_runs),
            "imports": list(self.imports),
        }


@dataclass(frozen=True, slots=True)
class RecoveredStudy:
    """What recovering a Study from its ZIP export stored: the new Study and its counts."""

    study_id: str
    name: str
    papers: int
    notes: int
    evidence: int
    search_runs: int
    imports: int
    #: PDF links restored (their PDF is in the library) and left out (it is not)
    pdf_links: int
    pdf_links_missing: int
    #: the ZIP's paper ids that are stored under another id (the saved identity's)
    remapped: Mapping[str, str] = field(default_factory=dict)
    #: each stage's decisions CSV the ZIP carries (recorded by the screening area)
    screening: Mapping[str, bytes] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "study_id": self.study_id,
            "name": self.name,
            "papers": self.papers,
            "notes": self.notes,
            "evidence": self.evidence,
            "search_runs": self.search_runs,
            "imports": self.imports,
            "pdf_links": self.pdf_links,
            "pdf_links_missing": self.pdf_links_missing,
            "remapped": dict(self.remapped),
        }
