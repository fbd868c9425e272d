"""RIS: import of every common dialect and export.

Read: PubMed/EndNote, Scopus, Web of Science, Embase and Ovid, Zotero, Mendeley,
Rayyan (untagged continuation lines), EBSCOhost, Dimensions, Lens, IEEE, JSTOR. Junk
and header lines between records (``Record #1 of 2``, ``Provider: …``, Ovid's numbered
``1.`` lines) are skipped with a notice; mixed CR/LF/CRLF line ends are read; a last
record without ``ER`` is read with an ``unterminated`` notice. Every tag the Paper does
not carry is kept in the record's ``extras``.

Write: ``TY`` (JOUR, UNPB for preprints, BOOK, CHAP, CONF, THES, RPRT, …), ``TI``, one
``AU`` per author, ``JO``, ``PY``, ``VL``, ``IS``, ``SP``/``EP``, ``DO``, ``AN`` (PMID),
``C2`` (PMCID), ``UR`` (arXiv/OpenAlex/source links), ``AB``, ``KW``, ``N1`` (retraction
and retrieval note), ``ID`` (the litdesk id), ``ER``. Line breaks and control characters
inside values are collapsed to spaces, so no value can start a tag line.

The helpers at the bottom (:func:`split_lines`, :func:`build_paper`, …) are shared by
the other tagged formats (MEDLINE, Web of Science).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Final

from litdesk.core.imports import Notice, RecordTrace, digest_bytes
from litdesk.core.records import (
    Paper,
    PaperError,
    make_paper,
    normalize_arxiv,
    normalize_doi,
    normalize_openalex_id,
    normalize_pmcid,
    normalize_pmid,
    normalize_source_id,
)

from ._spec import FormatSpec, ParseResult

__all__ = [
    "FORMATS",
    "RIS_TYPES",
    "build_paper",
    "clean_value",
    "dumps",
    "parse",
    "sniff",
    "split_lines",
]

PARSER_ID: Final = "litdesk.ris"


def tag_set(text: str) -> frozenset[str]:
    """The set of whitespace-separated tags in ``text``."""
    return frozenset(text.split())


PARSER_VERSION: Final = "1"

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
_TITLE_TAGS: Final = ("TI", "T1", "CT", "BT")
_AUTHOR_TAGS: Final = ("AU", "A1")
_JOURNAL_TAGS: Final = ("JF", "JO", "T2", "JA", "J2", "J1", "BT")
_YEAR_TAGS: Final = ("PY", "Y1", "DA")
_ABSTRACT_TAGS: Final = ("AB", "N2")
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
    for name in ("volume", "issue", "pages"):
        if name in fields:
            fields[name] = _short(fields[name], name, notices, line)
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
        return make_paper(source_id=sid, fallback_key=digest, **fields)
    except PaperError as exc:
        notices.append(Notice("dropped_field", f"fields dropped: {exc.message[:300]}", line))
        keep = {k: fields[k] for k in ("title", "authors", "year") if k in fields}
        try:
            return make_paper(fallback_key=digest, **keep)
        except PaperError:
            return make_paper(fallback_key=digest)


# --------------------------------------------------------------------------------------
# reading


def sniff(head: str) -> int:
    """Confidence that ``head`` is RIS: a ``TY  -`` line and an ``ER  -`` line, or close."""
    lines = split_lines(head[:65536])
    ty = er = tagged = 0
    for line in lines[:4000]:
        tag = _tag_of(line)
        if tag is None:
            continue
        tagged += 1
        if tag[0] == "TY":
            ty += 1
        elif tag[0] == "ER":
            er += 1
    if ty and er:
        return 90
    if ty and tagged >= 2:
        return 70
    if er and tagged >= 3:
        return 50
    return 0


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


class _Record:
    __slots__ = ("cont", "fields", "first", "last_tag", "lines", "notices", "start")

    def __init__(self, first: int, start: int) -> None:
        self.first = first
        self.start = start
        self.fields: dict[str, list[str]] = {}
        self.lines: dict[str, int] = {}
        self.notices: list[Notice] = []
        self.last_tag: str | None = None
        # continuation lines, joined once at the end (linear however many lines there are)
        self.cont: dict[tuple[str, int], list[str]] | None = None

    def add(self, tag: str, value: str, index: int) -> None:
        self.last_tag = tag
        if tag not in self.lines:
            self.lines[tag] = index + 1
        if value:
            values = self.fields.get(tag)
            if values is None:
                self.fields[tag] = [value]
            else:
                values.append(value)

    def extend(self, text: str) -> None:
        tag = self.last_tag
        assert tag is not None
        values = self.fields.get(tag)
        if values is None:
            self.fields[tag] = [text]
        elif tag in _LIST_CONTINUATION_TAGS:
            values.append(text)
        else:
            if self.cont is None:
                self.cont = {}
            self.cont.setdefault((tag, len(values) - 1), []).append(text)

    def join_continuations(self) -> None:
        if self.cont is None:
            return
        for (tag, index), parts in self.cont.items():
            values = self.fields[tag]
            sep = "\n" if tag in _PARAGRAPH_TAGS else " "
            values[index] = sep.join([values[index], *parts])
        self.cont = None


class _Junk:
    """Lines outside any record, counted (not stored) between two records."""

    __slots__ = ("count", "first", "last")

    def __init__(self) -> None:
        self.count = self.first = self.last = 0

    def add(self, index: int) -> None:
        if not self.count:
            self.first = index
        self.last = index
        self.count += 1

    def notice(self) -> Notice:
        first, last, n = self.first + 1, self.last + 1, self.count
        where = f"line {first}" if first == last else f"lines {first}–{last}"
        return Notice(
            "skipped", f"{n} line{'s' if n > 1 else ''} outside any record skipped ({where})", first
        )


# One well-formed record: "TY  -" first, standard "XX  - value" lines, "ER  -" last, after
# any number of empty lines, and not followed by a tag line that would be read into it
# (Ovid writes one after ER). Such records are read without the line-by-line machine.
_CLEAN_RECORD = re.compile(
    r"\n*(TY  -(?:[ \t][^\n]*)?\n(?:(?!TY|ER)[A-Z][A-Z0-9]  -(?:[ \t][^\n]*)?\n)*"
    r"ER  -(?:[ \t][^\n]*)?)(?:\n|\Z)(?!(?!TY)[A-Z][A-Z0-9][ \t]{1,3}-)"
)
# A standard tag line; the value comes out stripped as ``str.strip()`` strips (``\s`` of a
# str pattern is exactly ``str.isspace``), without crossing the line end.
_TAG_LINE = re.compile(
    r"^([A-Z][A-Z0-9])  -(?:[ \t][^\S\n]*((?:[^\n]*\S)?))?[^\S\n]*$", re.MULTILINE
)


def parse(text: str) -> ParseResult:
    """Read every RIS record of ``text`` (see the module docstring for the dialects)."""
    return _parse(text)


def _parse(text: str, *, fast: bool = True) -> ParseResult:
    """``parse``; ``fast=False`` reads every line with the general machine (tests compare)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    reader = _Reader(text)
    records = reader.records
    n = len(text)
    pos = 0  # start of line ``i``
    i = 0
    clean = _CLEAN_RECORD.match if fast else None
    tag_lines = _TAG_LINE.findall
    while pos < n:
        if clean is not None and reader.cur is None and (m := clean(text, pos)) is not None:
            if reader.pending is not None:
                reader.finish_pending()
            if reader.junk.count:
                reader.flush_junk()
            start, end = m.span(1)
            i += start - pos  # the empty lines before it
            rec = _Record(i, start)
            fields = rec.fields
            seen = rec.lines
            k = i
            for tag, value in tag_lines(text, start, end):
                k += 1
                if tag not in seen:
                    seen[tag] = k
                if value:
                    values = fields.get(tag)
                    if values is None:
                        fields[tag] = [value]
                    else:
                        values.append(value)
            fields.pop("ER", None)  # the ER line ends the record; its value is not kept
            del seen["ER"]
            # k - 1 is the ER line's index
            records.append(_finish(rec, text, k - 1, end))
            pos = m.end()
            i = k
            continue
        nl = text.find("\n", pos)
        if nl == -1:
            nl = n
        reader.line(text[pos:nl], i, pos)
        pos = nl + 1
        i += 1
    return reader.result()


