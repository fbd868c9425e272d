"""MEDLINE / PubMed tagged format (``.nbib``, ``.txt``): import.

A record is a run of ``TAG - value`` lines (the tag left-justified in four columns,
``-`` in column five); a value continues on lines indented by six spaces; records are
separated by blank lines (a new ``PMID-`` line also starts one). ERIC's MEDLINE-style
export has no PMID and is read the same way. Every tag the Paper does not carry is
kept in ``extras``; tags outside MEDLINE's list get an ``unknown_tag`` notice.
"""

from __future__ import annotations

import re
from typing import Any, Final

from litdesk.core.imports import Notice, RecordTrace, digest_bytes
from litdesk.core.records import normalize_doi, normalize_pmcid, normalize_pmid
from litdesk.core.words import plural

from ._ris import (
    build_paper,
    clean_value,
    first_year,
    split_lines,
    tag_extras,
    tag_set,
    take_identifier,
)
from ._spec import FormatSpec, ParseResult

__all__ = ["FORMATS", "parse", "sniff"]

PARSER_ID: Final = "litdesk.medline"
PARSER_VERSION: Final = "1"

_TAG = re.compile(r"^([A-Z][A-Z0-9]{0,3}) {0,3}- ?(.*)$")
_KNOWN: Final = tag_set(
    "AB AD AID AU AUID BTI CI CIN CN COI COIS CON CP CRDT CRF CRI CTDT CTI CY DA DCOM DEP DP DRDT "
    "ECF ECI EDAT EFR EIN ED EN FAU FED FIR FPS GN GR GS IP IR IRAD IS ISBN JID JT LA LID LR "
    "MH MHDA MID NM OAB OABL OCI OID ORI OT OTO OWN PB PG PHST PL PMC PMCR PMID PS PST PT "
    "RF RIN RN RPF RPI SB SFM SI SO SPIN STAT TA TI TT UIN UOF VI VTI ISSN"
)
_USED: Final = tag_set("PMID TI BTI FAU AU CN JT TA DP VI IP PG LID AID PMC AB MH OT PT")
_DOI_MARK = re.compile(r"(?<!\s)\s*\[doi\]\s*$", re.IGNORECASE)
_PMC_MARK = re.compile(r"(?<!\s)\s*\[pmc\]\s*$", re.IGNORECASE)


def _tag_of(line: str) -> tuple[str, str] | None:
    if not line or line[0] == " " or "-" not in line[:6]:
        return None
    m = _TAG.match(line)
    if m is None:
        return None
    return m.group(1), m.group(2).strip()


def sniff(head: str) -> int:
    """Confidence that ``head`` is MEDLINE: ``PMID-`` lines, or MEDLINE's four-letter tags."""
    lines = split_lines(head)[:4000]
    pmid = four = ris = 0
    for line in lines:
        if line.startswith("PMID-"):
            pmid += 1
        elif line.startswith(("OWN -", "STAT-", "FAU -", "JT  -", "DP  -", "PG  -", "VI  -")):
            four += 1
        elif line.startswith(("TY  -", "ER  -")):
            ris += 1
    if ris:
        return 10 if pmid else 0
    if pmid:
        return 95
    if four >= 2:
        return 60
    return 0


class _Record:
    __slots__ = ("fields", "first", "last", "last_tag", "lines")

    def __init__(self, first: int) -> None:
        self.first = first
        self.last = first
        self.fields: dict[str, list[list[str]]] = {}  # each value: its parts (continuations)
        self.lines: dict[str, int] = {}
        self.last_tag: str | None = None


