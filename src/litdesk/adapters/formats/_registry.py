"""The format registry: collect every format module's FORMATS, detect, load, dump.

``loads`` is the one entry point of every import: size limit, decoding, detection by
content, the format's parser, then the whole-file checks (no record → ``malformed``,
duplicate source record ids → ``duplicate_ids``) and the :class:`SourceInfo`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Final

from litdesk._errors import LitdeskError
from litdesk.adapters.files import FileRefused, read_bounded
from litdesk.core.imports import (
    CONTROL_BYTES,
    MAX_NAME,
    ImportRefused,
    ImportTrace,
    Notice,
    ParserInfo,
    RecordTrace,
    SourceInfo,
    digest_bytes,
    note_cut_fields,
    strip_controls,
)
from litdesk.core.records import Paper
from litdesk.core.words import plural

from . import (
    _bibtex,
    _cochrane,
    _csljson,
    _csv_export,
    _csvtable,
    _endnote,
    _medline,
    _native,
    _ovid,
    _ris,
    _ris_read,
    _wos,
)
from ._decode import Decoded, NotUtf8, decode, utf8_head
from ._detect import FAMILY, line_of, outer_syntax, outline, outside
from ._errorbody import refuse_error_body
from ._spec import FormatSpec, ParseResult

__all__ = [
    "EXPORT_FORMATS",
    "FORMATS",
    "MAX_IMPORT_BYTES",
    "detect",
    "dump",
    "dumps",
    "get_format",
    "load",
    "loads",
]

#: The explicit size limit of one imported file (bytes).
MAX_IMPORT_BYTES: Final = 200 * 1024 * 1024
#: How much decoded text the sniffers see.
SNIFF_CHARS: Final = 64 * 1024
#: Formats ``dumps`` writes.
EXPORT_FORMATS: Final = ("ris", "bibtex", "csljson", "csv")

_MODULES = (_ris, _medline, _wos, _cochrane, _ovid, _bibtex, _csljson, _csvtable, _endnote, _native)
# Formats that read UTF-8 bytes without decoding the whole file first (same result as
# ``parse(text)``; they raise NotUtf8 when the bytes are not UTF-8 after all).
_BYTES_PARSERS: Final = {
    "ris": _ris.parse_bytes,
    "bibtex": _bibtex.parse_bytes,
    "csv": _csvtable.parse_csv_bytes,
    "scopus-csv": _csvtable.parse_scopus_bytes,
}


def _collect() -> list[FormatSpec]:
    out: list[FormatSpec] = []
    seen: set[str] = set()
    for module in _MODULES:
        for spec in module.FORMATS:
            if spec.name in seen:
                raise RuntimeError(f"format {spec.name!r} is defined twice")  # programming error
            seen.add(spec.name)
            out.append(spec)
    return out


#: Every readable format, in registry order.
FORMATS: Final[list[FormatSpec]] = _collect()


def get_format(name: str) -> FormatSpec:
    """The format called ``name`` (raises ``ImportRefused(code="unsupported")``)."""
    key = name.strip().lower()
    for spec in FORMATS:
        if spec.name == key:
            return spec
    known = ", ".join(sorted(s.name for s in FORMATS)) or "none"
    raise ImportRefused(f"unknown format {name[:40]!r} (known: {known})", code="unsupported")


def detect(text: str, *, path: str | None = None) -> FormatSpec:
    """The format of ``text``, decided by structure (see :mod:`._detect`).

    Only formats of the document's outer syntax compete (JSON, XML or line-structured
    text); among text formats the structure whose first record comes first is the
    file's, and another format's records starting outside it make the content
    ambiguous (``ImportRefused(code="ambiguous")``, both candidates named). Within one
    structure the sniffers' confidence decides, a tie broken by the file extension of
    ``path``, then by registry order. A saved provider error response is refused with
    the provider's message (``provider_error``); content no sniffer recognises is
    ``unsupported``.
    """
    head = text[:SNIFF_CHARS]
    syntax = outer_syntax(head)
    if syntax == "json":
        refuse_error_body(text)
    ext = Path(path).suffix.lower().lstrip(".") if path else ""
    best: dict[str, tuple[tuple[int, int], FormatSpec]] = {}
    for spec in FORMATS:
        family = FAMILY.get(spec.name, spec.name)
        kind = "text" if family not in ("json", "xml") else family
        if kind != syntax:
            continue
        score = spec.sniff(head)
        if score <= 0:
            continue
        exts = {e.lstrip(".") for e in spec.extensions}
        key = (min(score, 100), 1 if ext and ext in exts else 0)
        if family not in best or key > best[family][0]:
            best[family] = (key, spec)
    if not best:
        first = next((x.strip() for x in head.lstrip("\ufeff").splitlines() if x.strip()), "")
        raise ImportRefused(
            "the content is not a format litdesk reads (RIS, MEDLINE, Web of Science, BibTeX, "
            "CSL-JSON, CSV, EndNote XML, Cochrane Library text, Ovid, provider JSON/XML)"
            + (f"; its first line, {first[:60]!r}, starts none of them" if first else ""),
            code="unsupported",
        )
    if len(best) == 1:
        return next(iter(best.values()))[1]
    outlines = {f: outline(f, head) for f in best}
    located = {f: o for f, o in outlines.items() if o.starts}
    if not located:
        return max(best.values(), key=lambda kv: kv[0])[1]
    outer = min(located.values(), key=lambda o: (o.starts[0], -best[o.family][0][0]))
    for family, o in located.items():
        if family == outer.family:
            continue
        stray = outside(o, outer)
        if stray:
            a, b = best[outer.family][1].name, best[family][1].name
            raise ImportRefused(
                f"ambiguous content: {a} records (from line {line_of(head, outer.starts[0])}) "
                f"and {b} records outside them (line {line_of(head, stray[0])}); "
                f"say which with --format {a} or --format {b}",
                code="ambiguous",
                candidates=[a, b],
            )
    return best[outer.family][1]


def _check_duplicates(
    records: list[RecordTrace], policy: str
) -> tuple[list[RecordTrace], list[Notice]]:
    """Source record ids that occur more than once.

    ``policy="refuse"`` refuses the file (``duplicate_ids``). ``"notice"`` (the default)
    keeps every record — real exports repeat ids, e.g. concatenated EndNote libraries or a
    BibTeX file with a repeated key — and says so: one file-level notice naming the ids and
    lines, and a notice on every record after the first with that id.
    """
    where: dict[str, list[int]] = {}
    for rec in records:
        if rec.source_id:
            where.setdefault(rec.source_id, []).append(rec.first_line)
    dups = {k: v for k, v in where.items() if len(v) > 1}
    if not dups:
        return records, []
    shown = "; ".join(
        f"{k[:60]!r} on lines {', '.join(map(str, v[:5]))}" for k, v in list(dups.items())[:5]
    )
    more = f" (and {len(dups) - 5} more)" if len(dups) > 5 else ""
    message = f"{plural(len(dups), 'source record id')} used more than once: {shown}{more}"
    if policy == "refuse":
        raise ImportRefused(message, code="duplicate_ids", ids=[k[:100] for k in sorted(dups)[:50]])
    seen: set[str] = set()
    out: list[RecordTrace] = []
    for rec in records:
        sid = rec.source_id
        if sid in dups and sid in seen:
            note = Notice(
                "duplicate_id",
                f"source record id {sid[:60]!r} was already used on line {dups[sid][0]}; "
                "this record is kept (refs name it by its position in the file)",
                line=rec.first_line,
            )
            rec = rec.replace(notices=(*rec.notices, note))
        if sid:
            seen.add(sid)
        out.append(rec)
    return out, [Notice("duplicate_id", message + "; every record is kept")]


def _decode(data: bytes) -> Decoded:
    decoded = decode(data)
    if not decoded.text or decoded.text.isspace():  # as ``not text.strip()``, without a copy
        raise ImportRefused("the file holds only whitespace", code="empty")
    return decoded


def loads(
    data: bytes,
    *,
    format: str | None = None,
    path: str = "<bytes>",
    max_bytes: int = MAX_IMPORT_BYTES,
    duplicate_ids: str = "notice",
) -> ImportTrace:
    """Import one file's bytes: decode, detect (unless ``format`` names one), parse, check.

    Raises :class:`ImportRefused` (codes ``empty``, ``unsupported``, ``malformed``,
    ``undecodable``, ``too_large``, ``too_deep``, and ``duplicate_ids`` when
    ``duplicate_ids="refuse"``); otherwise every raw record is in the trace with its
    digest, line span and notices. Repeated source record ids are kept with notices by
    default (``"notice"``). Control characters are removed from every record's fields
    (a ``control_characters`` notice says where).

    Total: whatever a reader or the runtime raises on hostile input (a recursion limit,
    the integer-digit limit, a codec error, memory) ends as :class:`ImportRefused`.
    """
    if duplicate_ids not in ("notice", "refuse"):
        raise ValueError("duplicate_ids is 'notice' or 'refuse'")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("loads() takes bytes")
    data = bytes(data)
    try:
        return _loads(data, format, path, max_bytes, duplicate_ids)
    except ImportRefused:
        raise
    except RecursionError:
        raise ImportRefused(
            "the file nests deeper than litdesk reads (recursion limit)", code="too_deep"
        ) from None
    except MemoryError:
        raise ImportRefused(
            "reading the file needs more memory than is available", code="too_large"
        ) from None
    except Exception as exc:  # noqa: BLE001 - the one total mapping: any reader error is the input's
        reason = exc.message if isinstance(exc, LitdeskError) else str(exc)
        raise ImportRefused(
            f"the file could not be read ({reason[:200] or 'no reason given'})",
            code="malformed",
        ) from None


def _loads(
    data: bytes, format: str | None, path: str, max_bytes: int, duplicate_ids: str
) -> ImportTrace:
    if len(data) > max_bytes:
        raise ImportRefused(
            f"the file has {len(data):,} bytes, over the limit of {max_bytes:,}",
            code="too_large",
        )
    spec = get_format(format) if format else None
    if not data or data.isspace():  # as ``not data.strip()``, without a copy
        raise ImportRefused("the file is empty", code="empty")
    decoded: Decoded | None = None
    head = utf8_head(data, SNIFF_CHARS)
    if head is None or not head.strip():
        decoded = _decode(data)
    if spec is not None and FAMILY.get(spec.name) == "json":
        # a provider error body is refused whatever --format says
        refuse_error_body(decoded.text if decoded is not None else (head or ""))
    if spec is None:
        try:
            spec = detect(decoded.text if decoded is not None else (head or ""), path=path)
        except ImportRefused:
            if decoded is None:
                _decode(data)  # bytes that decode in no encoding are refused as such first
            raise
    result: ParseResult | None = None
    parse_bytes = _BYTES_PARSERS.get(spec.name)
    if decoded is None and parse_bytes is not None:
        try:
            result = parse_bytes(data)
        except NotUtf8:
            result = None  # not UTF-8 further on: decode() reads it (Windows-1252)
        else:
            decoded = Decoded("", "utf-8")
    if result is None or decoded is None:
        if decoded is None:
            decoded = _decode(data)
        result = spec.parse(decoded.text)
    if not result.records:
        raise ImportRefused(
            f"no record could be read as {spec.name} from the file", code="malformed"
        )
    if spec.name == "ris":
        _refuse_without_ty(result.records, decoded.text or head or "", path)
    records, dup_notices = _check_duplicates(
        _cut_fields(data, _no_controls(data, spec, result.records)), duplicate_ids
    )
    source = SourceInfo(
        path=path,
        sha256=digest_bytes(data),
        bytes=len(data),
        format=spec.name,
        encoding=decoded.encoding,
        parser=ParserInfo(spec.parser_id, spec.parser_version),
        tool=spec.tool(decoded.text or data, records) if spec.tool is not None else None,
    )
    notices: list[Notice] = [*decoded.notices, *result.notices, *dup_notices]
    if format:
        notices.extend(_forced_notice(spec, decoded.text or head or "", path))
    return ImportTrace(source=source, records=tuple(records), notices=tuple(notices))


#: Escapes a reader may turn into a control character: XML character references, and in
#: JSON ``\\u00XX``/``\\u007f``, ``\\b`` and ``\\f``.
_CONTROL_ESCAPES: Final = (b"&#", b"\\u00", b"\\u007")
#: any of :data:`CONTROL_BYTES`
_CONTROL_BYTE: Final = re.compile(b"[" + re.escape(CONTROL_BYTES) + b"]")
_JSON_ESCAPES: Final = (b"\\b", b"\\f")


def _forced_notice(spec: FormatSpec, sample: str, path: str) -> list[Notice]:
    """A file read as the format ``--format`` named whose content has another structure
    (a MEDLINE export read as Web of Science: 170 "records" of 80): a notice saying what
    it reads as. Nothing when the content reads as that format, is ambiguous (what
    ``--format`` is for) or unrecognised, or is another of its family (CSV and Scopus CSV)."""
    try:
        found = detect(sample, path=path)
    except ImportRefused:
        return []
    if FAMILY.get(found.name) == FAMILY.get(spec.name):
        return []
    return [
        Notice(
            "other",
            f"read as {spec.name} as --format asked; the content reads as {found.name} "
            "(leave out --format to read it so)",
        )
    ]


def _refuse_without_ty(records: list[RecordTrace], sample: str, path: str) -> None:
    """Refuse content read as RIS where no record starts with ``TY`` and that reads as
    another format (only a forced ``--format ris`` reads such a file: a MEDLINE export's
    ``XX  - `` lines ran together into one "record" of its 80), naming where the first
    record starts and the format the content reads as. A RIS record whose TY line is
    damaged (content that reads as no other format) is still read, with its notice."""
    first = None
    for record in records:
        no_ty = next((n for n in record.notices if n.message == _ris_read.NO_TY), None)
        if no_ty is None:
            return
        first = first or no_ty
    assert first is not None
    try:
        other = detect(sample, path=path).name
    except ImportRefused:
        return
    if other == "ris":
        return
    raise ImportRefused(
        f"not RIS: no record starts with a TY line (the first starts on line {first.line} "
        f"with {first.field}); the content reads as {other}: leave out --format, or name it",
        code="malformed",
    )


def _cut_fields(data: bytes, records: list[RecordTrace]) -> list[RecordTrace]:
    """``records`` with a ``truncated`` notice on each whose fields the paper's bounds cut
    (skipped for a file no longer than the smallest bound)."""
    if len(data) <= MAX_NAME:
        return records
    return [note_cut_fields(r) for r in records]


def _no_controls(data: bytes, spec: FormatSpec, records: list[RecordTrace]) -> list[RecordTrace]:
    """``records`` with control characters removed from their fields (one normaliser for
    every format). Skipped when the bytes hold no control byte (so no UTF-16/32 either)
    and no escape that could make one."""
    escapes = _CONTROL_ESCAPES + (_JSON_ESCAPES if spec.name.endswith("json") else ())
    # searched, not translated: a translated copy of the file was one more file's size
    # at the peak of an import
    if _CONTROL_BYTE.search(data) is None and not any(e in data for e in escapes):
        return list(records)
    return [strip_controls(r) for r in records]


def load(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    max_bytes: int = MAX_IMPORT_BYTES,
    duplicate_ids: str = "notice",
) -> ImportTrace:
    """Import the file at ``path`` (see :func:`loads`); a missing file is ``NotFoundError``.

    Only a regular file is read (a FIFO, a device or a folder is refused, code
    ``unsupported``, without blocking), and never more than ``max_bytes`` of it.
    """
    try:
        data = read_bounded(path, limit=max_bytes, label="the file")
    except FileRefused as exc:
        code = "too_large" if exc.code == "too_large" else "unsupported"
        raise ImportRefused(exc.message, code=code) from None
    return loads(
        data, format=format, path=str(path), max_bytes=max_bytes, duplicate_ids=duplicate_ids
    )


def dumps(papers: Iterable[Paper], format: str) -> str:
    """Write ``papers`` as ``ris``, ``bibtex``, ``csljson`` or ``csv`` text."""
    items = list(papers)
    key = format.strip().lower()
    if key == "csv":
        return _csv_export.dumps(items)
    if key not in EXPORT_FORMATS:
        raise ImportRefused(
            f"cannot export as {format[:40]!r} (choose one of {', '.join(EXPORT_FORMATS)})",
            code="unsupported",
        )
    spec = get_format(key)
    if spec.dumps is None:
        raise ImportRefused(f"export as {key} is not available yet", code="unsupported")
    return spec.dumps(items)


def dump(papers: Iterable[Paper], fp: IO[str], format: str) -> None:
    """Write ``papers`` to the text stream ``fp`` (see :func:`dumps`)."""
    fp.write(dumps(papers, format))
