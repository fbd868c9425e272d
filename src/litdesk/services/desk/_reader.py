"""The reader's use cases: a paper's page (abstract and licensed Europe PMC full text),
highlights on the abstract or on a full-text paragraph, comments, reading status, exact
occurrences, and evidence with its supporting passage.

Full text is fetched by litdesk through the app's one transport (reserved once in the
daily allowance, cached on disk for 30 days); a client never sends paragraph text. A
highlight or evidence passage on a paragraph is checked against the paragraph litdesk
itself holds, and (when the page says which snapshot it showed) against that snapshot's
digest, so a paragraph that changed between showing and saving is refused.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

from litdesk._errors import InputError, LitdeskError, NotFoundError
from litdesk.adapters.store import READING_STATUSES
from litdesk.core.evidence import (
    EVIDENCE_FIELDS,
    FullTextContext,
    find_occurrences,
    paper_pmcid,
    text_digest,
)
from litdesk.core.fulltext import SECTION_SEPARATOR, Block
from litdesk.core.records import Paper
from litdesk.core.runs import RunInvalid, SearchRun
from litdesk.services.fulltext import FullTextResult
from litdesk.services.providers import Providers
from litdesk.services.search import Export, SelectionResult, make_definition
from litdesk.services.workspace import (
    EvidenceView,
    Workspace,
    context_from_fulltext,
    evidence_csv,
)

from ._views import EvidenceTableView

__all__ = [
    "MAX_OCCURRENCES",
    "PassageSource",
    "ReaderDesk",
    "ReaderInputError",
    "ReaderView",
    "SnapshotChanged",
    "abstract_segments",
    "evidence_row",
    "marked_segments",
]

MAX_OCCURRENCES: Final = 100
_CONTEXT_CHARS: Final = 40
_EVIDENCE_EXTRA: Final = ("question", "population", "method", "intervention", "limitations")
PassageSource = Literal["abstract", "fulltext", "external"]


class ReaderInputError(InputError):
    """A reader request does not fit (unknown status, empty passage, missing paragraph)."""

    default_code = "reader_input"


class SnapshotChanged(ReaderInputError):
    """The paragraph litdesk holds now is not the one the page showed."""

    default_code = "anchor_mismatch"


def marked_segments(text: str, ranges: list[tuple[int, int]]) -> list[dict[str, Any]]:
    """``text`` cut into plain and marked runs; overlapping ranges merge for display only
    and ranges outside the text are ignored."""
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if not 0 <= start < end <= len(text):
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out: list[dict[str, Any]] = []
    at = 0
    for start, end in merged:
        if start > at:
            out.append({"text": text[at:start], "marked": False})
        out.append({"text": text[start:end], "marked": True})
        at = end
    if at < len(text):
        out.append({"text": text[at:], "marked": False})
    return out


def abstract_segments(abstract: str, notes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The abstract cut into plain and highlighted runs: only highlights whose snapshot
    still matches (no notice) are marked."""
    ranges = [
        (int(n["anchor"]["start"]), int(n["anchor"]["end"]))
        for n in notes
        if n.get("anchor") and n["anchor"].get("source") == "abstract" and not n.get("notice")
    ]
    return marked_segments(abstract, ranges)


def evidence_row(v: EvidenceView) -> dict[str, Any]:
    d = v.to_dict()
    d["paper_title"] = v.paper.title if v.paper else ""
    return d


@dataclass(frozen=True, slots=True)
class ReaderView:
    paper: Paper
    saved: bool
    status: str | None
    notes: list[dict[str, Any]]
    problems: list[str]
    studies: list[dict[str, Any]]
    source: str  # "store", "search run" or "lookup"
    evidence: list[dict[str, Any]] = field(default_factory=list)
    # None: not loaded; else the licensed text (or why it is not shown) with its blocks
    fulltext: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "evidence": self.evidence,
            "evidence_fields": [list(f) for f in EVIDENCE_FIELDS],
            "paper": self.paper.to_dict(),
            "abstract_segments": abstract_segments(self.paper.abstract or "", self.notes),
            "saved": self.saved,
            "status": self.status,
            "notes": self.notes,
            "problems": self.problems,
            "studies": self.studies,
            "source": self.source,
            "fulltext": self.fulltext,
        }


