"""PDFs and licensed full text of a Study's papers (issue 27).

* **PDFs**: a library PDF is a paper's by DOI, arXiv id, PMID or PMCID (printed on its
  first pages, or its adopted record's), or by a verified title read from its first
  pages (:func:`litdesk.core.pdfmeta.match_paper`). An identifier links it at once; a
  title match is *suggested* until a person confirms it. A person can undo a link (the
  PDF is then never suggested for that paper again) or upload a PDF for one paper: it
  goes into the library's inbox with the library's checks and limit, and is linked.
* **Licensed full text**: whether Europe PMC has the paper's open licensed full text is
  recorded when checked — never on a page load: the ``studies.fulltext`` job checks the
  Study's unchecked papers one by one through the app's transport (every request in the
  owner's allowance; the job stops, keeping what it recorded, when the allowance is
  spent or refused).
* **Counts**: of the Study's papers, those with neither a linked PDF nor licensed full text
  (papers, not PRISMA's reports: the PRISMA 2020 flow counts the reports sought — records
  that passed title/abstract — and those recorded not retrieved while screening).

The Study's papers are :func:`study_papers` — the one place the Study's working set plugs
in (until then: the papers linked to the Study).
"""

from __future__ import annotations

import hashlib
import io
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from sqlalchemy.engine import Connection

from litdesk._errors import InputError, LitdeskError, NotFoundError, RefusedError
from litdesk.adapters.http import TransportRefused
from litdesk.adapters.pdfhead import read_head
from litdesk.adapters.store import Store, repo
from litdesk.adapters.store import accounts as access
from litdesk.adapters.store import fulltext as links
from litdesk.core.library import CHUNKING_VERSION
from litdesk.core.pdfmeta import (
    PdfFacts,
    attach_doubt,
    find_pubmed_ids,
    link_doubt,
    match_paper,
    read_meta,
)
from litdesk.core.records import Paper
from litdesk.services.fulltext import FullTextFetchFailed, FullTextResult, NoFullText
from litdesk.services.jobs import Handler, JobContext, JobRunner, Jobs, JobView, worker_name
from litdesk.services.library import (
    INDEX_KIND,
    Library,
    Upload,
    hash_files,
    store_upload,
)
from litdesk.services.providers import Providers
from litdesk.services.workspace import Workspace, now_iso

from ._requests import AttachPdfRequest, PdfLinkRequest
from ._views import (
    FULLTEXT_PAGE,
    AttachedPdfView,
    FulltextCheckRow,
    FulltextCounts,
    FulltextShow,
    FulltextView,
    PaperFulltextRow,
    PaperRetrieval,
    PdfLinkRow,
    StudyRetrieval,
)

__all__ = [
    "FULLTEXT_KIND",
    "FetchFulltext",
    "FulltextParts",
    "NotInStudy",
    "StudyFulltext",
    "fetch_through",
    "retrieval",
    "study_papers",
]

#: The job kind of "check full text for all" of one Study.
FULLTEXT_KIND: Final = "studies.fulltext"
#: Transport refusals that stop the check job (the other refusals are one paper's).
_STOPS: Final = frozenset({"budget_exhausted", "rate_limited"})
#: Heads read from library PDFs kept per content hash (bounded).
_HEADS_KEPT: Final = 5_000

#: ``fetch(paper_id, owner)``: the paper's Europe PMC full text through the reader's
#: full-text service (its licence gate and cache), in ``owner``'s allowance, waited for
#: from a worker thread.
FetchFulltext = Callable[[str, str], FullTextResult]
#: How long one paper's check may take before the job records it as failed.
CHECK_TIMEOUT_S: Final = 120.0


class NotInStudy(NotFoundError):
    """The paper is not one of the Study's."""

    default_code = "paper_not_in_study"


@dataclass(frozen=True, slots=True)
class FulltextParts:
    """What the full-text use cases need from the app: the PDF library, the library's
    upload limit and the full-text fetch of the check job."""

    pdfs: Library
    fetch: FetchFulltext
    upload_limit: int


def fetch_through(providers: Providers) -> FetchFulltext:
    """:data:`FetchFulltext` on the app's event loop (a job handler's worker thread)."""

    def fetch(paper_id: str, owner: str) -> FullTextResult:
        future = providers.from_thread(providers.fulltext_service(owner=owner).get(paper_id))
        try:
            return future.result(timeout=CHECK_TIMEOUT_S)
        except FutureTimeout:
            future.cancel()
            raise FullTextFetchFailed(
                f"the full-text check of {paper_id[:80]} took over {CHECK_TIMEOUT_S:.0f} s"
            ) from None

    return fetch


