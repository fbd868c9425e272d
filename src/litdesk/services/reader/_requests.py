"""Requests of the reader area, validated once here for every face (the CLI and the web
build the same objects; a route's model only parses types and sizes)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from litdesk._errors import InputError
from litdesk.adapters.store import READING_STATUSES
from litdesk.core.vocab import parse_subject_refs
from litdesk.services.citations import MAX_PAGE, MODES, CitationArgumentError, Mode

__all__ = [
    "EVIDENCE_EDITABLE",
    "MAX_SEEDS",
    "MAX_PDF_PAGE",
    "MAX_SELECTION",
    "MAX_SHARED",
    "MIN_SHARED",
    "CitationsRequest",
    "CiteRequest",
    "CommentRequest",
    "CompareRequest",
    "EvidenceRequest",
    "EvidenceUpdateRequest",
    "FullTextRequest",
    "HighlightRequest",
    "OccurrencesRequest",
    "OpenPaperRequest",
    "PassageSource",
    "ReaderInputError",
    "SaveCitationsRequest",
    "SavePaperRequest",
    "SharedRequest",
    "SnapshotChanged",
    "StatusRequest",
]

#: Papers one selection action (compare, save chosen works) takes at most.
MAX_SELECTION: Final = 20
MIN_SHARED: Final = 2
MAX_SHARED: Final = 5
#: Seeds one citation browser page takes at most (one paper; 2–5 for ``shared``).
MAX_SEEDS: Final = 5
#: The fields an evidence record's edit may change ('' clears an optional one).
EVIDENCE_EDITABLE: Final = (
    "finding",
    "passage",
    "location",
    "question",
    "population",
    "method",
    "intervention",
    "limitations",
)
_BLOCK = re.compile(r"^p[1-9][0-9]{0,5}$")
_SNAPSHOT = re.compile(r"^sha256:[0-9a-f]{64}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
PassageSource = Literal["abstract", "fulltext", "external", "pdf"]
#: The highest page number a request may name (a PDF of the library has at most 2,000).
MAX_PDF_PAGE: Final = 2_000
Scope = Literal["abstract", "fulltext"]


class ReaderInputError(InputError):
    """A reader request does not fit (unknown status, empty passage, missing paragraph,
    selection size, unknown choice)."""

    default_code = "reader_input"


class SnapshotChanged(ReaderInputError):
    """The paragraph litdesk holds now is not the one the page showed."""

    default_code = "anchor_mismatch"


def _paragraph(block: str | None, snapshot: str | None) -> None:
    if block is not None and not _BLOCK.match(block):
        raise ReaderInputError("a full-text paragraph is p1, p2, …", code="block")
    if snapshot is not None and not _SNAPSHOT.match(snapshot):
        raise ReaderInputError("a paragraph snapshot is sha256:<64 hex digits>", code="snapshot")


def _unique(ids: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ids))


@dataclass(frozen=True, slots=True)
class OpenPaperRequest:
    """A paper's page; with ``fulltext`` its licensed text (``section``: one only)."""

    paper_id: str
    fulltext: bool = False
    section: str | None = None
    #: the Study the reader came from: evidence is recorded with its form
    study: str | None = None


@dataclass(frozen=True, slots=True)
class FullTextRequest:
    """An article's licensed full text by any of its ids (``refresh``: not the cached
    copy)."""

    paper_id: str
    refresh: bool = False

    def __post_init__(self) -> None:
        if not self.paper_id.strip():
            raise ReaderInputError("give a paper id", code="empty")


@dataclass(frozen=True, slots=True)
class StatusRequest:
    """Set (``None``: clear) a saved paper's reading status."""

    paper_id: str
    status: str | None

    def __post_init__(self) -> None:
        if self.status is not None and self.status not in READING_STATUSES:
            raise ReaderInputError(
                f"reading status is one of {', '.join(READING_STATUSES)}", code="status"
            )


@dataclass(frozen=True, slots=True)
class SavePaperRequest:
    """Save a paper shown from a recent search (optionally into a Study)."""

    paper_id: str
    study: str | None = None


@dataclass(frozen=True, slots=True)
class HighlightRequest:
    """A highlight of the abstract, or of full-text paragraph ``block`` (checked against
    the paragraph litdesk holds and, given ``snapshot``, the digest the page showed)."""

    paper_id: str
    text: str
    start: int | None = None
    occurrence: int = 1
    comment: str | None = None
    block: str | None = None
    snapshot: str | None = None
    #: the Study the highlight is made in (None: work of no Study)
    study: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", self.study or None)
        if not self.text:
            raise ReaderInputError("select the passage to highlight", code="empty")
        if not 1 <= self.occurrence <= 100:
            raise ReaderInputError("occurrence is 1 to 100", code="occurrence")
        _paragraph(self.block, self.snapshot)


