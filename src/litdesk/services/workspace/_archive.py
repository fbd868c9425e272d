"""Bounded reading of a Study ZIP and of the JSON inside it (issue 13, class 3).

Everything is bounded *before* it is parsed, so a corrupt, encrypted, bit-flipped or
crafted archive ends as :class:`StudyImportRefused` (an ``InputError``, CLI exit 2) within
known memory:

* the archive: its size, its member count, every member's name (a fixed allow list, no
  traversal, no links), its compression (stored or deflate only, never encrypted);
* every member, from the central directory before any byte is inflated: its uncompressed
  size (per kind of member), the sum over all members, and its compression ratio (a
  deflate bomb inflates a thousand times; real exports stay far below the limit);
* every JSON member, on its bytes before ``json.loads``: nesting depth and the number of
  values (a 62 KB archive of ``[[[[…`` or ``[0,0,0,…`` would otherwise need gigabytes),
  with one value budget over the whole import.

Whatever the ``zipfile``/``zlib`` runtime raises on hostile bytes (``BadZipFile``,
``zlib.error``, ``RuntimeError`` for an encrypted member, ``ValueError``, ``EOFError``,
``OverflowError`` …) is mapped to the typed refusal, never a traceback.
"""

from __future__ import annotations

import io
import json
import re
import stat
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any, Final

from litdesk._errors import InputError, RefusedError

__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_JSON_VALUES",
    "MAX_ZIP_BYTES",
    "MAX_ZIP_MEMBERS",
    "MAX_ZIP_MEMBER_BYTES",
    "MAX_ZIP_RATIO",
    "MAX_ZIP_TOTAL_BYTES",
    "JsonBudget",
    "MAX_ZIP_HITS",
    "StudyExportTooLarge",
    "StudyImportRefused",
    "check_export",
    "load_json",
    "read_members",
    "refuse",
]

MAX_ZIP_BYTES: Final = 512_000_000  # the ZIP file itself
MAX_ZIP_MEMBERS: Final = 5_000
MAX_ZIP_MEMBER_BYTES: Final = 200_000_000  # one member, uncompressed (study.json, the RIS)
MAX_SMALL_MEMBER_BYTES: Final = 8_000_000  # manifest.json, one search run (JSON or RIS)
MAX_ZIP_TOTAL_BYTES: Final = 400_000_000  # all members, uncompressed
#: Largest uncompressed/compressed ratio of a member over RATIO_FLOOR bytes (exports of
#: real Studies compress 3-15 times; deflate's own ceiling is about 1,030).
MAX_ZIP_RATIO: Final = 200
RATIO_FLOOR: Final = 1_000_000
MAX_JSON_DEPTH: Final = 64
#: JSON values (numbers, strings, literals, arrays, objects) in one import, all members
#: together; a value costs Python 8-100 bytes, so the parse stays within a few hundred MB.
MAX_JSON_VALUES: Final = 5_000_000
#: hits of one whole search a Study ZIP carries (a member ``search-runs/<id>.hits.json``)
MAX_ZIP_HITS: Final = 100_000

_MEMBER: Final = re.compile(
    r"^(?:references\.ris|evidence\.csv|notebook\.md|study\.json|manifest\.json|form\.json"
    r"|pdf-links\.json|screening/(?:title_abstract|full_text|history)\.csv"
    r"|screening/(?:settings|review)\.json"
    r"|search-runs/[A-Za-z0-9._-]{1,100}\.(?:json|ris)|imports/[A-Za-z0-9._-]{1,100}\.json)$"
)
_LARGE_MEMBERS: Final = frozenset({"references.ris", "evidence.csv", "notebook.md", "study.json"})
_COMPRESSIONS: Final = frozenset({zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED})
#: What the zip/zlib runtime raises on broken or crafted bytes.
_ZIP_ERRORS: Final = (
    zipfile.BadZipFile,
    zlib.error,
    RuntimeError,
    ValueError,
    OverflowError,
    EOFError,
    OSError,
    NotImplementedError,
    KeyError,
    IndexError,
    TypeError,
)
#: a JSON string, or an unterminated one to the end of the body (then the parse refuses it):
#: possessive, so a body of escaped quotes costs one pass, not one pass per quote
_STRING: Final = re.compile(rb'"(?:[^"\\]++|\\.?)*+(?:"|\Z)', re.DOTALL)


class StudyImportRefused(InputError):
    """A Study ZIP is refused as a whole; nothing from it is stored."""

    default_code = "study_import_refused"


