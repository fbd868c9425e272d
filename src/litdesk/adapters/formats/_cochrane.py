"""The Cochrane Library's plain-text export (``cochrane-txt``): CENTRAL trials and reviews.

Each record opens with ``Record #N of M`` and holds ``XX: value`` lines (two or three
capital letters and a colon): ``ID`` the accession number (``CN-…``), one ``AU`` per author,
``TI``, ``SO`` the journal, ``YR``, ``VL``, ``NO`` the issue, ``PG``, ``KY`` keywords and
``PT`` publication types separated by ``; ``, ``DOI``, ``AB``, ``US`` the record's page,
``PM`` the PubMed accession (``PUBMED 27565858``), ``XR`` the other databases' (``EMBASE
…``). A line without a tag continues the value before it (a new paragraph of ``AB``).
Every other tag is kept in the record's extras. The ``of M`` of the headers is checked
against the records read: a file that holds fewer (an export cut short) says so.
"""

from __future__ import annotations

import re
from typing import Any, Final

from litdesk.core.imports import Notice, RecordTrace, digest_bytes
from litdesk.core.records import normalize_doi, normalize_pmid, safe_https_url
from litdesk.core.words import plural

from ._ris_base import build_paper, clean_value, first_year, split_lines, tag_extras, tag_set
from ._spec import FormatSpec, ParseResult

__all__ = ["FORMATS", "parse", "sniff"]

PARSER_VERSION: Final = "1"
_HEADER: Final = re.compile(r"Record #(\d{1,9}) of (\d{1,9})")
_TAG: Final = re.compile(r"([A-Z]{2,3}):(?: (.*)|)")
_KNOWN: Final = tag_set("ID AU TI SO YR VL NO PG XR PT KY DOI AB US PM CC DE SI ED IN")
_USED: Final = tag_set("ID AU TI SO YR VL NO PG PT KY DOI AB US PM")
_PUBMED: Final = re.compile(r"(?:pubmed|medline)\b[\s:]*(\d{1,12})", re.IGNORECASE)
_SEMI: Final = re.compile(r"(?:(?<!\s)\s+)?;\s+")
_PARAGRAPH: Final = frozenset({"AB"})


def sniff(head: str) -> int:
    """High when the text opens (after blank lines) with ``Record #1 of N`` and a tag line."""
    lines = [x.strip() for x in split_lines(head.lstrip("\ufeff"))[:50] if x.strip()]
    if len(lines) >= 2 and _HEADER.fullmatch(lines[0]) and _TAG.fullmatch(lines[1]):
        return 95
    return 0


def _fields(get: dict[str, list[str]], notices: list[Notice], line: int) -> dict[str, Any]:
    def one(tag: str) -> str | None:
        values = get.get(tag)
        return clean_value(values[0]) or None if values else None

    fields: dict[str, Any] = {}
    if title := one("TI"):
        fields["title"] = title
    authors = [clean_value(a) for v in get.get("AU", []) for a in _SEMI.split(v)]
    if authors := [a for a in authors if a]:
        fields["authors"] = authors
    if journal := one("SO"):
        fields["journal"] = journal
    if "YR" in get:
        year = first_year(get["YR"])
        if year is None:
            notices.append(Notice("dropped_field", f"no year in {get['YR'][0][:40]!r}", line, "YR"))
        else:
            fields["year"] = year
    for tag, name in (("VL", "volume"), ("NO", "issue"), ("PG", "pages")):
        if value := one(tag):
            fields[name] = value
    if doi_values := get.get("DOI"):
        doi = normalize_doi(doi_values[0])
        if doi is None:
            notices.append(
                Notice("malformed_identifier", f"DOI not understood: {doi_values[0][:80]!r}", line)
            )
        else:
            fields["doi"] = doi
    for value in get.get("PM", []):
        m = _PUBMED.search(value) or re.fullmatch(r"\s*(\d{1,12})\s*", value)
        if m and (pmid := normalize_pmid(m.group(1))):
            fields["pmid"] = pmid
            break
    if abstract := "\n".join(v.strip() for v in get.get("AB", []) if v.strip()):
        fields["abstract"] = abstract
    for tag, name in (("KY", "keywords"), ("PT", "publication_types")):
        items = [k.strip() for v in get.get(tag, []) for k in _SEMI.split(v)]
        if items := [k for k in items if k]:
            fields[name] = items
    if (url := one("US")) and (safe := safe_https_url(url)):
        fields["source_url"] = safe
    return fields


def parse(text: str) -> ParseResult:
    """Read every record of a Cochrane Library plain-text export."""
    lines = split_lines(text.removeprefix("\ufeff"))
    records: list[RecordTrace] = []
    notices: list[Notice] = []
    said: int | None = None  # the "of M" of the headers
    current: tuple[int, dict[str, list[list[str]]]] | None = None
    last = 0
    last_tag: str | None = None
    skipped: list[int] = []

    def finish() -> None:
        assert current is not None
        first, fields = current
        joined = {
            tag: [("\n" if tag in _PARAGRAPH else " ").join(parts) for parts in values]
            for tag, values in fields.items()
        }
        raw = "\n".join(lines[first : last + 1])
        digest = digest_bytes(raw.encode("utf-8", "surrogatepass"))
        rec_notices: list[Notice] = []
        paper_fields = _fields(joined, rec_notices, first + 1)
        extras = tag_extras(joined, _USED, _KNOWN, rec_notices, lambda _tag: first + 1)
        ids = joined.get("ID")
        source_id = ids[0].strip() or None if ids else None
        paper = build_paper(
            paper_fields, digest=digest, line=first + 1, notices=rec_notices, source_id=source_id
        )
        records.append(
            RecordTrace(
                digest=digest,
                first_line=first + 1,
                last_line=last + 1,
                paper=paper,
                raw=raw,
                source_id=source_id,
                notices=tuple(rec_notices),
                extras=extras,
            )
        )

    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            continue
        header = _HEADER.fullmatch(stripped)
        if header is not None:
            if current is not None:
                finish()
            said = int(header.group(2)) if said is None else said
            current, last_tag, last = (i, {}), None, i
            continue
        tag = _TAG.fullmatch(line.rstrip())
        if current is not None and tag is not None:
            last_tag = tag.group(1)
            current[1].setdefault(last_tag, []).append([(tag.group(2) or "").strip()])
            last = i
        elif current is not None and last_tag is not None:
            current[1][last_tag][-1].append(stripped)  # a continuation line
            last = i
        else:
            skipped.append(i)
    if current is not None:
        finish()
    if skipped:
        notices.append(
            Notice(
                "skipped",
                f"{plural(len(skipped), 'line')} outside any record skipped "
                f"(first on line {skipped[0] + 1})",
                skipped[0] + 1,
            )
        )
    if said is not None and said != len(records):
        notices.append(
            Notice(
                "other",
                f"the headers say {plural(said, 'record')} ('Record #1 of {said}'); the file "
                f"holds {len(records)}",
                1,
            )
        )
    return ParseResult(records=records, notices=notices)


FORMATS: list[FormatSpec] = [
    FormatSpec(
        name="cochrane-txt",
        parser_id="litdesk.cochrane-txt",
        parser_version=PARSER_VERSION,
        description="Cochrane Library plain-text export (Record #1 of N, ID: CN-…)",
        sniff=sniff,
        parse=parse,
        extensions=(".txt",),
    )
]
