"""The workspace service: saved papers, reading status, Studies, notes and highlights,
evidence, imports and search runs attached to Studies. Every write is one transaction."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy.engine import Connection

from litdesk._errors import InputError, IntegrityError, RefusedError
from litdesk.adapters.store import Store, get_search_run, identity_keys, repo
from litdesk.core.evidence import (
    Annotation,
    Evidence,
    EvidenceRefused,
    FullTextContext,
    check_evidence,
    europe_pmc_url,
    make_anchor,
    make_annotation,
    make_evidence,
    paper_pmcid,
    read_annotation,
    read_evidence,
    revise_evidence,
    text_digest,
)
from litdesk.core.imports import ImportTrace, repeated_source
from litdesk.core.records import Paper, detect_identifier, read_paper, split_arxiv

from ._codec import read_import, trace_document

__all__ = [
    "EvidenceView",
    "IdentityConflict",
    "ImportResult",
    "NoteView",
    "SaveResult",
    "Workspace",
    "context_from_fulltext",
    "merge_papers",
    "now_iso",
]

MAX_STUDY_NAME: Final = 200
MAX_DESCRIPTION: Final = 4_000
_IDENTIFIERS: Final = ("doi", "pmid", "pmcid", "openalex_id")
_IDENTITY_LOCK: Final = 1909102029


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _new_id(prefix: str) -> str:
    """A fresh id that sorts by creation time (nanosecond clock, then randomness)."""
    return f"{prefix}-{time.time_ns():016x}{secrets.token_hex(4)}"


class IdentityConflict(RefusedError):
    """Two identities disagree (different DOIs, or a record matching two saved papers)."""

    default_code = "identity_conflict"


def _arxiv_base(value: str | None) -> str | None:
    if not value:
        return None
    arx = split_arxiv(value)
    return arx.base if arx else value


def merge_papers(old: Paper, new: Paper) -> Paper:
    """``old`` completed from ``new``: the stored id stays, stored values win, missing
    values are filled, lists are unioned, ``retracted`` is sticky, ``cited_by`` the larger.

    Refuses (:class:`IdentityConflict`) when an identifier both carry disagrees.
    """
    for name in _IDENTIFIERS:
        a, b = getattr(old, name), getattr(new, name)
        if a and b and a != b:
            raise IdentityConflict(
                f"{name} differs between the saved paper {old.id} ({a}) and the new record ({b})",
                field=name,
            )
    if (a := _arxiv_base(old.arxiv_id)) and (b := _arxiv_base(new.arxiv_id)) and a != b:
        raise IdentityConflict(f"arXiv id differs for {old.id}", field="arxiv_id")
    data = old.to_dict()
    fresh = new.to_dict()
    for key, value in fresh.items():
        if key in ("id", "version"):
            continue
        current = data.get(key)
        if key in ("keywords", "publication_types", "authors") and current and value:
            extra = [v for v in dict.fromkeys(value) if v not in current]
            if key != "authors" and extra:
                data[key] = [*current, *extra]
            continue
        if current in (None, "", []) and value not in (None, "", []):
            data[key] = value
    data["retracted"] = bool(old.retracted or new.retracted)
    if old.cited_by is not None and new.cited_by is not None:
        data["cited_by"] = max(old.cited_by, new.cited_by)
    return read_paper(data)


@dataclass(frozen=True, slots=True)
class SaveResult:
    paper: Paper
    created: bool
    changed: bool

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.paper.id, "created": self.created, "changed": self.changed}


@dataclass(frozen=True, slots=True)
class NoteView:
    id: str
    annotation: Annotation
    study_id: str | None
    notice: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"id": self.id, "kind": self.annotation.kind, "study_id": self.study_id}
        out.update(self.annotation.model_dump(mode="json"))
        out["notice"] = self.notice
        return out


@dataclass(frozen=True, slots=True)
class EvidenceView:
    id: str
    evidence: Evidence
    study_id: str | None
    paper: Paper | None
    recheck: str  # "ok", "needs_verification" or the reason the stored passage no longer checks

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "study_id": self.study_id, "recheck": self.recheck}
        out.update(self.evidence.model_dump(mode="json"))
        return out


@dataclass(frozen=True, slots=True)
class ImportResult:
    import_id: str
    study_id: str | None
    saved: int
    created: int
    refused: list[dict[str, Any]] = field(default_factory=list)
    paper_ids: list[str | None] = field(default_factory=list)
    #: earlier imports of the same file (source digest) into the same Study
    repeats: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "import_id": self.import_id,
            "paper_ids": self.paper_ids,
            "study_id": self.study_id,
            "records_saved": self.saved,
            "papers_created": self.created,
            "records_refused": self.refused,
            "repeats_imports": self.repeats,
        }


def context_from_fulltext(
    fulltext: Any, block_id: str, *, retrieved_at: str | None = None
) -> FullTextContext:
    """The stored paragraph snapshot for ``block_id`` of a readable ``FullText``."""
    if not getattr(fulltext, "readable", False) or not fulltext.pmcid:
        raise EvidenceRefused(
            "this full text is not readable under its licence", code="fulltext_unreadable"
        )
    for block in fulltext.blocks:
        if block.id == block_id:
            return FullTextContext(
                pmcid=fulltext.pmcid,
                url=europe_pmc_url(fulltext.pmcid),
                block_id=block.id,
                section=block.section or None,
                text=block.text,
                licence=fulltext.licence,
                licence_url=fulltext.licence_url,
                retrieved_at=retrieved_at or now_iso(),
            )
    raise InputError(f"no paragraph {block_id!r} in {fulltext.pmcid}", code="no_block")


def _note_notice(note: Annotation, paper: Paper) -> str | None:
    anchor = note.anchor
    if anchor is None:
        return None
    if anchor.source == "abstract":
        if anchor.snapshot_sha256 != text_digest(paper.abstract or ""):
            return "the abstract has changed since this passage was highlighted; not re-anchored"
        return None
    assert anchor.context is not None
    if anchor.context.pmcid != paper_pmcid(paper):
        return f"the paragraph's PMCID {anchor.context.pmcid} is no longer the paper's"
    return None


class Workspace:
    """All workspace operations over one :class:`Store`."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # --- papers ----------------------------------------------------------------------

    def _save(self, conn: Connection, paper: Paper, now: str) -> SaveResult:
        # PostgreSQL: serialise identity upserts (SQLite's BEGIN IMMEDIATE already does)
        self.store.lock(conn, _IDENTITY_LOCK, "papers")
        matches = repo.find_paper_ids(conn, identity_keys(paper))
        ids = sorted(set(matches.values()))
        if len(ids) > 1:
            raise IdentityConflict(
                f"the record matches {len(ids)} saved papers ({', '.join(ids[:5])}); not merged",
                paper_ids=ids,
            )
        if not ids:
            repo.insert_paper(conn, paper, now)
            return SaveResult(paper, created=True, changed=True)
        old = repo.get_paper(conn, ids[0]).paper
        merged = merge_papers(old, paper)
        if merged != old:
            repo.update_paper(conn, merged, now)
        return SaveResult(merged, created=False, changed=merged != old)

    def save_paper(
        self, paper: Paper, *, study: str | None = None, status: str | None = None
    ) -> SaveResult:
        """Save (upsert by identity) a paper, optionally into a Study and with a status."""
        now = now_iso()
        with self.store.write() as conn:
            result = self._save(conn, paper, now)
            if status is not None:
                repo.set_status(conn, result.paper.id, status, now)
            if study is not None:
                repo.add_study_paper(conn, repo.get_study(conn, study).id, result.paper.id, now)
        return result

    def _resolve(self, conn: Connection, ref: str) -> str:
        ref = ref.strip()
        keys = [f"id:{ref}"]
        found = detect_identifier(ref)
        if found is not None:
            ns, value = found
            prefix = {"openalex": "openalex", "source": "id"}.get(ns, ns)
            if ns == "arxiv":
                value = _arxiv_base(value) or value
            keys.append(f"{prefix}:{value}")
        matches = repo.find_paper_ids(conn, keys)
        for key in keys:
            if key in matches:
                return matches[key]
        return repo.get_paper(conn, ref).paper.id  # raises NotFoundError

    def paper(self, ref: str) -> repo.PaperRow:
        """A saved paper by id or by any identifier (DOI, PMID, PMCID, OpenAlex, arXiv)."""
        with self.store.read() as conn:
            return repo.get_paper(conn, self._resolve(conn, ref))

    def papers(self, *, study: str | None = None, status: str | None = None) -> list[repo.PaperRow]:
        """Saved papers (newest 500), by Study and reading status; an unknown status is
        refused with the valid ones (never an empty list that looks like an answer)."""
        if status is not None and status not in repo.READING_STATUSES:
            raise InputError(
                f"unknown reading status {status[:40]!r}: choose one of "
                f"{', '.join(repo.READING_STATUSES)}",
                code="bad_status",
            )
        with self.store.read() as conn:
            study_id = repo.get_study(conn, study).id if study else None
            return repo.list_papers(conn, study_id=study_id, status=status)

    def set_status(self, ref: str, status: str | None) -> Paper:
        with self.store.write() as conn:
            paper_id = self._resolve(conn, ref)
            repo.set_status(conn, paper_id, status, now_iso())
            return repo.get_paper(conn, paper_id).paper

    # --- studies ---------------------------------------------------------------------

    def create_study(self, name: str, description: str | None = None) -> repo.StudyRow:
        name = " ".join(name.split())
        if not name or len(name) > MAX_STUDY_NAME:
            raise InputError(f"a Study name is 1 to {MAX_STUDY_NAME} characters", code="bad_name")
        if description is not None and len(description) > MAX_DESCRIPTION:
            raise InputError(f"a description is at most {MAX_DESCRIPTION:,} characters")
        with self.store.write() as conn:
            return repo.insert_study(conn, _new_id("study"), name, description, now_iso())

    def studies(self) -> list[tuple[repo.StudyRow, int]]:
        with self.store.read() as conn:
            return repo.list_studies(conn)

    def study(self, ref: str) -> repo.StudyRow:
        with self.store.read() as conn:
            return repo.get_study(conn, ref)

    def add_to_study(self, study: str, paper_ref: str) -> bool:
        with self.store.write() as conn:
            return repo.add_study_paper(
                conn, repo.get_study(conn, study).id, self._resolve(conn, paper_ref), now_iso()
            )

    def study_summary(self, ref: str) -> dict[str, Any]:
        with self.store.read() as conn:
            s = repo.get_study(conn, ref)
            rows = repo.list_papers(conn, study_id=s.id, limit=100_000)
            notes_n = len(repo.list_documents(conn, "notes", study_id=s.id, limit=100_000))
            ev_n = len(repo.list_documents(conn, "evidence", study_id=s.id, limit=100_000))
            runs = repo.study_run_ids(conn, s.id)
            imps = repo.list_documents(conn, "imports", study_id=s.id, limit=100_000)
        return {
            "id": s.id,
            "name": s.name,
            "description": s.description,
            "created_at": s.created_at,
            "papers": [
                {"id": r.paper.id, "title": r.paper.title, "year": r.paper.year, "status": r.status}
                for r in rows
            ],
            "notes": notes_n,
            "evidence": ev_n,
            "search_runs": runs,
            "imports": [i.id for i in imps],
        }

    def attach_search_run(self, study: str, run_id: str) -> None:
        get_search_run(self.store, run_id)  # raises NotFoundError
        with self.store.write() as conn:
            repo.add_study_search_run(conn, repo.get_study(conn, study).id, run_id)

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
            paper = repo.get_paper(conn, self._resolve(conn, paper_ref)).paper
            anchor = None
            if highlight is not None:
                anchor = make_anchor(
                    paper, text=highlight, start=start, occurrence=occurrence, context=context
                )
            elif context is not None:
                raise InputError("a full-text paragraph needs the highlighted text")
            note = make_annotation(paper, comment=comment, anchor=anchor, created_at=now)
            study_id = repo.get_study(conn, study).id if study else None
            note_id = _new_id("note")
            repo.insert_document(
                conn,
                "notes",
                note_id,
                note.model_dump(mode="json"),
                now,
                paper_id=paper.id,
                study_id=study_id,
            )
            if study_id:
                repo.add_study_paper(conn, study_id, paper.id, now)
        return NoteView(note_id, note, study_id)

    def notes(
        self, *, paper_ref: str | None = None, study: str | None = None
    ) -> tuple[list[NoteView], list[str]]:
        """Notes with a notice when their source changed; invalid stored ones are reported."""
        out: list[NoteView] = []
        problems: list[str] = []
        with self.store.read() as conn:
            paper_ids = [self._resolve(conn, paper_ref)] if paper_ref else None
            study_id = repo.get_study(conn, study).id if study else None
            rows = repo.list_documents(conn, "notes", study_id=study_id, paper_ids=paper_ids)
            cache: dict[str, Paper] = {}
            for row in rows:
                try:
                    note = read_annotation(row.json())
                    pid = row.paper_id or ""
                    if pid not in cache:
                        cache[pid] = repo.get_paper(conn, pid).paper
                    paper = cache[pid]
                except IntegrityError as exc:
                    problems.append(f"note {row.id}: {exc.message}")
                    continue
                out.append(NoteView(row.id, note, row.study_id, _note_notice(note, paper)))
        return out, problems

    # --- evidence ----------------------------------------------------------------------

    def add_evidence(
        self,
        paper_ref: str,
        *,
        finding: str,
        passage: str,
        source: str,
        location: str | None = None,
        context: FullTextContext | None = None,
        study: str | None = None,
        **fields: str | None,
    ) -> EvidenceView:
        now = now_iso()
        with self.store.write() as conn:
            paper = repo.get_paper(conn, self._resolve(conn, paper_ref)).paper
            ev = make_evidence(
                paper,
                finding=finding,
                passage=passage,
                source=source,
                location=location,
                context=context,
                created_at=now,
                **fields,
            )
            study_id = repo.get_study(conn, study).id if study else None
            ev_id = _new_id("ev")
            repo.insert_document(
                conn,
                "evidence",
                ev_id,
                ev.model_dump(mode="json"),
                now,
                paper_id=paper.id,
                study_id=study_id,
            )
            if study_id:
                repo.add_study_paper(conn, study_id, paper.id, now)
        return EvidenceView(ev_id, ev, study_id, paper, _recheck(ev, paper))

    def update_evidence(self, evidence_id: str, **changes: str | None) -> EvidenceView:
        """Change an evidence record's fields or passage; validated and re-checked."""
        with self.store.write() as conn:
            row = repo.get_document(conn, "evidence", evidence_id)
            ev = read_evidence(row.json())
            paper = repo.get_paper(conn, ev.paper_id).paper
            revised = revise_evidence(ev, paper, updated_at=now_iso(), **changes)
            repo.replace_document(conn, "evidence", evidence_id, revised.model_dump(mode="json"))
        return EvidenceView(evidence_id, revised, row.study_id, paper, _recheck(revised, paper))

    def evidence(
        self, *, study: str | None = None, paper_ref: str | None = None
    ) -> tuple[list[EvidenceView], list[str]]:
        """Evidence records, each re-checked against its paper as stored now."""
        out: list[EvidenceView] = []
        problems: list[str] = []
        with self.store.read() as conn:
            paper_ids = [self._resolve(conn, paper_ref)] if paper_ref else None
            study_id = repo.get_study(conn, study).id if study else None
            rows = repo.list_documents(conn, "evidence", study_id=study_id, paper_ids=paper_ids)
            for row in rows:
                try:
                    ev = read_evidence(row.json())
                    paper = repo.get_paper(conn, row.paper_id or "").paper
                except IntegrityError as exc:
                    problems.append(f"evidence {row.id}: {exc.message}")
                    continue
                out.append(EvidenceView(row.id, ev, row.study_id, paper, _recheck(ev, paper)))
        return out, problems

    # --- imports -----------------------------------------------------------------------

    def attach_import(self, trace: ImportTrace, *, study: str | None = None) -> ImportResult:
        """Save every record's paper and keep the whole trace, in one transaction.

        A record whose identity conflicts with saved papers is refused and reported
        beside the successes (its raw record stays in the stored trace). A file imported
        before into the same Study (the same source digest) is recognised: the trace gets
        a ``repeated_source`` notice naming the earlier import, and PRISMA counts the
        file's records once.
        """
        now = now_iso()
        ids: list[str | None] = []
        refused: list[dict[str, Any]] = []
        created = 0
        with self.store.write() as conn:
            study_id = repo.get_study(conn, study).id if study else None
            repeats = repo.import_ids_by_digest(conn, trace.source.sha256, study_id=study_id)
            if repeats:
                trace = repeated_source(trace, repeats)
            for index, record in enumerate(trace.records):
                try:
                    result = self._save(conn, record.paper, now)
                except IdentityConflict as exc:
                    ids.append(None)
                    refused.append(
                        {
                            "record": index,
                            "lines": [record.first_line, record.last_line],
                            "reason": exc.message,
                        }
                    )
                    continue
                created += int(result.created)
                ids.append(result.paper.id)
                if study_id:
                    repo.add_study_paper(conn, study_id, result.paper.id, now)
            import_id = _new_id("imp")
            repo.insert_document(
                conn,
                "imports",
                import_id,
                trace_document(trace, ids),
                now,
                study_id=study_id,
                extra={"sha256": trace.source.sha256, "format": trace.source.format[:40]},
            )
        return ImportResult(
            import_id, study_id, len(ids) - len(refused), created, refused, ids, repeats
        )

    def imports(
        self, *, study: str | None = None
    ) -> list[tuple[str, ImportTrace, list[str | None]]]:
        with self.store.read() as conn:
            study_id = repo.get_study(conn, study).id if study else None
            rows = repo.list_documents(conn, "imports", study_id=study_id, limit=100_000)
        return [(r.id, *read_import(r.json())) for r in rows]


def _recheck(ev: Evidence, paper: Paper) -> str:
    if ev.source == "external":
        return "needs_verification"
    try:
        check_evidence(ev, paper)
    except EvidenceRefused as exc:
        return exc.message
    return "ok"
