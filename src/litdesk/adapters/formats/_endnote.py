"""EndNote XML import (``endnote-xml``): ``<xml><records><record>…``.

Parsed with lxml locked down (no entity resolution, no network, no DTD loading,
no huge trees); any DOCTYPE carrying an internal subset, and any ENTITY
declaration, is refused before parsing. Styled text nodes (``<style>`` children)
are concatenated; an abstract keeps its paragraphs (the ``&#xD;`` line breaks EndNote
writes), one a line as the other readers keep an abstract's lines. Each record keeps its raw
XML text, digest and line span.
"""

from __future__ import annotations

import re
from typing import Any, Final

from lxml import etree

from litdesk.core.imports import ImportRefused, Notice, RecordTrace, digest_bytes
from litdesk.core.records import (
    PaperError,
    make_paper,
    normalize_doi,
    normalize_pmid,
    safe_https_url,
)

from ._spec import FormatSpec, ParseResult
from ._tools import endnote_tool

__all__ = ["FORMATS", "parse", "sniff"]

PARSER_ID: Final = "litdesk.endnote-xml"
PARSER_VERSION: Final = "1"

_DECL: Final = re.compile(r"^\s*<\?xml[^>]*\?>")
_INTERNAL_SUBSET: Final = re.compile(r"<!DOCTYPE[^>\[]*\[", re.I)
_ENTITY: Final = re.compile(r"<!ENTITY", re.I)
_RECORD: Final = re.compile(r"<record\b[^>]*>.*?</record\s*>", re.S)
_YEAR: Final = re.compile(r"(?<!\d)([12]\d{3})(?!\d)")
_DOI_IN: Final = re.compile(r"10\.\d{4,9}/\S+")
#: a line break in a value: CR (EndNote's ``&#xD;``), LF, CR LF, or Unicode's separators
_BREAK: Final = re.compile(r"\r\n?|[\n\u2028\u2029\x85]")

#: Children of <record> read into the Paper (others go to extras).
_MAPPED: Final = frozenset(
    [
        "rec-number",
        "ref-type",
        "contributors",
        "titles",
        "periodical",
        "dates",
        "volume",
        "number",
        "pages",
        "electronic-resource-num",
        "abstract",
        "keywords",
        "urls",
    ]
)
#: Children kept in extras without a notice (EndNote's documented record fields).
_KNOWN: Final = frozenset(
    [
        "database",
        "source-app",
        "foreign-keys",
        "accession-num",
        "caption",
        "label",
        "notes",
        "research-notes",
        "custom1",
        "custom2",
        "custom3",
        "custom4",
        "custom5",
        "custom6",
        "custom7",
        "isbn",
        "language",
        "auth-address",
        "work-type",
        "remote-database-name",
        "remote-database-provider",
        "edition",
        "orig-pub",
        "alt-periodical",
        "publisher",
        "pub-location",
        "section",
        "call-num",
        "reprint-edition",
        "work-extent",
        "access-date",
        "modified-date",
        "short-title",
        "translated-title",
        "volume",
        "num-vols",
        "auth-affiliation",
        "author-address",
        "related-urls",
        "pdf-urls",
        "image-urls",
        "reviewed-item",
        "availability",
        "misc1",
        "misc2",
        "misc3",
        "electronic-resource-num",
        "work-location",
        "work-type",
        "secondary-volume",
        "secondary-title",
    ]
)


def _text(el: Any) -> str:
    """Concatenated text of an element and its ``<style>`` children, whitespace tidied."""
    if el is None:
        return ""
    return " ".join("".join(el.itertext()).split())


def _paragraphs(el: Any) -> str:
    """The text of an element whose line breaks are paragraphs (an abstract): its
    ``<style>`` runs concatenated, each line (EndNote ends them with ``&#xD;``, CR) tidied,
    the lines joined with ``\\n`` as the RIS family joins an abstract's lines."""
    if el is None:
        return ""
    lines = (" ".join(line.split()) for line in _BREAK.split("".join(el.itertext())))
    return "\n".join(line for line in lines if line)


def _first(rec: Any, path: str) -> str:
    el = rec.find(path)
    return _text(el) if el is not None else ""


