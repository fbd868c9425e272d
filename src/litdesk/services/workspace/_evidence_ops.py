"""The workspace's evidence records: add, revise, list and the extraction form they follow,
each re-checked against its paper as stored."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from sqlalchemy.engine import Connection

from litdesk._errors import InputError, IntegrityError
from litdesk.adapters.store import (
    LOCAL_OWNER,
    assist_get_provenance,
    pdf_records,
    repo,
    subject_links,
)
from litdesk.adapters.store import accounts as access
from litdesk.core.evidence import (
    Evidence,
    EvidenceRefused,
    FullTextContext,
    PdfPage,
    make_evidence,
    read_evidence,
    revise_evidence,
    revise_values,
)
from litdesk.core.forms import Form
from litdesk.core.records import Paper
from litdesk.core.vocab import SubjectRef, distinct_links

from ._base import WorkspaceBase
from ._forms import form_of, new_values, revised_values
from ._results import (
    AssistedFrom,
    EvidenceView,
    _new_id,
    now_iso,
    recheck,
)

__all__ = ["EvidenceOps"]


class EvidenceOps(WorkspaceBase):
    """Evidence records of the workspace (see :class:`Workspace`)."""

    # --- evidence ----------------------------------------------------------------------

    def add_evidence(
        self,
        paper_ref: str,
        *,
        finding: str | None = None,
        passage: str,
        source: str,
        location: str | None = None,
        context: FullTextContext | None = None,
        study: str | None = None,
        values: Mapping[str, object] | None = None,
        subjects: Sequence[SubjectRef] = (),
        pdf: PdfPage | None = None,
        pdf_pages: Sequence[str] | None = None,
        **fields: str | None,
    ) -> EvidenceView:
        """Record evidence: its values (``finding`` and the six ``fields``, or ``values``
        by form key) checked against the Study's form (the default six fields without a
        Study or a chosen form), its passage against its source; linked to ``subjects``
        (each once, at most eight). A passage from the paper's PDF (``source="pdf"``)
        names the PDF and page (``pdf``) and is checked against ``pdf_pages``, the text
        of that PDF's pages; the PDF must be the paper's PDF for this account."""
        raw: dict[str, object] = {k: v for k, v in fields.items() if v is not None}
        if finding is not None:
            raw["finding"] = finding
        raw.update(values or {})
        with self.store.write() as conn:
            return self.record_evidence(
                conn, paper_ref, raw, passage=passage, source=source, location=location,
                context=context, study=study, subjects=subjects, pdf=pdf, pdf_pages=pdf_pages,
            )  # fmt: skip

    def record_evidence(
        self,
        conn: Connection,
        paper_ref: str,
        raw: Mapping[str, object],
        *,
        passage: str,
        source: str,
        location: str | None = None,
        context: FullTextContext | None = None,
        study: str | None = None,
        subjects: Sequence[SubjectRef] = (),
        pdf: PdfPage | None = None,
        pdf_pages: Sequence[str] | None = None,
    ) -> EvidenceView:
        """:meth:`add_evidence` inside the caller's write transaction ``conn`` (``raw``:
        the values by form key, checked here against the Study's form as it is now) — for
        a use case that records more in the same transaction (an assisted draft's
        provenance)."""
        now = now_iso()
        linked = distinct_links(subjects)
        paper = self._record(conn, self._paper(conn, paper_ref))
        study_id = self._study(conn, study, "write").id if study else None
        pdf_now = self._pdf_now(conn, [paper.id]).get(paper.id)
        if pdf is not None and pdf.sha256 != pdf_now:
            raise EvidenceRefused(
                f"{pdf.file} is not the PDF of {paper.id} for this account"
                + (" (it has another one now: open it again)" if pdf_now else ""),
                code="pdf_not_the_papers",
            )
        checked = new_values(form_of(conn, study_id), raw)
        if checked.legacy:
            six = checked.six
            ev = make_evidence(
                paper,
                finding=six["finding"],
                passage=passage,
                source=source,
                location=location,
                context=context,
                pdf=pdf,
                pdf_pages=pdf_pages,
                created_at=now,
                question=six["question"],
                population=six["population"],
                method=six["method"],
                intervention=six["intervention"],
                limitations=six["limitations"],
            )
        else:
            ev = make_evidence(
                paper,
                passage=passage,
                source=source,
                location=location,
                context=context,
                pdf=pdf,
                pdf_pages=pdf_pages,
                created_at=now,
                values=checked.values,
                form_revision=checked.revision,
            )
        ev_id = _new_id("ev")
        repo.insert_document(
            conn,
            "evidence",
            ev_id,
            ev.model_dump(mode="json"),
            now,
            paper_id=paper.id,
            study_id=study_id,
            owner=self.owner,
        )
        subject_links.link_subjects(conn, ev_id, linked)
        if study_id:
            self._link(conn, study_id, paper.id, now)
            self._history(conn, study_id, "evidence_added", ev_id, now)
        by = _recorders(conn, [self.owner]).get(self.owner)
        return EvidenceView(
            ev_id, ev, study_id, paper, recheck(ev, paper, pdf_now), linked, recorded_by=by
        )

    def _pdf_now(self, conn: Connection, paper_ids: Sequence[str]) -> dict[str, str]:
        """``{paper id: SHA-256}`` of each paper's PDF for this account (the one it
        attached, else one linked in a Study it belongs to)."""
        found = pdf_records.pdfs_of_papers(conn, self.owner, list(paper_ids))
        return {pid: sha for pid, (sha, _file) in found.items()}

    def update_evidence(self, evidence_id: str, **changes: str | None) -> EvidenceView:
        """Change an evidence record's six fields ('' clears one) or passage."""
        return self.revise_evidence(evidence_id, changes)

    def revise_evidence(
        self,
        evidence_id: str,
        changes: Mapping[str, str | None],
        values: Mapping[str, object] | None = None,
    ) -> EvidenceView:
        """Change an evidence record's fields (``changes``: the six, ``passage``,
        ``location``; ``values`` by form key; '' clears one); validated against the
        Study's current form (values of fields it no longer has are kept) and re-checked
        against the source."""
        now = now_iso()
        with self.store.write() as conn:
            row = repo.get_document(conn, "evidence", evidence_id)
            access.require_document(conn, self.owner, row.owner, row.study_id, "write")
            if not changes and not values:  # refused once the account may write it
                raise InputError(
                    "nothing to change: give at least one field option", code="arguments"
                )
            ev = read_evidence(row.json())
            paper = self._record(conn, ev.paper_id)
            place = {k: v for k, v in changes.items() if k in ("passage", "location")}
            given: dict[str, object] = {k: v for k, v in changes.items() if k not in place}
            given.update(values or {})
            if not given:
                revised = revise_evidence(ev, paper, updated_at=now, **place)
            else:
                checked = revised_values(form_of(conn, row.study_id), ev, given)
                if checked.legacy:
                    six = {k: (v if v is not None else "") for k, v in checked.six.items()}
                    revised = revise_evidence(ev, paper, updated_at=now, **(place | six))
                else:
                    revised = revise_values(
                        ev,
                        paper,
                        updated_at=now,
                        values=checked.values,
                        form_revision=checked.revision,
                        place=place,
                    )
            repo.replace_document(conn, "evidence", evidence_id, revised.model_dump(mode="json"))
            self._history(conn, row.study_id, "evidence_edited", evidence_id, now)
            linked = tuple(subject_links.subjects_of(conn, [evidence_id]).get(evidence_id, ()))
            pdf_now = self._pdf_now(conn, [paper.id]).get(paper.id) if revised.pdf else None
            by = _recorders(conn, [row.owner]).get(row.owner)
        result = recheck(revised, paper, pdf_now)
        return EvidenceView(
            evidence_id, revised, row.study_id, paper, result, linked, recorded_by=by
        )

    def form(self, study: str | None) -> Form:
        """The extraction form evidence in ``study`` follows (None: the default six fields)."""
        with self._reading() as conn:
            return form_of(conn, self._study(conn, study).id if study else None)

    def evidence(
        self,
        *,
        study: str | None = None,
        paper_ref: str | None = None,
        subject: tuple[str, str] | None = None,
    ) -> tuple[list[EvidenceView], list[str]]:
        """Evidence records (of a Study, a paper, linked to a ``subject``: vocabulary and
        id), each re-checked against its paper as stored now, with its subjects."""
        out: list[EvidenceView] = []
        problems: list[str] = []
        with self._reading() as conn:
            paper_ids = [self._paper(conn, paper_ref)] if paper_ref else None
            study_id = self._study(conn, study).id if study else None
            rows = repo.list_documents(
                conn,
                "evidence",
                study_id=study_id,
                paper_ids=paper_ids,
                visible_to=self.owner,
                subject=subject,
            )
            links = subject_links.subjects_of(conn, [r.id for r in rows])
            records = self._records(conn, {row.paper_id or "" for row in rows})
            read: list[tuple[repo.DocumentRow, Evidence, Paper]] = []
            for row in rows:
                try:
                    ev = read_evidence(row.json())
                    paper = records.get(row.paper_id or "") or self._record(
                        conn, row.paper_id or ""
                    )
                except IntegrityError as exc:
                    problems.append(f"evidence {row.id}: {exc.message}")
                    continue
                read.append((row, ev, paper))
            # the papers' PDFs now, for the records checked on a PDF page only
            pdf_now = self._pdf_now(conn, sorted({p.id for _, ev, p in read if ev.pdf}))
            names = _recorders(conn, {row.owner for row, _, _ in read})
            for row, ev, paper in read:
                linked = tuple(links.get(row.id, ()))
                assisted = AssistedFrom.of(assist_get_provenance(conn, row.id))
                result = recheck(ev, paper, pdf_now.get(paper.id))
                out.append(
                    EvidenceView(
                        row.id,
                        ev,
                        row.study_id,
                        paper,
                        result,
                        linked,
                        assisted,
                        recorded_by=names.get(row.owner),
                    )
                )
        return out, problems


def _recorders(conn: Connection, owners: Iterable[str]) -> dict[str, str]:
    """Who recorded evidence: each owning account → its user name (an account that is
    gone keeps its id); the single-user workspace's ``local`` is left out (no one to name)."""
    accounts = {o for o in owners if o != LOCAL_OWNER}
    found = access.account_names(conn, accounts) if accounts else {}
    return {o: found.get(o, o) for o in accounts}
