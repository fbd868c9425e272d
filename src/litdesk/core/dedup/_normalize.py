"""Normalisation of bibliographic fields for duplicate detection (pure).

Titles: case, accents, HTML/XML tags and entities, LaTeX commands and braces, Greek
letters (α → alpha), punctuation and white space. Names: the first author's surname.
Journals: words reduced so that abbreviations compare with full names
("Nat Rev Nephrol" ~ "Nature Reviews Nephrology"). Pages: the first page.
"""

from __future__ import annotations

import html
import re
import unicodedata
from typing import Final

__all__ = [
    "author_surnames",
    "first_author_surname",
    "first_page",
    "journal_key",
    "journal_matches",
    "normalize_title",
]

_GREEK: Final = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta",
    "η": "eta", "θ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu",
    "ν": "nu", "ξ": "xi", "ο": "omicron", "π": "pi", "ρ": "rho", "σ": "sigma", "ς": "sigma",
    "τ": "tau", "υ": "upsilon", "φ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega",
    "µ": "mu",
}  # fmt: skip
_GREEK_RE: Final = re.compile("|".join(map(re.escape, _GREEK)))
_LATEX_GREEK: Final = re.compile(
    r"\\(alpha|beta|gamma|delta|epsilon|zeta|eta|theta|iota|kappa|lambda|mu|nu|xi|pi|rho"
    r"|sigma|tau|upsilon|phi|chi|psi|omega)\b",
    re.IGNORECASE,
)
_TAGS: Final = re.compile(r"<[^<>]{0,200}>")
_LATEX_ACCENT: Final = re.compile(r"\\(?:['\"^`~=.]|[cvHukdbr](?=\s*\{))")
_LATEX_CMD: Final = re.compile(r"\\[a-zA-Z]+\*?|\\.")
_NON_ALNUM: Final = re.compile(r"[^0-9a-z]+")
_WORD: Final = re.compile(r"[a-z0-9]+")


def _fold(text: str) -> str:
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c))


_TRAILING_NOTE: Final = re.compile(r"\s*\[[^\[\]]{0,300}\]\s*\.?\s*$")
_BRACKETED_ALL: Final = re.compile(r"^\s*\[([^\[\]]{8,})\]\s*\.?\s*$")


def _strip_notes(title: str) -> str:
    """Drop database annotations: "[Review]", "[French]", "[Erratum appears in …]";
    a title entirely in brackets (a translated title) keeps its content."""
    for _ in range(4):
        whole = _BRACKETED_ALL.match(title)
        if whole:
            return whole.group(1)
        stripped = _TRAILING_NOTE.sub("", title)
        if stripped == title or not stripped.strip():
            break
        title = stripped
    return title.lstrip("[").replace("]", " ")


def normalize_title(title: str | None) -> str:
    """A comparison key: lower-case ASCII words separated by single spaces."""
    if not title:
        return ""
    t = _strip_notes(html.unescape(_TAGS.sub(" ", title)))
    t = _LATEX_GREEK.sub(lambda m: " " + m.group(1).lower() + " ", t)
    t = _LATEX_ACCENT.sub("", t)
    t = t.replace("{", "").replace("}", "")
    t = _LATEX_CMD.sub(" ", t)
    t = t.lower()
    t = _GREEK_RE.sub(lambda m: " " + _GREEK[m.group(0)] + " ", t)
    t = _fold(t)
    t = t.replace("ß", "ss").replace("æ", "ae").replace("ø", "o").replace("œ", "oe")
    return _NON_ALNUM.sub(" ", t).strip()


_PARTICLES: Final = frozenset(
    {"van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "le", "la", "dos", "das"}
)


def first_author_surname(authors: tuple[str, ...] | list[str]) -> str:
    """The first author's surname, folded to lower-case ASCII letters ('' when unknown)."""
    for name in authors:
        name = name.strip()
        if not name:
            continue
        if "," in name:
            surname = name.split(",", 1)[0]
        else:
            parts = name.split()
            # "Smith J" / "Smith JA" (MEDLINE style) vs "John Smith"
            if len(parts) > 1 and parts[-1].isupper() and len(parts[-1]) <= 3:
                surname = " ".join(parts[:-1])
            else:
                surname = parts[-1]
        words = _WORD.findall(_fold(surname.lower()))
        kept = [w for w in words if w not in _PARTICLES]
        return "".join(kept or words)
    return ""


def author_surnames(authors: tuple[str, ...] | list[str], limit: int = 5) -> frozenset[str]:
    """Surname words of the first ``limit`` authors (for order- and format-tolerant overlap)."""
    out: set[str] = set()
    for name in list(authors)[:limit]:
        head = name.split(",", 1)[0] if "," in name else name
        for w in _WORD.findall(_fold(head.lower())):
            if len(w) > 1 and w not in _PARTICLES:
                out.add(w)
    return frozenset(out)


def first_page(pages: str | None) -> str:
    """The first page (or article number), digits and letters only, leading zeros dropped."""
    if not pages:
        return ""
    head = re.split(r"\s*[-–—‐]+\s*|\s+", pages.strip(), maxsplit=1)[0]
    head = re.sub(r"[^0-9A-Za-z]", "", head).lower()
    return head.lstrip("0") or head


_STOP: Final = frozenset(
    {"the", "of", "and", "for", "in", "on", "a", "an", "to", "de", "et", "la", "und"}
)


def journal_key(journal: str | None) -> tuple[str, ...]:
    """Significant journal words, lower-case ASCII (stop words dropped)."""
    if not journal:
        return ()
    j = _fold(html.unescape(journal).lower()).replace("&", " ")
    return tuple(w for w in _WORD.findall(j) if w not in _STOP)


def journal_matches(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """True when one journal name abbreviates or extends the other.

    Word-by-word prefixes in order ("nat rev nephrol" ~ "nature reviews nephrology"),
    and a name extended by a part or conference suffix ("pediatric nephrology" ~
    "pediatric nephrology conference …"; "nephron" ~ "nephron clinical practice").
    """
    if not a or not b:
        return False
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if not long_[0].startswith(short[0]) and not short[0].startswith(long_[0]):
        return False
    i = 0
    for w in long_:
        if i < len(short) and (w.startswith(short[i]) or short[i].startswith(w)):
            i += 1
    return i == len(short)