class StudyExportTooLarge(RefusedError):
    """A Study is over what its ZIP may hold (the limits recovery enforces): refused whole,
    never truncated."""

    default_code = "study_export_too_large"


def check_export(members: dict[str, bytes]) -> None:
    """Refuse an export its own recovery would refuse for its size: the member count,
    every member's and all members' bytes, the JSON values all members hold together."""
    if len(members) + 1 > MAX_ZIP_MEMBERS:  # + the manifest
        raise StudyExportTooLarge(
            f"the Study's ZIP would have {len(members) + 1:,} members, over {MAX_ZIP_MEMBERS:,}"
        )
    total = 0
    budget = JsonBudget()
    for name, body in members.items():
        limit = _member_limit(name)
        if len(body) > limit:
            raise StudyExportTooLarge(
                f"{name[:100]!r} of the Study's ZIP would be {len(body):,} bytes, over {limit:,}"
            )
        total += len(body)
        if name.endswith(".json"):
            try:
                _shape(body, name, budget)
            except StudyImportRefused as exc:
                msg = f"the Study's ZIP would not recover: {exc.message}"
                raise StudyExportTooLarge(msg) from None
    if total > MAX_ZIP_TOTAL_BYTES:
        raise StudyExportTooLarge(
            f"the Study's ZIP would expand to {total:,} bytes, over {MAX_ZIP_TOTAL_BYTES:,}"
        )


def refuse(message: str, code: str = "study_import_refused") -> StudyImportRefused:
    return StudyImportRefused(message, code=code)


def _member_limit(name: str) -> int:
    """The most bytes a member of this name expands to: a trace, a whole search's hits and
    its RIS grow per record, like the Study's own files; a run or the manifest stays small."""
    large = (
        name in _LARGE_MEMBERS
        or name.startswith(("imports/", "screening/"))
        or (name.startswith("search-runs/") and name.endswith((".hits.json", ".ris")))
    )
    return MAX_ZIP_MEMBER_BYTES if large else MAX_SMALL_MEMBER_BYTES


def _check_info(info: zipfile.ZipInfo, seen: set[str]) -> None:
    name = info.filename
    shown = repr(name[:100])
    if stat.S_ISLNK(info.external_attr >> 16):
        raise refuse(f"ZIP member {shown} is a symbolic link", "unsafe_member")
    if not _MEMBER.match(name) or ".." in name or name.startswith("/"):
        raise refuse(f"unexpected or unsafe ZIP member {shown}", "unsafe_member")
    if name in seen:
        raise refuse(f"ZIP member {shown} appears twice", "unsafe_member")
    if info.flag_bits & 0x1:
        raise refuse(f"ZIP member {shown} is encrypted", "encrypted")
    if info.compress_type not in _COMPRESSIONS:
        raise refuse(
            f"ZIP member {shown} uses compression method {info.compress_type}, "
            "not stored or deflate",
            "malformed",
        )
    limit = _member_limit(name)
    if info.file_size > limit:
        raise refuse(
            f"ZIP member {shown} expands to {info.file_size:,} bytes, over {limit:,}",
            "too_large",
        )
    if info.file_size > RATIO_FLOOR and info.file_size > MAX_ZIP_RATIO * max(info.compress_size, 1):
        raise refuse(
            f"ZIP member {shown} expands {info.file_size // max(info.compress_size, 1):,} "
            f"times (over {MAX_ZIP_RATIO}): a compression bomb",
            "too_large",
        )


def read_members(data: bytes) -> dict[str, bytes]:
    """The members of a Study ZIP, every bound checked from the central directory before
    any member is inflated; each member is read to at most its declared size (and its CRC
    checked by ``zipfile``)."""
    if len(data) > MAX_ZIP_BYTES:
        raise refuse(f"the ZIP has {len(data):,} bytes, over {MAX_ZIP_BYTES:,}", "too_large")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except _ZIP_ERRORS:
        raise refuse("not a readable ZIP file (it is damaged, or not a ZIP)", "malformed") from None
    with zf:
        try:
            infos = zf.infolist()
        except _ZIP_ERRORS:  # pragma: no cover - infolist is a list copy
            raise refuse(
                "not a readable ZIP file (it is damaged, or not a ZIP)", "malformed"
            ) from None
        if len(infos) > MAX_ZIP_MEMBERS:
            raise refuse(f"the ZIP has {len(infos)} members, over {MAX_ZIP_MEMBERS}", "too_large")
        seen: set[str] = set()
        total = 0
        for info in infos:
            _check_info(info, seen)
            seen.add(info.filename)
            total += info.file_size
            if total > MAX_ZIP_TOTAL_BYTES:
                raise refuse(f"the ZIP expands beyond {MAX_ZIP_TOTAL_BYTES:,} bytes", "too_large")
        out: dict[str, bytes] = {}
        for info in infos:
            name = info.filename
            try:
                with zf.open(info) as fh:
                    body = fh.read(info.file_size + 1)
            except _ZIP_ERRORS as exc:
                raise refuse(
                    f"ZIP member {name!r} cannot be read ({str(exc)[:120] or 'damaged'})",
                    "malformed",
                ) from None
            if len(body) != info.file_size:
                raise refuse(f"ZIP member {name!r} does not match its declared size", "malformed")
            out[name] = body
    return out


