"""Web of Science exports: plain text (``wos``) and tab-delimited (``wos-tab``).

Plain text (``.ciw``, ``.isi``, ``.txt``): ``FN``/``VR`` header, records ``PT`` … ``ER``,
``EF`` at the end; a tag is two characters and a space, a value continues on lines
indented by three spaces (for ``AU``, ``AF``, ``CR``, ``C1`` each continuation is a
new value). Tab-delimited: a header row of the same tags (``PT\\tAU\\t…``) and one row
per record, list values separated by ``; ``. Both come as UTF-8 or UTF-16 (decoding is
the registry's). The accession number ``UT`` is the source record id.
"""

from __future__ import annotations

from typing import Any, Final

from litdesk.core.imports import Notice, RecordTrace, digest_bytes
from litdesk.core.records import normalize_doi, normalize_pmid
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

__all__ = ["FORMATS", "parse_plain", "parse_tab", "sniff_plain", "sniff_tab"]

PARSER_VERSION: Final = "1"
_LIST_TAGS: Final = frozenset({"AU", "AF", "BA", "BF", "CR", "C1", "C3", "BE", "CA", "GP"})
_SEMI_TAGS: Final = frozenset({"DE", "ID"})
_KNOWN: Final = tag_set(
    "FN VR PT AU AF BA BF CA GP BE TI SO SE BS LA DT CT CY CL SP HO DE ID AB C1 C3 RP EM RI OI "
    "FU FP FX CR NR TC Z9 U1 U2 PU PI PA SN EI BN J9 JI PD PY VL IS PN SU SI MA BP EP AR DI "
    "D2 EA EY PG P2 WC WE SC GA UT PM OA HC HP DA ER EF"
)
_USED: Final = tag_set("PT AU AF CA TI SO PY VL IS BP EP AR DI PM UT DE ID AB DT")
_DOC_TYPES: Final = {"J": "Journal", "B": "Book", "S": "Series", "P": "Patent", "C": "Conference"}


def _paper_fields(get: dict[str, list[str]], notices: list[Notice], line: int) -> dict[str, Any]:
    def one(tag: str) -> str | None:
        values = get.get(tag)
        if not values:
            return None
        value = clean_value(values[0])
        return value or None

    fields: dict[str, Any] = {}
    if title := one("TI"):
        fields["title"] = title
    authors = [clean_value(a) for a in (get.get("AF") or get.get("AU") or []) if a.strip()]
    authors += [clean_value(a) for a in get.get("CA", []) if a.strip()]
    if authors:
        fields["authors"] = authors
    if journal := one("SO"):
        fields["journal"] = journal
    if "PY" in get:
        year = first_year(get["PY"])
        if year is None:
            notices.append(Notice("dropped_field", "no year in PY", line, "PY"))
        else:
            fields["year"] = year
    if volume := one("VL"):
        fields["volume"] = volume
    if issue := one("IS"):
        fields["issue"] = issue
    bp, ep, ar = one("BP"), one("EP"), one("AR")
    if bp:
        fields["pages"] = f"{bp}-{ep}" if ep and ep != bp else bp
    elif ar:
        fields["pages"] = ar
    if "DI" in get:
        doi = take_identifier(get["DI"], normalize_doi, "DOI", notices, line=line, field="DI")
        if doi:
            fields["doi"] = doi
    if "PM" in get:
        pmid = take_identifier(get["PM"], normalize_pmid, "PMID", notices, line=line, field="PM")
        if pmid:
            fields["pmid"] = pmid
    if abstract := one("AB"):
        fields["abstract"] = "\n".join(v.strip() for v in get["AB"] if v.strip()) or abstract
    keywords = [k.strip() for tag in ("DE", "ID") for v in get.get(tag, []) for k in v.split(";")]
    if keywords := [k for k in keywords if k]:
        fields["keywords"] = keywords
    types = [t.strip() for v in get.get("DT", []) for t in v.split(";") if t.strip()]
    if not types and (pt := one("PT")):
        types = [_DOC_TYPES.get(pt, pt)]
    if types:
        fields["publication_types"] = types
    return fields


def _record(
    get: dict[str, list[str]], raw: str, first: int, last: int, notices: list[Notice]
) -> RecordTrace:
    digest = digest_bytes(raw.encode("utf-8"))
    fields = _paper_fields(get, notices, first)
    extras = tag_extras(get, _USED, _KNOWN, notices, lambda _tag: first)
    ut = get.get("UT")
    source_id = ut[0].strip() if ut and ut[0].strip() else None
    paper = build_paper(fields, digest=digest, line=first, notices=notices)
    return RecordTrace(
        digest=digest,
        first_line=first,
        last_line=last,
        paper=paper,
        raw=raw,
        source_id=source_id,
        notices=tuple(notices),
        extras=extras,
    )


# --------------------------------------------------------------------------------------
# plain text


