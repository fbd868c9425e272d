"""RIS: tags, reference types and the helpers shared by the tagged formats (MEDLINE, WoS).

:func:`split_lines`, :func:`clean_value`, :func:`first_year`, :func:`take_identifier`,
:func:`tag_extras` and :func:`build_paper` are used by the RIS, MEDLINE and Web of Science readers alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, Final

from litdesk.core.imports import Notice
from litdesk.core.records import Paper, PaperError, make_paper, normalize_source_id
from litdesk.core.records._paper import paper_from_fields

from ._markup import escaped_markup_text

PARSER_ID: Final = "litdesk.ris"
PARSER_VERSION: Final = "1"


def tag_set(text: str) -> frozenset[str]:
    """The set of whitespace-separated tags in ``text``."""
    return frozenset(text.split())


#: RIS reference types and the publication type litdesk records for them.
RIS_TYPES: Final[dict[str, str]] = {
    "ABST": "Abstract",
    "ADVS": "Audiovisual Material",
    "AGGR": "Aggregated Database",
    "ANCIENT": "Ancient Text",
    "ART": "Art Work",
    "BILL": "Bill",
    "BLOG": "Blog",
    "BOOK": "Book",
    "CASE": "Case",
    "CHAP": "Book Section",
    "CHART": "Chart",
    "CLSWK": "Classical Work",
    "COMP": "Computer Program",
    "CONF": "Conference Proceedings",
    "CPAPER": "Conference Paper",
    "CTLG": "Catalog",
    "DATA": "Dataset",
    "DBASE": "Online Database",
    "DICT": "Dictionary",
    "EBOOK": "Electronic Book",
    "ECHAP": "Electronic Book Section",
    "EDBOOK": "Edited Book",
    "EJOUR": "Electronic Article",
    "ELEC": "Web Page",
    "ENCYC": "Encyclopedia",
    "EQUA": "Equation",
    "FIGURE": "Figure",
    "GEN": "Generic",
    "GOVDOC": "Government Document",
    "GRANT": "Grant",
    "HEAR": "Hearing",
    "ICOMM": "Internet Communication",
    "INPR": "In Press",
    "JFULL": "Journal (full)",
    "JOUR": "Journal Article",
    "LEGAL": "Legal Rule or Regulation",
    "MANSCPT": "Manuscript",
    "MAP": "Map",
    "MGZN": "Magazine Article",
    "MPCT": "Motion Picture",
    "MULTI": "Online Multimedia",
    "MUSIC": "Music",
    "NEWS": "Newspaper Article",
    "PAMP": "Pamphlet",
    "PAT": "Patent",
    "PCOMM": "Personal Communication",
    "RPRT": "Report",
    "SER": "Serial Publication",
    "SLIDE": "Slide",
    "SOUND": "Sound Recording",
    "STAND": "Standard",
    "STAT": "Statute",
    "THES": "Thesis",
    "UNBILL": "Unenacted Bill",
    "UNPB": "Unpublished Work",
    "VIDEO": "Video Recording",
    "WEB": "Web Page",
}
_TYPE_CODES: Final = {v.lower(): k for k, v in RIS_TYPES.items()}

# Tags of the RIS specification and its common dialects (others get an unknown_tag notice).
_KNOWN_TAGS: Final = tag_set(
    "TY ER ID T1 TI CT BT T2 T3 TT ST A1 AU A2 A3 A4 A5 A6 ED Y1 PY Y2 DA N1 N2 AB KW RP "
    "JF JO JA J1 J2 VL VO IS CP SP EP CY PB SN AD AV M1 M2 M3 U1 U2 U3 U4 U5 UR L1 L2 L3 "
    "L4 LK DO AN DB DP LA CA C1 C2 C3 C4 C5 C6 C7 C8 ET NV OP RI SE SV TA IN LB PP RN WE "
    "PU PI PA JI J9 FX FU AI NL OT BN GR RS"
)
_YEAR_TAGS: Final = ("PY", "Y1", "DA")
_USED: Final = frozenset(
    {"TY", "ER", "ID", "AU", "A1", "KW", "PY", "Y1", "DA", "VL", "VO", "IS", "SP", "EP"}
    | {"DO", "AN", "C2", "UR", "AB", "N2", "TI", "T1", "JF", "JO", "T2", "JA", "J2"}
)
# Values joined with a newline on continuation (paragraph text); KW lines are new keywords.
_PARAGRAPH_TAGS: Final = frozenset({"AB", "N1", "N2"})
_LIST_CONTINUATION_TAGS: Final = frozenset({"KW"})
_TAG_FALLBACK = re.compile(r"^([A-Z][A-Z0-9])[ \t]{1,3}-[ \t]?(.*)$")
_YEAR = re.compile(r"(?<!\d)([12]\d{3})(?!\d)")
_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")
_UPPER: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_UPPER_DIGIT: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_PUBMED_DB = re.compile(r"pubmed|medline|nlm", re.IGNORECASE)
#: a page field saying there are none: "No pagination specified" (Ovid: SP "No", EP
#: "Specified", read as "No-Specified"), "No pagination", "Not specified", "unpaginated"
_NO_PAGES: Final = re.compile(
    r"(?:no|not)[ -]+(?:pagination[ -]+)?specified\.?|no[ -]+pagination\.?|unpaginated",
    re.IGNORECASE,
)
MAX_SHORT: Final = 100
MAX_NAME: Final = 2_000


# --------------------------------------------------------------------------------------
# shared helpers (MEDLINE and Web of Science use them too)


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` with CRLF, CR and LF all ending a line (numbering is 1-based+index)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def clean_value(value: str) -> str:
    """One-line form of ``value``: every line break and control character becomes a space."""
    return " ".join(_BREAKS.sub(" ", value).split())


def first_year(values: Iterable[str]) -> int | None:
    for value in values:
        m = _YEAR.search(value)
        if m:
            return int(m.group(1))
    return None


def _short(
    value: str | None, name: str, notices: list[Notice], line: int, limit: int = MAX_SHORT
) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    if len(value) > limit:
        notices.append(
            Notice("dropped_field", f"{name} longer than {limit} characters dropped", line, name)
        )
        return None
    return value


def take_identifier(
    values: Iterable[str],
    norm: Any,
    label: str,
    notices: list[Notice],
    *,
    line: int,
    field: str,
) -> str | None:
    """The first value that normalises; every value that does not gets a notice."""
    found: str | None = None
    for value in values:
        if not value.strip():
            continue
        out = norm(value)
        if out is None:
            notices.append(
                Notice(
                    "malformed_identifier", f"{label} not understood: {value[:80]!r}", line, field
                )
            )
        elif found is None:
            found = out
    return found


def tag_extras(
    fields: dict[str, list[str]],
    used: frozenset[str],
    known: frozenset[str],
    notices: list[Notice],
    line_of: Callable[[str], int],
) -> dict[str, list[str]]:
    """The tags of ``fields`` the Paper does not carry (not in ``used``), in file order.

    Each tag outside ``known`` gets an ``unknown_tag`` notice at ``line_of(tag)``.
    """
    if not fields.keys() - used:
        return {}
    extras = {tag: values for tag, values in fields.items() if tag not in used}
    for tag in extras:
        if tag not in known:
            notices.append(
                Notice("unknown_tag", f"unknown tag {tag} kept in extras", line_of(tag), tag)
            )
    return extras


def build_paper(
    fields: dict[str, Any],
    *,
    digest: str,
    line: int,
    notices: list[Notice],
    source_id: str | None = None,
) -> Paper:
    """A Paper from parsed fields, never raising: oversize values are dropped with a notice.

    ``fields`` may hold title, authors, journal, year, volume, issue, pages, doi, pmid,
    pmcid, openalex_id, arxiv_id, abstract, keywords, publication_types, source_url.
    Identifiers must already be normalised (see :func:`take_identifier`).
    """
    for name in ("title", "abstract"):  # markup that arrived HTML-escaped, made plain
        if isinstance(value := fields.get(name), str):
            fields[name] = escaped_markup_text(value)
    pages = fields.get("pages")
    if pages is not None and _NO_PAGES.fullmatch(pages.strip()):
        # Ovid writes "No pagination specified" as SP "No" and EP "Specified"
        notices.append(
            Notice("dropped_field", f"pages {pages[:40]!r} name no page; dropped", line, "pages")
        )
        del fields["pages"]
    for name in ("volume", "issue", "pages"):
        value = fields.get(name)
        if value is not None:
            fields[name] = _short(value, name, notices, line)
    journal = fields.get("journal")
    if journal is not None:
        fields["journal"] = journal[:MAX_NAME] or None
    for name in ("authors", "keywords", "publication_types"):
        values = fields.get(name)
        if values and max(map(len, values)) > MAX_NAME:  # Paper drops empty ones itself
            fields[name] = [v[:MAX_NAME] for v in values]
    year = fields.get("year")
    if year is not None and not 1000 <= year <= 2999:
        notices.append(Notice("dropped_field", f"year {year} out of range", line, "year"))
        fields["year"] = None
    sid = normalize_source_id(source_id) if source_id and "-" in source_id else None
    try:
        return paper_from_fields(fields, source_id=sid, fallback_key=digest)
    except PaperError as exc:
        notices.append(Notice("dropped_field", f"fields dropped: {exc.message[:300]}", line))
        keep = {k: fields[k] for k in ("title", "authors", "year") if k in fields}
        try:
            return make_paper(fallback_key=digest, **keep)
        except PaperError:
            return make_paper(fallback_key=digest)


def _tag_of(line: str) -> tuple[str, str] | None:
    """``(tag, value)`` of a tag line, or ``None`` for an untagged line."""
    if line[2:5] == "  -" and line[0] in _UPPER and line[1] in _UPPER_DIGIT:
        rest = line[5:]
        if not rest:
            return line[:2], ""
        if rest[0] in " \t":
            return line[:2], rest[1:].strip()
    if len(line) < 4 or line[0] not in _UPPER:
        return None
    m = _TAG_FALLBACK.match(line.rstrip())
    # a non-standard separator ("TY - JOUR", "AB  -text") is a tag only for a known tag, so a
    # continuation line such as "US - based cohort" stays text
    if m is None or m.group(1) not in _KNOWN_TAGS:
        return None
    return m.group(1), (m.group(2) or "").strip()
