"""Output escaping for evidence exports: spreadsheet-safe CSV cells and Markdown (pure)."""

from __future__ import annotations

import re
from typing import Final

__all__ = ["csv_cell", "md_blockquote", "md_escape"]

#: A cell starting with one of these is a formula in Excel, LibreOffice and Sheets.
_FORMULA_START: Final = ("=", "+", "-", "@", "\t", "\r")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#!|<>~&$])")
_MD_LINE_START = re.compile(r"^(?:[-+=:]|\d+(?=[.)]))")


def csv_cell(value: object) -> str:
    """A CSV cell value that no spreadsheet evaluates as a formula.

    ``None`` becomes an empty cell; control characters (other than tab, CR and LF)
    are removed; a value starting with ``= + - @``, tab or CR gets a leading
    apostrophe. Quoting of commas and newlines is left to :mod:`csv`.
    """
    if value is None:
        return ""
    text = _CONTROL.sub("", str(value))
    if text.startswith(_FORMULA_START):
        return "'" + text
    return text


def md_escape(text: str) -> str:
    """Inline Markdown text with every markup character escaped and on one line."""
    flat = " ".join(_CONTROL.sub("", text).split())
    escaped = _MD_SPECIAL.sub(r"\\\1", flat)
    # a leading list marker, ordered-list number, setext underline or definition colon
    m = _MD_LINE_START.match(escaped)
    if m and m.group(0)[0].isdigit():  # "12. x" -> "12\. x"
        escaped = escaped[: m.end()] + "\\" + escaped[m.end() :]
    elif m:  # "- x" -> "\- x"
        escaped = "\\" + escaped
    return escaped


def md_blockquote(text: str) -> str:
    """``text`` as a Markdown block quote: every line prefixed, markup escaped."""
    lines = _CONTROL.sub("", text).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out = []
    for line in lines:
        escaped = md_escape(line)
        out.append("> " + escaped if escaped else ">")
    return "\n".join(out)