def study_papers(conn: Connection, study_id: str) -> list[Paper]:
    """The Study's papers (its working set once ``study-workingset`` is merged: replace
    this one function), newest first."""
    return [r.paper for r in repo.list_papers(conn, study_id=study_id, limit=100_000)]


#: a Study of at most this many papers has every paper's row read for its counts (one
#: statement); a bigger one its counts from one aggregate row and its shown papers' rows
ROWS_AT_ONCE: Final = 500


def retrieval(
    store: Store, study_id: str, paper_ids: Sequence[str] | None = None, total: int | None = None
) -> StudyRetrieval:
    """Each of the Study's papers ``paper_ids`` (those a page shows; ``None``: all) with
    its PDF and full text, and the counts over all the Study's papers (for the Study's
    page: the store only, no library scan, no network). ``total``: how many papers the
    Study holds, when the caller knows (see :data:`ROWS_AT_ONCE`)."""
    if paper_ids is not None and total is not None and total <= ROWS_AT_ONCE:
        every = retrieval(store, study_id)
        return StudyRetrieval(
            {pid: every.papers[pid] for pid in paper_ids if pid in every.papers}, every.counts
        )
    with store.read() as conn:
        ids, pdfs, checks = links.study_retrieval(conn, study_id, paper_ids)
        # the counts over every paper from one aggregate row when only some papers are
        # shown (a 5,000-paper Study's page built and counted a row per paper)
        counted = None if paper_ids is None else links.retrieval_counts(conn, study_id)
    rows: dict[str, PaperRetrieval] = {}
    for pid in sorted(ids) if paper_ids is None else paper_ids:
        if pid in ids and pid not in rows:
            pdf, check = _pdf(pdfs.get(pid)), _check(checks.get(pid))
            rows[pid] = PaperRetrieval(pdf=pdf, fulltext=check, retrieved=_retrieved(pdf, check))
    if counted is None:
        return StudyRetrieval(rows, _counts(list(rows.values())))
    papers, pdf_n, suggested, text_n, checked, missing = counted
    counts = FulltextCounts(
        papers=papers, with_pdf=pdf_n, suggested=suggested, with_fulltext=text_n,
        checked=checked, unchecked=papers - checked, without_full_text=missing,
    )  # fmt: skip
    return StudyRetrieval(rows, counts)