class _Reader:
    """The line-by-line machine: every dialect, junk lines, continuations, missing ER."""

    __slots__ = (
        "cur",
        "junk",
        "last_content",
        "last_end",
        "notices",
        "pending",
        "pending_end",
        "pending_last",
        "records",
        "text",
    )

    def __init__(self, text: str) -> None:
        self.text = text
        self.records: list[RecordTrace] = []
        self.notices: list[Notice] = []
        self.cur: _Record | None = None
        self.pending: _Record | None = None  # ended by ER; Ovid puts a tag (NL) right after ER
        self.pending_last = self.pending_end = 0
        self.junk = _Junk()
        self.last_content = self.last_end = 0

    def finish_pending(self) -> None:
        assert self.pending is not None
        self.records.append(_finish(self.pending, self.text, self.pending_last, self.pending_end))
        self.pending = None

    def flush_junk(self) -> None:
        self.notices.append(self.junk.notice())
        self.junk = _Junk()

    def line(self, line: str, i: int, start: int) -> None:
        # fast path for the standard "XX  - value" form, regex fallback for the rest
        tagged: tuple[str, str] | None
        if line[2:5] == "  -" and line[0] in _UPPER and line[1] in _UPPER_DIGIT:
            rest = line[5:]
            if not rest:
                tagged = (line[:2], "")
            elif rest[0] == " " or rest[0] == "\t":
                tagged = (line[:2], rest[1:].strip())
            else:
                tagged = _tag_of(line)
        else:
            tagged = _tag_of(line) if line else None
        pending = self.pending
        if pending is not None:
            if tagged is not None and tagged[0] not in ("TY", "ER") and i == self.pending_last + 1:
                pending.add(tagged[0], tagged[1], i)
                pending.notices.append(
                    Notice("other", f"tag {tagged[0]} after ER read into the record", i + 1)
                )
                self.pending_last, self.pending_end = i, start + len(line)
                return
            self.finish_pending()
        cur = self.cur
        if cur is None:
            if tagged is None or tagged[0] == "ER":
                if line.strip():
                    self.junk.add(i)
                return
            if self.junk.count:
                self.flush_junk()
            cur = self.cur = _Record(i, start)
            cur.add(tagged[0], tagged[1], i)
            self.last_content, self.last_end = i, start + len(line)
            if tagged[0] != "TY":
                cur.notices.append(
                    Notice("other", "record starts without a TY line", i + 1, tagged[0])
                )
            return
        if tagged is None:
            stripped = line.strip()
            if stripped:
                if cur.last_tag is None:
                    self.junk.add(i)
                else:
                    cur.extend(stripped)
                    self.last_content, self.last_end = i, start + len(line)
            return
        tag, value = tagged
        if tag == "ER":
            self.pending, self.pending_last, self.pending_end = cur, i, start + len(line)
            self.cur = None
            return
        if tag == "TY" and "TY" in cur.lines:
            cur.notices.append(
                Notice(
                    "unterminated",
                    "record has no ER line; read up to the next TY",
                    self.last_content + 1,
                )
            )
            self.records.append(_finish(cur, self.text, self.last_content, self.last_end))
            cur = self.cur = _Record(i, start)
        cur.add(tag, value, i)
        self.last_content, self.last_end = i, start + len(line)

    def result(self) -> ParseResult:
        if self.pending is not None:
            self.finish_pending()
        cur = self.cur
        if cur is not None:
            cur.notices.append(
                Notice(
                    "unterminated", "last record has no ER line; read anyway", self.last_content + 1
                )
            )
            self.records.append(_finish(cur, self.text, self.last_content, self.last_end))
            self.cur = None
        if self.junk.count:
            self.flush_junk()
        return ParseResult(records=self.records, notices=self.notices)