@dataclass(frozen=True, slots=True)
class CommentRequest:
    """A paper-level comment (in Study ``study``, or of no Study)."""

    paper_id: str
    comment: str
    study: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "study", self.study or None)


@dataclass(frozen=True, slots=True)
class OccurrencesRequest:
    """Exact occurrences of ``text`` in the saved abstract or the full text."""

    paper_id: str
    text: str
    scope: Scope = "abstract"

    def __post_init__(self) -> None:
        if not self.text:
            raise ReaderInputError("type the passage to find", code="empty")
        if self.scope not in ("abstract", "fulltext"):
            raise ReaderInputError("scope is abstract or fulltext", code="scope")


@dataclass(frozen=True, slots=True)
class EvidenceRequest:
    """A finding with its supporting passage: from the abstract, from full-text paragraph
    ``block`` (litdesk fetches the paragraph itself), from ``page`` of the paper's PDF in
    the library (``source="pdf"``; ``pdf``: the SHA-256 of the PDF the page showed, refused
    when the paper's PDF is another now) or external with a location."""

    paper_id: str
    finding: str | None = None
    passage: str = ""
    source: str = "abstract"
    location: str | None = None
    block: str | None = None
    snapshot: str | None = None
    study: str | None = None
    question: str | None = None
    population: str | None = None
    method: str | None = None
    intervention: str | None = None
    limitations: str | None = None
    #: values by the key of a field of the Study's form (text as typed; typed by the form)
    values: Mapping[str, object] = field(default_factory=dict)
    #: subjects to link the record to (``mesh:D003920``; a bare id is a MeSH id)
    subjects: tuple[str, ...] = ()
    #: the 1-based page of the paper's PDF the passage is on (``source="pdf"``)
    page: int | None = None
    #: the SHA-256 of the PDF the reviewer read (optional; ``source="pdf"``)
    pdf: str | None = None

    def __post_init__(self) -> None:
        if not self.passage.strip():
            raise ReaderInputError("give the supporting passage", code="no_passage")
        parse_subject_refs(self.subjects)  # shape and count; the area resolves them
        _values(self.values)
        if self.source not in ("abstract", "fulltext", "external", "pdf"):
            raise ReaderInputError(
                "a passage comes from the abstract, a full-text paragraph, the paper's PDF "
                "or an external source",
                code="source",
            )
        if self.source == "pdf":
            if self.page is None:
                raise ReaderInputError(
                    "give the page of the PDF the passage is on", code="no_page", field="page"
                )
            if not 1 <= self.page <= MAX_PDF_PAGE:
                raise ReaderInputError(
                    f"a page is a number from 1 to {MAX_PDF_PAGE:,}", code="page", field="page"
                )
            if self.pdf is not None and not _SHA256.match(self.pdf):
                raise ReaderInputError(
                    "a PDF is named by its SHA-256 (64 hex digits)", code="pdf", field="pdf"
                )
        elif self.page is not None or self.pdf is not None:
            raise ReaderInputError(
                "a page (and PDF) go with a passage from the paper's PDF", code="page"
            )
        if self.source == "fulltext" and not self.block:
            raise ReaderInputError(
                "choose the full-text paragraph the passage comes from", code="no_block"
            )
        _paragraph(self.block or None, self.snapshot or None)


@dataclass(frozen=True, slots=True)
class EvidenceUpdateRequest:
    """Change an evidence record: only the given fields ('' clears an optional one; a
    new passage is checked against the same source; none given: refused by the update,
    after the access check)."""

    evidence_id: str
    changes: Mapping[str, str] = field(default_factory=dict)
    #: new values by form field key ('' clears one)
    values: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _values(self.values)
        # an empty change is refused by the update itself, once the acting account may
        # write the record (a request naming another's record learns nothing but 404/403)
        unknown = sorted(set(self.changes) - set(EVIDENCE_EDITABLE))
        if unknown:
            raise ReaderInputError(
                f"an evidence edit changes {', '.join(EVIDENCE_EDITABLE)} (not {unknown[0]})",
                code="field",
            )


_FIELD_KEY = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