@dataclass
class JsonBudget:
    """The JSON values one import may still parse (all members together)."""

    values: int = MAX_JSON_VALUES
    spent: list[str] = field(default_factory=list)


def _shape(body: bytes, what: str, budget: JsonBudget) -> None:
    """Refuse JSON nested deeper than MAX_JSON_DEPTH or holding more values than the
    budget has left, judged on the bytes (strings collapsed) without building any value."""
    if b'"' in body:
        body = _STRING.sub(b"0", _structure(body))
    containers = body.count(b"[") + body.count(b"{")
    values = containers + body.count(b",") + 1
    if values > budget.values:
        raise refuse(
            f"{what} holds about {values:,} JSON values, over the {MAX_JSON_VALUES:,} "
            "an import parses",
            "too_large",
        )
    budget.values -= values
    budget.spent.append(what)
    if containers > MAX_JSON_DEPTH and _too_deep(body.translate(None, _NOT_BRACKETS)):
        raise refuse(f"{what} nests JSON deeper than {MAX_JSON_DEPTH} levels", "too_deep")


#: every byte but what :func:`_structure` keeps (deleted)
_NOT_STRUCTURE: Final = bytes(b for b in range(256) if b not in b'"\\[]{},')
#: a backslash and a byte that is neither a quote, a backslash nor structure
_INERT_ESCAPE: Final = re.compile(rb'\\[^"\\\[\]{},]')


def _structure(body: bytes) -> bytes:
    """``body`` reduced to what :data:`_STRING`'s substitution and the counts after it
    read, with the same outcome (the same brackets and commas outside the strings, in the
    same order): backslash pairs dropped (inside a string a pair escapes itself, outside
    it is two bytes nothing counts; a run of backslashes holds no quote, so it is all on
    one side), then a backslash with a byte that is no quote and no structure (the pair
    counts for nothing on either side), then every byte but quotes, backslashes and
    ``[]{},`` (what a string holds besides them changes none of its bounds), then, when
    no backslash is left, two adjacent quotes (an empty string, or the end of one and the
    start of the next: nothing outside a string between them). The substitution then
    meets only the strings that hold structure: a whole search's 90 MB of hits took 1.5 s
    of it, 0.15 s this way."""
    if b"\\" in body:
        body = _INERT_ESCAPE.sub(b"", body.replace(b"\\\\", b""))
    body = body.translate(None, _NOT_STRUCTURE)
    return body if b"\\" in body else body.replace(b'""', b"")


#: every byte but the brackets (deleted: what :func:`_too_deep` reads)
_NOT_BRACKETS: Final = bytes(b for b in range(256) if b not in b"[]{}")
#: brackets judged at a time (8 MB of running depths)
_DEPTH_CHUNK: Final = 1 << 20


def _too_deep(brackets: bytes) -> bool:
    """Whether the running depth of ``brackets`` (only ``[]{}``) passes MAX_JSON_DEPTH:
    the maximum of its running sum (+1 an opening, -1 a closing), a chunk at a time —
    a Python loop over the brackets was half of a Study ZIP's JSON check."""
    import numpy as np

    depth = 0
    for start in range(0, len(brackets), _DEPTH_CHUNK):
        chunk = np.frombuffer(brackets[start : start + _DEPTH_CHUNK], dtype=np.uint8)
        steps = np.where((chunk == ord("[")) | (chunk == ord("{")), 1, -1)
        running = np.cumsum(steps) + depth
        if int(running.max()) > MAX_JSON_DEPTH:
            return True
        depth = int(running[-1])
    return False


def load_json(body: bytes, what: str, budget: JsonBudget) -> Any:
    """``body`` parsed as UTF-8 JSON after its shape is bounded; any parser or runtime
    error (a number over Python's digit limit, a recursion limit) is the typed refusal."""
    _shape(body, what, budget)
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError, OverflowError):
        raise refuse(f"{what} is not valid UTF-8 JSON", "malformed") from None