def _finish(rec: _Record, text: str, last: int, end: int) -> RecordTrace:
    rec.join_continuations()
    raw = text[rec.start : end]
    digest = digest_bytes(raw.encode("utf-8"))
    f = rec.fields
    notices = rec.notices
    at = rec.lines
    first_line = rec.first + 1

    def line_of(tag: str) -> int:
        return at.get(tag, first_line)

    paper_fields: dict[str, Any] = {}
    for tag in _TITLE_TAGS:
        if tag in f:
            paper_fields["title"] = f[tag][0]  # Paper removes control characters
            break
    authors: list[str] = []
    for tag in _AUTHOR_TAGS:
        if tag in f:
            authors.extend(f[tag])
    if authors:
        paper_fields["authors"] = authors
    for tag in _JOURNAL_TAGS:
        if tag in f:
            paper_fields["journal"] = f[tag][0]
            break
    year_values: list[str] = []
    for tag in _YEAR_TAGS:
        if tag in f:
            year_values.extend(f[tag])
    if year_values:
        year = first_year(year_values)
        if year is None:
            notices.append(
                Notice("dropped_field", f"no year in {year_values[0][:40]!r}", line_of("PY"), "PY")
            )
        else:
            paper_fields["year"] = year
    if "VL" in f or "VO" in f:
        paper_fields["volume"] = (f.get("VL") or f["VO"])[0]
    if "IS" in f:
        paper_fields["issue"] = f["IS"][0]
    sp = f.get("SP")
    if sp:
        ep = f.get("EP")
        paper_fields["pages"] = f"{sp[0]}-{ep[0]}" if ep and "-" not in sp[0] else sp[0]
    if "DO" in f:
        doi = take_identifier(
            f["DO"], normalize_doi, "DOI", notices, line=line_of("DO"), field="DO"
        )
        if doi:
            paper_fields["doi"] = doi
    if "AN" in f:
        an = f["AN"][0]
        db = " ".join(f.get("DB", []) + f.get("DP", []))
        if an.lower().startswith("pmid") or (an.isdigit() and (not db or _PUBMED_DB.search(db))):
            pmid = normalize_pmid(an)
            if pmid:
                paper_fields["pmid"] = pmid
    if "C2" in f:
        for value in f["C2"]:
            if value.strip().upper().startswith("PMC") and (pmcid := normalize_pmcid(value)):
                paper_fields["pmcid"] = pmcid
                break
    source_url: str | None = None
    for value in f.get("UR", ()):
        for url in value.replace(";", " ").split():
            if "openalex.org/" in url and (w := normalize_openalex_id(url)):
                paper_fields.setdefault("openalex_id", w)
            elif "arxiv.org/" in url and (a := normalize_arxiv(url)):
                paper_fields.setdefault("arxiv_id", a)
            elif source_url is None and url.startswith("https://"):
                source_url = url
    if source_url:
        paper_fields["source_url"] = source_url
    for tag in _ABSTRACT_TAGS:
        if tag in f:
            paper_fields["abstract"] = "\n".join(f[tag])
            break
    if "KW" in f:
        paper_fields["keywords"] = f["KW"]
    if "TY" in f:
        code = f["TY"][0].upper()
        paper_fields["publication_types"] = [RIS_TYPES.get(code, code)]
    extras: dict[str, list[str]] = {}
    for tag, values in f.items():
        if tag in _USED:
            continue
        extras[tag] = values
        if tag not in _KNOWN_TAGS:
            notices.append(
                Notice("unknown_tag", f"unknown tag {tag} kept in extras", line_of(tag), tag)
            )
    source_id = f["ID"][0] if "ID" in f else None
    paper = build_paper(
        paper_fields, digest=digest, line=first_line, notices=notices, source_id=source_id
    )
    return RecordTrace(
        digest=digest,
        first_line=first_line,
        last_line=last + 1,
        paper=paper,
        raw=raw,
        source_id=source_id,
        notices=tuple(notices),
        extras=extras,
    )


