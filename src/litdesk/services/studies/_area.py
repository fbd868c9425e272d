"""The studies area: Studies (list, create, rename, a Study's page), the saved papers
list, the review notebook, a Study's files (exports, PRISMA-S, ZIP and its recovery)
and imports into a Study — one method per use case, the acting account as ``owner=``.

Every access is checked by the store-level :class:`Workspace` acting as ``owner`` (team
mode: a viewer reads, a member writes, the owner renames), exactly as the desk did.
Store methods are plain (a web face runs them in its thread pool).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import RefusedError
from litdesk._settings import Settings
from litdesk.adapters.store import (
    Store,
    drop_import_uploads,
    pdf_records,
    put_import_uploads,
    repo,
    sweep_import_uploads,
)
from litdesk.adapters.store import accounts as access
from litdesk.core.records import Paper
from litdesk.core.vocab import parse_subject_ref
from litdesk.services.dedup import StepChecks, keep_working_sets
from litdesk.services.jobs import (
    ClaimedJob,
    Handler,
    JobRunner,
    Jobs,
    JobView,
    MemoryBudget,
    new_job_id,
    upload_cost,
    zip_cost,
)
from litdesk.services.workspace import Workspace, now_iso

from . import _trash
from ._edit_requests import EmptyTrashRequest, NoteEditRequest
from ._edit_views import ChangeView, HistoryView, TrashView
from ._forms import FormFieldRequest, FormView, SetFormRequest, change_field, set_form, study_form
from ._requests import (
    EXPORT_MEDIA,
    PRISMA_FORMATS,
    AddSearchRequest,
    AttachPdfRequest,
    CreateStudyRequest,
    EvidenceExportRequest,
    ImportRequest,
    NotebookExportRequest,
    NotebookRequest,
    PdfLinkRequest,
    PrismaExportRequest,
    RecordsRequest,
    RecoverRequest,
    RenameStudyRequest,
    SavedExportRequest,
    SavedRequest,
    StudyRequest,
    UpdateStudyRequest,
    WorkingSetExportRequest,
    WorkingSetRequest,
)
from ._rounds import RoundCases
from ._screening_zip import ScreeningZip, record_decisions
from ._sources import ImportSourceRequest, ImportSourceView, set_import_source
from ._views import (
    AddSearchPreview,
    AttachedPdfView,
    EvidenceTable,
    Export,
    FulltextShow,
    FulltextView,
    ImportOutcome,
    NotebookExport,
    NotebookView,
    PrismaView,
    RecordsView,
    RecoveredView,
    SavedRow,
    SavedView,
    SearchRoundsView,
    StudiesView,
    StudyRow,
    StudyView,
    WholeSearchJob,
    WorkingSetView,
    WorkspaceCounts,
)
from ._working_set import records_view, study_counts, working_set_papers, working_set_view

if TYPE_CHECKING:  # imported by the use cases that need them (a listing needs none)
    from litdesk.services.workspace import NoteView

    from ._fulltext import FulltextParts, StudyFulltext
    from ._importing import PathHook
    from ._whole_cases import WholeSearches
    from ._whole_jobs import JobProviders

__all__ = ["SAVED_CAP", "SAVED_PAGE", "StudiesArea", "study_rows", "study_view"]

SAVED_CAP: Final = 5_000
SAVED_PAGE: Final = 50
_SAFE_NAME: Final = re.compile(r"[^A-Za-z0-9._-]+")


def _slug(name: str) -> str:
    """A file-name stem from a Study's name (ASCII letters, digits, ``._-``)."""
    return _SAFE_NAME.sub("-", name).strip("-.")[:60] or "study"


def _saved_row(r: repo.PaperRow) -> SavedRow:
    p = r.paper
    return {
        "id": p.id,
        "title": p.title,
        "authors": list(p.authors[:6]),
        "more_authors": max(0, len(p.authors) - 6),
        "journal": p.journal,
        "year": p.year,
        "doi": p.doi,
        "status": r.status,
        "retracted": p.retracted,
        "pdf": None,
    }


def study_rows(ws: Workspace) -> list[StudyRow]:
    """The Studies ``ws``'s owner may read, with their paper counts (the rows pages
    offer for "add to a Study")."""
    return _rows_of(ws.studies())


