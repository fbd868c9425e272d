"""Text whose markup arrived HTML-escaped, as plain text.

Bibliographic exports built from OpenAlex or publisher metadata (a SYNERGY or ASReview CSV, a
RIS made from one) carry abstracts such as ``&lt;b&gt;Background:&lt;/b&gt; …`` or ``a PHQ-9
score of &lt;10``: shown as they are, a reviewer reads the markup. Such a value is decoded
(entities) and the inline and paragraph tags it held are removed (paragraph ends become blank
lines), as the providers' own abstracts are. A value without an entity is left as it is: a bare
``<`` (``p < 0.05``) is never read as a tag, and markup not escaped is not this case."""

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


def escaped_markup_text(text: str) -> str:
    """``text`` with its HTML-escaped markup made plain (see the module docstring)."""
    if "&" not in text or _ENTITY.search(text) is None:
        return text
    s = html.unescape(text)
    s = _INLINE.sub("", _BLOCK_END.sub("\n\n", s))
    paragraphs = (" ".join(p.split()) for p in _BLANKS.split(s))
    return "\n\n".join(p for p in paragraphs if p)