# --------------------------------------------------------------------------------------
# writing


def _type_code(ptype: str) -> str | None:
    low = ptype.strip().lower()
    if low.upper() in RIS_TYPES:
        return low.upper()
    if low in _TYPE_CODES:
        return _TYPE_CODES[low]
    for words, code in _TYPE_WORDS:
        if any(w in low for w in words):
            return code
    return None


_TYPE_WORDS: Final = (
    (("preprint", "posted-content", "posted content"), "UNPB"),
    (("chapter", "book-section", "book section"), "CHAP"),
    (("proceedings", "conference"), "CONF"),
    (("book",), "BOOK"),
    (("thesis", "dissertation"), "THES"),
    (("dataset",), "DATA"),
    (("journal", "article", "review", "letter", "editorial"), "JOUR"),
    (("report",), "RPRT"),
)


def ris_type(paper: Paper) -> str:
    """The RIS ``TY`` for a paper (``UNPB`` for preprints, ``JOUR`` by default)."""
    codes = [c for c in map(_type_code, paper.publication_types) if c]
    if "UNPB" in codes:
        return "UNPB"
    if codes:
        return codes[0]
    if paper.arxiv_id and not paper.journal:
        return "UNPB"
    return "JOUR"


def _line(out: list[str], tag: str, value: str | None) -> None:
    if value is None:
        return
    text = clean_value(value)
    if text:
        out.append(f"{tag}  - {text}")