def _rows_of(listed: list[tuple[repo.StudyRow, int]]) -> list[StudyRow]:
    return [
        {
            "id": s.id,
            "name": s.name,
            "description": s.description,
            "created_at": s.created_at,
            "papers": n,
        }
        for s, n in listed
    ]


def study_view(
    ws: Workspace, request: StudyRequest | str, checks: StepChecks | None = None
) -> StudyView:
    """A Study's page (see :meth:`StudiesArea.study`): one page of its papers (a page past
    the last: the last) with its counts, kept search runs (their definitions, so a page can
    restore one into the search form), imports, the listed papers' PDFs and full text,
    its working set's numbers (``checks``: how often its records are checked to be in
    step) and its whole searches by round."""
    from litdesk.services.search import kept_runs

    from ._fulltext import retrieval
    from ._whole_cases import WholeSearches

    if isinstance(request, str):
        request = StudyRequest(request)
    per = request.per_page
    summary = ws.study_summary(request.ref, offset=(request.page - 1) * per, limit=per)
    pages = max(1, -(-summary.papers_total // per))
    if request.page > pages:  # past the last page (a paper went since): the last
        summary = ws.study_summary(request.ref, offset=(pages - 1) * per, limit=per)
    store, shown = ws.store, summary.papers
    return StudyView(
        summary,
        runs=kept_runs(store, summary.search_runs),
        import_rows=_trash.import_rows(store, summary.id),
        page=min(request.page, pages),
        pages=pages,
        per_page=per,
        retrieval=retrieval(store, summary.id, [p.id for p in shown], summary.papers_total),
        working_set=study_counts(store, summary.id, checks),
        rounds=WholeSearches.rounds_of(store, summary.id),
    )


class StudiesArea(RoundCases):
    """Studies and their papers, notes, exports and imports, for any owner (update rounds
    begun by hand: :class:`~._rounds.RoundCases`).

    ``wake`` tells this process's job runner that an import job was queued."""

    def __init__(
        self,
        store: Store,
        jobs: Jobs,
        settings: Settings,
        *,
        wake: Callable[[], None] | None = None,
        providers: Callable[[], JobProviders] | None = None,
        fulltext: Callable[[], FulltextParts] | None = None,
        screening: Callable[[], ScreeningZip] | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        """``providers``, ``fulltext``: make the app's providers (whole searches) and the
        library and full-text parts of the Study's PDFs and full text when they are first
        needed (the app passes them; without them those use cases are refused).
        ``clock``:
        the app's (how often a Study's records are checked to be in step)."""
        self.store = store
        self.jobs = jobs
        self.settings = settings
        self._wake = wake
        keep_working_sets(store)  # writes keep the Studies' records in step; reads never write
        self._step_checks = StepChecks(clock)
        self._providers = providers
        self._fulltext_parts = fulltext
        self._screening = screening  # the ZIP's decisions (None: the ZIP carries none)
        self._fulltext: StudyFulltext | None = None
        self._fulltext_lock = threading.Lock()  # web threads may race to the first use
        #: the memory the imports running at once in this process may hold together
        self.budget = MemoryBudget(
            settings.import_memory_budget_mb << 20, wait_s=settings.import_wait_seconds
        )
        # validated saved papers by id with their stored text, reused while it is unchanged
        # (whose status a listing re-reads for its owner). Listings on several threads share
        # it without a lock: each get and set of one entry is atomic, an entry is a whole
        # (text, row) pair, and two threads that validate the same text store equal rows —
        # a lock here had made every listing of the process wait for the one before it,
        # database round trip included.
        self._papers: dict[str, tuple[str, repo.PaperRow]] = {}
        self._held: dict[str, ClaimedJob] = {}

    def _ws(self, owner: str) -> Workspace:
        return Workspace(self.store, owner=owner)

    def handlers(self) -> dict[str, Handler]:
        """The job handlers this area runs: a large web import into a Study; a Study's
        full-text check; a whole search added to a Study and a Study's update (with the
        app's providers)."""
        from ._importing import IMPORT_KIND, import_handler

        out: dict[str, Handler] = {IMPORT_KIND: import_handler(self.store, self.budget)}
        fulltext = self._ft_parts()
        if fulltext is not None:
            from ._fulltext import FULLTEXT_KIND

            out[FULLTEXT_KIND] = fulltext.handler()
        if self._providers is not None:
            from ._whole_jobs import ADD_SEARCH_KIND, UPDATE_KIND, whole_handler

            handler = whole_handler(self._providers())
            out |= {ADD_SEARCH_KIND: handler, UPDATE_KIND: handler}
        return out

    # --- Studies ---------------------------------------------------------------------

    def studies(self, *, owner: str) -> StudiesView:
        """The Studies ``owner`` may read, with their paper counts."""
        return StudiesView(study_rows(self._ws(owner)))

    def study(self, request: StudyRequest | str, *, owner: str) -> StudyView:
        """A Study's page: one page of its papers (newest first) with ``papers_total``,
        ``page``, ``pages`` and ``per_page``, its counts (records identified, duplicates
        removed, studies in the working set), kept search runs and imports, each listed
        paper's PDF / licensed full text (as recorded: no library scan, no network; the
        counts over all its papers), and its whole searches by round with the latest
        update's report. A bare ``ref`` is its first page."""
        with self.store.snapshot():  # one read transaction for the page's dozen reads
            return study_view(self._ws(owner), request, self._step_checks)

    # --- a Study's records and working set -------------------------------------------------

    def records(self, request: RecordsRequest, *, owner: str) -> RecordsView:
        """One page of everything the Study identified, each record with its source,
        database, rank, and its group and rule in the working set."""
        study = self._ws(owner).study(request.ref)
        return records_view(self.store, study, request.page, self._step_checks)

    def working_set(self, request: WorkingSetRequest, *, owner: str) -> WorkingSetView:
        """One page of the Study's working set: one merged record per study with its member
        records and the rule that grouped them, and the Study's numbers."""
        study = self._ws(owner).study(request.ref)
        return working_set_view(self.store, study, request.page, self._step_checks)

    def export_working_set(self, request: WorkingSetExportRequest, *, owner: str) -> Export:
        """The working set (one merged record per study) as RIS, CSV or BibTeX."""
        row = self._ws(owner).study(request.ref)
        papers = working_set_papers(self.store, row.id)
        media, ext = EXPORT_MEDIA[request.format]
        from litdesk.adapters.formats import dumps

        body = dumps(papers, request.format).encode("utf-8")
        return Export(body, f"{_slug(row.name)}-working-set.{ext}", media, len(papers))

    def create_study(self, request: CreateStudyRequest, *, owner: str) -> StudyView:
        """A new Study of ``owner``."""
        row = self._ws(owner).create_study(request.name, request.description)
        return self.study(row.id, owner=owner)

    def rename_study(self, request: RenameStudyRequest, *, owner: str) -> StudyView:
        """Rename a Study (its owner only; recorded in its history)."""
        with self.store.write() as conn:
            _, _ = repo.study_with_role(conn, request.ref, account=owner, need="owner")
            row = repo.rename_study(conn, request.ref, request.name, account=owner)
            access.add_history(conn, row.id, owner, "study_renamed", request.name, now_iso())
        return self.study(row.id, owner=owner)

    # --- saved papers ------------------------------------------------------------------

    def _study_id(self, study: str | None, owner: str) -> str | None:
        return self._ws(owner).study(study).id if study else None

    def _saved_rows(
        self, text: str, study: str | None, status: str | None, owner: str
    ) -> tuple[list[repo.PaperRow], int, bool]:
        study_id = self._study_id(study, owner)
        # one listing at a time reuses and refreshes the records
        with self.store.read() as conn:
            if len(self._papers) > 4 * SAVED_CAP:
                self._papers.clear()
            rows = repo.list_papers_reusing(
                conn,
                self._papers,
                study_id=study_id,
                status=status,
                limit=SAVED_CAP + 1,
                visible_to=owner,
            )
        capped = len(rows) > SAVED_CAP
        rows = rows[:SAVED_CAP]
        total = len(rows)
        if text.strip():
            by_id = {r.paper.id: r for r in rows}
            from litdesk.core.saved import filter_papers  # rapidfuzz: a filtered list only

            rows = [by_id[p.id] for p in filter_papers([r.paper for r in rows], text)]
        return rows, total, capped

    def saved(self, request: SavedRequest, *, owner: str) -> SavedView:
        """One page of saved papers. Without a text filter the page comes from the store
        (count + one page); with one, the newest :data:`SAVED_CAP` are filtered here."""
        with self.store.snapshot():  # the list, its PDFs and the Studies: one transaction
            return self._saved(request, owner)

    def _saved(self, request: SavedRequest, owner: str) -> SavedView:
        text, study, status, page = request.text, request.study, request.status, request.page
        if text.strip():
            rows, total, capped = self._saved_rows(text, study, status, owner)
            matched = len(rows)
            pages = max(1, -(-matched // SAVED_PAGE))
            page = min(page, pages)
            shown = rows[(page - 1) * SAVED_PAGE : page * SAVED_PAGE]
            listed = self.studies(owner=owner).studies
        else:
            study_id = self._study_id(study, owner)
            with self.store.read() as conn:  # one transaction: the count, the page, the Studies
                listed = _rows_of(repo.list_studies(conn, visible_to=owner))
                total = matched = repo.count_papers(
                    conn, study_id=study_id, status=status, visible_to=owner
                )
                pages = max(1, -(-matched // SAVED_PAGE))
                page = min(page, pages)
                shown = repo.list_papers_reusing(
                    conn,
                    self._papers,
                    study_id=study_id,
                    status=status,
                    limit=SAVED_PAGE,
                    offset=(page - 1) * SAVED_PAGE,
                    visible_to=owner,
                )
            capped = False
        rows_shown = [_saved_row(r) for r in shown]
        with self.store.read() as conn:
            pdfs = pdf_records.pdfs_of_papers(conn, owner, [r["id"] for r in rows_shown])
        for row in rows_shown:
            if (found := pdfs.get(row["id"])) is not None:
                row["pdf"] = {"sha256": found[0], "file": found[1]}
        return SavedView(
            rows=rows_shown,
            total_saved=total,
            matched=matched,
            cap=SAVED_CAP,
            capped=capped,
            page=page,
            pages=pages,
            filters={"text": text, "study": study, "status": status},
            studies=listed,
        )

    def counts(self, *, owner: str) -> WorkspaceCounts:
        """The header's counts: the papers ``owner`` saved (as the saved list counts them)
        and the review notes it may read (as the notebook lists them), in one read."""
        with self.store.read() as conn:
            saved = repo.count_papers(conn, visible_to=owner)
            notes = repo.count_documents(conn, "notes", visible_to=owner)
        return WorkspaceCounts(saved=saved, notes=notes)

    def export_saved(self, request: SavedExportRequest, *, owner: str) -> Export:
        """The filtered saved list as RIS, CSV or BibTeX."""
        rows, _total, _capped = self._saved_rows(request.text, request.study, request.status, owner)
        papers = [r.paper for r in rows]
        media, ext = EXPORT_MEDIA[request.format]
        from litdesk.adapters.formats import dumps

        body = dumps(papers, request.format).encode("utf-8")
        return Export(body, f"saved-papers.{ext}", media, len(papers))

    # --- the review notebook and the evidence table ----------------------------------------

    def notebook(self, request: NotebookRequest, *, owner: str) -> NotebookView:
        """Highlights and comments across papers, newest last; filtered by words (in the
        passage, comment or paper title) and kind."""
        with self.store.snapshot():  # the notes, their papers' titles, the Studies
            return self._notebook(request, owner)

    def _notebook(self, request: NotebookRequest, owner: str) -> NotebookView:
        text, kind, study = request.text, request.kind, request.study
        notes, problems = self._ws(owner).notes(study=study)
        titles = self._titles({n.annotation.paper_id for n in notes}, owner)
        needle = " ".join(text.casefold().split())
        rows: list[dict[str, object]] = []
        for n in notes:
            d = n.to_dict()
            d["paper_title"] = titles.get(n.annotation.paper_id, "")
            if kind and (d["kind"] == "comment") != (kind == "comment"):
                continue
            anchor = d.get("anchor")
            quote = anchor.get("text") if isinstance(anchor, dict) else None
            hay = " ".join(
                str(x) for x in (d.get("comment"), quote, d["paper_title"]) if x
            ).casefold()
            if needle and needle not in " ".join(hay.split()):
                continue
            rows.append(d)
        return NotebookView(
            rows,
            len(notes),
            problems,
            {"text": text, "kind": kind, "study": study},
            self.studies(owner=owner).studies,
        )

    def _titles(self, ids: set[str], owner: str) -> dict[str, str]:
        with self.store.read() as conn:
            found = repo.get_papers(conn, ids, viewer=owner)
        return {pid: found[pid].title if pid in found else "" for pid in ids}

    def export_notebook(self, request: NotebookExportRequest, *, owner: str) -> NotebookExport:
        """The review notebook (Markdown) of a Study or of every saved paper: per paper,
        its highlights, comments and evidence, passages as block quotes with their
        sources, retrieval dates and licences — read from one snapshot of the store."""
        ws = self._ws(owner)
        with ws.snapshot():  # papers, notes and evidence as of one moment
            row = ws.study(request.study) if request.study else None
            title = row.name if row else "All saved papers"
            study_id = row.id if row else None
            papers = [r.paper for r in ws.papers(study=study_id, limit=None)]
            notes, _ = ws.notes(study=study_id)
            views, _ = ws.evidence(study=study_id)
            form = ws.form(study_id)
            papers += self._unlisted(
                papers,
                {n.annotation.paper_id for n in notes} | {e.evidence.paper_id for e in views},
                owner,
                study_id,
            )
        from litdesk.services.workspace import notebook_markdown

        text = notebook_markdown(title, papers, notes, views, form)
        return NotebookExport(title, study_id, len(papers), len(notes), len(views), text)

    def _unlisted(
        self, listed: list[Paper], ids: set[str], owner: str, study_id: str | None
    ) -> list[Paper]:
        """The papers of ``ids`` beyond a listing's newest papers (their notes are kept)."""
        missing = sorted(ids - {p.id for p in listed})
        if not missing:
            return []
        with self.store.read() as conn:
            found = repo.get_papers(conn, missing, viewer=owner, study_id=study_id)
        return [found[pid] for pid in missing if pid in found]

    def export_evidence(self, request: EvidenceExportRequest, *, owner: str) -> EvidenceTable:
        """The evidence table of a Study (or of every saved paper) as spreadsheet-safe
        CSV, every row re-checked against its paper."""
        ws = self._ws(owner)
        with ws.snapshot():
            study_id = ws.study(request.study).id if request.study else None
            subject = parse_subject_ref(request.subject) if request.subject else None
            views, problems = ws.evidence(study=study_id, subject=subject)
            form = ws.form(study_id)
        from litdesk.services.workspace import evidence_csv

        return EvidenceTable(study_id, len(views), evidence_csv(views, form), tuple(problems))

    # --- a Study's extraction form (issue 27) -------------------------------------------

    def form(self, ref: str, *, owner: str) -> FormView:
        """The Study's extraction form (the default six fields until one is chosen)."""
        return study_form(self.store, ref, owner)

    def set_form(self, request: SetFormRequest, *, owner: str) -> FormView:
        """Choose the Study's form: a ready template or the reviewers' own (owner only)."""
        return set_form(self.store, request, owner)

    def change_form_field(self, request: FormFieldRequest, *, owner: str) -> FormView:
        """Add, edit, remove or move one field of the Study's form (owner only)."""
        return change_field(self.store, request, owner)

    # --- a Study's files ---------------------------------------------------------------

    def prisma(self, ref: str, *, owner: str) -> PrismaView:
        """The PRISMA-S report of a Study (searches, imports, the identification flow)
        and the full-text stage's reports sought / not retrieved (as recorded)."""
        from litdesk.services.screening import study_flow
        from litdesk.services.search import study_prisma

        from ._fulltext import retrieval

        ws = self._ws(owner)
        row = ws.study(ref)
        # the counts are over all the Study's papers whatever the ids asked for: no paper
        # is read for its id (a 5,000-record Study's papers were half of its PRISMA's time)
        stage = retrieval(self.store, row.id, ()).counts
        full_text = {k: stage[k] for k in ("papers", "without_full_text")}
        with self.store.read() as conn:  # issue 28: the PRISMA 2020 flow with screening
            role = access.study_role(conn, owner, row.id) or "viewer"
        flow = study_flow(self.store, row.id, role=role).to_dict()
        report = study_prisma(self.store, row.id, checks=self._step_checks).to_dict()
        return PrismaView(row.id, report | {"full_text": full_text, "prisma_2020": flow})

    def export_prisma(self, request: PrismaExportRequest, *, owner: str) -> Export:
        """The report as Markdown, a self-contained HTML page, or the SVG flow diagram."""
        row = self._ws(owner).study(request.ref)
        from litdesk.core.runs import prisma_html, prisma_markdown, prisma_svg
        from litdesk.services.search import study_prisma

        report = study_prisma(self.store, row.id, checks=self._step_checks)
        media, ext = PRISMA_FORMATS[request.format]
        if request.format == "svg":  # the identification diagram (the flow's: app.screening)
            text = prisma_svg(report)
        else:  # the report with the Study's PRISMA 2020 flow, screening included
            flow = self._flow(row.id, owner, request.format)
            text = (
                prisma_html(report, flow_svg=flow)
                if request.format == "html"
                else prisma_markdown(report, flow=flow)
            )
        body = text.encode("utf-8")
        return Export(body, f"prisma-s-{_slug(row.name)}.{ext}", media, report.after_dedup)

    def _flow(self, study_id: str, owner: str, format: str) -> str | None:
        """The Study's PRISMA 2020 flow as the report carries it (HTML: the SVG diagram;
        Markdown: its table), as ``owner`` may see it (blind stages as the flow shows them);
        ``None`` without the screening area."""
        if self._screening is None:
            return None
        return self._screening().report_flow(study_id, owner=owner, svg=format == "html")

    def export_zip(self, ref: str, *, owner: str) -> Export:
        """The Study as its ZIP (references.ris, evidence.csv, notebook.md, study.json,
        runs, imports, a manifest): the recovery format, one snapshot of the store."""
        ws = self._ws(owner)
        row = ws.study(ref)
        working = working_set_papers(self.store, row.id)  # references.ris: the working set
        from litdesk.services.workspace import export_study

        decisions = self._screening().zip_members(row.id, owner=owner) if self._screening else {}
        data = export_study(ws, row.id, references=working, screening=decisions)
        return Export(data, f"{_slug(row.name)}.zip", "application/zip", len(working))

    def recover_zip(self, request: RecoverRequest, *, owner: str) -> RecoveredView:
        """Recover a Study from its ZIP export: every record validated, refused as a whole
        with its reason (``StudyImportRefused``) or stored as a new Study of ``owner``."""
        from litdesk.services.workspace import import_study

        fulltext = self._ft_parts()
        pdfs = fulltext.library_hashes if fulltext else None
        with self.budget.hold(zip_cost(len(request.data))):  # ImportsBusy when full
            done = import_study(self._ws(owner), request.data, name=request.name, pdfs=pdfs)
        link = self._screening() if self._screening is not None and done.screening else None
        made = record_decisions(link, done.study_id, done.screening, owner)
        return RecoveredView(done, made.decisions, made.reviewers)

    # --- imports -----------------------------------------------------------------------

    def import_files(
        self, request: ImportRequest, *, owner: str, on_path: PathHook | None = None
    ) -> ImportOutcome:
        """Import export files into a Study (see :func:`run_import`): within the call for
        files a face reads itself (``paths``; ``on_path`` told before each) and for
        uploads of at most ``web_import_job_bytes``; a larger upload becomes a job of the
        store's queue (the files kept in the store until it ends) whose result is the
        same import's. Either way the importer needs write on the Study."""
        from ._importing import IMPORT_KIND, run_import

        ws = self._ws(owner)
        if request.paths:
            return ImportOutcome(result=run_import(ws, request, on_path=on_path))
        if request.size <= self.settings.web_import_job_bytes:
            with self.budget.hold(upload_cost(request.size)):  # ImportsBusy when full
                return ImportOutcome(result=run_import(ws, request))
        row = ws.study(request.study, "write")
        job_id = new_job_id()
        with self.store.write() as conn:
            sweep_import_uploads(conn)
            put_import_uploads(conn, job_id, list(request.uploads))
        params = {
            "study_id": row.id,
            "study_name": row.name,
            "by": owner,
            "files": len(request.uploads),
            "bytes": request.size,
        }
        if request.source_name is not None:
            params["source_name"] = request.source_name
        if request.source_kind is not None:
            params["source_kind"] = request.source_kind
        try:
            view = self.jobs.submit(IMPORT_KIND, params, owner=owner, job_id=job_id)
        except BaseException:
            with self.store.write() as conn:
                drop_import_uploads(conn, job_id)
            raise
        if self._wake is not None:
            self._wake()
        return ImportOutcome(job=view)

    def work_imports(self, job_id: str, *, owner: str) -> JobView:
        """Run queued import jobs in this thread until ``job_id`` has ended or none can be
        claimed here (tests, benchmarks; a server's runner does this itself)."""
        runner = JobRunner(self.jobs, self.handlers(), lease_s=self.settings.jobs_lease_seconds)
        while self.jobs.get(job_id, owner=owner).active and runner.run_once():
            pass
        return self.jobs.get(job_id, owner=owner)

    # --- whole searches and update rounds (issue 27; see _whole_cases) -------------------

    def _whole(self) -> WholeSearches:
        from ._whole_cases import WholeSearches

        if self._providers is None:
            raise RefusedError("this app has no providers", code="no_providers")
        return WholeSearches(self.store, self.jobs, self._providers(), self._wake, self._held)

    async def preview_add_search(
        self, request: AddSearchRequest, *, owner: str
    ) -> AddSearchPreview:
        """Each lane's total, what the cap lets through, the requests and allowance."""
        return await self._whole().preview(request, owner=owner)

    def add_search(
        self, request: AddSearchRequest, *, owner: str, here: bool = False
    ) -> WholeSearchJob:
        """Queue the job adding the search whole; ``here``: this process runs it (the CLI)."""
        return self._whole().add(request, owner=owner, here=here)

    def update_study(
        self, request: UpdateStudyRequest, *, owner: str, here: bool = False
    ) -> WholeSearchJob:
        """Queue the update round's job; ``here``: this process runs it (see _whole_cases)."""
        return self._whole().update(request, owner=owner, here=here)

    def search_job(self, job_id: str, *, owner: str) -> WholeSearchJob:
        """A whole-search or update job as it stands (its exit status once ended)."""
        return self._whole().job(job_id, owner=owner)

    def cancel_search_job(self, job_id: str, *, owner: str) -> WholeSearchJob:
        """Stop a whole-search or update job (nothing uncommitted is kept)."""
        return self._whole().cancel(job_id, owner=owner)

    def search_rounds(self, ref: str, *, owner: str) -> SearchRoundsView:
        """The Study's whole searches by round with their update reports."""
        return self._whole().rounds(ref, owner=owner)

    def work_search_job(self, job_id: str, *, owner: str) -> WholeSearchJob:
        """Run ``job_id`` here: the job this process holds (the CLI, in a worker thread while
        the app's loop runs), else queued jobs until it ended (tests)."""
        runner = JobRunner(self.jobs, self.handlers(), lease_s=self.settings.jobs_lease_seconds)
        if self._whole().work(job_id, runner.run_claimed):
            return self.search_job(job_id, owner=owner)
        while self.jobs.get(job_id, owner=owner).active and runner.run_once():
            pass
        return self.search_job(job_id, owner=owner)

    # --- edit, delete, the trash and the history (issue 27) --------------------------------

    def edit_note(self, request: NoteEditRequest, *, owner: str) -> NoteView:
        """A highlight's or comment's new comment (in its Study's history)."""
        return _trash.edit_note(self.store, request, owner)

    def delete_note(self, note_id: str, *, owner: str) -> ChangeView:
        """A highlight or comment into the trash (its Study's, or the account's own)."""
        return _trash.delete_note(self.store, note_id, owner)

    def delete_evidence(self, evidence_id: str, *, owner: str) -> ChangeView:
        """An evidence record into the trash."""
        return _trash.delete_evidence(self.store, evidence_id, owner)

    def remove_paper(self, study: str, paper_id: str, *, owner: str) -> ChangeView:
        """A paper out of a Study with its work there (into the Study's trash)."""
        return _trash.remove_paper(self.store, study, paper_id, owner)

    def remove_import(self, study: str, import_id: str, *, owner: str) -> ChangeView:
        """A whole import out of a Study with the papers only it brought (into the trash)."""
        return _trash.remove_import(self.store, study, import_id, owner)

    def set_import_source(self, request: ImportSourceRequest, *, owner: str) -> ImportSourceView:
        """Count an import's records under another source name and kind (PRISMA 2020)."""
        return set_import_source(self.store, request, owner)

    def remove_search_run(self, study: str, run_id: str, *, owner: str) -> ChangeView:
        """A whole search run out of a Study with its records and the papers only it
        brought (into the trash; restorable)."""
        return _trash.remove_search_run(self.store, study, run_id, owner)

    def delete_study(self, ref: str, *, owner: str) -> ChangeView:
        """A Study into its owner's trash (its owner only)."""
        return _trash.delete_study(self.store, ref, owner)

    def trash(self, ref: str | None, *, owner: str) -> TrashView:
        """A Study's trash, or (``ref`` None) the account's own (work of no Study, deleted
        Studies)."""
        return _trash.show_trash(self.store, ref, owner)

    def restore(self, item_id: str, *, owner: str) -> ChangeView:
        """A trash item back where it was."""
        return _trash.restore(self.store, item_id, owner)

    def empty_trash(self, request: EmptyTrashRequest, *, owner: str) -> ChangeView:
        """Delete a trash's items for good (confirmed; a Study's owner only)."""
        return _trash.empty_trash(self.store, request, owner)

    def history(self, ref: str, *, owner: str) -> HistoryView:
        """Who changed what in a Study, and when (newest first)."""
        return _trash.history(self.store, ref, owner)

    # --- PDFs and licensed full text of the Study's papers (see _fulltext) ------------------

    def _ft_parts(self) -> StudyFulltext | None:
        """The full-text use cases, made on first use (``None`` without the parts)."""
        if self._fulltext_parts is None:
            return None
        with self._fulltext_lock:
            if self._fulltext is None:
                from ._fulltext import StudyFulltext

                self._fulltext = StudyFulltext(self.store, self.jobs, self._fulltext_parts())
            return self._fulltext

    def _ft(self) -> StudyFulltext:
        fulltext = self._ft_parts()
        if fulltext is None:
            raise RefusedError(
                "this app was opened without its PDF library: PDFs and full text of a "
                "Study's papers are not available here",
                code="no_library",
            )
        return fulltext

    def fulltext(
        self, ref: str, *, owner: str, show: FulltextShow | None = "all", page: int | None = None
    ) -> FulltextView:
        """Which of the Study's papers have a PDF, licensed full text, or neither: those
        sought for retrieval at screening, those without either, or all (``None``: the
        sought ones once screening has sought any); one page of them or all."""
        return self._ft().view(ref, owner, show=show, page=page)

    def match_pdfs(self, ref: str, *, owner: str) -> FulltextView:
        """Link library PDFs to the Study's papers: by DOI, arXiv id, PMID or PMCID at
        once, by a verified title as a suggestion a person confirms."""
        return self._ft().match(ref, owner)

    def confirm_pdf(self, request: PdfLinkRequest, *, owner: str) -> FulltextView:
        """A suggested PDF becomes the paper's."""
        return self._ft().confirm(request, owner)

    def undo_pdf(self, request: PdfLinkRequest, *, owner: str) -> FulltextView:
        """Undo a paper's PDF link (that PDF is not suggested for it again)."""
        return self._ft().undo(request, owner)

    def attach_pdf(self, request: AttachPdfRequest, *, owner: str) -> AttachedPdfView:
        """A PDF uploaded for one paper: into the library (its checks) and linked."""
        return self._ft().attach(request, owner)

    def check_fulltext(self, ref: str, *, owner: str, here: bool = False) -> FulltextView:
        """Queue "check full text for all" (in ``owner``'s allowance); ``here``: run here."""
        lease = self.settings.jobs_lease_seconds if here else None
        view = self._ft().start_check(ref, owner, lease)
        if self._wake is not None and not here:
            self._wake()
        return view

    def work_fulltext(self, job_id: str, *, owner: str) -> JobView:
        """Run queued jobs of this area in this thread until ``job_id`` has ended (tests;
        a server's runner does this itself)."""
        return self.work_imports(job_id, owner=owner)
