"""What the workspace service answers with (saves, notes, evidence, imports, a Study's additions), its errors, and the small pure helpers it shares (ids, times, merging a
re-saved paper)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, TypedDict

from litdesk._errors import InputError, NotFoundError, RefusedError
from litdesk.adapters.store import (
    READING_STATUSES,
)
from litdesk.core.evidence import (
    Annotation,
    Evidence,
    EvidenceRefused,
    FullTextContext,
    check_evidence,
    europe_pmc_url,
    evidence_source_label,
    paper_pmcid,
    text_digest,
)
from litdesk.core.imports import SourceLabel
from litdesk.core.records import Paper, read_paper, split_arxiv
from litdesk.core.vocab import SubjectRef

if TYPE_CHECKING:  # the file readers and the JATS parser (lxml) are imported by their users
    from litdesk.core.fulltext import FullText
    from litdesk.services.imports import RefusedFile

__all__ = [
    "MAX_STUDY_NAME",
    "EvidenceView",
    "FilesNotFound",
    "FilesRefused",
    "IdentityConflict",
    "ImportResult",
    "NoteView",
    "RefusedRecord",
    "SaveResult",
    "StudyAdditions",
    "StudyImport",
    "_all_refused",
    "_arxiv_base",
    "_check_status",
    "_new_id",
    "_note_notice",
    "recheck",
    "_study_name",
    "context_from_fulltext",
    "merge_papers",
    "now_iso",
]

MAX_STUDY_NAME: Final = 200
_IDENTIFIERS: Final = ("doi", "pmid", "pmcid", "openalex_id")


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _new_id(prefix: str) -> str:
    """A fresh id that sorts by creation time (nanosecond clock, then randomness)."""
    return f"{prefix}-{time.time_ns():016x}{secrets.token_hex(4)}"


class IdentityConflict(RefusedError):
    """Two identities disagree (different DOIs, or a record matching two saved papers)."""

    default_code = "identity_conflict"


class FilesRefused(InputError):
    """Every file of an import was refused; nothing was stored."""

    default_code = "files_refused"


class FilesNotFound(NotFoundError):
    """Every file of an import was missing; nothing was stored."""

    default_code = "files_not_found"


def _all_refused(refused: Sequence[RefusedFile]) -> InputError | NotFoundError:
    details = [r.to_dict() for r in refused]
    code = refused[0].code if len(refused) == 1 else None
    if len(refused) == 1:
        message = f"{refused[0].path}: {refused[0].message}; nothing was saved"
    else:
        message = f"none of the {len(refused)} files could be read; nothing was saved"
    if refused and all(r.exit_code == NotFoundError.exit_code for r in refused):
        return FilesNotFound(message, code=code, refused=details)
    return FilesRefused(message, code=code, refused=details)


def _check_status(status: str | None) -> None:
    if status is not None and status not in READING_STATUSES:
        raise InputError(
            f"reading status must be one of {', '.join(READING_STATUSES)}", code="bad_status"
        )


def _study_name(name: str) -> str:
    name = " ".join(name.split())
    if not name or len(name) > MAX_STUDY_NAME:
        raise InputError(f"a Study name is 1 to {MAX_STUDY_NAME} characters", code="bad_name")
    return name


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
class AssistedFrom:
    """Where an assisted evidence record's values came from (its stored provenance)."""

    model: str
    suggestions: Mapping[str, str | None]

    @classmethod
    def of(cls, provenance: object) -> AssistedFrom | None:
        """From a stored provenance document (``None`` for anything else)."""
        if not isinstance(provenance, dict):
            return None
        call = provenance.get("call")
        model = call.get("model") if isinstance(call, dict) else None
        fields = provenance.get("fields")
        suggestions: dict[str, str | None] = {}
        if isinstance(fields, dict):
            for name, f in fields.items():
                value = f.get("suggestion") if isinstance(f, dict) else None
                suggestions[str(name)] = value if isinstance(value, str) else None
        return cls(model if isinstance(model, str) else "", suggestions)


