"""A Zotero note's HTML reduced to safe plain text (pure, linear time).

Zotero notes are HTML (``<div data-schema-version="8"><p>…</p></div>``). litdesk keeps a
note as plain text: tags are dropped (block tags become line breaks, ``<li>`` a bullet),
``<script>``/``<style>``/``<head>`` content and comments are left out, character
references are decoded (:func:`html.unescape`), control characters removed, blank runs
collapsed. The scanner only moves forward with ``str.find`` from the last position, so
any input — unclosed tags, endless ``<<<<``, a million ``&`` — costs linear time.
"""

from __future__ import annotations

import html
import re
from typing import Final

__all__ = ["MAX_NOTE_INPUT", "note_text", "note_title"]

#: Only this much of a note's HTML is read.
MAX_NOTE_INPUT: Final = 2_000_000

_BLOCK: Final = frozenset(
    [
        "p",
        "div",
        "br",
        "li",
        "ul",
        "ol",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "tr",
        "table",
        "blockquote",
        "pre",
        "section",
        "article",
        "hr",
        "dt",
        "dd",
        "header",
        "footer",
    ]
)
_SKIP: Final = ("script", "style", "head", "title", "template")
_CONTROL: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SPACES: Final = re.compile(r"[ \t\xa0]+")
# a numeric character reference too long to name a character (html.unescape would turn
# thousands of digits into an int and fail): replaced before unescaping
_LONG_REF: Final = re.compile(r"&#[xX]?[0-9a-fA-F]{9,};?")


def _tag_name(inner: str) -> tuple[str, bool]:
    """``(lower-case name, closing)`` of the text between ``<`` and ``>``."""
    closing = inner.startswith("/")
    body = inner[1:] if closing else inner
    if not body[:1].isalpha():
        return "", closing
    end = 1
    while end < len(body) and end < 20 and body[end].isalnum():
        end += 1
    return body[:end].lower(), closing


def note_text(note_html: str | None) -> str:
    """The plain text of a note's HTML (see the module docstring)."""
    src = (note_html or "")[:MAX_NOTE_INPUT]
    low = src.lower()
    parts: list[str] = []
    i, n = 0, len(src)
    while i < n:
        lt = src.find("<", i)
        if lt < 0:
            parts.append(src[i:])
            break
        parts.append(src[i:lt])
        if low.startswith("<!--", lt):
            end = src.find("-->", lt + 4)
            i = n if end < 0 else end + 3
            continue
        nxt = src[lt + 1 : lt + 2]
        if not (nxt.isalpha() or nxt in ("/", "!", "?")):
            parts.append("<")  # "a < b" is text, not a tag
            i = lt + 1
            continue
        gt = src.find(">", lt + 1)
        if gt < 0:
            break  # an unclosed tag: the rest is markup, not text
        name, closing = _tag_name(src[lt + 1 : gt])
        i = gt + 1
        if not name:
            continue  # a declaration, processing instruction or odd end tag
        if name in _SKIP and not closing:
            end = low.find("</" + name, i)
            if end < 0:
                break
            close = src.find(">", end)
            i = n if close < 0 else close + 1
            continue
        if name == "li":
            if not closing:
                parts.append("\n- ")
        elif name in _BLOCK:
            parts.append("\n")
    text = html.unescape(_LONG_REF.sub("\ufffd", "".join(parts)))
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)


def note_title(text: str, limit: int = 80) -> str:
    """A note's first line, shortened (what Zotero shows as its title)."""
    first = text.split("\n", 1)[0].strip()
    return first if len(first) <= limit else first[: limit - 1] + "…"
