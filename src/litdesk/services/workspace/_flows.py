"""Workspace use cases a face calls in one step: open the workspace, export the notebook
or the evidence table of a Study (or of every saved paper).

The Study ZIP (:func:`export_study`, :func:`import_study`) lives in ``_exports``; the
methods of :class:`Workspace` cover the rest. A face writes the returned text itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._exports import evidence_csv, notebook_markdown
from ._service import Workspace

__all__ = ["EvidenceTable", "Notebook", "evidence_export", "notebook_export"]


@dataclass(frozen=True, slots=True)
class Notebook:
    """The review notebook (Markdown) of a Study, or of every saved paper."""

    title: str
    study_id: str | None
    papers: int
    notes: int
    evidence: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "study_id": self.study_id,
            "papers": self.papers,
            "notes": self.notes,
            "evidence": self.evidence,
            "markdown": self.text,
        }


@dataclass(frozen=True, slots=True)
class EvidenceTable:
    """The evidence table as spreadsheet-safe CSV."""

    study_id: str | None
    rows: int
    text: str
    problems: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "study_id": self.study_id,
            "rows": self.rows,
            "csv": self.text,
            "problems": list(self.problems),
        }


def notebook_export(ws: Workspace, study: str | None = None) -> Notebook:
    """``litdesk notebook export``: passages as block quotes with sources, retrieval dates
    and licences."""
    with ws.snapshot():  # papers, notes and evidence as of one moment
        row = ws.study(study) if study else None
        title = row.name if row else "All saved papers"
        study_id = row.id if row else None
        papers = [r.paper for r in ws.papers(study=study_id)]
        notes, _ = ws.notes(study=study_id)
        views, _ = ws.evidence(study=study_id)
    text = notebook_markdown(title, papers, notes, views)
    return Notebook(title, study_id, len(papers), len(notes), len(views), text)


def evidence_export(ws: Workspace, study: str | None = None) -> EvidenceTable:
    """``litdesk evidence export``: every evidence row, re-checked against its paper."""
    with ws.snapshot():
        study_id = ws.study(study).id if study else None
        views, problems = ws.evidence(study=study_id)
    return EvidenceTable(study_id, len(views), evidence_csv(views), tuple(problems))
