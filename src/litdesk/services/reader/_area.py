"""The reader area (``app.reader``): everything a person does with one paper and its
citations — the paper's page (abstract and licensed Europe PMC full text), highlights
on the abstract or on a full-text paragraph, comments, reading status, exact
occurrences, evidence with its supporting passage (record, edit, table, CSV), and the
citation browser (references, citing, related, shared references; saving chosen works),
with the search page's compare-evidence and shared-references selection actions.

Full text is fetched by litdesk through the app's one transport (reserved once in the
owner's daily allowance, cached on disk for 30 days); a client never sends paragraph
text. A highlight or evidence passage on a paragraph is checked against the paragraph
litdesk itself holds, and (when the page says which snapshot it showed) against that
snapshot's digest, so a paragraph that changed between showing and saving is refused.

Every method takes the acting ``owner``; the workspace checks that owner's rights on
every record (team mode). Store methods are plain (the web runs them in its thread
pool); methods that reach a provider are async.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Final

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import LitdeskError, NotFoundError, RefusedError
from litdesk.adapters.pdf import read_pages_digest
from litdesk.adapters.pdfpages import PDFIUM_LOCK
from litdesk.adapters.store import (
    accounts,
    get_recent_run,
    pdf_records,
    recent_runs_holding,
    remember_run,
    repo,
    subject_links,
)
from litdesk.core.evidence import (
    FullTextContext,
    PdfPage,
    find_occurrences,
    paper_pmcid,
    text_digest,
)
from litdesk.core.forms import Form
from litdesk.core.fulltext import SECTION_SEPARATOR, Block
from litdesk.core.records import Paper
from litdesk.core.runs import RunInvalid, SearchRun, read_run
from litdesk.core.vocab import SubjectRef, parse_subject_ref
from litdesk.services.citations import Mode, seed_key
from litdesk.services.fulltext import FullTextResult
from litdesk.services.providers import Providers
from litdesk.services.search import SelectionFailure, SelectionResult, make_definition, run_text
from litdesk.services.studies import may_change_form, study_rows
from litdesk.services.workspace import EvidenceView, Workspace, context_from_fulltext

from ._listings import Listings
from ._requests import (
    MIN_SHARED,
    CitationsRequest,
    CiteRequest,
    CommentRequest,
    CompareRequest,
    EvidenceRequest,
    EvidenceUpdateRequest,
    FullTextRequest,
    HighlightRequest,
    OccurrencesRequest,
    OpenPaperRequest,
    ReaderInputError,
    SaveCitationsRequest,
    SavePaperRequest,
    SharedRequest,
    SnapshotChanged,
    StatusRequest,
)
from ._views import (
    CitationListView,
    CitationView,
    CiteView,
    CompareView,
    EvidenceRecordView,
    EvidenceTableView,
    Occurrence,
    OccurrencesView,
    ReaderView,
    Row,
    SharedView,
    evidence_row,
    marked_segments,
)

__all__ = ["MAX_OCCURRENCES", "PdfNotAvailable", "ReaderArea"]

MAX_OCCURRENCES: Final = 100
_CONTEXT_CHARS: Final = 40


class PdfNotAvailable(RefusedError):
    """Evidence from a PDF cannot be checked: the paper has no PDF in the library for
    this account, the PDF the page showed is no longer the paper's, or its file changed."""

    default_code = "no_pdf"


def _top_section(block: Block) -> str:
    return block.section.split(SECTION_SEPARATOR, 1)[0] or "Body"


