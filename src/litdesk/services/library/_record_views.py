"""The requests and views of a library PDF's record (issue 32, "papers from PDFs"): its
description read from the first pages, confirmed or corrected by a person, and the paper
it is (see :mod:`._records`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final, TypedDict

from litdesk._errors import InputError
from litdesk.core.records import normalize_arxiv, normalize_doi

__all__ = [
    "MAX_AUTHORS",
    "AttachPdfPaperRequest",
    "ConfirmPdfRequest",
    "PdfCandidate",
    "PdfRecordInputError",
    "PdfRecordView",
    "PdfStudyLink",
    "SavePdfPaperRequest",
    "YEARS",
]

MAX_TITLE: Final = 500
MAX_AUTHORS: Final = 100
MAX_AUTHOR: Final = 200
MAX_VENUE: Final = 300
MAX_REF: Final = 300
YEARS: Final = (1500, 2100)
_SPACE: Final = re.compile(r"\s+")


class PdfRecordInputError(InputError):
    """A confirmed description or an attachment that cannot be kept as given."""

    default_code = "pdf_record"


def _line(text: str | None, limit: int, what: str) -> str | None:
    value = _SPACE.sub(" ", text or "").strip()
    if len(value) > limit:
        raise PdfRecordInputError(f"the {what} is longer than {limit} characters")
    if any(not c.isprintable() for c in value):
        raise PdfRecordInputError(f"the {what} holds control characters")
    return value or None


def _pdf_ref(pdf: str) -> str:
    value = (pdf or "").strip()
    if not value or len(value) > MAX_REF:
        raise PdfRecordInputError("name the PDF by its file name or content hash", code="pdf")
    return value


@dataclass(frozen=True, slots=True)
class ConfirmPdfRequest:
    """A person's description of a library PDF (``pdf``: its file name or SHA-256): the
    title is required; authors one per entry ("Surname, Given" or "Given Surname"); the
    DOI and arXiv id are checked and normalised."""

    pdf: str
    title: str
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "pdf", _pdf_ref(self.pdf))
        title = _line(self.title, MAX_TITLE, "title")
        if title is None:
            raise PdfRecordInputError("a title is needed to confirm a PDF's description")
        object.__setattr__(self, "title", title)
        names = [n for a in self.authors if (n := _line(a, MAX_AUTHOR, "author name"))]
        if len(names) > MAX_AUTHORS:
            raise PdfRecordInputError(f"at most {MAX_AUTHORS} authors")
        object.__setattr__(self, "authors", tuple(names))
        if self.year is not None and not YEARS[0] <= self.year <= YEARS[1]:
            raise PdfRecordInputError(
                f"the year must be between {YEARS[0]} and {YEARS[1]}", code="year"
            )
        object.__setattr__(self, "venue", _line(self.venue, MAX_VENUE, "venue"))
        doi = _line(self.doi, MAX_REF, "DOI")
        if doi is not None:
            norm = normalize_doi(doi)
            if norm is None:
                raise PdfRecordInputError(f"{doi[:80]!r} is not a DOI (10.xxxx/…)", code="doi")
            doi = norm
        object.__setattr__(self, "doi", doi)
        arxiv = _line(self.arxiv, 60, "arXiv id")
        if arxiv is not None:
            norm = normalize_arxiv(arxiv)
            if norm is None:
                raise PdfRecordInputError(
                    f"{arxiv[:60]!r} is not an arXiv id (2101.01234 or hep-ph/9412269)",
                    code="arxiv",
                )
            arxiv = norm
        object.__setattr__(self, "arxiv", arxiv)


@dataclass(frozen=True, slots=True)
class AttachPdfPaperRequest:
    """Attach the library PDF ``pdf`` to the saved paper ``paper`` (its id or any
    identifier); with ``study``, the paper must be one of that Study's (its link there is
    set even over another PDF)."""

    pdf: str
    paper: str
    study: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "pdf", _pdf_ref(self.pdf))
        paper = (self.paper or "").strip()
        if not paper or len(paper) > MAX_REF:
            raise PdfRecordInputError("name the paper by its id, DOI, PMID or arXiv id")
        object.__setattr__(self, "paper", paper)
        object.__setattr__(self, "study", (self.study or "").strip() or None)


@dataclass(frozen=True, slots=True)
class SavePdfPaperRequest:
    """Save the library PDF ``pdf`` as a paper from its description (confirmed, else
    read from the PDF; a title is needed), into ``study`` when given, and attach it."""

    pdf: str
    study: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "pdf", _pdf_ref(self.pdf))
        object.__setattr__(self, "study", (self.study or "").strip() or None)


class PdfStudyLink(TypedDict):
    id: str
    name: str
    paper_id: str


class PdfCandidate(TypedDict):
    """A saved paper this PDF may be: how it matched, in words."""

    id: str
    title: str
    year: int | None
    doi: str | None
    how: str
    detail: str
    certain: bool


@dataclass(frozen=True, slots=True)
class PdfRecordView:
    """One library PDF as a paper for one account: its description field by field (the
    value in force and where it comes from: "confirmed by you" or "read from the PDF"
    with a confidence), what was read, the paper it is and the Studies it is linked in,
    and the saved papers it may be."""

    sha256: str
    file: str
    read: dict[str, Any] | None
    read_problem: str | None
    confirmed: dict[str, Any] | None
    fields: list[dict[str, Any]]
    paper: dict[str, Any] | None
    studies: list[PdfStudyLink]
    candidates: list[PdfCandidate]
    changed: str | None = None
    linked_in: list[str] = field(default_factory=list)

    @property
    def viewer(self) -> str:
        return f"/library/pdf/{self.sha256}"

    def value(self, name: str) -> Any:
        for f in self.fields:
            if f["name"] == name:
                return f["value"]
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "sha256": self.sha256,
            "file": self.file,
            "viewer": self.viewer,
            "read": self.read,
            "read_problem": self.read_problem,
            "confirmed": self.confirmed,
            "fields": self.fields,
            "paper": self.paper,
            "studies": list(self.studies),
            "candidates": list(self.candidates),
            "changed": self.changed,
            "linked_in": list(self.linked_in),
        }
