"""Text whose markup arrived HTML-escaped, as plain text.

Bibliographic exports built from OpenAlex or publisher metadata (a SYNERGY or ASReview CSV, a
RIS made from one) carry abstracts such as ``&lt;b&gt;Background:&lt;/b&gt; …`` or ``a PHQ-9
score of &lt;10``: shown as they are, a reviewer reads the markup. Such a value is decoded
(entities) and the inline and paragraph tags it held are removed (paragraph ends become blank
lines), as the providers' own abstracts are. A value without an entity is left as it is: a bare
``<`` (``p < 0.05``) is never read as a tag.

Markup that arrived *as markup* is made plain too when the value is plainly a piece of a
publisher's or PubMed's XML or HTML (The Lens and Dimensions RIS exports: ``<jats:p>``,
``<AbstractText Label="BACKGROUND" NlmCategory="…">``, ``<p>… CO<sub>2</sub> …</p>``): it holds a
JATS or MathML tag (``jats:…``, ``mml:…``), one of PubMed's abstract elements, or a paragraph tag
(``<p>``, ``<div>``, ``<br>``), and every tag in it is one of those or a plain inline tag without
attributes (``<i>``, ``<sub>``, …). PubMed's section label becomes the paragraph's lead
("BACKGROUND: …") as in PubMed's own abstracts; a leading "Abstract" heading is dropped. Any other
tag (``<img …>``, ``<b onmouseover=…>``, ``<script>``) leaves the whole value as it is, shown as
text: it is not bibliographic markup, and half of it removed would only mislead. A value whose
only tags are inline (``in <i>vivo</i>``) is left as it is too."""

from __future__ import annotations

import html
import re
from typing import Final

__all__ = ["escaped_markup_text"]

_ENTITY: Final = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,30}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")
_BLOCK_END: Final = re.compile(r"</(?:p|div|h[1-6]|li|sec|title)\s*>|<br\s*/?>", re.IGNORECASE)
_INLINE: Final = re.compile(
    r"</?(?:i|b|em|strong|sup|sub|u|span|p|a|sc|italic|bold|div|h[1-6]|li|ul|ol|sec|title"
    r"|jats:[a-z-]{1,30}|mml:[a-z]{1,30})(?:\s[^<>]{0,500})?/?>",
    re.IGNORECASE,
)
#: a blank line and the spaces around it, matched from the start of a run of spaces only
#: (tried at each space of a run, ``\s*\n`` read the rest of the run each time: quadratic)
_BLANKS: Final = re.compile(r"(?<!\s)\s*\n\s*\n\s*")


#: a tag as markup writes it: ``<name attrs>``, ``</name>``, ``<name/>`` (name with a namespace)
_TAG: Final = re.compile(
    r"<(/?)([A-Za-z][A-Za-z0-9]{0,30}(?::[A-Za-z][A-Za-z0-9-]{0,30})?)([^<>]{0,500})>"
)
_PLAIN_INLINE: Final = frozenset(
    {"i", "b", "em", "strong", "sup", "sub", "u", "sc", "span", "small", "italic", "bold"}
)
_PLAIN_BLOCK: Final = frozenset(
    {"p", "div", "br", "h1", "h2", "h3", "h4", "h5", "h6", "li", "ul", "ol"}
)
#: PubMed's abstract elements, as The Lens and Dimensions copy them
_PUBMED: Final = frozenset({"abstracttext", "copyrightinformation", "abstract", "otherabstract"})
_JATS_BLOCK: Final = frozenset({"p", "sec", "title", "list-item", "list", "label", "abstract"})
_LABEL: Final = re.compile(r"""\bLabel\s*=\s*(?:"([^"<>]{1,200})"|'([^'<>]{1,200})')""")


def _tag_text(tag: re.Match[str]) -> str | None:
    """What a bibliographic tag becomes in plain text; None when it is not one."""
    closing, name, rest = tag.group(1), tag.group(2), tag.group(3)
    lower = name.lower()
    prefix, _, local = lower.rpartition(":")
    attrs = rest.strip().rstrip("/").strip()
    if prefix in {"jats", "mml"}:
        return "\n\n" if prefix == "jats" and local in _JATS_BLOCK else ""
    if prefix:
        return None
    if lower in _PUBMED:
        label = _LABEL.search(attrs) if lower == "abstracttext" and not closing else None
        if label:
            return f"\n\n{(label.group(1) or label.group(2)).strip()}: "
        return "\n\n"
    if attrs:  # plain HTML with attributes is not what bibliographic exports carry
        return None
    if lower in _PLAIN_BLOCK:
        return "\n\n"
    return "" if lower in _PLAIN_INLINE else None


def _raw_markup_text(text: str) -> str:
    """``text`` with bibliographic markup that arrived as markup made plain (module docstring)."""
    tags = list(_TAG.finditer(text))
    if not tags:
        return text
    parts: list[str] = []
    signal = False
    end = 0
    for tag in tags:
        made = _tag_text(tag)
        if made is None:
            return text
        name = tag.group(2).lower()
        signal = signal or ":" in name or name in _PUBMED or name in _PLAIN_BLOCK
        parts += (text[end : tag.start()], made)
        end = tag.end()
    if not signal:
        return text
    parts.append(text[end:])
    paragraphs = [" ".join(p.split()) for p in _BLANKS.split("".join(parts))]
    kept = [p for p in paragraphs if p]
    if len(kept) > 1 and kept[0].rstrip(":").lower() in {"abstract", "summary"}:
        kept = kept[1:]  # the abstract's own heading
    return "\n\n".join(kept)


def escaped_markup_text(text: str) -> str:
    """``text`` with its HTML-escaped markup, and bibliographic markup that arrived as markup,
    made plain (see the module docstring)."""
    s = text
    if "&" in s and _ENTITY.search(s) is not None:
        s = html.unescape(s)
        s = _INLINE.sub("", _BLOCK_END.sub("\n\n", s))
        paragraphs = (" ".join(p.split()) for p in _BLANKS.split(s))
        s = "\n\n".join(p for p in paragraphs if p)
    return _raw_markup_text(s) if "<" in s else s
