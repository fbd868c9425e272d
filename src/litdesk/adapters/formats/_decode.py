"""Decoding of export files: BOMs, UTF-16 with or without BOM, UTF-8, cp1252 fallback.

:func:`decode` returns the text (without its BOM), the encoding's name and the notices
that tell the user what was done. Bytes that decode in no supported encoding, or that
decode only into binary-looking text (NUL bytes, many control characters), are refused
with ``ImportRefused(code="undecodable")``.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from litdesk.core.imports import ImportRefused, Notice

__all__ = ["Decoded", "NotUtf8", "decode", "utf8_head"]

_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32 LE"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32 BE"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 LE"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 BE"),
)
# Control characters that never occur in a text export (tab, LF, FF, CR are allowed).
_BINARY = re.compile(r"[\x00-\x08\x0b\x0e-\x1f]")
_SAMPLE = 8192


class NotUtf8(Exception):
    """Internal: a reader of UTF-8 bytes (``parse_bytes``) met bytes that are not UTF-8.

    The registry then reads the file through :func:`decode` (BOM notice, Windows-1252).
    """


@dataclass(frozen=True, slots=True)
class Decoded:
    text: str
    encoding: str  # "utf-8", "utf-8-sig", "utf-16-le", "utf-16-be", "cp1252", ...
    notices: tuple[Notice, ...] = ()


def _utf16_without_bom(data: bytes) -> str | None:
    """``utf-16-le``/``utf-16-be`` when the NUL pattern of the head says so."""
    head = data[:_SAMPLE]
    if len(head) < 4 or len(data) % 2:
        return None
    even = head[0::2]
    odd = head[1::2]
    even_nul = even.count(0) / len(even)
    odd_nul = odd.count(0) / len(odd)
    if odd_nul > 0.4 and even_nul < 0.05:
        return "utf-16-le"
    if even_nul > 0.4 and odd_nul < 0.05:
        return "utf-16-be"
    return None


def _check_text(text: str, encoding: str) -> None:
    sample = text[: _SAMPLE * 4]
    bad = len(_BINARY.findall(sample))
    if "\x00" in sample or bad > max(2, len(sample) // 200):
        raise ImportRefused(
            f"the file does not look like text (control characters after decoding as {encoding})",
            code="undecodable",
        )


def decode(data: bytes) -> Decoded:
    """Decode ``data``; raise :class:`ImportRefused` (``undecodable``) when impossible."""
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            try:
                text = data[len(bom) :].decode(codec)
            except UnicodeDecodeError as exc:
                raise ImportRefused(
                    f"the file starts with a {label} byte-order mark but is not valid "
                    f"{label} (byte {exc.start + len(bom)})",
                    code="undecodable",
                ) from None
            _check_text(text, codec)
            name = "utf-8-sig" if codec == "utf-8" else codec
            notice = Notice("encoding", f"{label} byte-order mark removed", line=1)
            return Decoded(text, name, (notice,))
    utf16 = _utf16_without_bom(data)
    if utf16 is not None:
        try:
            text = data.decode(utf16)
        except UnicodeDecodeError:
            pass
        else:
            _check_text(text, utf16)
            label = "UTF-16 LE" if utf16.endswith("le") else "UTF-16 BE"
            return Decoded(text, utf16, (Notice("encoding", f"read as {label} (no BOM)"),))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        first_bad = exc.start
    else:
        _check_text(text, "utf-8")
        return Decoded(text, "utf-8")
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        raise ImportRefused(
            f"the file is neither UTF-8 (invalid byte at offset {first_bad}) nor Windows-1252 text",
            code="undecodable",
        ) from None
    _check_text(text, "cp1252")
    line = data.count(b"\n", 0, first_bad) + 1
    notice = Notice(
        "encoding",
        f"not valid UTF-8 (first invalid byte on line {line}); read as Windows-1252",
        line=line,
    )
    return Decoded(text, "cp1252", (notice,))


def utf8_head(data: bytes, chars: int) -> str | None:
    """The first ``chars`` characters of ``data`` when :func:`decode` would read it as plain
    UTF-8 judging by its start (no BOM, not UTF-16, valid UTF-8, text-like), else ``None``.

    A reader of UTF-8 bytes (RIS) uses it to detect the format and check the text without
    decoding the whole file; bytes that turn out not to be UTF-8 further on are left to
    :func:`decode` (the Windows-1252 fallback).
    """
    if any(data.startswith(bom) for bom, _, _ in _BOMS) or _utf16_without_bom(data):
        return None
    size = max(chars, _SAMPLE * 4) * 4 + 4
    try:
        head = codecs.getincrementaldecoder("utf-8")().decode(data[:size], final=len(data) <= size)
        _check_text(head, "utf-8")
    except (UnicodeDecodeError, ImportRefused):
        return None  # decode() decides, and words the refusal
    return head[:chars]