def _fulltext_view(
    result: FullTextResult, section: str | None, notes: list[Row]
) -> tuple[Row, list[Row]]:
    """The full text as the page shows it (blocks of the chosen section, each with its
    snapshot digest and highlighted runs) and the notes, with a notice on each full-text
    highlight whose paragraph now reads differently from its snapshot."""
    ft = result.fulltext
    by_id = {b.id: b for b in ft.blocks}
    ranges: dict[str, list[tuple[int, int]]] = {}
    out_notes: list[Row] = []
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
    view: Row = {
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


def _fulltext_failed(paper: Paper, exc: LitdeskError) -> Row:
    pmcid = paper_pmcid(paper)
    return {
        "loaded": False,
        "error": exc.message,
        "code": exc.code,
        "source_url": f"https://europepmc.org/articles/{pmcid}" if pmcid else paper.source_url,
        "blocks": [],
    }


def _chosen(run: SearchRun, ids: tuple[str, ...]) -> tuple[list[Paper], list[dict[str, str]]]:
    """The selected hits of ``run`` that can be acted on, and each one that cannot."""
    hits = {h.paper.id: h for h in run.hits}
    papers: list[Paper] = []
    failed: list[dict[str, str]] = []
    for pid in ids:
        hit = hits.get(pid)
        if hit is None:
            failed.append({"id": pid[:200], "title": "", "reason": "not in this search run"})
        elif hit.conflicts:
            failed.append(
                {
                    "id": pid,
                    "title": hit.paper.title,
                    "reason": "identifier conflict: " + "; ".join(hit.conflicts),
                }
            )
        else:
            papers.append(hit.paper)
    return papers, failed


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


def _seed(paper: Paper) -> str:
    """The identifier OpenAlex is asked for (its work id first)."""
    for value in (paper.openalex_id, paper.doi, paper.pmid, paper.pmcid):
        if value:
            return value
    return paper.id


class ReaderArea:
    """The reader's use cases over the app's providers (store, transport, fused search).
    ``clock``: what recent runs' and citation listings' retention read."""

    def __init__(
        self,
        providers: Providers,
        *,
        clock: Clock = SYSTEM_CLOCK,
        subjects: Callable[[Sequence[str]], tuple[SubjectRef, ...]] | None = None,
        pdf_files: Callable[[str], Path] | None = None,
    ) -> None:
        self.providers = providers
        self.clock = clock
        #: the library's file of a PDF named by its SHA-256 (evidence from a PDF page)
        self.pdf_files = pdf_files
        #: names subjects (``mesh:D003920``) as the installed vocabularies label them
        self.subjects = subjects
        #: citation lists shown, remembered in the store so chosen works can be saved
        self.listings = Listings(providers.store, clock=clock)

    def _ws(self, owner: str) -> Workspace:
        return Workspace(self.providers.store, owner=owner)

    def _studies(self, owner: str) -> list[Row]:
        """The owner's Studies (for "add to a Study")."""
        return [dict(row) for row in study_rows(self._ws(owner))]

    def _holding(self, owner: str, paper_id: str, chosen: str | None) -> list[Row]:
        """The owner's Studies that hold the paper (and the one the reader came from): the
        Studies its highlights, comments and evidence can be made in."""
        with self.providers.store.read() as conn:
            holding = repo.studies_holding(conn, paper_id)
        return [s for s in self._studies(owner) if s["id"] in holding or s["id"] == chosen]

    # --- recent search runs (kept in the store by the search area) ----------------------

    def _recent_run(self, run_id: str, owner: str) -> SearchRun:
        """``owner``'s recent run ``run_id`` (another owner's, an expired or an unknown
        run is not open: ``run_not_open``)."""
        return read_run(get_recent_run(self.providers.store, owner, run_id, now=self.clock.now()))

    def _paper_in_runs(self, paper_id: str, owner: str) -> Paper | None:
        for document in recent_runs_holding(self.providers.store, owner, paper_id):
            for hit in read_run(document).hits:
                if hit.paper.id == paper_id:
                    return hit.paper
        return None

    def _remember(self, run: SearchRun, owner: str) -> None:
        """Keep a lookup's run among ``owner``'s recent runs (so the paper can be saved);
        a run in which no lane succeeded holds nothing and is not kept."""
        if not any(lane.status == "ok" for lane in run.lanes):
            return
        remember_run(self.providers.store, owner, run.id, run_text(run), now=self.clock.now())

    # --- the page ------------------------------------------------------------------------

    def reader(self, paper_id: str, *, owner: str, study: str | None = None) -> ReaderView:
        """A paper's page without provider calls: a saved paper from the store, an unsaved
        one from a recent search run. Viewing never saves. With ``study`` (the Study the
        reader came from) the evidence form is that Study's form."""
        with self.providers.store.snapshot():  # one read transaction for the page's reads
            return self._reader(paper_id, owner, study)

    def _reader(self, paper_id: str, owner: str, study: str | None) -> ReaderView:
        ws = self._ws(owner)
        chosen = ws.study(study) if study else None
        form = ws.form(chosen.id if chosen else None)
        form_study: Row | None = {"id": chosen.id, "name": chosen.name} if chosen else None
        try:
            row = ws.paper(paper_id)
        except NotFoundError:
            paper = self._paper_in_runs(paper_id, owner)
            if paper is None:
                raise NotFoundError(
                    f"paper {paper_id[:120]!r} is neither saved nor in a recent search",
                    code="paper_not_found",
                ) from None
            return ReaderView(
                paper, False, None, [], [], [], "search run", form=form, form_study=form_study
            )
        notes, problems = ws.notes(paper_ref=row.paper.id)
        evidence, ev_problems = ws.evidence(paper_ref=row.paper.id)
        forms = self._forms(ws, evidence)
        return ReaderView(
            row.paper,
            True,
            row.status,
            [n.to_dict() for n in notes],
            problems + ev_problems,
            self._holding(owner, row.paper.id, chosen.id if chosen else None),
            "store",
            [evidence_row(e, forms[e.study_id]) for e in evidence],
            form=form,
            form_study=form_study,
            pdf=self._pdf(owner, row.paper.id),
        )

    def _pdf(self, owner: str, paper_id: str) -> Row | None:
        """The paper's PDF in the library for ``owner`` (see :class:`ReaderView`)."""
        with self.providers.store.read() as conn:
            found = pdf_records.pdfs_of_papers(conn, owner, [paper_id]).get(paper_id)
        return {"sha256": found[0], "file": found[1]} if found else None

    @staticmethod
    def _forms(ws: Workspace, views: list[EvidenceView]) -> dict[str | None, Form]:
        """The form of each Study the records belong to (the default for none)."""
        return {sid: ws.form(sid) for sid in {v.study_id for v in views}}

    async def open_paper(self, request: OpenPaperRequest, *, owner: str) -> ReaderView:
        """The reader for a paper: saved (store) or from a recent run; otherwise its id is
        looked up at its provider (one exact-identifier lookup). With ``fulltext`` the
        licensed Europe PMC text is loaded (or why not is said). Viewing never saves."""
        try:
            view = await asyncio.to_thread(
                lambda: self.reader(request.paper_id, owner=owner, study=request.study)
            )
        except NotFoundError:
            view = await self._looked_up(request.paper_id, owner)
        if not request.fulltext:
            return view
        try:
            result = await self._fulltext(view.paper, owner)
        except LitdeskError as exc:  # shown on the page beside the abstract
            return replace(view, fulltext=_fulltext_failed(view.paper, exc))
        ft_view, notes = _fulltext_view(result, request.section, view.notes)
        return replace(view, fulltext=ft_view, notes=notes)

    async def _looked_up(self, paper_id: str, owner: str) -> ReaderView:
        try:
            definition = make_definition(paper_id)
        except RunInvalid as exc:
            raise ReaderInputError(exc.message, code="definition") from None
        try:
            run = await self.providers.fused_search(definition, owner=owner)
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
        await asyncio.to_thread(self._remember, run, owner)
        return ReaderView(found, False, None, [], [], [], "lookup")

    async def _fulltext(self, paper: Paper, owner: str) -> FullTextResult:
        """The paper's full text through the one transport: by its PMCID when known (no
        lookup; a fresh cached copy answers without a call), else by its id."""
        return await self.providers.fulltext(paper_pmcid(paper) or paper.id, owner=owner)

    async def _context(
        self, paper_id: str, block_id: str, snapshot: str | None, owner: str
    ) -> FullTextContext:
        paper = (await asyncio.to_thread(self._ws(owner).paper, paper_id)).paper
        result = await self._fulltext(paper, owner)
        context = context_from_fulltext(result.fulltext, block_id, retrieved_at=result.retrieved_at)
        if snapshot is not None and snapshot != text_digest(context.text):
            raise SnapshotChanged(
                f"paragraph {block_id} is no longer the text the page showed; "
                "reload the full text and select again"
            )
        return context

    async def fulltext(self, request: FullTextRequest, *, owner: str) -> FullTextResult:
        """An article's licensed full text by any of its ids (cached for 30 days;
        ``refresh`` ignores the cached copy)."""
        return await self.providers.fulltext(request.paper_id, refresh=request.refresh, owner=owner)

    # --- reading status, saving -----------------------------------------------------------

    def save_paper(self, request: SavePaperRequest, *, owner: str) -> SelectionResult:
        """Save a paper shown from a recent search run (the reader's Save button); an
        already saved one is added to the Study."""
        ws = self._ws(owner)
        paper = self._paper_in_runs(request.paper_id, owner)
        if paper is None:
            paper = ws.paper(request.paper_id).paper
        result = ws.save_paper(paper, study=request.study)
        s = ws.study(request.study) if request.study else None
        return SelectionResult(
            [result.paper.id], int(result.created), [], s.id if s else None, s.name if s else None
        )

    def set_status(self, request: StatusRequest, *, owner: str) -> ReaderView:
        """Set (or clear) a saved paper's reading status."""
        self._ws(owner).set_status(request.paper_id, request.status)
        return self.reader(request.paper_id, owner=owner)

    # --- highlights and comments ------------------------------------------------------------

    async def highlight(self, request: HighlightRequest, *, owner: str) -> ReaderView:
        """A highlight of the abstract or of a full-text paragraph; the offsets must
        reproduce the text server-side."""
        context = None
        if request.block:
            context = await self._context(request.paper_id, request.block, request.snapshot, owner)
        await asyncio.to_thread(
            self._ws(owner).add_note,
            request.paper_id,
            highlight=request.text,
            start=request.start,
            occurrence=request.occurrence,
            comment=request.comment or None,
            context=context,
            study=request.study,
        )
        return await self.open_paper(
            OpenPaperRequest(request.paper_id, fulltext=context is not None), owner=owner
        )

    def comment(self, request: CommentRequest, *, owner: str) -> ReaderView:
        """A paper-level comment (no highlight needed)."""
        self._ws(owner).add_note(request.paper_id, comment=request.comment, study=request.study)
        return self.reader(request.paper_id, owner=owner)

    async def occurrences(self, request: OccurrencesRequest, *, owner: str) -> OccurrencesView:
        """Exact occurrences (at most 100) of a passage in the saved abstract or in the
        full text's paragraphs, each with its paragraph (``block``, ``snapshot``) and
        context."""
        text = request.text
        paper = (await asyncio.to_thread(self._ws(owner).paper, request.paper_id)).paper
        sources: list[tuple[str | None, str, str]] = []
        if request.scope == "abstract":
            sources.append((None, "Abstract", paper.abstract or ""))
        else:
            ft = (await self._fulltext(paper, owner)).fulltext
            if not ft.readable:
                raise ReaderInputError(ft.reason or "the full text is not readable", code="licence")
            sources.extend((b.id, b.section, b.text) for b in ft.blocks)
        out: list[Occurrence] = []
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
        return OccurrencesView(out)

    # --- evidence -------------------------------------------------------------------------

    async def add_evidence(self, request: EvidenceRequest, *, owner: str) -> ReaderView:
        """Record evidence (:meth:`record_evidence`) and show the paper's page again."""
        await self.record_evidence(request, owner=owner)
        r = request
        return await asyncio.to_thread(
            lambda: self.reader(r.paper_id, owner=owner, study=r.study or None)
        )

    async def record_evidence(self, request: EvidenceRequest, *, owner: str) -> EvidenceRecordView:
        """A finding with its supporting passage (from the abstract, a full-text paragraph
        litdesk fetches itself, a page of the paper's PDF in the library, or external with
        a location); the workspace validates every field and checks the passage. A PDF
        passage is checked on its page's text with the strict PDF matcher and kept with
        the PDF's SHA-256 and the page."""
        r = request
        context = None
        if r.source == "fulltext" and r.block:
            context = await self._context(r.paper_id, r.block, r.snapshot or None, owner)
        pdf: PdfPage | None = None
        pages: list[str] | None = None
        if r.source == "pdf":
            assert r.page is not None  # the request requires it
            pdf, pages = await asyncio.to_thread(self._pdf_pages, r.paper_id, r.page, r.pdf, owner)
        ws = self._ws(owner)
        linked = await asyncio.to_thread(self._resolve, r.subjects)
        record = await asyncio.to_thread(
            lambda: ws.add_evidence(
                r.paper_id,
                finding=r.finding or None,
                passage=r.passage,
                source=r.source,
                location=r.location or None,
                context=context,
                study=r.study or None,
                question=r.question or None,
                population=r.population or None,
                method=r.method or None,
                intervention=r.intervention or None,
                limitations=r.limitations or None,
                values=dict(r.values),
                subjects=linked,
                pdf=pdf,
                pdf_pages=pages,
            )
        )
        return EvidenceRecordView(record, await asyncio.to_thread(ws.form, record.study_id))

    def _pdf_pages(
        self, paper_ref: str, page: int, shown: str | None, owner: str
    ) -> tuple[PdfPage, list[str]]:
        """The paper's PDF for ``owner`` (the one it attached, else one linked in a Study it
        belongs to) named by page, and the text of its pages, read from the very bytes whose
        SHA-256 names it. Refused when the paper has none, when ``shown`` (the PDF the page
        showed) is no longer the paper's, or when the library's file is not those bytes."""
        paper = self._ws(owner).paper(paper_ref).paper  # the owner may read it
        with self.providers.store.read() as conn:
            found = pdf_records.pdfs_of_papers(conn, owner, [paper.id]).get(paper.id)
        if found is None:
            raise PdfNotAvailable(
                f"{paper.id} has no PDF in the library for you: attach one first "
                "(litdesk library attach FILE PAPER, or the library page's Attach)",
                code="no_pdf",
            )
        sha, file = found
        if shown is not None and shown != sha:
            raise PdfNotAvailable(
                f"the PDF you read is no longer the PDF of {paper.id} ({file} is): "
                "open the paper again",
                code="pdf_changed",
            )
        if self.pdf_files is None:
            raise PdfNotAvailable("this app has no PDF library", code="no_library")
        path = self.pdf_files(sha)
        with PDFIUM_LOCK:
            digest, pages = read_pages_digest(path)
        if digest != sha:
            raise PdfNotAvailable(
                f"{file} changed since the library read it; index the library again",
                code="pdf_changed",
            )
        return PdfPage(sha256=sha, file=file, page=page), pages

    def update_evidence(self, request: EvidenceUpdateRequest, *, owner: str) -> EvidenceRecordView:
        """Change an evidence record's fields or passage (validated and re-checked)."""
        ws = self._ws(owner)
        record = ws.revise_evidence(
            request.evidence_id, dict(request.changes), dict(request.values)
        )
        return EvidenceRecordView(record, ws.form(record.study_id))

    def _resolve(self, refs: Sequence[str]) -> tuple[SubjectRef, ...]:
        if not refs:
            return ()
        if self.subjects is None:
            raise ReaderInputError("subjects cannot be linked here", code="no_vocabulary")
        return self.subjects(refs)

    def evidence_table(
        self, *, study: str | None = None, subject: str | None = None, owner: str
    ) -> EvidenceTableView:
        """Evidence across all findings or one Study (linked to ``subject``, as in
        ``mesh:D003920``, when given), each re-checked against its paper; with the
        subjects the shown Study's evidence is linked to (the filter's choices)."""
        ws = self._ws(owner)
        named = parse_subject_ref(subject) if subject else None
        views, problems = ws.evidence(study=study or None, subject=named)
        forms = self._forms(ws, views)
        form = ws.form(study or None)
        changer = False  # whether the page offers to change the Study's form
        if study:
            study_id = ws.study(study).id
            with self.providers.store.read() as conn:
                changer = may_change_form(accounts.study_role(conn, owner, study_id))
        return EvidenceTableView(
            [evidence_row(v, forms[v.study_id]) for v in views],
            problems,
            study,
            self._studies(owner),
            form,
            subject=f"{named[0]}:{named[1]}" if named else None,
            subjects=self._linked(ws, study or None, owner),
            can_change_form=changer,
        )

    def _linked(self, ws: Workspace, study: str | None, owner: str) -> list[Row]:
        """The subjects the evidence ``owner`` may see (in ``study``) is linked to, each
        with its number of records (the evidence table's filter)."""
        study_id = ws.study(study).id if study else None
        with self.providers.store.read() as conn:
            pairs = subject_links.linked_subjects(conn, visible_to=owner, study_id=study_id)
        return [s.to_dict() | {"records": n} for s, n in pairs]

    # --- citations ----------------------------------------------------------------------------

    async def _browse(self, mode: Mode, ids: list[str], page: int, owner: str) -> CitationView:
        result = await self.providers.citations(mode, ids, page=page, owner=owner)
        return CitationView(result, ids)

    async def citations(self, request: CitationsRequest, *, owner: str) -> CitationListView:
        """One page of the citation browser, remembered (by an unguessable id) so that
        chosen works can be saved from it."""
        view = await self._browse(request.mode, list(request.ids), request.page, owner)
        key = await asyncio.to_thread(self.listings.remember, owner, view.result.papers)
        studies = await asyncio.to_thread(self._studies, owner)
        return CitationListView(view, key, studies)

    def save_citations(self, request: SaveCitationsRequest, *, owner: str) -> SelectionResult:
        """Save chosen works of a shown citation list into a Study (existing or new), each
        in its own transaction so that one failure is reported beside the saved ones."""
        shown = self.listings.papers(request.listing, owner)
        ws = self._ws(owner)
        row = (
            ws.create_study(request.new_study)
            if request.new_study
            else ws.study(request.study or "")
        )
        saved: list[str] = []
        failed: list[SelectionFailure] = []
        created = 0
        for pid in request.paper_ids:
            paper = shown.get(pid)
            if paper is None:
                failed.append(
                    {"id": pid[:200], "title": "", "reason": "not in the citation list shown"}
                )
                continue
            try:
                result = ws.save_paper(paper, study=row.id)
            except LitdeskError as exc:
                failed.append({"id": pid, "title": paper.title, "reason": exc.message})
                continue
            saved.append(result.paper.id)
            created += int(result.created)
        return SelectionResult(saved, created, failed, row.id, row.name)

    async def cite(self, request: CiteRequest, *, owner: str) -> CiteView:
        """The CLI's citation discovery; with ``save_to`` the chosen results are saved into
        that Study in one transaction (all or none)."""
        result = await self.providers.citations(
            request.mode, list(request.ids), page=request.page, owner=owner
        )
        if request.save_to is None:
            return CiteView(result)
        count = len(result.papers)
        picks = request.picks if request.picks is not None else tuple(range(1, count + 1))
        for n in picks:
            if not 1 <= n <= count:
                raise ReaderInputError(
                    f"--pick takes result numbers from 1 to {count} (comma-separated), got {str(n)!r}",
                    code="arguments",
                )
        chosen = [result.papers[n - 1] for n in dict.fromkeys(picks)]
        save_to = request.save_to
        done = await asyncio.to_thread(lambda: self._ws(owner).save_papers(chosen, study=save_to))
        return CiteView(result, save_to, [r.paper.id for r in done])

    # --- selection actions of the search page -------------------------------------------------

    def compare_evidence(self, request: CompareRequest, *, owner: str) -> CompareView:
        """The evidence recorded for up to 20 selected papers, side by side. A paper that is
        not saved (so has no evidence) or whose records cannot be read is reported beside
        the others."""
        run = self._recent_run(request.run_id, owner)
        if not request.paper_ids:
            raise ReaderInputError("select at least one paper", code="empty_selection")
        papers, failed = _chosen(run, request.paper_ids)
        ws = self._ws(owner)
        columns: list[Row] = []
        for paper in papers:
            saved = _saved(ws, paper)
            if saved is None:
                failed.append({"id": paper.id, "reason": "not saved, so no evidence is recorded"})
                continue
            try:
                views, problems = ws.evidence(paper_ref=saved.paper.id)
                forms = self._forms(ws, views)
            except LitdeskError as exc:
                failed.append({"id": paper.id, "reason": exc.message})
                continue
            columns.append(
                {
                    "id": saved.paper.id,
                    "title": saved.paper.title,
                    "year": saved.paper.year,
                    "evidence": [evidence_row(v, forms[v.study_id]) for v in views],
                    "problems": problems,
                }
            )
        return CompareView(columns, failed, run.id)

    async def shared_references(self, request: SharedRequest, *, owner: str) -> SharedView:
        """References shared by 2–5 selected papers ("referenced by n of m"). A paper
        OpenAlex cannot look up is reported and left out; the rest are compared when at
        least two remain. The happy path asks OpenAlex once per paper (as the citation
        browser does); only when a lookup fails are the papers asked one by one to say
        which failed."""
        run = await asyncio.to_thread(self._recent_run, request.run_id, owner)
        too_few = request.too_few()
        if too_few is not None:
            raise too_few
        papers, failed = _chosen(run, request.paper_ids)
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
                result = await self._browse("shared", [s for _, s in seeds], 1, owner)
            except LitdeskError as first:
                if first.code in ("openalex_key", "allowance"):
                    raise  # nothing would succeed one by one either
                kept: list[tuple[str, str]] = []
                service = self.providers.citation_service(owner=owner)
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
                    result = await self._browse("shared", [w for _, w in kept], 1, owner)
        return SharedView(result, failed, len(request.paper_ids), run.id)
