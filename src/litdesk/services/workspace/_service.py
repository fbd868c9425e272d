"""The workspace service: saved papers, reading status, Studies, notes and highlights,
evidence, imports and search runs attached to Studies. Every write is one transaction."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Final

from sqlalchemy.engine import Connection

from litdesk._errors import InputError, IntegrityError, NotFoundError
from litdesk.adapters.store import accounts as access
from litdesk.adapters.store import (
    get_search_run,
    identity_keys,
    repo,
    sources_changed,
    study_records,
)
from litdesk.core.evidence import (
    FullTextContext,
    make_anchor,
    make_annotation,
    read_annotation,
)
from litdesk.core.imports import ImportTrace, SourceLabel, default_source, repeated_source
from litdesk.core.records import Paper

from ._batch import save_batch
from ._codec import import_member, read_import_row, trace_document
from ._evidence_ops import EvidenceOps
from ._inputs import PaperFields
from ._results import (
    EvidenceView,
    FilesNotFound,
    FilesRefused,
    IdentityConflict,
    ImportResult,
    NoteView,
    RefusedRecord,
    SaveResult,
    StudyAdditions,
    StudyImport,
    _all_refused,
    _new_id,
    _note_notice,
    _study_name,
    context_from_fulltext,
    merge_papers,
    now_iso,
)
from ._study_papers import TakenPapers, run_papers, take_run_papers
from ._summaries import StudyPaper, StudySummary

if TYPE_CHECKING:  # the file readers are imported by an import
    from litdesk.services.imports import RefusedFile

__all__ = [
    "EvidenceView",
    "FilesNotFound",
    "FilesRefused",
    "IdentityConflict",
    "ImportResult",
    "NoteView",
    "SaveResult",
    "StudyAdditions",
    "StudyImport",
    "Workspace",
    "all_refused",
    "context_from_fulltext",
    "merge_papers",
    "now_iso",
]

MAX_DESCRIPTION: Final = 4_000
_IDENTITY_LOCK: Final = 1909102029
_STUDY_LOCK: Final = 1909102030


class Workspace(EvidenceOps):
    """All workspace operations over one :class:`Store`.

    The store is a constructor parameter: the app's (``app.workspace()``; closed by the
    app). ``owns_store``: :meth:`close` disposes it (tests handing in a store of their own).
    """

    # --- papers ----------------------------------------------------------------------

    def _save(self, conn: Connection, paper: Paper, now: str) -> SaveResult:
        # PostgreSQL: serialise identity upserts (SQLite's BEGIN IMMEDIATE already does)
        self.store.lock(conn, _IDENTITY_LOCK, "papers")
        matches = repo.find_paper_ids(conn, identity_keys(paper), owner=self.owner)
        ids = sorted(set(matches.values()))
        if len(ids) > 1:
            raise IdentityConflict(
                f"the record matches {len(ids)} saved papers ({', '.join(ids[:5])}); not merged",
                paper_ids=ids,
            )
        if not ids:
            repo.insert_paper(conn, paper, now, owner=self.owner)
            access.add_saver(conn, paper.id, self.owner, now)
            return SaveResult(paper, created=True, changed=True)
        old = repo.own_papers(conn, ids, owner=self.owner)[ids[0]]
        merged = merge_papers(old, paper)
        if merged != old:
            repo.update_paper(conn, merged, now, owner=self.owner)
        access.add_saver(conn, old.id, self.owner, now)  # saving a known paper shares nothing
        return SaveResult(merged, created=False, changed=merged != old)

    def _save_all(self, conn: Connection, papers: Sequence[Paper], now: str) -> list[SaveResult]:
        """:meth:`_save` of each paper in order, in a handful of statements
        (:func:`save_batch`; 600 papers one by one took 3,000 statements): the first paper
        refused raises its :class:`IdentityConflict`, as saving them one by one does (the
        caller's transaction then stores none of them)."""
        self.lock_identities(conn)
        out: list[SaveResult] = []
        for result in save_batch(conn, papers, now, owner=self.owner):
            if isinstance(result, IdentityConflict):
                raise result
            out.append(result)
        return out

    def lock_identities(self, conn: Connection) -> None:
        """Inside the caller's write transaction: hold the lock identity upserts take (a
        batch that inserts papers known to be new checks and inserts under it)."""
        self.store.lock(conn, _IDENTITY_LOCK, "papers")

    def save_paper(
        self, paper: Paper, *, study: str | None = None, status: str | None = None
    ) -> SaveResult:
        """Save (upsert by identity) a paper, optionally into a Study and with a status."""
        now = now_iso()
        with self.store.write() as conn:
            study_row = self._study(conn, study, "write") if study is not None else None
            result = self._save(conn, paper, now)
            if status is not None:
                repo.set_status(conn, result.paper.id, status, now, status_of=self.owner)
            if study_row is not None:
                repo.add_study_paper(
                    conn, study_row.id, result.paper.id, now, paper_owner=self.owner
                )
                self._history(conn, study_row.id, "paper_added", result.paper.id, now)
        return result

    def save_fields(
        self, fields: PaperFields, *, study: str | None = None, status: str | None = None
    ) -> SaveResult:
        """``litdesk paper save --id/--doi/…``: a paper built from an identifier and fields,
        saved (upsert by identity) like :meth:`save_paper`."""
        return self.save_paper(fields.to_paper(), study=study, status=status)

    def save_papers(
        self, papers: Sequence[Paper], *, study: str | None = None, status: str | None = None
    ) -> list[SaveResult]:
        """Save several papers (e.g. chosen citation results) in one transaction: all of
        them, with their Study links, or none."""
        now = now_iso()
        with self.store.write() as conn:
            study_id = self._study(conn, study, "write").id if study else None
            out = self._save_all(conn, papers, now)
            ids = [result.paper.id for result in out]
            if status is not None:
                for pid in ids:
                    repo.set_status(conn, pid, status, now, status_of=self.owner)
            if study_id is not None:
                repo.add_study_papers(conn, study_id, ids, now, paper_owner=self.owner)
                # one line per paper saved, as one by one, in one statement
                access.add_history_lines(conn, study_id, self.owner, "paper_added", ids, now)
        return out

    def paper(self, ref: str) -> repo.PaperRow:
        """A saved paper by id or by any identifier (DOI, PMID, PMCID, OpenAlex, arXiv)."""
        with self._reading() as conn:
            return self._row(conn, self._paper(conn, ref))

    def papers(
        self, *, study: str | None = None, status: str | None = None, limit: int | None = 500
    ) -> list[repo.PaperRow]:
        """Saved papers (the newest ``limit``; ``None``: every one — what an export or a
        push must use), by Study and reading status; an unknown status is refused with the
        valid ones (never an empty list that looks like an answer)."""
        if status is not None and status not in repo.READING_STATUSES:
            raise InputError(
                f"unknown reading status {status[:40]!r}: choose one of "
                f"{', '.join(repo.READING_STATUSES)}",
                code="bad_status",
            )
        with self._reading() as conn:
            study_id = self._study(conn, study).id if study else None
            return repo.list_papers(
                conn, study_id=study_id, status=status, visible_to=self.owner, limit=limit
            )

    def set_status(self, ref: str, status: str | None) -> Paper:
        with self.store.write() as conn:
            paper_id = self._paper(conn, ref, "write")
            repo.set_status(conn, paper_id, status, now_iso(), status_of=self.owner)
            return self._record(conn, paper_id)

    # --- studies ---------------------------------------------------------------------

    def create_study(self, name: str, description: str | None = None) -> repo.StudyRow:
        name = _study_name(name)
        if description is not None and len(description) > MAX_DESCRIPTION:
            raise InputError(f"a description is at most {MAX_DESCRIPTION:,} characters")
        now = now_iso()
        with self.store.write() as conn:
            row = repo.insert_study(
                conn, _new_id("study"), name, description, now, owner=self.owner
            )
            self._history(conn, row.id, "study_created", name, now)
            return row

    def studies(self) -> list[tuple[repo.StudyRow, int]]:
        with self._reading() as conn:
            return repo.list_studies(conn, visible_to=self.owner)

    def study(self, ref: str, need: access.Need = "read") -> repo.StudyRow:
        """A Study by id or name the owner may read (``need``: or change, or own)."""
        with self._reading() as conn:
            return self._study(conn, ref, need)

    def add_to_study(self, study: str, paper_ref: str) -> bool:
        now = now_iso()
        with self.store.write() as conn:
            row = self._study(conn, study, "write")
            paper_id = self._paper(conn, paper_ref)
            added = self._link(conn, row.id, paper_id, now)
            if added:
                self._history(conn, row.id, "paper_added", paper_id, now)
            return added

    def study_summary(self, ref: str, *, offset: int = 0, limit: int = 100_000) -> StudySummary:
        """A Study with its papers (newest first: ``limit`` of them from ``offset``; all of
        them by default), ``papers_total`` (how many it holds) and its other counts."""
        with self._reading() as conn:
            s = self._study(conn, ref)
            total, notes_n, ev_n = repo.study_totals(conn, s.id)
            rows = repo.list_papers(
                conn, study_id=s.id, limit=limit, offset=offset, status_of=self.owner
            )
            runs = repo.study_run_ids(conn, s.id)
            imps = repo.study_imports(conn, s.id, memo=self.store.snapshot_memo())
        return StudySummary(
            id=s.id,
            name=s.name,
            description=s.description,
            created_at=s.created_at,
            papers=tuple(
                StudyPaper(r.paper.id, r.paper.title, r.paper.year, r.status) for r in rows
            ),
            papers_total=total,
            notes=notes_n,
            evidence=ev_n,
            search_runs=tuple(runs),
            imports=tuple(i.id for i in imps),
        )

    def fill_study(
        self, study: str, paper_refs: Sequence[str], run_ids: Sequence[str] = ()
    ) -> StudyAdditions:
        """``litdesk study add``: saved papers and saved search runs into a Study, in one
        transaction (an unknown paper, run or Study adds nothing)."""
        for run_id in run_ids:
            get_search_run(self.store, run_id)  # raises NotFoundError; runs are immutable
        now = now_iso()
        with self.store.write() as conn:
            row = self._study(conn, study, "write")
            added = [self._link(conn, row.id, self._paper(conn, ref), now) for ref in paper_refs]
            for ref, was_added in zip(paper_refs, added, strict=True):
                if was_added:
                    self._history(conn, row.id, "paper_added", ref, now)
            for run_id in run_ids:
                access.require_run(conn, self.owner, run_id)
                self.keep_run_in(conn, row.id, run_id, now)
        return StudyAdditions(
            row.id, row.name, tuple(zip(paper_refs, added, strict=True)), tuple(run_ids)
        )

    def attach_search_run(
        self, study: str, run_id: str, papers: Sequence[Paper] | None = None
    ) -> None:
        """Keep a stored run in the Study with its hits as the Study's papers (``papers``:
        the run's hits as retrieved, whole; otherwise the stored run's), once."""
        get_search_run(self.store, run_id)  # raises NotFoundError
        now = now_iso()
        with self.store.write() as conn:
            access.require_run(conn, self.owner, run_id)
            row = self._study(conn, study, "write")
            self.keep_run_in(conn, row.id, run_id, now, papers)

    def keep_run_in(
        self,
        conn: Connection,
        study_id: str,
        run_id: str,
        now: str,
        papers: Sequence[Paper] | None = None,
    ) -> TakenPapers | None:
        """Inside the caller's write transaction: link a stored run to the Study and take
        its hits' papers (``papers``, or the stored run's) as the Study's papers (new ones
        inserted for this owner with their identity keys, known ones linked, none
        duplicated), noted in its history. ``None``: the Study kept the run before
        (keeping it again adds nothing)."""
        if not repo.add_study_search_run(conn, study_id, run_id, at=now):
            return None
        if papers is None:
            papers = run_papers(conn, run_id)[0]
        taken = take_run_papers(conn, self, papers, study_id=study_id, run_id=run_id)
        self._history(conn, study_id, "run_saved", run_id, now)
        return taken

    # --- notes and highlights ----------------------------------------------------------

    def add_note(
        self,
        paper_ref: str,
        *,
        comment: str | None = None,
        highlight: str | None = None,
        start: int | None = None,
        occurrence: int = 1,
        context: FullTextContext | None = None,
        study: str | None = None,
    ) -> NoteView:
        """A paper-level comment, or a highlight (abstract or full-text paragraph) with an
        optional comment. The anchor must reproduce its quote from the stored snapshot."""
        now = now_iso()
        with self.store.write() as conn:
            paper = self._record(conn, self._paper(conn, paper_ref))
            anchor = None
            if highlight is not None:
                anchor = make_anchor(
                    paper, text=highlight, start=start, occurrence=occurrence, context=context
                )
            elif context is not None:
                raise InputError("a full-text paragraph needs the highlighted text")
            note = make_annotation(paper, comment=comment, anchor=anchor, created_at=now)
            study_id = self._study(conn, study, "write").id if study else None
            note_id = _new_id("note")
            repo.insert_document(
                conn,
                "notes",
                note_id,
                note.model_dump(mode="json"),
                now,
                paper_id=paper.id,
                study_id=study_id,
                owner=self.owner,
            )
            if study_id:
                self._link(conn, study_id, paper.id, now)
                self._history(conn, study_id, "note_added", note_id, now)
        return NoteView(note_id, note, study_id)

    def notes(
        self, *, paper_ref: str | None = None, study: str | None = None
    ) -> tuple[list[NoteView], list[str]]:
        """Notes with a notice when their source changed; invalid stored ones are reported."""
        out: list[NoteView] = []
        problems: list[str] = []
        with self._reading() as conn:
            paper_ids = [self._paper(conn, paper_ref)] if paper_ref else None
            study_id = self._study(conn, study).id if study else None
            rows = repo.list_documents(
                conn, "notes", study_id=study_id, paper_ids=paper_ids, visible_to=self.owner
            )
            cache = self._records(conn, {row.paper_id or "" for row in rows})
            for row in rows:
                try:
                    note = read_annotation(row.json())
                    pid = row.paper_id or ""
                    if pid not in cache:
                        cache[pid] = self._record(conn, pid)
                    paper = cache[pid]
                except IntegrityError as exc:
                    problems.append(f"note {row.id}: {exc.message}")
                    continue
                out.append(NoteView(row.id, note, row.study_id, _note_notice(note, paper)))
        return out, problems

    # --- imports -----------------------------------------------------------------------

    def _attach(
        self,
        conn: Connection,
        trace: ImportTrace,
        study_id: str | None,
        status: str | None,
        now: str,
        source: SourceLabel | None = None,
    ) -> ImportResult:
        ids: list[str | None] = []
        refused: list[RefusedRecord] = []
        created = 0
        repeats = repo.import_ids_by_digest(conn, trace.source.sha256, study_id=study_id)
        if repeats:
            trace = repeated_source(trace, repeats)
        # every record saved as _save saves one, in a few statements for all of them
        self.store.lock(conn, _IDENTITY_LOCK, "papers")
        saved = save_batch(
            conn,
            [r.paper for r in trace.records],
            now,
            owner=self.owner,
            study_id=study_id or None,
        )
        for index, (record, result) in enumerate(zip(trace.records, saved, strict=True)):
            if isinstance(result, IdentityConflict):
                ids.append(None)
                refused.append(
                    {
                        "record": index,
                        "lines": [record.first_line, record.last_line],
                        "reason": result.message,
                    }
                )
                continue
            created += int(result.created)
            ids.append(result.paper.id)
        if status is not None:
            for pid in dict.fromkeys(i for i in ids if i):
                repo.set_status(conn, pid, status, now, status_of=self.owner)
        import_id = _new_id("imp")
        label = source or default_source(trace)
        repo.insert_document(
            conn,
            "imports",
            import_id,
            trace_document(trace, ids, label),
            now,
            study_id=study_id,
            extra={"sha256": trace.source.sha256, "format": trace.source.format[:40]},
            owner=self.owner,
        )
        self._history(conn, study_id, "imported", trace.source.path[-200:], now)
        return ImportResult(
            import_id,
            study_id,
            len(ids) - len(refused),
            created,
            refused,
            ids,
            repeats,
            path=trace.source.path,
            source=label,
        )

    def attach_import(
        self, trace: ImportTrace, *, study: str | None = None, status: str | None = None
    ) -> ImportResult:
        """Save every record's paper (optionally with a reading status) and keep the whole
        trace, in one transaction.

        A record whose identity conflicts with saved papers is refused and reported
        beside the successes (its raw record stays in the stored trace). A file imported
        before into the same Study (the same source digest) is recognised: the trace gets
        a ``repeated_source`` notice naming the earlier import, and PRISMA counts the
        file's records once.
        """
        now = now_iso()
        with self.store.write() as conn:
            study_id = self._study(conn, study, "write").id if study else None
            return self._attach(conn, trace, study_id, status, now)

    def save_file(
        self,
        path: str | os.PathLike[str],
        *,
        format: str | None = None,
        study: str | None = None,
        status: str | None = None,
    ) -> ImportResult:
        """``litdesk paper save --file``: read one export file and save its records (and
        its trace) like :meth:`attach_import`; a refused file stores nothing."""
        from litdesk.services.imports import import_files as read_files

        batch = read_files([path], format=format)
        if not batch.imports:
            raise _all_refused(batch.refused)
        return self.attach_import(batch.imports[0], study=study, status=status)

    def import_into_study(
        self,
        traces: Sequence[ImportTrace],
        *,
        study: str,
        create: bool = True,
        status: str | None = None,
        then: Callable[[Connection, StudyImport], None] | None = None,
        sources: Sequence[SourceLabel | None] = (),
    ) -> StudyImport:
        """Save the records of every trace into ``study`` and keep each trace, in one
        transaction: the Study (created when it does not exist and ``create``), the
        papers, their Study links and every import trace commit together or not at all.
        ``then`` runs last inside that transaction (an import job records its outcome
        there; an error it raises rolls the whole import back). ``sources``: the source
        PRISMA counts each trace's records under (by position; ``None`` or missing: what the
        file states, :func:`default_source`, else its file)."""
        if not traces:
            raise InputError("nothing to import: no file was read", code="nothing_imported")
        now = now_iso()
        with self.store.write() as conn:
            self.store.lock(conn, _STUDY_LOCK, "studies")
            try:
                row = repo.get_study(conn, study, account=self.owner)
                created = False
            except NotFoundError:
                if not create:
                    raise
                row = repo.insert_study(
                    conn, _new_id("study"), _study_name(study), None, now, owner=self.owner
                )
                created = True
            access.require_study(conn, self.owner, row.id, "write")
            named = list(sources) + [None] * (len(traces) - len(sources))
            results = [
                self._attach(conn, t, row.id, status, now, source)
                for t, source in zip(traces, named, strict=True)
            ]
            done = StudyImport(row.id, row.name, created, tuple(results))
            if then is not None:
                then(conn, done)
        return done

    def imports(
        self, *, study: str | None = None
    ) -> list[tuple[str, ImportTrace, list[str | None]]]:
        with self._reading() as conn:
            study_id = self._study(conn, study).id if study else None
            rows = repo.list_documents(
                conn, "imports", study_id=study_id, limit=100_000, visible_to=self.owner
            )
        return [(r.id, *read_import_row(r)) for r in rows]

    def import_members(self, *, study: str) -> list[tuple[str, bytes]]:
        """The Study's imports (those :meth:`imports` lists) as its ZIP carries them:
        ``(import id, the member's bytes)``."""
        with self._reading() as conn:
            study_id = self._study(conn, study).id
            rows = repo.list_documents(
                conn, "imports", study_id=study_id, limit=100_000, visible_to=self.owner
            )
        return [(r.id, import_member(r)) for r in rows]

    # --- inside one transaction the caller holds (a Zotero import: all or nothing) -------

    def transaction(self) -> AbstractContextManager[Connection]:
        """One write transaction for the ``*_in`` methods below: everything written through
        them commits together, or (an error, a killed process) nothing does."""
        return self.store.write()

    def study_in(
        self, conn: Connection, name: str, *, description: str | None = None
    ) -> tuple[repo.StudyRow, bool]:
        """The Study ``name`` (id or name) the owner may change, created when there is
        none: ``(row, created)``."""
        now = now_iso()
        self.store.lock(conn, _STUDY_LOCK, "studies")
        try:
            row, granted = repo.get_study_role(conn, name, account=self.owner)
        except NotFoundError:
            row = repo.insert_study(
                conn, _new_id("study"), _study_name(name), description, now, owner=self.owner
            )
            self._history(conn, row.id, "study_created", row.name, now)
            return row, True
        access.require_role(granted, "write")
        return row, False

    def study_size_in(self, conn: Connection, study_id: str) -> int:
        """How many papers the Study ``study_id`` (from :meth:`study_in`) holds now."""
        return repo.count_study_papers(conn, study_id)

    def paper_in(self, conn: Connection, ref: str) -> Paper:
        """A saved paper the owner may read (:class:`NotFoundError` when there is none)."""
        return self._record(conn, self._paper(conn, ref))

    def save_in(self, conn: Connection, paper: Paper, *, study_id: str) -> SaveResult:
        """:meth:`save_papers` of one paper into the Study ``study_id`` (from
        :meth:`study_in`); an :class:`IdentityConflict` is raised before anything of this
        paper is written (the caller may go on with the next one)."""
        now = now_iso()
        result = self._save(conn, paper, now)
        if repo.add_study_paper(conn, study_id, result.paper.id, now, paper_owner=self.owner):
            self._history(conn, study_id, "paper_added", result.paper.id, now)
        return result

    def save_many_in(
        self, conn: Connection, papers: Sequence[Paper], *, study_id: str
    ) -> list[SaveResult | IdentityConflict]:
        """:meth:`save_in` of each paper, in order (an :class:`IdentityConflict` in the
        place of one refused), in a handful of statements (:func:`save_batch`); each paper
        new to the Study is added to it and to its history, as :meth:`save_in` does. The
        caller holds the identity lock (:meth:`lock_identities`)."""
        now = now_iso()
        results = save_batch(conn, papers, now, owner=self.owner)
        saved = [r.paper.id for r in results if isinstance(r, SaveResult)]
        for pid in repo.link_study_papers(conn, study_id, saved, now, paper_owner=self.owner):
            self._history(conn, study_id, "paper_added", pid, now)
        return results

    def update_paper_in(self, conn: Connection, paper: Paper) -> None:
        """Store new fields of a saved paper (the same id; its identity keys follow) in the
        owner's own record (a Study's record of another account is saved as its own). The
        Studies' records that *are* the saved paper (added by hand, or from Zotero) take the
        new fields too: a title changed in Zotero showed in the paper list, while screening,
        the working set and its exports kept the old one."""
        now = now_iso()
        if repo.own_papers(conn, [paper.id], owner=self.owner):
            repo.update_paper(conn, paper, now, owner=self.owner)
        else:
            self._save(conn, paper, now)
        stored = repo.own_papers(conn, [paper.id], owner=self.owner).get(paper.id, paper)
        for study_id in study_records.refresh_paper_records(
            conn, paper.id, stored.to_dict(), owner=self.owner
        ):
            sources_changed(conn, study_id)

    def add_note_in(
        self, conn: Connection, paper_id: str, comment: str, *, study_id: str | None
    ) -> str:
        """:meth:`add_note` of a paper-level comment; returns the note's id."""
        now = now_iso()
        paper = self._record(conn, self._paper(conn, paper_id))
        note = make_annotation(paper, comment=comment, anchor=None, created_at=now)
        note_id = _new_id("note")
        repo.insert_document(
            conn, "notes", note_id, note.model_dump(mode="json"), now,
            paper_id=paper.id, study_id=study_id, owner=self.owner,
        )  # fmt: skip
        if study_id:
            self._link(conn, study_id, paper.id, now)
            self._history(conn, study_id, "note_added", note_id, now)
        return note_id

    def replace_note_in(self, conn: Connection, note_id: str, comment: str) -> None:
        """A paper-level note's comment replaced (a note whose source changed: a Zotero
        note edited in Zotero); its paper, Study and creation time stay."""
        row = repo.get_document(conn, "notes", note_id)
        access.require_document(conn, self.owner, row.owner, row.study_id, "write")
        old = read_annotation(row.json())
        paper = self._record(conn, old.paper_id)
        note = make_annotation(paper, comment=comment, anchor=old.anchor, created_at=old.created_at)
        repo.replace_document(conn, "notes", note_id, note.model_dump(mode="json"))
        self._history(conn, row.study_id, "note_edited", note_id, now_iso())


def all_refused(refused: Sequence[RefusedFile]) -> InputError | NotFoundError:
    """The error of an import whose every file was refused (nothing was saved): a single
    file's own error, or one listing them (``FilesNotFound`` when none exists)."""
    return _all_refused(refused)
