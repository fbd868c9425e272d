"""A library PDF as a paper (issue 32): one object per account.

* **Its description**: title, authors, year, venue, DOI and arXiv id read from its first
  pages offline (:func:`litdesk.core.pdfmeta.read_meta`, each with a confidence, "read
  from the PDF"), confirmed or corrected by a person and then shown as "confirmed by you".
* **The paper it is**: a library PDF is attached to one saved paper of the account —
  chosen by the person among the papers it matches (by DOI, arXiv id, PMID/PMCID, or a
  verified title: :func:`litdesk.core.pdfmeta.match_paper`) or named by any identifier —
  and is then that paper's PDF in each Study holding the paper (where the Study has no
  PDF for it yet, or the Study named); a PDF no saved paper matches becomes a saved paper
  from its (confirmed) description.

The library is every account's; the record is each account's own (the store's
``pdf_records``), so one account's corrections and attachments never change another's.
Every Study write checks the account's role there.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from sqlalchemy.engine import Connection

from litdesk._errors import InputError, NotFoundError
from litdesk.adapters.pdfhead import read_head
from litdesk.adapters.store import NotPermitted, Store, repo
from litdesk.adapters.store import accounts as access
from litdesk.adapters.store import fulltext as links
from litdesk.adapters.store import pdf_records as records
from litdesk.core.library import CHUNKING_VERSION
from litdesk.core.pdfmeta import (
    PdfFacts,
    PdfMeta,
    find_pubmed_ids,
    match_paper,
    normalise_title,
    read_meta,
)
from litdesk.core.records import (
    Paper,
    make_paper,
    normalize_arxiv,
    normalize_doi,
    normalize_pmcid,
    normalize_pmid,
)
from litdesk.services.workspace import Workspace, now_iso

from ._indexer import hash_files
from ._library import Library
from ._record_views import (
    AttachPdfPaperRequest,
    ConfirmPdfRequest,
    PdfCandidate,
    PdfRecordInputError,
    PdfRecordView,
    PdfStudyLink,
    SavePdfPaperRequest,
)

__all__ = ["CONFIRMED", "FIELDS", "PdfRecords", "PdfNotFound"]

#: Where a confirmed value comes from (shown beside it).
CONFIRMED: Final = "confirmed by you"
#: The description's fields, in the order shown, with their labels.
FIELDS: Final = (
    ("title", "Title"),
    ("authors", "Authors"),
    ("year", "Year"),
    ("venue", "Venue"),
    ("doi", "DOI"),
    ("arxiv", "arXiv id"),
)
#: Papers a PDF is matched against (the account's newest saved papers).
MATCH_CAP: Final = 5_000
CANDIDATES_SHOWN: Final = 10
_HEADS_KEPT: Final = 2_000
_PAPERS_KEPT: Final = 50_000


class PdfNotFound(NotFoundError):
    """No PDF of the library has this file name or content hash."""

    default_code = "not_in_library"


class PdfRecords:
    """The use cases of a library PDF's record (see the module)."""

    def __init__(self, store: Store, pdfs: Library) -> None:
        self._store = store
        self._pdfs = pdfs
        self._heads: dict[str, PdfMeta | str] = {}
        self._papers: dict[tuple[str | None, ...], tuple[frozenset[str], str]] = {}
        self._lock = threading.Lock()

    # --- the library's side ------------------------------------------------------------

    def locate(self, ref: str) -> tuple[str, str, Path]:
        """The PDF ``ref`` names (its file name or SHA-256): ``(sha256, file, path)``."""
        lib = self._pdfs
        for attempt in (1, 2):
            files = lib.corpus().files
            by_name = [f for f in files if f.name == ref]
            hashes = hash_files(lib.catalogue, by_name or files)
            for f in by_name or files:
                sha = hashes.get(f.path)
                if sha is not None and (by_name or sha == ref.lower()):
                    return sha, f.name, f.path
            # another host's folder PDF, named by its hash: copied here, then found
            if attempt == 2 or by_name or not lib.fetch_shared(ref.lower()):
                break
        raise PdfNotFound(f"{ref[:120]} is not a PDF of the library")

    def _read(self, sha: str, path: Path) -> PdfMeta | str:
        """What the PDF's first pages say (read once per content), or why they cannot be
        read."""
        with self._lock:
            if sha in self._heads:
                return self._heads[sha]
        try:
            found: PdfMeta | str = read_meta(read_head(path))
        except InputError as exc:  # encrypted, broken, not a PDF
            found = exc.message
        with self._lock:
            if len(self._heads) > _HEADS_KEPT:
                self._heads.clear()
            self._heads[sha] = found
        return found

    def _facts(self, sha: str, file: str, path: Path, rec: records.PdfRecordRow | None) -> PdfFacts:
        """What is known of the PDF for matching: the confirmed description over the
        one read, the identifiers found while indexing or adopted."""
        read = self._read(sha, path)
        meta = read if isinstance(read, PdfMeta) else PdfMeta()
        lib = self._pdfs
        entry = lib.catalogue.entries(lib.embedder_id, CHUNKING_VERSION).get(sha)
        adopted = lib.catalogue.metadata().get(sha, {})
        pmid, pmcid = find_pubmed_ids([entry.head_text or ""] if entry else [])
        confirmed = rec is not None and rec.confirmed_at is not None

        def pick(mine: Any, found: Any, *more: Any) -> Any:
            if confirmed:
                return mine
            return next((v for v in (found, *more) if v), None)

        return PdfFacts(
            sha, file,
            doi=pick(rec and rec.doi, meta.doi and meta.doi.value, entry and entry.doi,
                     _text(adopted.get("doi"))),
            arxiv=pick(rec and rec.arxiv, meta.arxiv and meta.arxiv.value,
                       entry and entry.arxiv, _text(adopted.get("arxiv_id"))),
            pmid=pmid or _text(adopted.get("pmid")), pmcid=pmcid or _text(adopted.get("pmcid")),
            title=pick(rec and rec.title, meta.title and meta.title.value),
            authors=tuple(pick(rec and rec.authors, meta.authors and meta.authors.value) or ()),
            year=pick(rec and rec.year, meta.year and meta.year.value),
        )  # fmt: skip

    # --- reading -----------------------------------------------------------------------

    def view(self, ref: str, *, owner: str, changed: str | None = None) -> PdfRecordView:
        """The PDF's record for ``owner``: its description, the paper it is, the Studies
        it is linked in, and the saved papers it matches."""
        sha, file, path = self.locate(ref)
        read = self._read(sha, path)
        with self._store.read() as conn:
            rec = records.get_pdf_record(conn, owner, sha)
            paper = self._paper(conn, rec.paper_id if rec else None, owner)
            studies = [
                PdfStudyLink(id=sid, name=name, paper_id=pid)
                for sid, name, pid in records.study_links_of(conn, owner, [sha]).get(sha, [])
            ]
            saved = repo.list_papers(conn, limit=MATCH_CAP, visible_to=owner)
        facts = self._facts(sha, file, path, rec)
        wanted = set(_pdf_keys(facts))
        title = normalise_title(facts.title) if facts.title else None
        candidates: list[PdfCandidate] = []
        for row in saved:
            p = row.paper
            if paper is not None and p.id == paper["id"]:
                continue
            keys, folded = self._paper_facts(p)
            if not (wanted & keys) and (title is None or folded != title):
                continue  # neither an identifier nor the title in common: no match
            found = match_paper(p, [facts])
            if found is not None:
                candidates.append(
                    PdfCandidate(
                        id=p.id, title=p.title, year=p.year, doi=p.doi, how=found.how,
                        detail=found.detail, certain=found.certain,
                    )
                )  # fmt: skip
        candidates.sort(key=lambda c: not c["certain"])
        meta = read if isinstance(read, PdfMeta) else None
        confirmed = _confirmed(rec)
        return PdfRecordView(
            sha256=sha, file=file, read=meta.to_dict() if meta else None,
            read_problem=read if isinstance(read, str) else None, confirmed=confirmed,
            fields=_fields(meta, confirmed), paper=paper, studies=studies,
            candidates=candidates[:CANDIDATES_SHOWN], changed=changed,
        )  # fmt: skip

    def _paper_facts(self, p: Paper) -> tuple[frozenset[str], str]:
        """A paper's identifier keys and folded title (remembered per record: a page of
        the PDF compares it with every saved paper)."""
        key = (p.id, p.doi, p.arxiv_id, p.pmid, p.pmcid, p.title)
        with self._lock:
            got = self._papers.get(key)
        if got is None:
            got = (frozenset(_paper_keys(p)), normalise_title(p.title or ""))
            with self._lock:
                if len(self._papers) > _PAPERS_KEPT:
                    self._papers.clear()
                self._papers[key] = got
        return got

    @staticmethod
    def _paper(conn: Connection, paper_id: str | None, owner: str) -> dict[str, Any] | None:
        """The attached paper as ``owner`` may see it (``None``: none, or no longer one
        of the account's)."""
        if paper_id is None:
            return None
        try:  # the record the account reads under that id (its own, else its Studies')
            p = repo.get_paper(conn, paper_id, viewer=owner).paper
        except NotFoundError:
            return None
        return {"id": p.id, "title": p.title, "year": p.year, "doi": p.doi,
                "authors": list(p.authors[:6]), "journal": p.journal}  # fmt: skip

    # --- writing -----------------------------------------------------------------------

    def confirm(self, request: ConfirmPdfRequest, *, owner: str) -> PdfRecordView:
        """Keep ``request`` as ``owner``'s description of the PDF (the attachment stays)."""
        sha, file, _path = self.locate(request.pdf)
        now = now_iso()
        with self._store.write() as conn:
            have = records.get_pdf_record(conn, owner, sha)
            records.put_pdf_record(
                conn,
                records.PdfRecordRow(
                    owner=owner, sha256=sha, file=file, title=request.title,
                    authors=request.authors, year=request.year, venue=request.venue,
                    doi=request.doi, arxiv=request.arxiv, confirmed_at=now,
                    paper_id=have.paper_id if have else None,
                    attached_at=have.attached_at if have else None,
                ),
            )  # fmt: skip
        return self.view(sha, owner=owner, changed="confirmed")

    def attach(self, request: AttachPdfPaperRequest, *, owner: str) -> PdfRecordView:
        """Attach the PDF to the saved paper: ``owner``'s record says so, and the paper's
        Studies (the account may change) without a PDF for it link this one; the Study
        named in the request links it whatever it had (the paper must be one of its)."""
        sha, file, _path = self.locate(request.pdf)
        paper = Workspace(self._store, owner=owner).paper(request.paper).paper
        linked = self._attach(sha, file, paper, request.study, owner)
        return replace(self.view(sha, owner=owner, changed="attached"), linked_in=linked)

    def _attach(
        self, sha: str, file: str, paper: Paper, study: str | None, owner: str
    ) -> list[str]:
        now = now_iso()
        with self._store.write() as conn:
            named = None
            if study is not None:
                named, _ = repo.study_with_role(conn, study, account=owner, need="write")
                if named.id not in _studies_of(conn, paper.id):
                    raise PdfRecordInputError(
                        f"{paper.title[:120] or 'this paper'} is not a paper of the Study "
                        f"{named.name[:80]}",
                        code="paper_not_in_study",
                    )
            return self._attach_in(
                conn, sha, file, paper.id, owner, now,
                named=named.id if named is not None else None,
                how="person", detail="attached in the library",
            )  # fmt: skip

    def attach_imported(
        self, placed: Sequence[tuple[str, str, str, str]], *, how: str, owner: str
    ) -> int:
        """PDFs an import put into the library with their papers (``(sha256, file, paper
        id, detail)``; a Zotero item's attachment): each is attached as in :meth:`attach`
        — ``owner``'s record of the PDF names the paper, and the paper's Studies without a
        PDF for it link this one (a PDF a person linked, or undid, there stays). One
        transaction; how many Study links were made."""
        now = now_iso()
        made = 0
        with self._store.write() as conn:
            for sha, file, paper_id, detail in placed:
                made += len(
                    self._attach_in(conn, sha, file, paper_id, owner, now, how=how, detail=detail)
                )
        return made

    def _attach_in(
        self,
        conn: Connection,
        sha: str,
        file: str,
        paper_id: str,
        owner: str,
        now: str,
        *,
        how: str,
        detail: str,
        named: str | None = None,
    ) -> list[str]:
        linked: list[str] = []
        for sid in _studies_of(conn, paper_id):
            try:
                access.require_study(conn, owner, sid, "write")
            except (NotFoundError, NotPermitted):
                continue
            have = links.pdf_links(conn, sid).get(paper_id)
            free = have is None or have.state == "suggested"
            if not (free or sid == named):
                continue  # the Study has its PDF, or a person undid this one there
            links.put_pdf_link(
                conn, links.PdfLinkRow(sid, paper_id, sha, file, how, detail, "linked", owner, now)
            )
            access.add_history(conn, sid, owner, "pdf_attached", f"{paper_id}: {file}", now)
            linked.append(sid)
        have_rec = records.get_pdf_record(conn, owner, sha)
        base = have_rec or records.PdfRecordRow(owner=owner, sha256=sha, file=file)
        records.put_pdf_record(conn, replace(base, file=file, paper_id=paper_id, attached_at=now))
        return linked

    def save_as_paper(self, request: SavePdfPaperRequest, *, owner: str) -> PdfRecordView:
        """A saved paper from the PDF's description (confirmed, else read from the PDF),
        into the request's Study when given, with the PDF attached."""
        sha, file, path = self.locate(request.pdf)
        with self._store.read() as conn:
            rec = records.get_pdf_record(conn, owner, sha)
        facts = self._facts(sha, file, path, rec)
        if not facts.title:
            raise PdfRecordInputError(
                f"no title was read from {file[:120]}: confirm its description first",
                code="no_title",
            )
        venue = rec.venue if rec is not None and rec.confirmed_at else None
        if venue is None and (read := self._read(sha, path)) and isinstance(read, PdfMeta):
            venue = read.venue.value if read.venue else None
        paper = make_paper(
            title=facts.title, authors=list(facts.authors), year=facts.year, journal=venue,
            doi=facts.doi, arxiv_id=facts.arxiv, pmid=facts.pmid, pmcid=facts.pmcid,
            fallback_key=f"pdf:{sha}",
        )  # fmt: skip
        saved = Workspace(self._store, owner=owner).save_paper(paper, study=request.study)
        linked = self._attach(sha, file, saved.paper, request.study, owner)
        return replace(self.view(sha, owner=owner, changed="saved"), linked_in=linked)

    def attach_matching(self, *, owner: str) -> list[tuple[str, str]]:
        """Attach each library PDF ``owner`` has not attached to the saved paper that
        shares one of its identifiers (DOI, arXiv id, PMID, PMCID: exactly one paper);
        a title alone is never enough here (the PDF's page offers it). ``[(file, paper
        id)]`` attached, in library order."""
        lib = self._pdfs
        files = lib.corpus().files
        hashes = hash_files(lib.catalogue, files)
        with self._store.read() as conn:
            mine = records.pdf_records_of(conn, owner, list(hashes.values()))
            saved = repo.list_papers(conn, limit=MATCH_CAP, visible_to=owner)
        by_key: dict[str, list[Paper]] = {}
        for row in saved:
            for key in _paper_keys(row.paper):
                by_key.setdefault(key, []).append(row.paper)
        done: list[tuple[str, str]] = []
        seen: set[str] = set()
        for f in files:
            sha = hashes.get(f.path)
            if sha is None or sha in seen or (sha in mine and mine[sha].paper_id):
                continue
            seen.add(sha)
            facts = self._facts(sha, f.name, f.path, mine.get(sha))
            found = {p.id: p for key in _pdf_keys(facts) for p in by_key.get(key, [])}
            if len(found) == 1:
                paper = next(iter(found.values()))
                self._attach(sha, f.name, paper, None, owner)
                done.append((f.name, paper.id))
        return done

    # --- for the lists -----------------------------------------------------------------

    def titles(self, shas: list[str], *, owner: str) -> dict[str, dict[str, Any]]:
        """``{sha256: {title, confirmed, paper_id, paper_title}}`` of the PDFs ``owner``
        confirmed or attached (the library's list)."""
        out: dict[str, dict[str, Any]] = {}
        with self._store.read() as conn:
            mine = records.pdf_records_of(conn, owner, shas)
            for sha, rec in mine.items():
                paper = self._paper(conn, rec.paper_id, owner)
                out[sha] = {
                    "title": rec.title if rec.confirmed_at else None,
                    "confirmed": rec.confirmed_at is not None,
                    "paper": paper,
                }
            for sha, found in records.study_links_of(conn, owner, shas).items():
                row = out.setdefault(sha, {"title": None, "confirmed": False, "paper": None})
                if row["paper"] is None:
                    row["paper"] = self._paper(conn, found[0][2], owner)
        return out


