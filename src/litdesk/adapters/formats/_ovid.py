"""Ovid's own export (``ovid``): MEDLINE, Embase, PsycINFO, BIOSIS, Journals@Ovid, …

Read only as real sources show the layout (nothing from memory):

* Zotero's import translator "OVID Tagged.js" (zotero/translators, ``OVID Tagged.js``,
  commits 162e989989020c3f72e88c49dab36ce01f77ac46 and f7d4e977e42905d2dbd4194be24461802c2794fc,
  the latter with PsycINFO and Books@Ovid test cases): its detection (``VN  - Ovid
  Technologies`` among the first lines), its field map (``IS`` is the ISSN, ``IP`` the
  issue; ``UI`` an accession, ``DI``/``DO`` a DOI, ``KW`` keywords separated by ``;``),
  its cleaning of ``AU`` names, and its embedded test cases — real exports of BIOSIS
  Previews, International Political Science Abstracts, Journals@Ovid and Zoological
  Record;
* JabRef's OvidImporter (JabRef/jabref,
  ``jablib/src/main/java/org/jabref/logic/importer/fileformat/OvidImporter.java`` and its
  test files ``OvidImporterTest3-7.txt``, commit edbf3b13ad2806e4460f1d477ddcb087984c8459):
  Ovid's *labelled* layout (``<8>``, then a label such as ``Source`` on its own line and
  the value indented below it);
* a real Embase export in the tagged layout (knh11545/commandline4expertsearchers,
  ``test/data/Embase_citavi_r3001-3002.ovd``, commit
  fb7b5c17d83e9dea4ea7c6530b0e8c9d88424db8): there ``UI`` is Embase's accession number, not
  a PMID, ``DO`` a ``dx.doi.org`` link, ``MH`` Emtree headings with ``*`` for a major one.

The tagged layout: each record opens with a marker line ``<1. >`` (the record's number in
the result set: ``<241. >``, ``<7807. >``), then ``XX  - value`` lines (two characters,
two spaces, a hyphen); a line without a tag continues the value before it, indented
(``IN``, ``SY``, ``DE``, whose parts blank lines separate) or not (``Series
Information:`` after ``SO``). A record without a marker starts at its ``VN`` line.

The fields: ``TI``; ``FA`` (full names), else ``AU`` cleaned as Zotero does (affiliation
numbers and marks ``1,2,+`` ``*``, ``[Inventor, Reprint Author]``, ``[E-mail: …]``,
degrees ``MD, PhD``); ``JT`` else the journal of ``SO``; ``VI``/``IP``/``PG``, else
``SO``'s volume, issue and pages (:mod:`._ovid_source`); ``YR``, else ``SO``'s year;
``DO``/``DI`` (a value with ``10.``); ``PM`` a PMID, and ``UI`` a PMID only where ``DB``
names MEDLINE or PubMed; ``AB`` (its continuation lines kept as lines); ``KW`` split at
``;`` and every ``MH`` heading as written (``*`` and ``/sub [Subheading]`` kept, as
Ovid's RIS gives them); ``PT`` the publication types. A title's trailing document type
(``.  [Article]``, ``.[Review]``) is Journals@Ovid's, not the title's. Every other tag —
``DB`` the database (the import's PRISMA source), ``IS``, ``LG``, ``UI``, ``AN``, … — is
kept in the record's extras; Ovid's tags differ by database, so none is "unknown".

Every marker opens a record: a marker with no field after it (an export cut short) is
reported with its line, and a file of markers without any field is refused, naming them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from litdesk.core.imports import ImportRefused, Notice, RecordTrace, digest_bytes
from litdesk.core.records import normalize_doi, normalize_pmid
from litdesk.core.words import plural

from ._ovid_source import parse_source
from ._ris_base import build_paper, clean_value, first_year, split_lines, tag_extras
from ._spec import FormatSpec, ParseResult

__all__ = ["FORMATS", "parse", "sniff"]

PARSER_VERSION: Final = "1"
#: a record marker: ``<1. >`` (tagged), ``<1337>`` (labelled)
_MARKER: Final = re.compile(r"<\s?(\d{1,9})(?:\.\s?)?>")
_UPPER: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_UPPER_DIGIT: Final = _UPPER | frozenset("0123456789")
#: Zotero's detection: ``VN`` and Ovid's name, among the first lines (after spaces)
_VN: Final = re.compile(r"VN {1,2}- Ovid Technologies")
#: values split into items: ``KW`` (``BCRP;  PI3K/AKT/NF-[kappa]B;  chemoresistance``)
_SEMI: Final = re.compile(r"(?:(?<!\s)\s+)?;\s+")
#: the labelled layout's authors, ``Holstiege, Jakob 1;  Mathes, Tim 2`` (two spaces: one
#: author's degrees are ``RN; PhD; FAAN``)
_AUTHOR_SEP: Final = re.compile(r";\s\s+")
_PUBMED_DB: Final = re.compile(r"medline|pubmed", re.IGNORECASE)
#: degrees Zotero's translator drops after a name (``Gazic, Barbara MD, PhD *``)
_DEGREES: Final = frozenset({"MD", "BSc", "MSc", "BA", "MA", "MPH", "MB"})
_PARAGRAPH: Final = frozenset({"AB"})
#: document types after a title (Zotero's translator, JabRef's samples)
_DOC_TYPES: Final = frozenset({"article", "report", "miscellaneous", "references", "review"})
_USED: Final = frozenset(
    {"TI", "FA", "AU", "JT", "JN", "SO", "VI", "VO", "IP", "PG", "YR", "DO", "DI", "PM", "AB"}
    | {"KW", "MH", "PT"}
)
#: the labelled layout's labels (JabRef's samples) as the tagged layout's tags
_LABELS: Final = {
    "Accession Number": "AN",
    "Author": "AU",
    "Institution": "IN",
    "Title": "TI",
    "Source": "SO",
    "Abstract": "AB",
    "Author Keywords": "KW",
    "Language": "LG",
    "Publication Type": "PT",
    "ISSN": "IS",
    "DOI Number": "DO",
    "Link to the Ovid Full Text or citation": "XL",
}


def _separator(lines: list[str]) -> str:
    """What stands between a tag and its value in this file: ``"  -"``, or ``" -"`` (a
    PsycINFO export of Zotero's test cases writes ``VN - Ovid Technologies``)."""
    for line in lines[:400]:
        stripped = line.lstrip()
        if stripped.startswith("VN -"):
            return " -"
        if stripped.startswith("VN  -"):
            return "  -"
    return "  -"


def _tag_of(line: str, sep: str = "  -") -> tuple[str, str] | None:
    """``(tag, value)`` of a ``XX  - value`` line (after any leading spaces: a PsycINFO
    export indents every line by one), else ``None``. A tag is a capital letter and one to
    five capitals or digits (Books@Ovid's ``SCORE  - *****``)."""
    stripped = line.lstrip()
    n = 0
    while n < 6 and n < len(stripped) and stripped[n] in (_UPPER if n == 0 else _UPPER_DIGIT):
        n += 1
    if n < 2 or stripped[n : n + len(sep)] != sep:
        return None
    rest = stripped[n + len(sep) :]
    if rest and rest[0] != " ":
        return None
    return stripped[:n], rest.strip()


def _marker(line: str) -> str | None:
    stripped = line.strip()
    if not stripped.startswith("<"):
        return None
    m = _MARKER.fullmatch(stripped)
    return m.group(1) if m else None


def _labelled(lines: list[str]) -> bool:
    """The first non-blank line is ``<N>`` and the next a label of the labelled layout
    (``Score``, ``Accession Number``, ``Author``, …) followed by an indented value."""
    seen = [i for i, x in enumerate(lines[:200]) if x.strip()][:3]
    if len(seen) < 3 or _marker(lines[seen[0]]) is None:
        return False
    label, value = lines[seen[1]], lines[seen[2]]
    return (
        label[:1] not in (" ", "\t", "<")
        and _tag_of(label) is None
        and _tag_of(label, " -") is None
        and value[:1] == " "
    )


def sniff(head: str) -> int:
    """High when ``VN  - Ovid Technologies`` is among the first five non-blank lines (as
    Zotero's translator detects it), or the text opens with Ovid's labelled layout; zero
    when a RIS ``TY`` or MEDLINE ``PMID-`` line opens a record anywhere in ``head``."""
    lines = split_lines(head.lstrip("\ufeff"))[:4000]
    for line in lines:
        if line.startswith(("TY  -", "PMID-")):
            return 0
    firsts = [x.lstrip() for x in lines[:200] if x.strip()][:6]
    if any(_VN.match(x) for x in firsts):
        return 95
    return 90 if _labelled(lines) else 0


class _Record:
    __slots__ = ("fields", "first", "last", "last_tag", "lines", "marker")

    def __init__(self, first: int, marker: str | None) -> None:
        self.first = first
        self.last = first
        self.marker = marker
        self.fields: dict[str, list[list[str]]] = {}  # each value: its parts (continuations)
        self.lines: dict[str, int] = {}
        self.last_tag: str | None = None

    def add(self, tag: str, value: str, i: int) -> None:
        self.fields.setdefault(tag, []).append([value] if value else [])
        self.lines.setdefault(tag, i + 1)
        self.last_tag = tag
        self.last = i

    def extend(self, value: str, i: int) -> None:
        assert self.last_tag is not None
        self.fields[self.last_tag][-1].append(value)
        self.last = i


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _read_tagged(lines: list[str], skipped: list[int]) -> list[_Record]:
    sep = _separator(lines)
    records: list[_Record] = []
    cur: _Record | None = None
    after_blank = False
    indent = 0  # of the last tag line: a line after a blank continues only indented deeper
    for i, line in enumerate(lines):
        if not line.strip():
            after_blank = True
            continue
        marker = _marker(line)
        tagged = _tag_of(line, sep) if marker is None else None
        if marker is not None or (
            tagged is not None and tagged[0] == "VN" and (cur is None or "VN" in cur.fields)
        ):
            cur = _Record(i, marker)
            records.append(cur)
        if tagged is not None:
            if cur is None:
                cur = _Record(i, None)
                records.append(cur)
            cur.add(tagged[0], tagged[1], i)
            indent = _indent(line)
        elif marker is not None:
            pass
        elif (
            cur is not None
            and cur.last_tag is not None
            and (not after_blank or _indent(line) > indent)
        ):
            cur.extend(line.strip(), i)  # a continuation line
        else:
            skipped.append(i)
        after_blank = False
    return records


def _read_labelled(lines: list[str], skipped: list[int]) -> list[_Record]:
    records: list[_Record] = []
    cur: _Record | None = None
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        marker = _marker(line)
        if marker is not None:
            cur = _Record(i, marker)
            records.append(cur)
        elif cur is None:
            skipped.append(i)
        elif line[:1] in (" ", "\t"):
            if cur.last_tag is None:
                skipped.append(i)
            else:
                cur.extend(line.strip(), i)
        else:
            label = " ".join(line.split())
            cur.add(_LABELS.get(label, label), "", i)
    return records


def parse(text: str) -> ParseResult:
    """Read every record of an Ovid export (tagged or labelled)."""
    lines = split_lines(text.removeprefix("\ufeff"))
    labelled = _labelled(lines)
    skipped: list[int] = []
    read = (_read_labelled if labelled else _read_tagged)(lines, skipped)
    empty = [r for r in read if not r.fields]
    records = [_finish(r, lines, labelled) for r in read if r.fields]
    if not records:
        where = ", ".join(str(r.first + 1) for r in empty[:5])
        raise ImportRefused(
            "no Ovid record holds a field"
            + (f" (record markers on lines {where})" if where else ""),
            code="malformed",
        )
    notices: list[Notice] = []
    if empty:
        shown = ", ".join(f"<{r.marker}> on line {r.first + 1}" for r in empty[:5])
        notices.append(
            Notice(
                "other",
                f"{plural(len(read), 'record marker')} in the file, "
                f"{plural(len(records), 'record')} read: {shown} "
                f"{'holds' if len(empty) == 1 else 'hold'} no field (an export cut short?)",
                empty[0].first + 1,
            )
        )
    if skipped:
        notices.append(
            Notice(
                "skipped",
                f"{plural(len(skipped), 'line')} outside any Ovid record or field skipped "
                f"(first on line {skipped[0] + 1})",
                skipped[0] + 1,
            )
        )
    return ParseResult(records=records, notices=notices)


def _clean_author(value: str) -> str:
    """A name of ``AU`` without what Zotero's translator drops after it: ``[…]`` (roles,
    e-mail), ``Ph.D.`` and what follows, affiliation numbers and marks (``1,2,+``, ``*``),
    degrees (``MD``, ``MPH``, …)."""
    name = value.split("[", 1)[0]
    for mark in (" Ph.D", " PhD", " Ph.D."):
        at = name.find(mark)
        if at > 0:
            name = name[:at]
    name = name.rstrip("0123456789,+* \t;")
    words = name.split(" ")
    while len(words) > 2 and words[-1].rstrip(",;") in _DEGREES:
        words.pop()
    return " ".join(words).rstrip(", ;")


def _without_doc_type(title: str) -> str:
    """``title`` without the document type Ovid appends: ``….  [Article]``, ``….[Review]``,
    ``…. [References].`` (the ones the sources show; a title all in brackets, a
    translation, stays)."""
    end = title.rstrip(". ")
    if not end.endswith("]"):
        return title
    at = end.rfind("[")
    before = end[:at].rstrip()
    if at > 0 and end[at + 1 : -1].lower() in _DOC_TYPES:
        return before
    return title


def _fields(
    get: dict[str, list[str]], notices: list[Notice], line: Callable[[str], int], labelled: bool
) -> dict[str, Any]:
    def one(tag: str) -> str | None:
        values = get.get(tag)
        return clean_value(values[0]) or None if values else None

    fields: dict[str, Any] = {}
    if title := one("TI"):
        title = _without_doc_type(title)
        quoted = title.rstrip(".")
        if len(quoted) > 2 and quoted[0] == quoted[-1] == '"':  # Zotero's test case 7
            title = quoted[1:-1].strip()
        fields["title"] = title
    if full := [clean_value(v) for v in get.get("FA", [])]:
        authors = full
    else:
        authors = [
            _clean_author(clean_value(a)) for v in get.get("AU", []) for a in _AUTHOR_SEP.split(v)
        ]
    if authors := [a for a in authors if a]:
        fields["authors"] = authors
    types = [clean_value(v) for v in get.get("PT", []) if v.strip()]
    chapter = any("chapter" in t.lower() for t in types + get.get("DT", []))
    source = parse_source(one("SO") or "", chapter=chapter)
    if journal := one("JT") or one("JN") or source.journal:
        fields["journal"] = journal
    for tag, name, parsed in (
        ("VI", "volume", one("VO") or source.volume),
        ("IP", "issue", source.issue),
        ("PG", "pages", source.pages),
    ):
        if value := one(tag) or parsed:
            fields[name] = value
    if "YR" in get:
        year = first_year(get["YR"])
        if year is None:
            notices.append(
                Notice("dropped_field", f"no year in {get['YR'][0][:40]!r}", line("YR"), "YR")
            )
        else:
            fields["year"] = year
    if "year" not in fields and source.year is not None:
        fields["year"] = source.year
    for tag in ("DO", "DI"):
        for value in get.get(tag, []):
            if "10." not in value:
                continue  # Zotero's rule: a DOI field without "10." names none
            if (doi := normalize_doi(clean_value(value))) is None:
                notices.append(
                    Notice(
                        "malformed_identifier",
                        f"DOI not understood: {value[:80]!r}",
                        line(tag),
                        tag,
                    )
                )
            elif "doi" not in fields:
                fields["doi"] = doi
    pmids = list(get.get("PM", []))
    if _PUBMED_DB.search(" ".join(get.get("DB", []))):
        pmids += get.get("UI", [])
    for value in pmids:
        if (pmid := normalize_pmid(clean_value(value))) is not None:
            fields["pmid"] = pmid
            break
    else:
        if pmids:
            notices.append(
                Notice(
                    "malformed_identifier",
                    f"PMID not understood: {pmids[0][:80]!r}",
                    line("PM" if "PM" in get else "UI"),
                )
            )
    if abstract := "\n".join(v.strip() for v in get.get("AB", []) if v.strip()):
        fields["abstract"] = abstract
    keywords: list[str] = []
    for value in get.get("KW", []):
        value = clean_value(value)
        if labelled and value.endswith("."):
            value = value[:-1]  # the labelled layout ends every value with a period
        keywords += [k.strip() for k in _SEMI.split(value)]
    keywords += [clean_value(v) for v in get.get("MH", [])]
    if keywords := [k for k in keywords if k]:
        fields["keywords"] = keywords
    if types:
        fields["publication_types"] = types
    return fields


def _finish(rec: _Record, lines: list[str], labelled: bool) -> RecordTrace:
    raw = "\n".join(lines[rec.first : rec.last + 1])
    digest = digest_bytes(raw.encode("utf-8", "surrogatepass"))
    joined = {
        tag: [("\n" if tag in _PARAGRAPH else " ").join(parts) for parts in values]
        for tag, values in rec.fields.items()
    }
    first_line = rec.first + 1

    def line(tag: str) -> int:
        return rec.lines.get(tag, first_line)

    notices: list[Notice] = []
    fields = _fields(joined, notices, line, labelled)
    # Ovid's tags differ by database (hundreds of them): each one read is "known"
    extras = tag_extras(joined, _USED, frozenset(joined), notices, line)
    ids = joined.get("UI") or joined.get("AN") or []
    source_id = clean_value(ids[0]).rstrip(".") or None if ids else None
    paper = build_paper(fields, digest=digest, line=first_line, notices=notices)
    return RecordTrace(
        digest=digest,
        first_line=first_line,
        last_line=rec.last + 1,
        paper=paper,
        raw=raw,
        source_id=source_id,
        notices=tuple(notices),
        extras=extras,
    )


FORMATS: list[FormatSpec] = [
    FormatSpec(
        name="ovid",
        parser_id="litdesk.ovid",
        parser_version=PARSER_VERSION,
        description="Ovid's own export, tagged (<1. >, VN  - Ovid Technologies) or labelled",
        sniff=sniff,
        parse=parse,
        extensions=(".txt", ".ovd", ".cgi"),
    )
]
