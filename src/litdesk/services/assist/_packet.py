"""A Study's summary packet: its records read in one snapshot and projected into numbered
sources (:mod:`litdesk.core.summary`); records that fail validation are left out and named."""

from __future__ import annotations

from litdesk._errors import IntegrityError
from litdesk.adapters.store import LOCAL_OWNER, Store
from litdesk.core.runs import SearchRun
from litdesk.core.summary import (
    Packet,
    SourceKind,
    evidence_source,
    make_packet,
    note_source,
    paper_source,
    run_source,
    study_source,
)
from litdesk.core.words import plural
from litdesk.services.search import load_run
from litdesk.services.workspace import Workspace

__all__ = ["study_packet"]


def study_packet(store: Store, study: str, *, owner: str = LOCAL_OWNER) -> Packet:
    """The numbered sources of ``study`` (name or id) as ``owner`` sees them: the Study
    itself, its papers, its notes and evidence, its kept search runs — in that order, within
    the limits. A Study ``owner`` may not read is not found."""
    ws = Workspace(store, owner=owner)
    items: list[tuple[SourceKind, str, str, str]] = []
    omissions: list[str] = []
    with ws.snapshot():
        row = ws.study(study)
        summary = ws.study_summary(row.id)
        papers = ws.papers(study=row.id, limit=None)  # make_packet names what it leaves out
        notes, note_problems = ws.notes(study=row.id)
        evidence, ev_problems = ws.evidence(study=row.id)
        runs: list[SearchRun] = []
        for run_id in summary.search_runs:
            try:
                runs.append(load_run(store, run_id))
            except IntegrityError as exc:
                omissions.append(f"search run {run_id} left out: {exc.message}")
    titles = {p.paper.id: p.paper.title or p.paper.id for p in papers}
    items.append(study_source(row.name, row.description))
    items.extend(paper_source(p.paper, p.status) for p in papers)
    items.extend(
        note_source(n.id, n.annotation, titles.get(n.annotation.paper_id, n.annotation.paper_id))
        for n in notes
    )
    items.extend(
        evidence_source(e.id, e.evidence, titles.get(e.evidence.paper_id, e.evidence.paper_id))
        for e in evidence
    )
    items.extend(run_source(r) for r in runs)
    omissions.extend(f"left out (failed validation): {p}" for p in note_problems + ev_problems)
    if summary.imports:
        omissions.append(f"never sent: {plural(len(summary.imports), 'import trace')}")
    return make_packet(row.id, row.name, items, omissions)