def _top_section(block: Block) -> str:
    return block.section.split(SECTION_SEPARATOR, 1)[0] or "Body"


def _fulltext_view(
    result: FullTextResult, section: str | None, notes: list[dict[str, Any]]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The full text as the page shows it (blocks of the chosen section, each with its
    snapshot digest and highlighted runs) and the notes, with a notice on each full-text
    highlight whose paragraph now reads differently from its snapshot."""
    ft = result.fulltext
    by_id = {b.id: b for b in ft.blocks}
    ranges: dict[str, list[tuple[int, int]]] = {}
    out_notes: list[dict[str, Any]] = []
    for n in notes:
        anchor = n.get("anchor") or {}
        ctx = anchor.get("context") or {}
        if anchor.get("source") != "fulltext" or n.get("notice") or ctx.get("pmcid") != ft.pmcid:
            out_notes.append(n)
            continue
        block = by_id.get(str(ctx.get("block_id")))
        if block is None or block.text != ctx.get("text"):
            where = f"paragraph {ctx.get('block_id')}"
            out_notes.append(
                n
                | {
                    "notice": f"{where} of the full text shown now differs from the snapshot "
                    "this passage was highlighted on; not re-anchored"
                }
            )
            continue
        ranges.setdefault(block.id, []).append((int(anchor["start"]), int(anchor["end"])))
        out_notes.append(n)
    sections = list(dict.fromkeys(_top_section(b) for b in ft.blocks))
    chosen = section if section in sections else None
    shown = [b for b in ft.blocks if chosen is None or _top_section(b) == chosen]
    view: dict[str, Any] = {
        "loaded": True,
        "error": None,
        "pmcid": ft.pmcid,
        "title": ft.title,
        "licence": ft.licence,
        "licence_url": ft.licence_url,
        "readable": ft.readable,
        "reason": ft.reason,
        "source_url": ft.source_url,
        "truncated": ft.truncated,
        "retrieved_at": result.retrieved_at,
        "cached": result.cached,
        "sections": sections,
        "section": chosen,
        "total_blocks": len(ft.blocks),
        "blocks": [
            {
                "id": b.id,
                "section": b.section,
                "text": b.text,
                "snapshot": text_digest(b.text),
                "segments": marked_segments(b.text, ranges.get(b.id, [])),
            }
            for b in shown
        ],
    }
    return view, out_notes


def _fulltext_failed(paper: Paper, exc: LitdeskError) -> dict[str, Any]:
    pmcid = paper_pmcid(paper)
    return {
        "loaded": False,
        "error": exc.message,
        "code": exc.code,
        "source_url": f"https://europepmc.org/articles/{pmcid}" if pmcid else paper.source_url,
        "blocks": [],
    }


@dataclass(slots=True)
class ReaderDesk:
    """The reader's use cases over the desk's providers. ``recent`` finds a paper in the
    desk's recent search runs, ``remember`` keeps a run there and ``studies`` lists the
    Studies (for "add to a Study")."""

    providers: Providers
    owner: str
    recent: Callable[[str], Paper | None]
    remember: Callable[[SearchRun], None]
    studies: Callable[[], list[dict[str, Any]]]

    @property
    def workspace(self) -> Workspace:
        return Workspace(self.providers.store, owner=self.owner)

    # --- the page ----------------------------------------------------------------------

    def reader(self, paper_id: str) -> ReaderView:
        """A paper's page: a saved paper from the store (no provider call); an unsaved one
        from a recent search run. Viewing never saves."""
        ws = self.workspace
        try:
            row = ws.paper(paper_id)
        except NotFoundError:
            paper = self.recent(paper_id)
            if paper is None:
                raise NotFoundError(
                    f"paper {paper_id[:120]!r} is neither saved nor in a recent search",
                    code="paper_not_found",
                ) from None
            return ReaderView(paper, False, None, [], [], [], "search run")
        notes, problems = ws.notes(paper_ref=row.paper.id)
        evidence, ev_problems = ws.evidence(paper_ref=row.paper.id)
        return ReaderView(
            row.paper,
            True,
            row.status,
            [n.to_dict() for n in notes],
            problems + ev_problems,
            self.studies(),
            "store",
            [evidence_row(e) for e in evidence],
        )

    async def open_paper(
        self, paper_id: str, *, fulltext: bool = False, section: str | None = None
    ) -> ReaderView:
        """The reader for ``paper_id``: saved (store) or from a recent run; otherwise the id
        is looked up at its provider (one exact-identifier lookup). With ``fulltext`` the
        licensed Europe PMC text is loaded (or why not is said). Viewing never saves."""
        try:
            view = await asyncio.to_thread(self.reader, paper_id)
        except NotFoundError:
            view = await self._looked_up(paper_id)
        if not fulltext:
            return view
        try:
            result = await self._fulltext(view.paper)
        except LitdeskError as exc:  # shown on the page beside the abstract
            return replace(view, fulltext=_fulltext_failed(view.paper, exc))
        ft_view, notes = _fulltext_view(result, section, view.notes)
        return replace(view, fulltext=ft_view, notes=notes)

    async def _looked_up(self, paper_id: str) -> ReaderView:
        try:
            definition = make_definition(paper_id)
        except RunInvalid as exc:
            raise ReaderInputError(exc.message, code="definition") from None
        try:
            run = await self.providers.fused_search(definition, owner=self.owner)
        except NotFoundError as exc:  # a replay cassette without this lookup
            raise NotFoundError(
                f"paper {paper_id[:120]!r} is neither saved nor in a recent search, and the "
                f"lookup found nothing ({exc.message[:200]})",
                code="paper_not_found",
            ) from None
        found = next(
            (h.paper for h in run.hits if h.paper.id == paper_id and not h.conflicts), None
        )
        if found is None:
            failed = [lane.message for lane in run.lanes if lane.status != "ok" and lane.message]
            why = f" ({failed[0][:200]})" if failed else ""
            raise NotFoundError(
                f"paper {paper_id[:120]!r} is neither saved nor in a recent search, and its "
                f"provider does not know it{why}",
                code="paper_not_found",
            )
        await asyncio.to_thread(self.remember, run)
        return ReaderView(found, False, None, [], [], [], "lookup")

    async def _fulltext(self, paper: Paper) -> FullTextResult:
        """The paper's full text through the one transport: by its PMCID when known (no
        lookup; a fresh cached copy answers without a call), else by its id."""
        return await self.providers.fulltext(paper_pmcid(paper) or paper.id, owner=self.owner)

    async def _context(
        self, paper_id: str, block_id: str, snapshot: str | None
    ) -> tuple[FullTextContext, FullTextResult]:
        paper = (await asyncio.to_thread(self.workspace.paper, paper_id)).paper
        result = await self._fulltext(paper)
        context = context_from_fulltext(result.fulltext, block_id, retrieved_at=result.retrieved_at)
        if snapshot is not None and snapshot != text_digest(context.text):
            raise SnapshotChanged(
                f"paragraph {block_id} is no longer the text the page showed; "
                "reload the full text and select again"
            )
        return context, result

    # --- reading status, saving -----------------------------------------------------------

    def save_paper(self, paper_id: str, *, study: str | None = None) -> SelectionResult:
        """Save a paper shown from a recent search run (the reader's Save button)."""
        paper = self.recent(paper_id)
        if paper is None:
            row = self.workspace.paper(paper_id)  # already saved: maybe add to the Study
            paper = row.paper
        result = self.workspace.save_paper(paper, study=study)
        s = self.workspace.study(study) if study else None
        return SelectionResult(
            [result.paper.id], int(result.created), [], s.id if s else None, s.name if s else None
        )

    def set_status(self, paper_id: str, status: str | None) -> ReaderView:
        if status is not None and status not in READING_STATUSES:
            raise ReaderInputError(
                f"reading status is one of {', '.join(READING_STATUSES)}", code="status"
            )
        self.workspace.set_status(paper_id, status)
        return self.reader(paper_id)

    # --- highlights and comments ------------------------------------------------------------

    async def highlight(
        self,
        paper_id: str,
        *,
        text: str,
        start: int | None,
        occurrence: int = 1,
        comment: str | None = None,
        block: str | None = None,
        snapshot: str | None = None,
    ) -> ReaderView:
        """A highlight of the abstract, or of full-text paragraph ``block`` (checked against
        the paragraph litdesk holds and, given ``snapshot``, the digest the page showed);
        the offsets must reproduce the text server-side."""
        context = None
        if block:
            context, _result = await self._context(paper_id, block, snapshot)
        await asyncio.to_thread(
            self.workspace.add_note,
            paper_id,
            highlight=text,
            start=start,
            occurrence=occurrence,
            comment=comment or None,
            context=context,
        )
        return await self.open_paper(paper_id, fulltext=context is not None)

    def comment(self, paper_id: str, comment: str) -> ReaderView:
        self.workspace.add_note(paper_id, comment=comment)
        return self.reader(paper_id)

    async def occurrences(
        self, paper_id: str, text: str, *, scope: Literal["abstract", "fulltext"] = "abstract"
    ) -> list[dict[str, Any]]:
        """Exact occurrences (at most 100) of ``text`` in the saved abstract or in the full
        text's paragraphs, each with its paragraph (``block``, ``snapshot``) and context."""
        if not text:
            raise ReaderInputError("type the passage to find", code="empty")
        paper = (await asyncio.to_thread(self.workspace.paper, paper_id)).paper
        sources: list[tuple[str | None, str, str]] = []
        if scope == "abstract":
            sources.append((None, "Abstract", paper.abstract or ""))
        else:
            ft = (await self._fulltext(paper)).fulltext
            if not ft.readable:
                raise ReaderInputError(ft.reason or "the full text is not readable", code="licence")
            sources.extend((b.id, b.section, b.text) for b in ft.blocks)
        out: list[dict[str, Any]] = []
        for block, section, passage in sources:
            for at in find_occurrences(passage, text, MAX_OCCURRENCES - len(out)):
                out.append(
                    {
                        "occurrence": sum(1 for o in out if o["block"] == block) + 1,
                        "block": block,
                        "section": section,
                        "snapshot": text_digest(passage) if block else None,
                        "start": at,
                        "before": passage[max(0, at - _CONTEXT_CHARS) : at],
                        "after": passage[at + len(text) : at + len(text) + _CONTEXT_CHARS],
                    }
                )
            if len(out) >= MAX_OCCURRENCES:
                break
        return out

    # --- evidence -------------------------------------------------------------------------

    async def add_evidence(
        self,
        paper_id: str,
        *,
        finding: str,
        passage: str,
        source: str,
        location: str | None = None,
        block: str | None = None,
        snapshot: str | None = None,
        study: str | None = None,
        fields: dict[str, str | None] | None = None,
    ) -> ReaderView:
        """A finding with its supporting passage: from the abstract, from full-text
        paragraph ``block`` (litdesk fetches the paragraph itself) or external with a
        location; the service validates every field and checks the passage."""
        if source not in ("abstract", "fulltext", "external"):
            raise ReaderInputError(
                "a passage comes from the abstract, a full-text paragraph or an external source",
                code="source",
            )
        context = None
        if source == "fulltext":
            if not block:
                raise ReaderInputError(
                    "choose the full-text paragraph the passage comes from", code="no_block"
                )
            context, _result = await self._context(paper_id, block, snapshot)
        extra = {k: (v or None) for k, v in (fields or {}).items() if k in _EVIDENCE_EXTRA}
        await asyncio.to_thread(
            lambda: self.workspace.add_evidence(
                paper_id,
                finding=finding,
                passage=passage,
                source=source,
                location=location or None,
                context=context,
                study=study or None,
                question=extra.get("question"),
                population=extra.get("population"),
                method=extra.get("method"),
                intervention=extra.get("intervention"),
                limitations=extra.get("limitations"),
            )
        )
        return await asyncio.to_thread(self.reader, paper_id)

    def evidence_table(self, *, study: str | None = None) -> EvidenceTableView:
        views, problems = self.workspace.evidence(study=study or None)
        return EvidenceTableView([evidence_row(v) for v in views], problems, study, self.studies())

    def export_evidence(self, *, study: str | None = None) -> Export:
        views, _problems = self.workspace.evidence(study=study or None)
        body = evidence_csv(views).encode("utf-8")
        return Export(body, "evidence.csv", "text/csv; charset=utf-8", len(views))
