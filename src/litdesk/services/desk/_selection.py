"""Selection actions of the search page beyond saving (up to 20 papers of a search run):
compare the evidence recorded for them side by side, and find the references shared by
2–5 of them (the citation browser's shared-references service, "referenced by n of m").
And the citation browser's own "save chosen works into a Study". Every action reports
each paper's failure beside the successes."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from litdesk._errors import LitdeskError, NotFoundError
from litdesk.adapters.store import repo
from litdesk.core.evidence import EVIDENCE_FIELDS
from litdesk.core.records import Paper
from litdesk.core.runs import SearchRun
from litdesk.services.citations import MODES, Mode, seed_key
from litdesk.services.search import MAX_SELECTION, SelectionFailure, SelectionResult
from litdesk.services.workspace import Workspace

from ._citations import CitationView, citation_browser
from ._desk import Desk, DeskInputError

__all__ = [
    "MAX_SHARED",
    "MIN_SHARED",
    "CompareView",
    "SharedView",
    "compare_evidence",
    "listed_citations",
    "save_citations",
    "shared_references",
]

MIN_SHARED: Final = 2
MAX_SHARED: Final = 5


def _chosen(
    run: SearchRun, paper_ids: Sequence[str], most: int
) -> tuple[list[Paper], list[dict[str, str]]]:
    ids = list(dict.fromkeys(paper_ids))
    if not ids:
        raise DeskInputError("select at least one paper", code="empty_selection")
    if len(ids) > most:
        raise DeskInputError(f"this action takes at most {most} papers", code="selection_size")
    hits = {h.paper.id: h for h in run.hits}
    papers: list[Paper] = []
    failed: list[dict[str, str]] = []
    for pid in ids:
        hit = hits.get(pid)
        if hit is None:
            failed.append({"id": pid[:200], "reason": "not in this search run"})
        elif hit.conflicts:
            failed.append({"id": pid, "reason": "identifier conflict: " + "; ".join(hit.conflicts)})
        else:
            papers.append(hit.paper)
    return papers, failed


# --- compare evidence ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CompareView:
    """One column per selected paper with the evidence recorded for it."""

    columns: list[dict[str, Any]]
    failed: list[dict[str, str]]
    run_id: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "columns": self.columns,
            "failed": self.failed,
            "run_id": self.run_id,
            "evidence_fields": [list(f) for f in EVIDENCE_FIELDS],
            "records": sum(len(c["evidence"]) for c in self.columns),
        }


def _saved(ws: Workspace, paper: Paper) -> repo.PaperRow | None:
    """The saved record of a search hit: by its id, else by its identifiers."""
    for ref in (paper.id, paper.doi, paper.pmid and f"pmid:{paper.pmid}", paper.openalex_id):
        if not ref:
            continue
        try:
            return ws.paper(ref)
        except NotFoundError:
            continue
    return None


def compare_evidence(desk: Desk, run_id: str, paper_ids: Sequence[str]) -> CompareView:
    """The evidence recorded for up to 20 selected papers, side by side. A paper that is
    not saved (so has no evidence) or whose records cannot be read is reported beside the
    others."""
    run = desk.search.recent_run(run_id, owner=desk.owner)
    papers, failed = _chosen(run, paper_ids, MAX_SELECTION)
    ws = desk.workspace
    columns: list[dict[str, Any]] = []
    for paper in papers:
        saved = _saved(ws, paper)
        if saved is None:
            failed.append({"id": paper.id, "reason": "not saved, so no evidence is recorded"})
            continue
        try:
            views, problems = ws.evidence(paper_ref=saved.paper.id)
        except LitdeskError as exc:
            failed.append({"id": paper.id, "reason": exc.message})
            continue
        columns.append(
            {
                "id": saved.paper.id,
                "title": saved.paper.title,
                "year": saved.paper.year,
                "evidence": [v.to_dict() for v in views],
                "problems": problems,
            }
        )
    return CompareView(columns, failed, run.id)


# --- shared references -----------------------------------------------------------------------


def _seed(paper: Paper) -> str:
    """The identifier OpenAlex is asked for (its work id first)."""
    for value in (paper.openalex_id, paper.doi, paper.pmid, paper.pmcid):
        if value:
            return value
    return paper.id


@dataclass(frozen=True, slots=True)
class SharedView:
    """Shared references of the selected papers that could be looked up, with each paper
    that could not beside them."""

    result: CitationView | None
    failed: list[dict[str, str]]
    asked: int
    run_id: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "result": self.result.to_dict() if self.result is not None else None,
            "failed": self.failed,
            "asked": self.asked,
            "run_id": self.run_id,
        }


async def shared_references(desk: Desk, run_id: str, paper_ids: Sequence[str]) -> SharedView:
    """References shared by 2–5 selected papers ("referenced by n of m"). A paper OpenAlex
    cannot look up is reported and left out; the rest are compared when at least two
    remain. The happy path asks OpenAlex once per paper (as the citation browser does);
    only when a lookup fails are the papers asked one by one to say which failed."""
    run = desk.search.recent_run(run_id, owner=desk.owner)
    ids = list(dict.fromkeys(paper_ids))
    if not MIN_SHARED <= len(ids) <= MAX_SHARED:
        raise DeskInputError(
            f"shared references need {MIN_SHARED} to {MAX_SHARED} selected papers",
            code="shared_size",
        )
    papers, failed = _chosen(run, ids, MAX_SHARED)
    seeds: list[tuple[str, str]] = []
    for paper in papers:
        seed = _seed(paper)
        try:
            seed_key(seed)
        except LitdeskError as exc:
            failed.append({"id": paper.id, "reason": exc.message})
            continue
        seeds.append((paper.id, seed))
    result: CitationView | None = None
    if len(seeds) >= MIN_SHARED:
        try:
            result = await citation_browser(desk, "shared", [s for _, s in seeds])
        except LitdeskError as first:
            if first.code in ("openalex_key", "allowance"):
                raise  # nothing would succeed one by one either
            kept: list[tuple[str, str]] = []
            service = desk.providers.citation_service(owner=desk.owner)
            for pid, seed in seeds:
                try:
                    resolved = await service.resolve_seed(seed)
                except LitdeskError as exc:
                    failed.append({"id": pid, "reason": exc.message})
                    continue
                kept.append((pid, resolved.work))
            if len(kept) == len(seeds):  # every paper resolves: the failure was elsewhere
                raise
            if len(kept) >= MIN_SHARED:
                result = await citation_browser(desk, "shared", [w for _, w in kept])
    return SharedView(result, failed, len(ids), run.id)


# --- the citation browser: save chosen works -------------------------------------------------


async def listed_citations(
    desk: Desk, mode: Mode, ids: Sequence[str], *, page: int = 1
) -> tuple[CitationView, str]:
    """One page of the citation browser, remembered (by an unguessable id) so that chosen
    works can be saved from it."""
    if mode not in MODES:
        raise DeskInputError(f"mode is one of {', '.join(MODES)}", code="mode")
    view = await citation_browser(desk, mode, ids, page=page)
    key = await asyncio.to_thread(desk.listings.remember, desk.owner, view.result.papers)
    return view, key


def save_citations(
    desk: Desk,
    listing: str,
    paper_ids: Sequence[str],
    *,
    study: str | None = None,
    new_study: str | None = None,
) -> SelectionResult:
    """Save chosen works of a shown citation list into a Study (existing or new), each in
    its own transaction so that one failure is reported beside the saved ones."""
    ids = list(dict.fromkeys(paper_ids))
    if not ids:
        raise DeskInputError("choose at least one work", code="empty_selection")
    if len(ids) > MAX_SELECTION:
        raise DeskInputError(f"save at most {MAX_SELECTION} works at once", code="selection_size")
    if bool(study) == bool(new_study):
        raise DeskInputError("choose an existing Study or name a new one", code="study_choice")
    shown = desk.listings.papers(listing, desk.owner)
    ws = desk.workspace
    row = ws.create_study(new_study) if new_study else ws.study(study or "")
    saved: list[str] = []
    failed: list[SelectionFailure] = []
    created = 0
    for pid in ids:
        paper = shown.get(pid)
        if paper is None:
            failed.append({"id": pid[:200], "reason": "not in the citation list shown"})
            continue
        try:
            result = ws.save_paper(paper, study=row.id)
        except LitdeskError as exc:
            failed.append({"id": pid, "reason": exc.message})
            continue
        saved.append(result.paper.id)
        created += int(result.created)
    return SelectionResult(saved, created, failed, row.id, row.name)
