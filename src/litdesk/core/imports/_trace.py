"""The import trace: what was read from a user's export file, record by record (pure).

An import never replaces the raw evidence: every raw record keeps its own digest and
line span, the normalised :class:`~litdesk.core.records.Paper` is a projection of it,
and every notice (unknown tag kept, field dropped, malformed identifier) names its line.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from litdesk._errors import InputError
from litdesk.core.records import Paper

__all__ = [
    "IMPORT_REFUSALS",
    "ImportRefused",
    "ImportTrace",
    "Notice",
    "ParserInfo",
    "RecordTrace",
    "SourceInfo",
    "digest_bytes",
]

NoticeKind = Literal[
    "unknown_tag",  # a tag/field/column litdesk does not map: kept in extras
    "dropped_field",  # a value that could not be used (e.g. an unparseable year)
    "malformed_identifier",  # a DOI/PMID/… that does not normalise
    "encoding",  # BOM, UTF-16, a fallback decoding
    "unterminated",  # the last record had no terminator; read anyway
    "skipped",  # something in the file that is not a record (a comment, junk)
    "mapped_column",  # generic CSV: how a column was understood
    "duplicate_field",  # a field given twice in one record
    "duplicate_id",  # a source record id used by more than one record of the file
    "inherited",  # BibTeX crossref inheritance
    "other",
]

#: Codes of :class:`ImportRefused`.
IMPORT_REFUSALS: Final = (
    "empty",  # no bytes, or only whitespace/comments
    "unsupported",  # not a format litdesk reads (or --format names an unknown one)
    "malformed",  # the format is recognised but no record at all could be read
    "duplicate_ids",  # two records carry the same source record id (only when asked to refuse)
    "undecodable",  # bytes that decode in no supported encoding
    "too_large",  # over the explicit size limit
)


class ImportRefused(InputError):
    """A whole file is refused (code in :data:`IMPORT_REFUSALS`); nothing is imported from it."""

    default_code = "malformed"


def digest_bytes(data: bytes) -> str:
    """``sha256:<hex>`` of ``data`` — the digest form used in every trace."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the parser wants the user to know, with where it happened."""

    kind: NoticeKind
    message: str
    line: int | None = None
    field: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "message": self.message}
        if self.line is not None:
            out["line"] = self.line
        if self.field is not None:
            out["field"] = self.field
        return out


@dataclass(frozen=True, slots=True)
class ParserInfo:
    id: str
    version: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "version": self.version}


@dataclass(frozen=True, slots=True)
class SourceInfo:
    """The source file: its identity is the byte digest plus the parser, not its path."""

    path: str
    sha256: str  # "sha256:<hex>"
    bytes: int
    format: str
    encoding: str
    parser: ParserInfo

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "sha256": self.sha256,
            "bytes": self.bytes,
            "format": self.format,
            "encoding": self.encoding,
            "parser": self.parser.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class RecordTrace:
    """One raw record: its digest and line span, the Paper projected from it, its notices.

    ``raw`` is the record's raw text as it stood in the file (kept so nothing is lost);
    ``source_id`` is the record's own id in the file where it has one (RIS ``ID``, BibTeX
    key, CSV ``id`` column, EndNote ``rec-number``); ``extras`` holds every field that the
    Paper does not carry (unknown tags, unmapped columns), keyed by the field's own name.
    """

    digest: str  # "sha256:<hex>" of the raw record's bytes (UTF-8 of ``raw``)
    first_line: int  # 1-based
    last_line: int  # 1-based, inclusive
    paper: Paper
    raw: str
    source_id: str | None = None
    notices: tuple[Notice, ...] = ()
    extras: dict[str, list[str]] = field(default_factory=dict)

    def to_dict(self, *, include_raw: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "digest": self.digest,
            "lines": [self.first_line, self.last_line],
            "source_id": self.source_id,
            "paper": self.paper.to_dict(),
            "notices": [n.to_dict() for n in self.notices],
        }
        if self.extras:
            out["extras"] = self.extras
        if include_raw:
            out["raw"] = self.raw
        return out


@dataclass(frozen=True, slots=True)
class ImportTrace:
    """Everything one import read from one file."""

    source: SourceInfo
    records: tuple[RecordTrace, ...]
    notices: tuple[Notice, ...] = ()

    def to_dict(self, *, include_raw: bool = False) -> dict[str, Any]:
        return {
            "source": self.source.to_dict(),
            "records": [r.to_dict(include_raw=include_raw) for r in self.records],
            "notices": [n.to_dict() for n in self.notices],
        }

    @property
    def papers(self) -> list[Paper]:
        return [r.paper for r in self.records]