@dataclass(frozen=True, slots=True)
class EvidenceView:
    id: str
    evidence: Evidence
    study_id: str | None
    paper: Paper | None
    recheck: str  # "ok", "needs_verification" or the reason the stored passage no longer checks
    #: the subjects the record is linked to (vocabulary, id, label), in the order linked
    subjects: tuple[SubjectRef, ...] = ()
    #: the model and each field's original suggestion when the record was saved from a
    #: reviewed assistant draft (``None``: recorded by hand)
    assisted: AssistedFrom | None = None
    #: the user name of the account that recorded it (``None``: the single-user workspace)
    recorded_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "study_id": self.study_id, "recheck": self.recheck}
        out.update(self.evidence.model_dump(mode="json"))
        out["recorded_by"] = self.recorded_by
        out["source_label"] = evidence_source_label(self.evidence)
        out["subjects"] = [s.to_dict() for s in self.subjects]
        return out


class RefusedRecord(TypedDict):
    """A record of an import file not saved: its place in the file (its first and last
    lines) and why (another record already holds one of its identifiers)."""

    record: int
    lines: list[int]
    reason: str


@dataclass(frozen=True, slots=True)
class ImportResult:
    import_id: str
    study_id: str | None
    saved: int
    created: int
    refused: list[RefusedRecord] = field(default_factory=list)
    paper_ids: list[str | None] = field(default_factory=list)
    #: earlier imports of the same file (source digest) into the same Study
    repeats: list[str] = field(default_factory=list)
    path: str | None = None
    #: the source PRISMA counts the records under (``None``: named by its file)
    source: SourceLabel | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "import_id": self.import_id,
            "path": self.path,
            "source": self.source.to_dict() if self.source is not None else None,
            "paper_ids": self.paper_ids,
            "study_id": self.study_id,
            "records_saved": self.saved,
            "papers_created": self.created,
            "records_refused": self.refused,
            "repeats_imports": self.repeats,
        }


@dataclass(frozen=True, slots=True)
class StudyImport:
    """Files saved into a Study: one :class:`ImportResult` (with its stored trace) per
    read file, the refused files beside them."""

    study_id: str
    study_name: str
    study_created: bool
    files: tuple[ImportResult, ...]
    refused: tuple[RefusedFile, ...] = ()

    @property
    def saved(self) -> int:
        return sum(f.saved for f in self.files)

    @property
    def created(self) -> int:
        return sum(f.created for f in self.files)

    def to_dict(self) -> dict[str, Any]:
        return {
            "study_id": self.study_id,
            "study_name": self.study_name,
            "study_created": self.study_created,
            "records_saved": self.saved,
            "papers_created": self.created,
            "files": [f.to_dict() for f in self.files],
            "refused": [r.to_dict() for r in self.refused],
        }


@dataclass(frozen=True, slots=True)
class StudyAdditions:
    """Papers (each with whether it was new to the Study) and runs added to a Study."""

    study_id: str
    study_name: str
    papers: tuple[tuple[str, bool], ...]
    runs: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "study": self.study_name,
            "study_id": self.study_id,
            "papers": [{"paper": ref, "added": added} for ref, added in self.papers],
            "runs": list(self.runs),
        }


def context_from_fulltext(
    fulltext: FullText, block_id: str, *, retrieved_at: str | None = None
) -> FullTextContext:
    """The stored paragraph snapshot for ``block_id`` of a readable ``FullText``."""
    if not fulltext.readable or not fulltext.pmcid:
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


def recheck(ev: Evidence, paper: Paper, pdf_now: str | None = None) -> str:
    """An evidence record's passage checked against its paper as stored now: ``ok``,
    ``needs_verification`` (an external source) or why it no longer checks. A passage
    checked on a PDF page is ``ok`` while the paper's PDF (``pdf_now``: its SHA-256 for
    the account, None when it has none) is the very file it was checked on: another PDF
    never re-validates it."""
    if ev.source == "external":
        return "needs_verification"
    if ev.pdf is not None:
        was = f"page {ev.pdf.page} of {ev.pdf.file} (sha256 {ev.pdf.sha256[:12]})"
        if pdf_now == ev.pdf.sha256:
            return "ok"
        if pdf_now is None:
            return f"checked on {was}, which is no longer the paper's PDF here"
        return (
            f"checked on {was}; the paper's PDF is now another file (sha256 {pdf_now[:12]}): "
            "record it again from that PDF"
        )
    try:
        check_evidence(ev, paper)
    except EvidenceRefused as exc:
        return exc.message
    return "ok"