def _studies_of(conn: Connection, paper_id: str) -> list[str]:
    return records.studies_of_paper(conn, paper_id)


def _keys(doi: str | None, arxiv: str | None, pmid: str | None, pmcid: str | None) -> list[str]:
    out: list[str] = []
    for kind, value in (
        ("doi", normalize_doi(doi) if doi else None),
        ("arxiv", normalize_arxiv(arxiv) if arxiv else None),
        ("pmid", normalize_pmid(pmid) if pmid else None),
        ("pmcid", normalize_pmcid(pmcid) if pmcid else None),
    ):
        if value:
            out.append(f"{kind}:{value}")
    return out


def _paper_keys(p: Paper) -> list[str]:
    return _keys(p.doi, p.arxiv_id, p.pmid, p.pmcid)


def _pdf_keys(f: PdfFacts) -> list[str]:
    return _keys(f.doi, f.arxiv, f.pmid, f.pmcid)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _confirmed(rec: records.PdfRecordRow | None) -> dict[str, Any] | None:
    if rec is None or rec.confirmed_at is None:
        return None
    return {
        "title": rec.title, "authors": list(rec.authors), "year": rec.year,
        "venue": rec.venue, "doi": rec.doi, "arxiv": rec.arxiv, "at": rec.confirmed_at,
    }  # fmt: skip


def _fields(meta: PdfMeta | None, confirmed: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Each field's value in force, where it comes from and, when read, how sure."""
    out: list[dict[str, Any]] = []
    for name, label in FIELDS:
        if confirmed is not None:
            value = confirmed[name]
            out.append(
                {"name": name, "label": label, "value": value or None, "source": CONFIRMED,
                 "confidence": None, "how": None}
            )  # fmt: skip
            continue
        found = getattr(meta, name) if meta is not None else None
        if found is None:
            out.append(
                {"name": name, "label": label, "value": None, "source": None,
                 "confidence": None, "how": None}
            )  # fmt: skip
            continue
        value = list(found.value) if isinstance(found.value, tuple) else found.value
        out.append(
            {"name": name, "label": label, "value": value, "source": found.source,
             "confidence": round(found.confidence, 2), "how": found.how}
        )  # fmt: skip
    return out