def sniff_plain(head: str) -> int:
    """``FN``/``VR`` header, or ``PT`` records ending in ``ER``."""
    lines = split_lines(head)[:4000]
    if lines and lines[0].startswith("FN ") and any(x.startswith("VR ") for x in lines[:5]):
        return 95
    pt = sum(1 for x in lines if x.startswith("PT ") and len(x) <= 5)
    er = sum(1 for x in lines if x.rstrip() == "ER")
    return 80 if pt and er else 0


def parse_plain(text: str) -> ParseResult:
    lines = split_lines(text)
    records: list[RecordTrace] = []
    notices: list[Notice] = []
    fields: dict[str, list[list[str]]] | None = None  # each value: its parts, joined once
    first = last = 0
    last_tag: str | None = None
    skipped_count = skipped_first = 0

    def finish(end: int, unterminated: bool) -> None:
        assert fields is not None
        rec_notices: list[Notice] = []
        if unterminated:
            rec_notices.append(
                Notice("unterminated", "record has no ER line; read anyway", end + 1)
            )
        raw = "\n".join(lines[first : end + 1])
        joined = {
            tag: [("\n" if tag == "AB" else " ").join(parts) for parts in values]
            for tag, values in fields.items()
        }
        records.append(_record(joined, raw, first + 1, end + 1, rec_notices))

    for i, line in enumerate(lines):
        stripped = line.rstrip()
        if not stripped:
            continue
        if line.startswith("   ") and fields is not None and last_tag is not None:
            value = line.strip()
            values = fields[last_tag]
            if last_tag in _LIST_TAGS:
                values.append([value])
            else:
                values[-1].append(value)
            last = i
            continue
        tag = stripped[:2]
        if (len(stripped) == 2 or stripped[2:3] == " ") and tag.isalnum() and tag.isupper():
            value = stripped[3:].strip()
            if tag == "ER":
                if fields is not None:
                    finish(i, unterminated=False)
                    fields, last_tag = None, None
                continue
            if tag in ("FN", "VR", "EF") and fields is None:
                continue
            if tag == "PT" and fields is not None:
                finish(last, unterminated=True)
                fields = None
            if fields is None:
                fields, first = {}, i
            fields.setdefault(tag, []).append([value])
            last_tag, last = tag, i
            continue
        if not skipped_count:
            skipped_first = i
        skipped_count += 1
    if fields is not None:
        finish(last, unterminated=True)
    if skipped_count:
        notices.append(
            Notice(
                "skipped",
                f"{plural(skipped_count, 'line')} skipped, neither a tag nor a continuation "
                f"(first on line {skipped_first + 1})",
                skipped_first + 1,
            )
        )
    return ParseResult(records=records, notices=notices)


# --------------------------------------------------------------------------------------
# tab-delimited


def sniff_tab(head: str) -> int:
    """A header row of WoS field tags separated by tabs (``PT``, ``AU``, ``TI``, ``UT``…)."""
    first = split_lines(head)[0] if head else ""
    cols = [c.strip() for c in first.split("\t")]
    if len(cols) < 5:
        return 0
    tags = {c for c in cols if c in _KNOWN}
    if {"PT", "AU", "TI"} <= tags and len(tags) >= 0.8 * len(cols):
        return 95
    return 0


def parse_tab(text: str) -> ParseResult:
    """One record per non-empty row; cells are split on tabs (WoS never quotes them)."""
    lines = split_lines(text)
    notices: list[Notice] = []
    records: list[RecordTrace] = []
    header = [c.strip() for c in lines[0].split("\t")] if lines else []
    for index in range(1, len(lines)):
        line = lines[index]
        if not line.strip():
            continue
        line_no = index + 1
        row = line.split("\t")
        rec_notices: list[Notice] = []
        if len(row) > len(header) and any(c.strip() for c in row[len(header) :]):
            rec_notices.append(
                Notice(
                    "other",
                    f"{plural(len(row) - len(header), 'cell')} beyond the header ignored",
                    line_no,
                )
            )
        get: dict[str, list[str]] = {}
        for tag, cell in zip(header, row, strict=False):
            cell = cell.strip()
            if not tag or not cell:
                continue
            if tag in _LIST_TAGS:
                get[tag] = [v.strip() for v in cell.split(";") if v.strip()]
            else:
                get[tag] = [cell]
        records.append(_record(get, line, line_no, line_no, rec_notices))
    return ParseResult(records=records, notices=notices)


FORMATS: list[FormatSpec] = [
    FormatSpec(
        name="wos",
        parser_id="litdesk.wos",
        parser_version=PARSER_VERSION,
        description="Web of Science plain text (FN/VR/PT…ER/EF; .ciw, .isi, .txt)",
        sniff=sniff_plain,
        parse=parse_plain,
        extensions=("ciw", "isi", "txt"),
    ),
    FormatSpec(
        name="wos-tab",
        parser_id="litdesk.wos-tab",
        parser_version=PARSER_VERSION,
        description="Web of Science tab-delimited (UTF-8 or UTF-16)",
        sniff=sniff_tab,
        parse=parse_tab,
        extensions=("txt", "tsv"),
    ),
]