def _refuse_dangerous(text: str) -> None:
    if _INTERNAL_SUBSET.search(text) or _ENTITY.search(text):
        raise ImportRefused(
            "EndNote XML with a DOCTYPE internal subset or ENTITY declaration is refused "
            "(entity expansion is never performed)",
            code="malformed",
        )


def _parser(recover: bool) -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        recover=recover,
        remove_comments=True,
        remove_pis=True,
    )


def _record(rec: Any, raw: str, span: tuple[int, int]) -> RecordTrace:
    first, last = span
    notices: list[Notice] = []
    extras: dict[str, list[str]] = {}
    paper: dict[str, Any] = {"title": _first(rec, "titles/title")}
    authors = [t for a in rec.iterfind("contributors/authors/author") if (t := _text(a))]
    if authors:
        paper["authors"] = tuple(a[:2000] for a in authors)
    for role in (
        "secondary-authors",
        "tertiary-authors",
        "subsidiary-authors",
        "translated-authors",
    ):
        names = [t for a in rec.iterfind(f"contributors/{role}/author") if (t := _text(a))]
        if names:
            extras[role] = names
    journal = (
        _first(rec, "periodical/full-title")
        or _first(rec, "titles/secondary-title")
        or _first(rec, "periodical/abbr-1")
    )
    if journal:
        paper["journal"] = journal[:2000]
    for path, key in (
        ("titles/secondary-title", "secondary-title"),
        ("titles/alt-title", "alt-title"),
        ("titles/short-title", "short-title"),
        ("titles/tertiary-title", "tertiary-title"),
        ("periodical/abbr-1", "periodical-abbr-1"),
    ):
        if v := _first(rec, path):
            extras[key] = [v]
    year = _first(rec, "dates/year")
    if year:
        m = _YEAR.search(year)
        if m:
            paper["year"] = int(m.group(1))
        else:
            notices.append(
                Notice("dropped_field", f"year {year[:30]!r} has no 4-digit year", line=first)
            )
    if dates := [t for d in rec.iterfind("dates/pub-dates/date") if (t := _text(d))]:
        extras["pub-dates"] = dates
    for tag, dst in (("volume", "volume"), ("number", "issue"), ("pages", "pages")):
        v = _first(rec, tag)
        if v and len(v) <= 100:
            paper[dst] = v
        elif v:
            notices.append(Notice("dropped_field", f"{tag} over 100 characters", line=first))
            extras[tag] = [v]
    ern = _first(rec, "electronic-resource-num")
    if ern:
        m = _DOI_IN.search(ern)
        doi = normalize_doi(m.group()) if m else None
        if doi:
            paper["doi"] = doi
        else:
            notices.append(
                Notice(
                    "malformed_identifier",
                    f"electronic-resource-num {ern[:80]!r} holds no DOI; kept in extras",
                    line=first,
                    field="electronic-resource-num",
                )
            )
            extras["electronic-resource-num"] = [ern]
    accession = _first(rec, "accession-num")
    remote = _first(rec, "remote-database-name").lower()
    provider = _first(rec, "remote-database-provider").lower()
    # PubMed-sourced records (provider NLM) carry the PMID as accession number; Embase
    # and others carry their own numeric accessions, which are not PMIDs.
    if accession and ("pubmed" in remote or provider == "nlm") and accession.isdigit():
        pmid = normalize_pmid(accession)
        if pmid:
            paper["pmid"] = pmid
    abstract = _paragraphs(rec.find("abstract"))
    if abstract:
        paper["abstract"] = abstract
    keywords = [t for k in rec.iterfind("keywords/keyword") if (t := _text(k))]
    if keywords:
        paper["keywords"] = tuple(k[:2000] for k in keywords)
    ref_type = rec.find("ref-type")
    if ref_type is not None:
        name = (ref_type.get("name") or _text(ref_type)).strip()
        if name:
            paper["publication_types"] = (name[:2000],)
    urls = [t for u in rec.iterfind("urls/related-urls/url") if (t := _text(u))]
    pdfs = [t for u in rec.iterfind("urls/pdf-urls/url") if (t := _text(u))]
    safe = next((s for u in urls if (s := safe_https_url(u))), None)
    if safe:
        paper["source_url"] = safe
    if urls:
        extras["related-urls"] = urls
    if pdfs:
        extras["pdf-urls"] = pdfs
    unknown: list[str] = []
    for child in rec:
        tag = child.tag if isinstance(child.tag, str) else ""
        if not tag or tag in _MAPPED:
            continue
        value = _text(child)
        if value:
            extras.setdefault(tag, []).append(value)
        if tag not in _KNOWN:
            unknown.append(tag)
    if unknown:
        notices.append(
            Notice(
                "unknown_tag",
                "elements kept in extras: " + ", ".join(dict.fromkeys(unknown))[:300],
                line=first,
            )
        )
    digest = digest_bytes(raw.encode("utf-8", "surrogatepass"))
    try:
        p = make_paper(fallback_key=digest, **paper)
    except PaperError as exc:
        notices.append(Notice("dropped_field", f"fields dropped: {exc.message[:200]}", line=first))
        p = make_paper(fallback_key=digest, title=str(paper.get("title", "")))
    source_id = _first(rec, "rec-number") or None
    return RecordTrace(
        digest=digest,
        first_line=first,
        last_line=last,
        paper=p,
        raw=raw,
        source_id=source_id,
        notices=tuple(notices),
        extras=extras,
    )