class StudyFulltext:
    """The use cases behind the studies area's full-text methods (see the module)."""

    def __init__(self, store: Store, jobs: Jobs, parts: FulltextParts) -> None:
        self.store = store
        self.jobs = jobs
        self.parts = parts
        self._heads: dict[str, PdfFacts | None] = {}
        self._lock = threading.Lock()

    # --- the library's side ------------------------------------------------------------

    def _library(self) -> tuple[list[PdfFacts], dict[str, str], list[str]]:
        """Every hashed library PDF with its identifiers, and ``{sha: file}``; the PDFs
        whose first pages could not be read are named in the notices."""
        lib = self.parts.pdfs
        files = lib.corpus().files
        hashes = hash_files(lib.catalogue, files)
        entries = lib.catalogue.entries(lib.embedder_id, CHUNKING_VERSION)
        adopted = lib.catalogue.metadata()
        facts: list[PdfFacts] = []
        names: dict[str, str] = {}
        notices: list[str] = []
        for f in files:
            sha = hashes.get(f.path)
            if sha is None or sha in names:
                continue
            names[sha] = f.name
            head = self._head(sha, f.name, f.path)
            if head is None:
                notices.append(f"{f.name}: its first pages cannot be read (not matched)")
                continue
            entry = entries.get(sha)
            rec = adopted.get(sha, {})
            pmid, pmcid = find_pubmed_ids([entry.head_text or ""] if entry else [])
            facts.append(
                PdfFacts(
                    sha, f.name,
                    doi=(entry.doi if entry else None) or head.doi or _text(rec.get("doi")),
                    arxiv=(entry.arxiv if entry else None) or head.arxiv
                    or _text(rec.get("arxiv_id")),
                    pmid=pmid or head.pmid or _text(rec.get("pmid")),
                    pmcid=pmcid or head.pmcid or _text(rec.get("pmcid")),
                    title=head.title, authors=head.authors, year=head.year,
                )
            )  # fmt: skip
        return facts, names, notices

    def library_hashes(self) -> set[str]:
        """The SHA-256 of every PDF in the library now (a recovered Study's PDF links are
        restored for these)."""
        lib = self.parts.pdfs
        return set(hash_files(lib.catalogue, lib.corpus().files).values())

    def _head(self, sha: str, name: str, path: Path) -> PdfFacts | None:
        """What the PDF's first pages say (read once per content), or ``None``."""
        with self._lock:
            if sha in self._heads:
                return self._heads[sha]
        try:
            head = read_head(path)
        except InputError:  # encrypted, broken, not a PDF: it cannot be matched
            found: PdfFacts | None = None
        else:
            meta = read_meta(head)
            pmid, pmcid = find_pubmed_ids(head.texts)
            found = PdfFacts(
                sha, name,
                doi=meta.doi.value if meta.doi else None,
                arxiv=meta.arxiv.value if meta.arxiv else None,
                pmid=pmid, pmcid=pmcid,
                title=meta.title.value if meta.title else None,
                authors=meta.authors.value if meta.authors else (),
                year=meta.year.value if meta.year else None,
            )  # fmt: skip
        with self._lock:
            if len(self._heads) > _HEADS_KEPT:
                self._heads.clear()
            self._heads[sha] = found
        return found

    # --- reading -----------------------------------------------------------------------

    def view(
        self,
        ref: str,
        owner: str,
        *,
        changed: dict[str, int] | None = None,
        notices: Sequence[str] = (),
        show: FulltextShow | None = "all",
        page: int | None = None,
    ) -> FulltextView:
        """The Study's papers with their PDF and full text, and the counts (over them all).
        ``show``: only the papers sought for retrieval at screening, only those with
        neither a PDF nor full text, or all (``None``: the sought ones when screening has
        sought any, else all); ``page``: that page of ``FULLTEXT_PAGE`` papers (``None``:
        every paper listed)."""
        from litdesk.services.screening import retrieval_papers

        with self.store.read() as conn:
            study, role = repo.study_with_role(conn, ref, account=owner, need="read")
            papers = study_papers(conn, study.id)
            pdfs = links.pdf_links(conn, study.id)
            checks = links.fulltext_checks(conn, study.id)
        rows = [_row(p, pdfs.get(p.id), checks.get(p.id)) for p in papers]
        sought: frozenset[str] | None = None  # asked of screening only for the page
        missing: frozenset[str] = frozenset()  # of those, recorded not retrieved
        if show != "all" or page is not None:
            ids = {p.id for p in papers}
            found, gone = retrieval_papers(self.store, study.id, role=role)
            sought, missing = found & ids, gone & ids
        if show is None:
            show = "sought" if sought else "all"
        listed = [
            r for r in rows
            if show == "all"
            or (show == "sought" and sought is not None and r["id"] in sought)
            or (show == "missing" and r["retrieved"] == "missing")
        ]  # fmt: skip
        pages = max(1, -(-len(listed) // FULLTEXT_PAGE))
        at = 1 if page is None else min(max(1, page), pages)
        shown = listed if page is None else listed[(at - 1) * FULLTEXT_PAGE : at * FULLTEXT_PAGE]
        return FulltextView(
            study.id, study.name, shown, _counts(rows), len(self.parts.pdfs.corpus().files),
            self._job(study.id, owner), dict(changed or {}), tuple(notices),
            show=show, listed=len(listed), sought=None if sought is None else len(sought), page=at,
            pages=1 if page is None else pages, not_retrieved=missing,
        )  # fmt: skip

    def _job(self, study_id: str, owner: str) -> JobView | None:
        """The Study's latest full-text check job of ``owner`` (the active one first)."""
        mine = [
            j
            for j in self.jobs.list(owner=owner, kinds=[FULLTEXT_KIND], limit=50)
            if j.params.get("study_id") == study_id
        ]
        active = [j for j in mine if j.active]
        return (active or mine)[0] if mine else None

    # --- matching and links ------------------------------------------------------------

    def match(self, ref: str, owner: str) -> FulltextView:
        """Link the Study's papers without a PDF to the library's PDFs (identifier: linked;
        verified title: suggested); one transaction, in the Study's history."""
        facts, _names, notices = self._library()
        now = now_iso()
        linked = suggested = 0
        with self.store.write() as conn:
            study, _ = repo.study_with_role(conn, ref, account=owner, need="write")
            current = links.pdf_links(conn, study.id)
            for paper in study_papers(conn, study.id):
                have = current.get(paper.id)
                if have is not None and have.state == "linked":
                    continue
                refused = {have.sha256} if have is not None and have.state == "rejected" else set()
                found = match_paper(paper, [f for f in facts if f.sha256 not in refused])
                if found is None:
                    continue
                if have is not None and have.state == "suggested" and not found.certain:
                    continue  # already suggested: a person decides
                state: links.LinkState = "linked" if found.certain else "suggested"
                links.put_pdf_link(
                    conn,
                    links.PdfLinkRow(
                        study.id, paper.id, found.sha256, found.file, found.how, found.detail,
                        state, owner, now,
                    ),
                )  # fmt: skip
                linked += state == "linked"
                suggested += state == "suggested"
            if linked or suggested:
                access.add_history(
                    conn, study.id, owner, "pdfs_matched",
                    f"{linked} linked, {suggested} suggested", now,
                )  # fmt: skip
        return self.view(
            study.id, owner, changed={"linked": linked, "suggested": suggested}, notices=notices
        )

    def _paper_id(self, paper_ref: str, owner: str) -> str:
        """The saved paper ``paper_ref`` names (its id or any identifier: DOI, PMID,
        PMCID, OpenAlex, arXiv), as the workspace resolves it for ``owner``."""
        return Workspace(self.store, owner=owner).paper(paper_ref).paper.id

    @staticmethod
    def _paper_in(conn: Connection, study_id: str, paper_id: str) -> Paper:
        for paper in study_papers(conn, study_id):
            if paper.id == paper_id:
                return paper
        raise NotInStudy(f"{paper_id[:120]} is not a paper of this Study")

    def confirm(self, request: PdfLinkRequest, owner: str) -> FulltextView:
        """A suggested PDF becomes the paper's (a person confirmed the title match)."""
        return self._decide(request, owner, confirm=True)

    def undo(self, request: PdfLinkRequest, owner: str) -> FulltextView:
        """The paper's PDF link is undone; that PDF is not suggested for it again."""
        return self._decide(request, owner, confirm=False)

    def _decide(self, request: PdfLinkRequest, owner: str, *, confirm: bool) -> FulltextView:
        paper_id = self._paper_id(request.paper, owner)
        now = now_iso()
        with self.store.write() as conn:
            study, _ = repo.study_with_role(conn, request.study, account=owner, need="write")
            paper = self._paper_in(conn, study.id, paper_id)
            have = links.pdf_links(conn, study.id).get(paper.id)
            wanted = "suggested" if confirm else None
            if have is None or have.state == "rejected" or (wanted and have.state != wanted):
                what = "no suggested PDF" if confirm else "no PDF"
                raise NotFoundError(
                    f"{paper.title[:120] or paper.id} has {what} to "
                    f"{'confirm' if confirm else 'undo'}",
                    code="no_pdf_link",
                )
            state: links.LinkState = "linked" if confirm else "rejected"
            how = have.how
            links.put_pdf_link(
                conn,
                links.PdfLinkRow(
                    study.id, paper.id, have.sha256, have.file, how, have.detail, state,
                    owner, now,
                ),
            )  # fmt: skip
            action = "pdf_confirmed" if confirm else "pdf_unlinked"
            access.add_history(conn, study.id, owner, action, f"{paper.id}: {have.file}", now)
        return self.view(study.id, owner)

    def attach(self, request: AttachPdfRequest, owner: str) -> AttachedPdfView:
        """Store the uploaded PDF in the library's inbox (its checks and limit; the same
        content already in the library is linked instead) and link it to the paper."""
        paper_id = self._paper_id(request.paper, owner)
        with self.store.read() as conn:
            study, _ = repo.study_with_role(conn, request.study, account=owner, need="write")
            paper = self._paper_in(conn, study.id, paper_id)
        lib = self.parts.pdfs
        files = lib.corpus().files
        known = hash_files(lib.catalogue, files)
        sha = hashlib.sha256(request.data).hexdigest()
        same = [f for f in files if known.get(f.path) == sha]
        stored = not same
        if same:
            file, path = same[0].name, same[0].path
        else:
            taken = {f.name: "the library" for f in files}
            done = store_upload(
                lib.inbox, Upload(request.name, io.BytesIO(request.data)),
                limit=self.parts.upload_limit, taken=taken, hashes={},
            )  # fmt: skip
            file, sha, path = done.file, done.sha256, lib.inbox / done.file
        facts = self._head(sha, file, path)  # its first pages, read once (kept per content)
        if not same:
            lib.publish_upload(file)  # for every host (a shared object store)
        now = now_iso()
        with self.store.write() as conn:
            access.require_study(conn, owner, study.id, "write")
            # the link stands (a person chose it); a PDF that is another paper's says so
            doubt = attach_doubt(paper, facts, study_papers(conn, study.id)) if facts else None
            links.put_pdf_link(
                conn,
                links.PdfLinkRow(
                    study.id, paper.id, sha, file, "upload", doubt or "uploaded for this paper",
                    "linked", owner, now,
                ),
            )  # fmt: skip
            access.add_history(conn, study.id, owner, "pdf_attached", f"{paper.id}: {file}", now)
        job = (
            self.jobs.submit(INDEX_KIND, {}, owner=owner, reuse_active=True, shared=True)
            if stored
            else None
        )
        return AttachedPdfView(study.id, paper.id, paper.title, file, sha, stored, job, doubt)

    # --- licensed full text ------------------------------------------------------------

    def start_check(self, ref: str, owner: str, here_lease: float | None = None) -> FulltextView:
        """Queue the Study's full-text check (one active per Study and owner). With
        ``here_lease`` (the CLI, no server needed) a new check is claimed by this process in
        its submission's transaction — a server's worker on the same store never takes it —
        and run here to its end (lease ``here_lease`` seconds, renewed as it runs)."""
        with self.store.read() as conn:
            study, _ = repo.study_with_role(conn, ref, account=owner, need="write")
        if (job := self._job(study.id, owner)) is None or not job.active:
            params = {"study_id": study.id, "study_name": study.name}
            if here_lease is None:
                self.jobs.submit(FULLTEXT_KIND, params, owner=owner)
            else:
                again = (
                    f"run `litdesk study fulltext {study.name!r} --check` again. The papers it "
                    "checked are kept"
                )
                _, held = self.jobs.submit_held(
                    FULLTEXT_KIND, params, owner=owner, worker_id=worker_name(),
                    lease_s=here_lease, again=again,
                )  # fmt: skip
                runner = JobRunner(self.jobs, {FULLTEXT_KIND: self.handler()}, lease_s=here_lease)
                runner.run_claimed(held)
        return self.view(study.id, owner)

    def handler(self) -> Handler:
        """The :data:`FULLTEXT_KIND` job: each unchecked paper of the Study checked and
        recorded on its own (a job claimed again resumes with the papers left)."""

        def run(ctx: JobContext) -> dict[str, object] | None:
            from litdesk.services.screening import sought_papers

            owner = ctx.job.owner
            study_id = str(ctx.params.get("study_id", ""))
            with self.store.read() as conn:
                access.require_study(conn, owner, study_id, "write")
                role = access.study_role(conn, owner, study_id) or "viewer"
                checked = links.fulltext_checks(conn, study_id)
                todo = [p for p in study_papers(conn, study_id) if p.id not in checked]
            # the papers screening sought for retrieval first: an allowance spent part way
            # has then gone to the full texts the review needs next
            first = sought_papers(self.store, study_id, role=role) if todo else frozenset()
            todo.sort(key=lambda p: p.id not in first)  # stable: newest first within each
            found = missing = 0
            for n, paper in enumerate(todo):
                if not ctx.progress(n, len(todo), paper.title[:80] or paper.id):
                    return {"checked": n, "available": found, "stopped": "cancelled"}
                try:
                    row = self._check_one(study_id, paper, owner)
                except TransportRefused as exc:  # the allowance is spent
                    return {
                        "checked": n, "available": found, "not_available": missing,
                        "left": len(todo) - n, "stopped": exc.message,
                    }  # fmt: skip
                with self.store.write() as conn:
                    access.require_study(conn, owner, study_id, "write")
                    links.put_fulltext_check(conn, row)
                found += row.available
                missing += not row.available
            ctx.progress(len(todo), len(todo))
            return {"checked": len(todo), "available": found, "not_available": missing}

        return run

    def _check_one(self, study_id: str, paper: Paper, owner: str) -> links.FulltextCheckRow:
        """One paper's check (raises :class:`TransportRefused` when the allowance is
        spent or the lane must wait: the job stops, a later run resumes)."""
        now = now_iso()
        pid = _fulltext_id(paper)
        if pid is None:
            return links.FulltextCheckRow(
                study_id, paper.id, False, None, None, None,
                "no PMCID, PMID, DOI or OpenAlex id to look up", owner, now,
            )  # fmt: skip
        try:
            got = self.parts.fetch(pid, owner)
        except NoFullText as exc:
            return links.FulltextCheckRow(
                study_id, paper.id, False, None, None, None, exc.message, owner, now
            )
        except TransportRefused as exc:
            if exc.lane_status in _STOPS:
                raise  # the allowance is spent (or the lane's pace): the job stops here
            return links.FulltextCheckRow(
                study_id, paper.id, False, None, None, None, f"not checked: {exc.message}",
                owner, now,
            )  # fmt: skip
        except RefusedError as exc:  # e.g. a full text over the size limit
            return links.FulltextCheckRow(
                study_id, paper.id, False, None, None, None, exc.message, owner, now
            )
        except LitdeskError as exc:  # the provider failed: recorded, checked again later
            return links.FulltextCheckRow(
                study_id, paper.id, False, None, None, None, f"check failed: {exc.message}",
                owner, now,
            )  # fmt: skip
        ft = got.fulltext
        readable = ft.readable
        return links.FulltextCheckRow(
            study_id, paper.id, readable, ft.pmcid, ft.licence, ft.source_url,
            None if readable else (ft.reason or "the licence does not allow reading it here"),
            owner, now,
        )  # fmt: skip


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _fulltext_id(paper: Paper) -> str | None:
    """The id Europe PMC resolves for ``paper`` (PMCID, PubMed or OpenAlex record, PMID,
    DOI), or ``None``."""
    if paper.pmcid:
        return paper.pmcid
    if paper.id.startswith(("MED-", "PMC-", "OAX-")):
        return paper.id
    return paper.pmid or paper.doi or None


def _pdf(row: links.PdfLinkRow | None) -> PdfLinkRow | None:
    if row is None or row.state == "rejected":
        return None
    return PdfLinkRow(
        file=row.file, sha256=row.sha256, how=row.how, detail=row.detail, state=row.state,
        by=row.by, at=row.at,
        doubt=link_doubt(row.how, row.detail) is not None,
    )  # fmt: skip


def _check(row: links.FulltextCheckRow | None) -> FulltextCheckRow | None:
    if row is None:
        return None
    return FulltextCheckRow(
        available=row.available, pmcid=row.pmcid, licence=row.licence,
        source_url=row.source_url, reason=row.reason, checked_at=row.checked_at,
    )  # fmt: skip


def _retrieved(pdf: PdfLinkRow | None, check: FulltextCheckRow | None) -> str:
    has_pdf = pdf is not None and pdf["state"] == "linked"
    has_text = check is not None and check["available"]
    if has_pdf and has_text:
        return "both"
    return "pdf" if has_pdf else "fulltext" if has_text else "missing"


def _row(
    paper: Paper, pdf_row: links.PdfLinkRow | None, check_row: links.FulltextCheckRow | None
) -> PaperFulltextRow:
    pdf, check = _pdf(pdf_row), _check(check_row)
    return PaperFulltextRow(
        id=paper.id, title=paper.title, year=paper.year, doi=paper.doi, pdf=pdf,
        fulltext=check, retrieved=_retrieved(pdf, check),
    )  # fmt: skip


def _counts(rows: Sequence[PaperRetrieval] | Sequence[PaperFulltextRow]) -> FulltextCounts:
    missing = sum(r["retrieved"] == "missing" for r in rows)
    return FulltextCounts(
        papers=len(rows),
        with_pdf=sum(r["pdf"] is not None and r["pdf"]["state"] == "linked" for r in rows),
        suggested=sum(r["pdf"] is not None and r["pdf"]["state"] == "suggested" for r in rows),
        with_fulltext=sum(r["fulltext"] is not None and r["fulltext"]["available"] for r in rows),
        checked=sum(r["fulltext"] is not None for r in rows),
        unchecked=sum(r["fulltext"] is None for r in rows),
        without_full_text=missing,
    )
