"""Reading stored or recovered import traces back into :class:`ImportTrace` (validated)."""

from __future__ import annotations

from typing import Any, Final, get_args

from litdesk._errors import IntegrityError
from litdesk.adapters.store import dump_json, load_json, memoised, repo
from litdesk.core.imports import (
    ImportTrace,
    Notice,
    NoticeKind,
    ParserInfo,
    RecordTrace,
    SourceInfo,
    SourceLabel,
)
from litdesk.core.records import read_paper

__all__ = [
    "IMPORT_VERSION",
    "TraceInvalid",
    "import_member",
    "import_source",
    "import_source_row",
    "read_import",
    "read_import_row",
    "trace_document",
]

IMPORT_VERSION: Final = 1
#: Every kind core can emit (read from its type, so a new kind can never be left out)
_NOTICE_KINDS: Final = frozenset(get_args(NoticeKind))
MAX_RECORDS: Final = 100_000


class TraceInvalid(IntegrityError):
    """A stored or recovered import trace failed validation."""

    default_code = "trace_invalid"


def trace_document(
    trace: ImportTrace, paper_ids: list[str | None], source: SourceLabel | None = None
) -> dict[str, Any]:
    """The stored shape of an import (version 1): the full trace (raw kept), the saved
    paper id of each record (``None`` when that record was not saved) and, when known, the
    source PRISMA counts its records under (``source``: name, kind, origin; an import
    stored before sources were named has none and is counted by its file)."""
    doc: dict[str, Any] = {
        "version": IMPORT_VERSION,
        "trace": trace.to_dict(include_raw=True),
        "paper_ids": paper_ids,
    }
    if source is not None:
        doc["source"] = source.to_dict()
    return doc


def import_source(data: object) -> SourceLabel | None:
    """The source label of an import document (``None``: not named)."""
    return SourceLabel.from_dict(data.get("source")) if isinstance(data, dict) else None


def import_source_row(doc: repo.DocumentRow) -> SourceLabel | None:
    """:func:`import_source` of a stored import (its text parsed once, with its trace:
    :func:`read_import_row`)."""
    return import_source({"source": memoised("import", doc.text, _read_import_text)[2]})


def _str(value: object, label: str, *, optional: bool = False) -> Any:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise TraceInvalid(f"import trace: {label} must be text")
    return value


def _int(value: object, label: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise TraceInvalid(f"import trace: {label} must be a non-negative integer")
    return value


def _notice(d: object) -> Notice:
    if not isinstance(d, dict) or d.get("kind") not in _NOTICE_KINDS:
        raise TraceInvalid("import trace: a notice is malformed")
    line = d.get("line")
    return Notice(
        kind=d["kind"],
        message=_str(d.get("message"), "notice message"),
        line=_int(line, "notice line") if line is not None else None,
        field=_str(d.get("field"), "notice field", optional=True),
    )


def _record(d: object) -> RecordTrace:
    if not isinstance(d, dict):
        raise TraceInvalid("import trace: a record is not an object")
    lines = d.get("lines")
    if not (isinstance(lines, list) and len(lines) == 2):
        raise TraceInvalid("import trace: record lines must be [first, last]")
    extras = d.get("extras") or {}
    if not isinstance(extras, dict) or not all(
        isinstance(k, str) and isinstance(v, list) and all(isinstance(x, str) for x in v)
        for k, v in extras.items()
    ):
        raise TraceInvalid("import trace: record extras must map names to lists of text")
    notices = d.get("notices") or []
    if not isinstance(notices, list):
        raise TraceInvalid("import trace: record notices must be a list")
    return RecordTrace(
        digest=_str(d.get("digest"), "record digest"),
        first_line=_int(lines[0], "first line"),
        last_line=_int(lines[1], "last line"),
        paper=read_paper(d.get("paper")),
        raw=_str(d.get("raw", ""), "record raw text"),
        source_id=_str(d.get("source_id"), "source id", optional=True),
        notices=tuple(_notice(n) for n in notices),
        extras={k: list(v) for k, v in extras.items()},
    )


def read_import(data: object) -> tuple[ImportTrace, list[str | None]]:
    """Validate a stored import document; returns the trace and each record's paper id."""
    if not isinstance(data, dict) or data.get("version") != IMPORT_VERSION:
        raise TraceInvalid("not a version 1 import document")
    t = data.get("trace")
    if not isinstance(t, dict):
        raise TraceInvalid("import document has no trace")
    s = t.get("source")
    if not isinstance(s, dict) or not isinstance(s.get("parser"), dict):
        raise TraceInvalid("import trace has no source")
    source = SourceInfo(
        path=_str(s.get("path"), "source path"),
        sha256=_str(s.get("sha256"), "source sha256"),
        bytes=_int(s.get("bytes"), "source bytes"),
        format=_str(s.get("format"), "source format"),
        encoding=_str(s.get("encoding"), "source encoding"),
        parser=ParserInfo(
            id=_str(s["parser"].get("id"), "parser id"),
            version=_str(s["parser"].get("version"), "parser version"),
        ),
        tool=_str(s.get("tool"), "source tool", optional=True),
    )
    records = t.get("records")
    notices = t.get("notices") or []
    if not isinstance(records, list) or len(records) > MAX_RECORDS or not isinstance(notices, list):
        raise TraceInvalid("import trace records/notices must be lists within limits")
    trace = ImportTrace(
        source=source,
        records=tuple(_record(r) for r in records),
        notices=tuple(_notice(n) for n in notices),
    )
    ids = data.get("paper_ids")
    if not isinstance(ids, list) or len(ids) != len(trace.records):
        raise TraceInvalid("import document: paper_ids does not match its records")
    if not all(i is None or isinstance(i, str) for i in ids):
        raise TraceInvalid("import document: paper ids must be text or null")
    return trace, list(ids)


def read_import_row(doc: repo.DocumentRow) -> tuple[ImportTrace, list[str | None]]:
    """``read_import(doc.json())`` of a stored import, parsed and validated once per stored
    text (the same trace and ids for the same text; the trace is immutable, the ids list the
    caller's own)."""
    trace, ids, _ = memoised("import", doc.text, _read_import_text)
    return trace, list(ids)


def _read_import_text(text: str) -> tuple[ImportTrace, list[str | None], object]:
    """The trace, the paper ids and the stored source (as stored: read by
    :func:`import_source`) of an import's text, from one parse of it."""
    data = load_json(text, what="imports")
    trace, ids = read_import(data)
    return trace, ids, data.get("source") if isinstance(data, dict) else None


def import_member(doc: repo.DocumentRow) -> bytes:
    """A stored import as a Study's ZIP carries it (``trace_document`` of what
    :func:`read_import_row` reads, as JSON), once per stored text: a 3,000-record import's
    member was four tenths of each ZIP of its Study (its records' papers written out anew)."""
    return memoised("import member", doc.text, _import_member_text)


def _import_member_text(text: str) -> bytes:
    trace, ids, stored = memoised("import", text, _read_import_text)
    source = import_source({"source": stored})
    return dump_json(trace_document(trace, list(ids), source)).encode("utf-8")
