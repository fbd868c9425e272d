"""The import trace: what was read from a user's export file, record by record (pure).

An import never replaces the raw evidence: every raw record keeps its own digest and
line span, the normalised :class:`~litdesk.core.records.Paper` is a projection of it,
and every notice (unknown tag kept, field dropped, malformed identifier) names its line.
"""

from __future__ import annotations

import hashlib
from dataclasses import FrozenInstanceError, dataclass
from typing import Any, Final, Literal

from litdesk._errors import InputError
from litdesk.core.records import Paper

__all__ = [
    "IMPORT_REFUSALS",
    "ImportRefused",
    "ImportTrace",
    "Notice",
    "NoticeKind",
    "ParserInfo",
    "RawSource",
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
    "control_characters",  # control characters (NUL, ESC, ...) removed from fields
    "repeated_source",  # the same file (source digest) was imported before
    "truncated",  # a field longer than the paper's bound was cut (the raw record keeps it)
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
    "too_deep",  # nesting or expansion (BibTeX @string/crossref) over its explicit limit
    "provider_error",  # a saved provider error response (its message is in the refusal)
    "ambiguous",  # the content holds records of two formats outside each other (name one)
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
    """The source file: its identity is the byte digest plus the parser, not its path.
    ``tool``: the reference manager that wrote it, where the file's own markers say so
    ("Zotero", "JabRef", "EndNote"; ``None``: a database's export, or nothing says)."""

    path: str
    sha256: str  # "sha256:<hex>"
    bytes: int
    format: str
    encoding: str
    parser: ParserInfo
    tool: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "sha256": self.sha256,
            "bytes": self.bytes,
            "format": self.format,
            "encoding": self.encoding,
            "parser": self.parser.to_dict(),
        }
        if self.tool is not None:
            out["tool"] = self.tool
        return out


class RawSource:
    """The UTF-8 bytes of one parsed text, shared by the records read from it.

    A record that keeps a span of it decodes its raw text on demand, so an import holds the
    file's bytes once instead of a second copy of every record as text (and any one record
    kept keeps the whole source alive: ``rec.replace(raw=rec.raw)`` detaches it). Raw text has LF line
    ends: with ``crlf`` the bytes end every line with CR LF (and hold no other CR), which a
    span's text and digest read as LF — so a Windows file needs no normalised copy.
    ``errors`` is the decoding's error handler (``"strict"`` for file bytes,
    ``"surrogatepass"`` for text that was encoded with it).
    """

    __slots__ = ("crlf", "data", "errors")

    def __init__(self, data: bytes, errors: str = "strict", *, crlf: bool = False) -> None:
        self.data = data
        self.errors = errors
        self.crlf = crlf

    def text(self, start: int, end: int) -> str:
        text = self.data[start:end].decode("utf-8", self.errors)
        return text.replace("\r\n", "\n") if self.crlf else text

    def digest(self, start: int, end: int) -> str:
        """:func:`digest_bytes` of the span's text (its UTF-8, LF line ends)."""
        if self.crlf:
            return digest_bytes(self.data[start:end].replace(b"\r\n", b"\n"))
        with memoryview(self.data) as view:
            return "sha256:" + hashlib.sha256(view[start:end]).hexdigest()


_FIELDS: Final = (
    "digest",
    "first_line",
    "last_line",
    "paper",
    "raw",
    "source_id",
    "notices",
    "extras",
)


class RecordTrace:
    """One raw record: its digest and line span, the Paper projected from it, its notices.

    ``raw`` is the record's raw text as it stood in the file (kept so nothing is lost);
    ``source_id`` is the record's own id in the file where it has one (RIS ``ID``, BibTeX
    key, CSV ``id`` column, EndNote ``rec-number``); ``extras`` holds every field that the
    Paper does not carry (unknown tags, unmapped columns), keyed by the field's own name.

    Immutable. ``raw`` is given as text, or — by a parser reading bytes — as a span of a
    shared :class:`RawSource` (``raw_span``), decoded each time ``raw`` is read.
    """

    __slots__ = (
        "_end",
        "_raw",
        "_start",
        "digest",
        "extras",
        "first_line",
        "last_line",
        "notices",
        "paper",
        "source_id",
    )

    digest: str  # "sha256:<hex>" of the raw record's bytes (UTF-8 of ``raw``)
    first_line: int  # 1-based
    last_line: int  # 1-based, inclusive
    paper: Paper
    source_id: str | None
    notices: tuple[Notice, ...]
    extras: dict[str, list[str]]
    _raw: str | RawSource
    _start: int
    _end: int

    def __init__(
        self,
        digest: str,
        first_line: int,
        last_line: int,
        paper: Paper,
        raw: str = "",
        source_id: str | None = None,
        notices: tuple[Notice, ...] = (),
        extras: dict[str, list[str]] | None = None,
        *,
        raw_span: tuple[RawSource, int, int] | None = None,
    ) -> None:
        _D_DIGEST(self, digest)
        _D_FIRST_LINE(self, first_line)
        _D_LAST_LINE(self, last_line)
        _D_PAPER(self, paper)
        if raw_span is None:
            _D_RAW(self, raw)
            _D_START(self, 0)
            _D_END(self, 0)
        else:
            if raw:
                raise ValueError("RecordTrace takes raw or raw_span, not both")
            _D_RAW(self, raw_span[0])
            _D_START(self, raw_span[1])
            _D_END(self, raw_span[2])
        _D_SOURCE_ID(self, source_id)
        _D_NOTICES(self, notices)
        _D_EXTRAS(self, {} if extras is None else extras)

    @property
    def raw(self) -> str:
        raw = self._raw
        if type(raw) is str:
            return raw
        assert isinstance(raw, RawSource)
        return raw.text(self._start, self._end)

    @property
    def raw_size(self) -> int:
        """The raw record's size without decoding it: characters of a text, bytes of a span
        (UTF-8: at least its characters)."""
        raw = self._raw
        if type(raw) is str:
            return len(raw)
        return self._end - self._start

    def replace(self, **changes: Any) -> RecordTrace:
        """A copy with ``changes`` (field names as in the constructor)."""
        values: dict[str, Any] = {name: getattr(self, name) for name in _FIELDS if name != "raw"}
        if "raw" not in changes and type(self._raw) is not str:
            values["raw_span"] = (self._raw, self._start, self._end)
        else:
            values["raw"] = self.raw
        values.update(changes)
        return RecordTrace(**values)

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, RecordTrace)
        return all(getattr(self, name) == getattr(other, name) for name in _FIELDS)

    __hash__ = None  # type: ignore[assignment]  # like the dataclass it was: extras is a dict

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in _FIELDS)
        return f"RecordTrace({inner})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_record_trace, tuple(getattr(self, name) for name in _FIELDS))

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


def _record_trace(*args: Any) -> RecordTrace:
    return RecordTrace(*args)


# The slots' own setters (RecordTrace.__setattr__ refuses every assignment).
_D_DIGEST = RecordTrace.__dict__["digest"].__set__
_D_FIRST_LINE = RecordTrace.__dict__["first_line"].__set__
_D_LAST_LINE = RecordTrace.__dict__["last_line"].__set__
_D_PAPER = RecordTrace.__dict__["paper"].__set__
_D_RAW = RecordTrace.__dict__["_raw"].__set__
_D_START = RecordTrace.__dict__["_start"].__set__
_D_END = RecordTrace.__dict__["_end"].__set__
_D_SOURCE_ID = RecordTrace.__dict__["source_id"].__set__
_D_NOTICES = RecordTrace.__dict__["notices"].__set__
_D_EXTRAS = RecordTrace.__dict__["extras"].__set__


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