def parse(text: str) -> ParseResult:
    """Read EndNote XML text."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise ImportRefused("empty EndNote XML text", code="empty")
    _refuse_dangerous(text)
    decl = _DECL.match(text)
    body = text if decl is None else " " * len(decl.group()) + text[decl.end() :]
    notices: list[Notice] = []
    try:
        root = etree.fromstring(body, _parser(recover=False))
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if isinstance(exc.lineno, int) else None
        try:
            root = etree.fromstring(body, _parser(recover=True))
        except etree.XMLSyntaxError:
            root = None
        if root is None:
            raise ImportRefused(
                f"not well-formed XML (line {line}): {str(exc.msg)[:200]}", code="malformed"
            ) from None
        notices.append(
            Notice(
                "other",
                f"not well-formed XML ({str(exc.msg)[:150]}); records read in recovery mode",
                line=line,
            )
        )
    if root is None or root.tag not in ("xml", "records"):
        raise ImportRefused("not EndNote XML: the root element is not <xml> or <records>")
    records_el = root if root.tag == "records" else root.find("records")
    elements = list(records_el.iterfind("record")) if records_el is not None else []
    if not elements:
        raise ImportRefused("EndNote XML holds no <record>", code="empty")
    spans = [(m.start(), m.end()) for m in _RECORD.finditer(body)]
    exact = len(spans) == len(elements)
    if not exact:
        notices.append(
            Notice("other", "record text spans could not be matched; raw is re-serialised XML")
        )
    out: list[RecordTrace] = []
    line = 1
    pos = 0
    for i, rec in enumerate(elements):
        if exact:
            start, end = spans[i]
            line += body.count("\n", pos, start)
            pos = start
            raw = body[start:end]
            first = line
            last = first + raw.count("\n")
        else:
            raw = etree.tostring(rec, encoding="unicode")
            first = rec.sourceline if isinstance(rec.sourceline, int) else 1
            last = first + raw.count("\n")
        if not _text(rec):
            notices.append(
                Notice("skipped", f"<record> {i + 1} skipped: nothing could be read", line=first)
            )
            continue
        out.append(_record(rec, raw, (first, last)))
    if not out:
        raise ImportRefused("no EndNote <record> could be read", code="malformed")
    return ParseResult(records=out, notices=notices)


def sniff(head: str) -> int:
    """Confidence that ``head`` is EndNote XML."""
    s = head.lstrip("\ufeff \t\r\n")
    if not s.startswith("<"):
        return 0
    if "<records>" in s and ("<rec-number>" in s or "<ref-type" in s):
        return 95
    if "<xml>" in s and "<records" in s:
        return 70
    return 0


FORMATS: list[FormatSpec] = [
    FormatSpec(
        name="endnote-xml",
        parser_id=PARSER_ID,
        parser_version=PARSER_VERSION,
        description="EndNote XML export (<xml><records><record>)",
        sniff=sniff,
        parse=parse,
        extensions=(".xml",),
        tool=endnote_tool,
    )
]
