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
from dataclasses import dataclass
from typing import Final, Literal

__all__ = [
    "REGISTRY_NAMESPACES",
    "TitleInfo",
    "TitleKind",
    "author_surnames",
    "first_author_names",
    "first_author_surname",
    "first_page",
    "journal_key",
    "journal_matches",
    "normalize_title",
    "page_range",
    "parse_title",
    "registry_ids",
    "title_info",
    "title_key",
    "volume_key",
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


def _strip_notes(title: str) -> str:
    """Drop database annotations at the end of a title: "[Review]", "[French]",
    "[Erratum appears in … Note: X [added]]" (nested brackets), and a note cut off by a
    field-length limit ("… syndrome.[Erratum appears in J Pediatr. 2003 Jun"); a title
    entirely in brackets (a translated title) keeps its content."""
    for _ in range(6):
        t = title.rstrip(" .\t")
        if t.endswith("]"):
            depth, pos = 0, -1
            for i in range(len(t) - 1, max(-1, len(t) - 402), -1):
                c = t[i]
                if c == "]":
                    depth += 1
                elif c == "[":
                    depth -= 1
                    if depth == 0:
                        pos = i
                        break
            if pos == 0:
                inner = t[1:-1].strip()
                return inner if len(inner) >= 8 else title
            if pos < 0:
                break
            title = t[:pos]
            continue
        cut = t.rfind("[")
        if cut >= 12 and "]" not in t[cut:]:
            title = t[:cut]  # an unterminated note: truncated by the exporter
            continue
        break
    return title.lstrip("[").replace("]", " ")


#: Kinds of records a title can announce (see :func:`title_info`).
TitleKind = Literal["article", "correction", "reply", "letters"]

_CORRECTION_PREFIX: Final = re.compile(
    r"^\s*(?:(?:erratum|errata|corrigendum|correction|addendum)(?:\s+(?:to|for|of|on))?"
    r"\s*[:\-–—.]+|corrigendum\s+to\b|erratum\s+to\b)\s*",
    re.IGNORECASE,
)
#: Web of Science's correction title: "Original title (vol 85, pg 553, 2010)"
_WOS_CITE: Final = re.compile(
    r"(?<!\s)\s*\(\s*vol\.?\s*([0-9a-z]+)\s*,\s*pg\.?\s*([a-z]?\d+[a-z]?)\s*,\s*\d{4}\s*\)\s*\.?\s*$",
    re.IGNORECASE,
)
#: Embase's correction title: "Original title (Journal Name (2009) 360 (542-544))"
_EMBASE_CITE: Final = re.compile(
    r"(?<!\s)\s*\(\s*[A-Za-z][^()]{3,}?\s*\(\s*(?:[A-Za-z]+\.?\s+)?(?:\d{1,2}\s+)?\d{4}\s*\)\s*"
    r"([0-9A-Za-z]+)\s*(?:\(\s*([A-Za-z]?\d+)[^()]*\))?\s*\)\s*\.?\s*$"
)
#: MEDLINE's note on the corrected article: "[Erratum appears in J. 2010 Nov;85(11):911]"
_ERRATUM_NOTE: Final = re.compile(
    r"erratum\s+(?:appears\s+)?in:?\s+[^;\[\]]{0,120};\s*([0-9A-Za-z]+)\s*"
    r"(?:\(\s*([^()]{0,20})\s*\))?\s*:\s*([A-Za-z]?\d+)",
    re.IGNORECASE,
)
#: a reply or comment: "… - Reply", "… AUTHORS REPLY", "… - Reply to Smith et al",
#: "… Editorial Comment", "Reply to: …", "In reply: …", "Comment on: …"
_REPLY_SUFFIX: Final = re.compile(
    r"(?<!\s)\s*[-–—:.]\s*(?:the\s+)?(?:authors?'?s?\s+)?(?:reply|in\s+reply)"
    r"(?:\s+to\s+[^.()]{1,60})?\s*\.?\s*$"
    r"|(?<!\s)\s*[-–—:.]\s*(?:the\s+)?(?:authors?'?s?\s+)?(?:response|comment)\s*\.?\s*$"
    r"|(?<!\s)\s+authors?'?s?\s+(?:reply|response)\s*\.?\s*$"
    r"|(?<!\s)\s+editorial\s+comment\s*\.?\s*$",
    re.IGNORECASE,
)
_REPLY_PREFIX: Final = re.compile(
    r"^\s*(?:in\s+reply|reply(?:\s+to)?|response(?:\s+to)?|comments?\s+on|re)\s*:\s*",
    re.IGNORECASE,
)
_LETTERS: Final = re.compile(r"(?<!\s)\s*[(\[]\s*multiple\s+letters\s*[)\]]", re.IGNORECASE)
#: journal section labels appended to titles by some databases
_SECTION_SUFFIX: Final = re.compile(
    r"(?<!\s)\s*[:.\-–—]\s*(?:brief|short|rapid)\s+(?:communication|report)\s*\.?\s*$"
    r"|(?<!\s)\s*[:.\-–—]\s*(?:letter\s+to\s+the\s+editor|research\s+letter|original\s+article)"
    r"\s*\.?\s*$",
    re.IGNORECASE,
)


class _Hint:
    """A case-insensitive pre-check of a lower-case ``pattern``: ASCII text is
    lower-cased and searched without IGNORECASE (several times faster: the scan skips by
    first character), other text with IGNORECASE (which also folds "ſ", "K", "İ"). Both
    give the same answer on ASCII text."""

    __slots__ = ("_ascii", "_folded")

    def __init__(self, pattern: str) -> None:
        self._ascii = re.compile(pattern)
        self._folded = re.compile(pattern, re.IGNORECASE)

    def __call__(self, text: str) -> bool:
        if text.isascii():
            return self._ascii.search(text.lower()) is not None
        return self._folded.search(text) is not None


_MARKER_HINT: Final = _Hint(r"[(\[]|reply|response|comment|errat|corr|addend|communic|lett|origin")


@dataclass(frozen=True, slots=True)
class TitleInfo:
    """What a title says about its record besides the work's title.

    ``base`` is the title without database notes and markers; ``kind`` is what the
    record is (a correction notice, a reply or comment, an Embase record of several
    letters, or an ordinary item); ``cites`` the (volume, first page) of the article a
    correction notice corrects; ``erratum_in`` the (volume, issue, page) of errata that a
    MEDLINE note on the corrected article points to.
    """

    base: str
    kind: TitleKind = "article"
    cites: tuple[tuple[str, str], ...] = ()
    erratum_in: tuple[tuple[str, str, str], ...] = ()


_MAX_TITLE: Final = 2000


def _cut_unclosed_paren(title: str) -> str:
    """Cut a correction notice's truncated trailing citation at its first unclosed "("."""
    stack: list[int] = []
    for i, c in enumerate(title):
        if c == "(":
            stack.append(i)
        elif c == ")" and stack:
            stack.pop()
    if stack and stack[0] >= 12:
        return title[: stack[0]]
    return title


def title_info(title: str | None) -> TitleInfo:
    """Split ``title`` into the work's title and what the record is (pure, never raises)."""
    if not title:
        return TitleInfo("")
    if not _MARKER_HINT(title):
        return TitleInfo(title)
    title = " ".join(title[:_MAX_TITLE].split())  # bounded work for the patterns below
    notes = tuple(
        (m.group(1).lower().lstrip("0"), (m.group(2) or "").strip().lower(), first_page(m.group(3)))
        for m in _ERRATUM_NOTE.finditer(title)
    )
    t = _strip_notes(title)
    kind: TitleKind = "article"
    cites: list[tuple[str, str]] = []
    if _LETTERS.search(t):
        kind = "letters"
        t = _LETTERS.sub(" ", t)
    m = _CORRECTION_PREFIX.match(t)
    if m and len(t) - m.end() >= 12:
        kind = "correction"
        t = t[m.end() :]
    for cite in (_WOS_CITE, _EMBASE_CITE):
        c = cite.search(t)
        if c and c.start() >= 12:
            kind = "correction"
            cites.append((c.group(1).lower().lstrip("0"), first_page(c.group(2))))
            t = t[: c.start()]
    if kind == "correction" and not cites:
        t = _cut_unclosed_paren(t)
    if kind == "article":
        r = _REPLY_SUFFIX.search(t)
        if r and r.start() >= 12:
            kind, t = "reply", t[: r.start()]
        else:
            r = _REPLY_PREFIX.match(t)
            if r and len(t) - r.end() >= 12:
                kind, t = "reply", t[r.end() :]
    s = _SECTION_SUFFIX.search(t)
    if s and s.start() >= 12:
        t = t[: s.start()]
    return TitleInfo(t, kind, tuple(cites), notes)


def parse_title(title: str | None) -> tuple[str, TitleInfo]:
    """A raw title's comparison key (:func:`normalize_title`) and what it says about its
    record (:func:`title_info` of the title without HTML/XML tags and entities)."""
    if not title:
        return "", TitleInfo("")
    info = title_info(html.unescape(_TAGS.sub(" ", title)))
    return title_key(info.base), info


def normalize_title(title: str | None) -> str:
    """A comparison key: lower-case ASCII words separated by single spaces (database
    notes, correction/reply markers and section labels removed; see :func:`title_info`)."""
    return parse_title(title)[0]


def title_key(title: str) -> str:
    """The comparison key of a title whose notes and markers are already removed."""
    t = _LATEX_GREEK.sub(lambda m: " " + m.group(1).lower() + " ", title)
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


def _first_author_words(authors: tuple[str, ...] | list[str]) -> list[str]:
    """The first author's surname words, lower-case ASCII, particles kept."""
    for name in authors:
        name = name.strip()
        if not name:
            continue
        if "," in name:
            surname, rest = name.split(",", 1)
            words = _WORD.findall(_fold(surname.lower()))
            if words and words[-1] in _PARTICLES:
                # "Le, Quintrec M." / "Goicoechea de, Jorge E.": a particle split off by a
                # database; the surname continues after the comma
                following = _WORD.findall(_fold(rest.lower()))
                if following and len(following[0]) > 1:
                    words.append(following[0])
            return words
        parts = name.split()
        # "Smith J" / "Smith JA" (MEDLINE style) vs "John Smith"
        if len(parts) > 1 and parts[-1].isupper() and len(parts[-1]) <= 3:
            surname = " ".join(parts[:-1])
        else:
            surname = parts[-1]
        return _WORD.findall(_fold(surname.lower()))
    return []


def first_author_surname(authors: tuple[str, ...] | list[str]) -> str:
    """The first author's surname, folded to lower-case ASCII letters ('' when unknown)."""
    words = _first_author_words(authors)
    kept = [w for w in words if w not in _PARTICLES]
    return "".join(kept or words)


def first_author_names(authors: tuple[str, ...] | list[str]) -> frozenset[str]:
    """The words of the first author's surname (particles dropped), so that variants of a
    compound surname compare: "Goicoechea de Jorge, E." ~ "de Jorge, E. G."."""
    words = _first_author_words(authors)
    return frozenset(w for w in words if w not in _PARTICLES and len(w) > 1)


def first_author_words(authors: tuple[str, ...] | list[str]) -> frozenset[str]:
    """Every word (of two letters or more) of the first author's whole name, so that a
    name exported with its parts swapped compares ("Ching-yi, Wu" ~ "Wu, Ching-yi")."""
    for name in authors:
        if name.strip():
            return frozenset(w for w in _WORD.findall(_fold(name.lower())) if len(w) > 1)
    return frozenset()


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
    head = re.split(r"(?<!\s)(?:\s*[-–—‐]+\s*|\s+)", pages.strip(), maxsplit=1)[0]
    head = re.sub(r"[^0-9A-Za-z]", "", head).lower()
    return head.lstrip("0") or head


_PAGE_RANGE: Final = re.compile(r"^\s*[A-Za-z]?(\d{1,7})\s*(?:[-–—‐]+\s*[A-Za-z]?(\d{1,7}))?")


def page_range(pages: str | None) -> tuple[int, int] | None:
    """First and last page as numbers ("943-5" → (943, 945)); None when not numeric."""
    if not pages:
        return None
    m = _PAGE_RANGE.match(pages)
    if not m:
        return None
    first = int(m.group(1))
    last_s = m.group(2)
    if not last_s:
        return first, first
    last = int(last_s)
    if last < first and len(last_s) < len(m.group(1)):  # abbreviated: 943-5
        head = m.group(1)[: len(m.group(1)) - len(last_s)]
        last = int(head + last_s)
    return (first, last) if last >= first else (first, first)


_DIGITS: Final = re.compile(r"\d+")
_ROMAN: Final = re.compile(r"[ivxlcdm]+")


def volume_key(volume: str | None) -> str:
    """The volume's number when it has one ("Drug Discovery. 9" → "9", "145 Suppl 1" →
    "145": a journal name or supplement spilled into the field); '' without a number."""
    v = (volume or "").strip().lower()
    m = _DIGITS.search(v)
    if m is None:
        # a Roman numeral is a volume; "(Jul)", "Ph.D.": no number, nothing to compare
        return v if _ROMAN.fullmatch(v) else ""
    if not v.isdigit():
        return m.group(0).lstrip("0") or "0"
    return v.lstrip("0") or "0"


#: Trial registry numbers (a record's own registration when in its title, journal or
#: abstract field); namespace → pattern. Different numbers in one namespace conflict.
_REGISTRY: Final = {
    "nct": re.compile(r"\bNCT\s?(\d{8})\b", re.IGNORECASE),
    "isrctn": re.compile(r"\bISRCTN\s?(\d{8})\b", re.IGNORECASE),
    "eudract": re.compile(r"\b(\d{4}-\d{6}-\d{2})\b"),
    "actrn": re.compile(r"\bACTRN\s?(\d{14})\b", re.IGNORECASE),
    "drks": re.compile(r"\bDRKS\s?(\d{8})\b", re.IGNORECASE),
    "chictr": re.compile(r"\bChiCTR[-‐]?([A-Z]{0,4}-?\d{6,10})\b", re.IGNORECASE),
    "prospero": re.compile(r"\bCRD\s?(42\d{9})\b", re.IGNORECASE),  # review protocols
}
#: The namespaces :func:`registry_ids` returns.
REGISTRY_NAMESPACES: Final = tuple(_REGISTRY)
_REGISTRY_HINT: Final = _Hint(r"nct|isrctn|actrn|drks|chictr|crd|\d{4}-\d{6}-\d{2}")


def registry_ids(*texts: str | None) -> dict[str, set[str]]:
    """Trial registry numbers found in ``texts``: {"nct": {"01223521"}, …}."""
    out: dict[str, set[str]] = {}
    for text in texts:
        if not text or not _REGISTRY_HINT(text):
            continue
        for ns, pat in _REGISTRY.items():
            for m in pat.finditer(text):
                out.setdefault(ns, set()).add(m.group(1).upper())
    return out


_STOP: Final = frozenset(
    {"the", "of", "and", "for", "in", "on", "a", "an", "to", "de", "et", "la", "und"}
)


def journal_key(journal: str | None) -> tuple[str, ...]:
    """Significant journal words, lower-case ASCII (stop words dropped)."""
    if not journal:
        return ()
    j = _fold(html.unescape(journal).lower()).replace("&", " ")
    return tuple(w for w in _WORD.findall(j) if w not in _STOP)


def _prefix_match(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if not long_[0].startswith(short[0]) and not short[0].startswith(long_[0]):
        return False
    i = 0
    for w in long_:
        if i < len(short) and (w.startswith(short[i]) or short[i].startswith(w)):
            i += 1
    return i == len(short)


def _conference(k: tuple[str, ...]) -> tuple[str, ...]:
    """The meeting part of an Embase venue "Journal.Conference: 23rd Congress of …"."""
    if "conference" in k:
        return k[k.index("conference") + 1 :]
    return ()


def journal_matches(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """True when one journal name abbreviates or extends the other.

    Word-by-word prefixes in order ("nat rev nephrol" ~ "nature reviews nephrology"),
    a name extended by a part or conference suffix ("pediatric nephrology" ~
    "pediatric nephrology conference …"; "nephron" ~ "nephron clinical practice"), and a
    meeting named in both (Embase's "Journal.Conference: 23rd Congress of X" ~ "23rd
    Congress of X", at least three words).
    """
    if not a or not b:
        return False
    if a == b or _prefix_match(a, b):
        return True
    ca, cb = _conference(a), _conference(b)
    return any(
        len(x) >= 3 and len(y) >= 3 and _prefix_match(x, y)
        for x, y in ((ca, b), (a, cb), (ca, cb))
        if x and y
    )