def _values(values: Mapping[str, object]) -> None:
    if len(values) > 60:
        raise ReaderInputError("a form has at most 60 fields", code="field")
    for key, value in values.items():
        if not isinstance(key, str) or not _FIELD_KEY.match(key):
            raise ReaderInputError(
                f"a form field's key is a lower-case word (not {str(key)[:40]!r})", code="field"
            )
        if not isinstance(value, str | int | float | bool):
            raise ReaderInputError(f"{key}: a value is text, a number or yes/no", code="field")


def _seeds(ids: tuple[str, ...]) -> tuple[str, ...]:
    wanted = tuple(i.strip() for i in ids if i.strip())
    if not wanted:
        raise CitationArgumentError("give at least one paper id")
    if len(wanted) > MAX_SEEDS:
        raise CitationArgumentError(f"give at most {MAX_SEEDS} paper ids")
    for i in wanted:
        if len(i) > 200 or not i.isprintable():
            raise CitationArgumentError("a paper id is at most 200 printable characters")
    return wanted


def _mode(mode: str) -> None:
    if mode not in MODES:
        raise CitationArgumentError(f"unknown mode {mode!r} (use {', '.join(MODES)})")


def _page(page: int) -> None:
    if isinstance(page, bool) or not 1 <= page <= MAX_PAGE:
        raise CitationArgumentError(f"page must be an integer from 1 to {MAX_PAGE}")


@dataclass(frozen=True, slots=True)
class CitationsRequest:
    """One page (20 works) of references, citing works (newest first), related works or
    the references shared by 2–5 papers."""

    mode: Mode
    ids: tuple[str, ...]
    page: int = 1

    def __post_init__(self) -> None:
        _mode(self.mode)
        _page(self.page)
        object.__setattr__(self, "ids", _seeds(self.ids))


@dataclass(frozen=True, slots=True)
class CiteRequest:
    """The CLI's citation discovery; with ``save_to`` the results (``picks``: 1-based
    result numbers, all when None) are saved into that Study."""

    mode: Mode
    ids: tuple[str, ...]
    page: int = 1
    save_to: str | None = None
    picks: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        _mode(self.mode)
        _page(self.page)
        if self.picks is not None and self.save_to is None:
            raise ReaderInputError("--pick only applies with --save-to", code="arguments")


@dataclass(frozen=True, slots=True)
class SaveCitationsRequest:
    """Save chosen works of a shown citation list into a Study (existing or new)."""

    listing: str
    paper_ids: tuple[str, ...]
    study: str | None = None
    new_study: str | None = None

    def __post_init__(self) -> None:
        ids = _unique(self.paper_ids)
        if not ids:
            raise ReaderInputError("choose at least one work", code="empty_selection")
        if len(ids) > MAX_SELECTION:
            raise ReaderInputError(
                f"save at most {MAX_SELECTION} works at once", code="selection_size"
            )
        new = (self.new_study or "").strip() or None
        if bool(self.study) == bool(new):
            raise ReaderInputError(
                "choose an existing Study or name a new one", code="study_choice"
            )
        object.__setattr__(self, "paper_ids", ids)
        object.__setattr__(self, "study", self.study or None)
        object.__setattr__(self, "new_study", new)


@dataclass(frozen=True, slots=True)
class CompareRequest:
    """The evidence recorded for up to 20 selected papers of a recent search run."""

    run_id: str
    paper_ids: tuple[str, ...]

    def __post_init__(self) -> None:
        ids = _unique(self.paper_ids)
        # an empty selection is refused by the area after the run is opened, so that
        # another owner's run answers "not open" first, whatever is selected
        if len(ids) > MAX_SELECTION:
            raise ReaderInputError(
                f"this action takes at most {MAX_SELECTION} papers", code="selection_size"
            )
        object.__setattr__(self, "paper_ids", ids)


@dataclass(frozen=True, slots=True)
class SharedRequest:
    """The references shared by 2–5 selected papers of a recent search run."""

    run_id: str
    paper_ids: tuple[str, ...]

    def __post_init__(self) -> None:
        ids = _unique(self.paper_ids)
        # too few is refused by the area after the run is opened (:meth:`too_few`), so
        # that another owner's run answers "not open" first, whatever is selected
        if len(ids) > MAX_SHARED:
            raise _shared_size()
        object.__setattr__(self, "paper_ids", ids)

    def too_few(self) -> ReaderInputError | None:
        """The refusal of a selection of fewer than two papers (else None)."""
        return _shared_size() if len(self.paper_ids) < MIN_SHARED else None


def _shared_size() -> ReaderInputError:
    return ReaderInputError(
        f"select {MIN_SHARED} to {MAX_SHARED} papers to find their shared references",
        code="shared_size",
    )