def dumps(papers: Sequence[Paper], *, abstracts: bool = True) -> str:
    """RIS text for ``papers`` (one record each, ``ER`` after each, LF line ends).

    ``ID`` carries the litdesk id, written once per export so the file re-imports
    without a duplicate-id refusal when the same paper is listed twice.
    """
    out: list[str] = []
    written: set[str] = set()
    for paper in papers:
        out.append(f"TY  - {ris_type(paper)}")
        _line(out, "TI", paper.title)
        for author in paper.authors:
            _line(out, "AU", author)
        _line(out, "JO", paper.journal)
        if paper.year is not None:
            out.append(f"PY  - {paper.year}")
        _line(out, "VL", paper.volume)
        _line(out, "IS", paper.issue)
        if paper.pages:
            sp, sep, ep = paper.pages.partition("-")
            _line(out, "SP", sp if sep and sp.strip() and ep.strip() else paper.pages)
            if sep and sp.strip() and ep.strip():
                _line(out, "EP", ep)
        _line(out, "DO", paper.doi)
        _line(out, "AN", paper.pmid)
        _line(out, "C2", paper.pmcid)
        if paper.arxiv_id:
            _line(out, "UR", f"https://arxiv.org/abs/{paper.arxiv_id}")
        if paper.openalex_id:
            _line(out, "UR", f"https://openalex.org/{paper.openalex_id}")
        _line(out, "UR", paper.source_url)
        if abstracts:
            _line(out, "AB", paper.abstract)
        for keyword in paper.keywords:
            _line(out, "KW", keyword)
        note = []
        if paper.retracted:
            note.append("RETRACTED")
        if paper.retrieved_at:
            note.append(
                f"retrieved {paper.retrieved_at}"
                + (f" from {paper.provider}" if paper.provider else "")
            )
        if note:
            _line(out, "N1", "; ".join(note))
        if paper.id not in written:  # a second copy of a paper gets no ID: ids stay unique
            written.add(paper.id)
            _line(out, "ID", paper.id)
        out.append("ER  - ")
        out.append("")
    return "\n".join(out)


def _dumps(papers: Sequence[Paper]) -> str:
    return dumps(papers)


FORMATS: list[FormatSpec] = [
    FormatSpec(
        name="ris",
        parser_id=PARSER_ID,
        parser_version=PARSER_VERSION,
        description="RIS (PubMed, Scopus, Web of Science, Embase/Ovid, Zotero, EndNote, Mendeley, Rayyan)",
        sniff=sniff,
        parse=parse,
        extensions=("ris", "txt"),
        dumps=_dumps,
    )
]