def parse(text: str) -> ParseResult:
    """Read every MEDLINE record of ``text``."""
    lines = split_lines(text)
    records: list[RecordTrace] = []
    notices: list[Notice] = []
    cur: _Record | None = None
    junk_count = junk_first = 0
    for i, line in enumerate(lines):
        if not line.strip():
            if cur is not None:
                records.append(_finish(cur, lines))
                cur = None
            continue
        tagged = _tag_of(line)
        if tagged is None:
            if cur is not None and cur.last_tag is not None and line[:1] in (" ", "\t"):
                cur.fields[cur.last_tag][-1].append(line.strip())  # parts, joined once
                cur.last = i
            else:
                if not junk_count:
                    junk_first = i
                junk_count += 1
            continue
        tag, value = tagged
        if cur is not None and tag == "PMID" and "PMID" in cur.fields:
            records.append(_finish(cur, lines))
            cur = None
        if cur is None:
            cur = _Record(i)
        cur.last_tag = tag
        cur.last = i
        cur.lines.setdefault(tag, i + 1)
        cur.fields.setdefault(tag, []).append([value])
    if cur is not None:
        records.append(_finish(cur, lines))
    if junk_count:
        notices.append(
            Notice(
                "skipped",
                f"{plural(junk_count, 'line')} outside any MEDLINE field skipped "
                f"(first on line {junk_first + 1})",
                junk_first + 1,
            )
        )
    return ParseResult(records=records, notices=notices)


def _finish(rec: _Record, lines: list[str]) -> RecordTrace:
    raw = "\n".join(lines[rec.first : rec.last + 1])
    digest = digest_bytes(raw.encode("utf-8"))
    f = {tag: [" ".join(parts) for parts in values] for tag, values in rec.fields.items()}
    first_line = rec.first + 1
    notices: list[Notice] = []

    def one(tag: str) -> str | None:
        values = f.get(tag)
        return clean_value(values[0]) if values and values[0].strip() else None

    fields: dict[str, Any] = {}
    title = one("TI") or one("BTI")
    if title:
        fields["title"] = title
    authors = f.get("FAU") or f.get("AU") or []
    authors = authors + f.get("CN", [])
    if authors:
        fields["authors"] = [clean_value(a) for a in authors]
    journal = one("JT") or one("TA")
    if journal:
        fields["journal"] = journal
    if "DP" in f:
        year = first_year(f["DP"])
        if year is None:
            notices.append(
                Notice("dropped_field", "no year in DP", rec.lines.get("DP", first_line), "DP")
            )
        else:
            fields["year"] = year
    for tag, name in (("VI", "volume"), ("IP", "issue"), ("PG", "pages")):
        if (value := one(tag)) is not None:
            fields[name] = value
    if "PMID" in f:
        pmid = take_identifier(
            f["PMID"], normalize_pmid, "PMID", notices, line=rec.lines["PMID"], field="PMID"
        )
        if pmid:
            fields["pmid"] = pmid
    dois = [
        _DOI_MARK.sub("", v)
        for v in f.get("LID", []) + f.get("AID", [])
        if _DOI_MARK.search(v) or "doi" in v.lower()
    ]
    if dois:
        doi = take_identifier(
            dois, normalize_doi, "DOI", notices, line=rec.lines.get("AID", first_line), field="AID"
        )
        if doi:
            fields["doi"] = doi
    pmcs = f.get("PMC", []) + [
        _PMC_MARK.sub("", v) for v in f.get("AID", []) if _PMC_MARK.search(v)
    ]
    if pmcs:
        pmcid = take_identifier(
            pmcs,
            normalize_pmcid,
            "PMCID",
            notices,
            line=rec.lines.get("PMC", first_line),
            field="PMC",
        )
        if pmcid:
            fields["pmcid"] = pmcid
    if "AB" in f:
        fields["abstract"] = "\n".join(v.strip() for v in f["AB"] if v.strip())
    keywords = [clean_value(v) for v in f.get("OT", []) + f.get("MH", []) if v.strip()]
    if keywords:
        fields["keywords"] = keywords
    if "PT" in f:
        fields["publication_types"] = [clean_value(v) for v in f["PT"] if v.strip()]
    extras = tag_extras(f, _USED, _KNOWN, notices, lambda tag: rec.lines.get(tag, first_line))
    source_id = fields.get("pmid") or (one("PMID") if "PMID" in f else None)
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
        name="medline",
        parser_id=PARSER_ID,
        parser_version=PARSER_VERSION,
        description="MEDLINE / PubMed tagged text (.nbib, .txt), ERIC MEDLINE-style",
        sniff=sniff,
        parse=parse,
        extensions=("nbib", "txt", "medline"),
    )
]
