"""CSL-JSON import and export (``csljson``).

An array of CSL items (or one item object). Items are decoded one by one with
``json.JSONDecoder.raw_decode`` so each keeps its exact raw text, digest and line
span; a non-object item is skipped with a notice. Dates follow CSL ``issued``:
``date-parts`` (strings or numbers, empty, null, excess parts, season pseudo-months
13–24), ``season``, ``raw`` and ``literal``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Final

from litdesk.core.imports import ImportRefused, Notice, RecordTrace, digest_bytes
from litdesk.core.records import (
    Paper,
    PaperError,
    make_paper,
    normalize_doi,
    normalize_pmcid,
    normalize_pmid,
    safe_https_url,
    split_arxiv,
)

from ._errorbody import refuse_error_body
from ._json import DECODER
from ._spec import FormatSpec, ParseResult

__all__ = ["FORMATS", "dumps", "parse", "sniff"]

PARSER_ID: Final = "litdesk.csljson"
PARSER_VERSION: Final = "1"

_DECODER: Final = DECODER
_WS: Final = re.compile(r"[ \t\n\r]*")
_YEAR: Final = re.compile(r"(?<![\d-])([12]\d{3})(?!\d)")
_ARXIV_NOTE: Final = re.compile(r"arxiv\s*:\s*(\S+)", re.I)
_KW_SPLIT: Final = re.compile(r"(?:(?<!\s)\s+)?,\s*")

_MAPPED: Final = frozenset(
    "id type title author issued container-title DOI PMID PMCID volume issue page "  # noqa: SIM905 - a word list
    "abstract keyword URL".split()
)
#: CSL variables kept in extras without a notice (the CSL 1.0.2 schema's names).
_KNOWN: Final = frozenset(
    "citation-key language accessed source publisher publisher-place title-short "  # noqa: SIM905 - a word list
    "short-title ISSN ISBN editor original-date number collection-title collection-number "
    "number-of-pages event-date submitted container-title-short medium edition note "
    "dimensions version categories license genre section volume-title call-number archive "
    "archive_location archive-place annote event event-place status translator director "
    "reviewed-author reviewed-title container-author collection-editor composer "
    "interviewer recipient original-title original-publisher original-publisher-place "
    "original-author scale authority references chapter-number journalAbbreviation "
    "shortTitle subtitle number-of-volumes page-first PMCID script-writer".split()
)
_NAME_KEYS: Final = ("non-dropping-particle", "family")


def _str(value: object) -> str | None:
    """A scalar CSL value as text (numbers allowed); ``None`` for anything else."""
    if isinstance(value, str):
        text = " ".join(value.split())
        return text or None
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return _str(value[0])
    return None


def _name(person: object) -> str | None:
    if isinstance(person, str):
        return _str(person)
    if not isinstance(person, dict):
        return None
    literal = _str(person.get("literal"))
    if literal:
        return literal
    family_parts = [_str(person.get(k)) for k in _NAME_KEYS]
    family = " ".join(p for p in family_parts if p)
    given_parts = [_str(person.get("given")), _str(person.get("dropping-particle"))]
    given = " ".join(p for p in given_parts if p)
    suffix = _str(person.get("suffix"))
    if family and given:
        return f"{family}, {given}" + (f", {suffix}" if suffix else "")
    return family or given or None


def _year(issued: object, notices: list[Notice], line: int) -> int | None:
    if issued is None:
        return None
    if isinstance(issued, str | int):
        m = _YEAR.search(str(issued))
        return int(m.group(1)) if m else None
    if not isinstance(issued, dict):
        notices.append(Notice("dropped_field", "issued is not a date object", line=line))
        return None
    parts = issued.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list):
        first = parts[0]
        if len(first) > 3:
            notices.append(
                Notice(
                    "dropped_field",
                    f"issued date-parts has {len(first)} parts; only year/month/day are read",
                    line=line,
                    field="issued",
                )
            )
        if first and first[0] is not None:
            raw = str(first[0]).strip()
            if re.fullmatch(r"[12]\d{3}", raw):
                return int(raw)
            notices.append(
                Notice(
                    "dropped_field",
                    f"issued year {raw[:20]!r} is outside 1000-2999",
                    line=line,
                    field="issued",
                )
            )
            return None
    for key in ("raw", "literal"):
        text = issued.get(key)
        if isinstance(text, str) and (m := _YEAR.search(text)):
            return int(m.group(1))
    if parts is not None:
        notices.append(Notice("dropped_field", "issued has no year", line=line, field="issued"))
    return None


def _extra_value(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _record(item: dict[str, Any], raw: str, first: int, last: int) -> RecordTrace:
    notices: list[Notice] = []
    extras: dict[str, list[str]] = {}
    paper: dict[str, Any] = {}
    title = _str(item.get("title"))
    paper["title"] = title or ""
    authors = item.get("author")
    if isinstance(authors, list):
        names = [n for n in (_name(a) for a in authors) if n]
        if len(names) < len(authors):
            notices.append(
                Notice("dropped_field", "author entries without a name skipped", line=first)
            )
        paper["authors"] = tuple(n[:2000] for n in names)
    elif authors is not None:
        notices.append(Notice("dropped_field", "author is not a list", line=first))
    journal = _str(item.get("container-title"))
    if journal:
        paper["journal"] = journal[:2000]
    year = _year(item.get("issued"), notices, first)
    if year is not None:
        paper["year"] = year
    for src, dst in (("volume", "volume"), ("issue", "issue"), ("page", "pages")):
        v = _str(item.get(src))
        if v is None:
            continue
        if len(v) > 100:
            notices.append(Notice("dropped_field", f"{src} longer than 100 characters", line=first))
            extras[src] = [v]
            continue
        paper[dst] = v
    for key, dst, norm in (
        ("DOI", "doi", normalize_doi),
        ("PMID", "pmid", normalize_pmid),
        ("PMCID", "pmcid", normalize_pmcid),
    ):
        v = _str(item.get(key))
        if v is None:
            continue
        got = norm(v)
        if got is None:
            notices.append(
                Notice(
                    "malformed_identifier",
                    f"{key} {v[:80]!r} does not normalise; kept in extras",
                    line=first,
                    field=key,
                )
            )
            extras[key] = [v]
        else:
            paper[dst] = got
    url = _str(item.get("URL"))
    if url:
        safe = safe_https_url(url)
        if safe:
            paper["source_url"] = safe
        else:
            extras["URL"] = [url]
    arxiv = None
    note = item.get("note")
    if isinstance(note, str) and (m := _ARXIV_NOTE.search(note)):
        arxiv = split_arxiv(m.group(1))
    if arxiv is None and url and "arxiv.org/" in url:
        arxiv = split_arxiv(url)
    if arxiv is None and str(item.get("archive", "")).lower() == "arxiv":
        arxiv = split_arxiv(_str(item.get("number")) or "")
    if arxiv is not None:
        paper["arxiv_id"] = arxiv.base
        if arxiv.version is not None:
            paper["arxiv_version"] = arxiv.version
    abstract = item.get("abstract")
    if isinstance(abstract, str) and abstract.strip():
        paper["abstract"] = abstract
    kw = item.get("keyword")
    if isinstance(kw, str):
        paper["keywords"] = tuple(k[:2000] for k in _KW_SPLIT.split(kw) if k.strip())
    elif isinstance(kw, list):
        paper["keywords"] = tuple(s[:2000] for k in kw if (s := _str(k)))
    ctype = _str(item.get("type"))
    if ctype:
        paper["publication_types"] = (ctype[:2000],)
    unknown: list[str] = []
    for key, value in item.items():
        if key in _MAPPED or key in extras:
            continue
        extras[key] = [_extra_value(value)]
        if key not in _KNOWN:
            unknown.append(key)
    if unknown:
        notices.append(
            Notice("unknown_tag", "fields kept in extras: " + ", ".join(unknown)[:300], line=first)
        )
    digest = digest_bytes(raw.encode("utf-8", "surrogatepass"))
    try:
        p = make_paper(fallback_key=digest, **paper)
    except PaperError as exc:
        notices.append(Notice("dropped_field", f"fields dropped: {exc.message[:200]}", line=first))
        p = make_paper(fallback_key=digest, title=str(paper.get("title", "")))
    source_id = item.get("id")
    return RecordTrace(
        digest=digest,
        first_line=first,
        last_line=last,
        paper=p,
        raw=raw,
        source_id=_str(source_id) if isinstance(source_id, str | int) else None,
        notices=tuple(notices),
        extras=extras,
    )


def _refuse_json(text: str, exc: json.JSONDecodeError) -> ImportRefused:
    return ImportRefused(
        f"not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}",
        code="malformed",
        line=exc.lineno,
    )


def parse(text: str) -> ParseResult:
    """Read CSL-JSON text: an array of items or one item object."""
    refuse_error_body(text)
    if text.startswith("\ufeff"):
        text = text[1:]
    pos = _WS.match(text).end()  # type: ignore[union-attr]
    if pos >= len(text):
        raise ImportRefused("empty CSL-JSON text", code="empty")
    line = text.count("\n", 0, pos) + 1
    records: list[RecordTrace] = []
    notices: list[Notice] = []
    if text[pos] == "{":
        try:
            item, end = _DECODER.raw_decode(text, pos)
        except (json.JSONDecodeError, RecursionError) as exc:
            if isinstance(exc, RecursionError):
                raise ImportRefused("JSON nested too deeply", code="too_deep") from None
            raise _refuse_json(text, exc) from None
        if _WS.match(text, end).end() != len(text):  # type: ignore[union-attr]
            raise ImportRefused("text after the CSL-JSON object", code="malformed")
        raw = text[pos:end]
        return ParseResult(
            records=[_record(item, raw, line, line + raw.count("\n"))], notices=notices
        )
    if text[pos] != "[":
        raise ImportRefused("CSL-JSON must be an array of items or one item object")
    pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    index = 0
    counted = 0
    line = 1
    while True:
        if pos >= len(text):
            raise ImportRefused("CSL-JSON array is not closed", code="malformed")
        if text[pos] == "]":
            pos += 1
            break
        line += text.count("\n", counted, pos)
        counted = pos
        first = line
        try:
            item, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise _refuse_json(text, exc) from None
        except RecursionError:
            raise ImportRefused("JSON nested too deeply", code="too_deep") from None
        raw = text[pos:end]
        last = first + raw.count("\n")
        if isinstance(item, dict):
            records.append(_record(item, raw, first, last))
        else:
            notices.append(Notice("skipped", f"array element {index} is not an object", line=first))
        index += 1
        pos = _WS.match(text, end).end()  # type: ignore[union-attr]
        if pos < len(text) and text[pos] == ",":
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
        elif pos < len(text) and text[pos] != "]":
            raise ImportRefused(
                f"expected ',' or ']' at line {text.count(chr(10), 0, pos) + 1}",
                code="malformed",
            )
    if _WS.match(text, pos).end() != len(text):  # type: ignore[union-attr]
        raise ImportRefused("text after the CSL-JSON array", code="malformed")
    if not records:
        if index == 0:
            raise ImportRefused("CSL-JSON array holds no items", code="empty")
        raise ImportRefused("no CSL-JSON array element is an item object", code="malformed")
    return ParseResult(records=records, notices=notices)


_SNIFF_KEYS: Final = re.compile(r'"(?:type|issued|container-title|author|citation-key|DOI)"\s*:')


_ERROR_BODY: Final = re.compile(r'\{\s*"(?:error|errors|status)"\s*:')


def sniff(head: str) -> int:
    """Confidence that ``head`` is CSL-JSON."""
    s = head.lstrip("\ufeff \t\r\n")
    if not s.startswith(("[", "{")):
        return 0
    if _ERROR_BODY.match(s):
        return 0  # a provider's error document, not a bibliography
    hits = len(set(_SNIFF_KEYS.findall(s[:20_000])))
    if hits >= 3:
        return 85
    if hits:
        return 40
    return 5


_CSL_TYPES: Final = {
    "article": "article-journal",
    "inproceedings": "paper-conference",
    "conference": "paper-conference",
    "incollection": "chapter",
    "inbook": "chapter",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "techreport": "report",
    "misc": "document",
    "online": "webpage",
    "journal article": "article-journal",
    "journal-article": "article-journal",
    "review": "review",
}
_CSL_NATIVE: Final = frozenset(
    "article article-journal article-magazine article-newspaper bill book broadcast "  # noqa: SIM905 - a word list
    "chapter classic collection dataset document entry entry-dictionary "
    "entry-encyclopedia event figure graphic hearing interview legal_case legislation "
    "manuscript map motion_picture musical_score pamphlet paper-conference patent "
    "performance periodical personal_communication post post-weblog regulation report "
    "review review-book software song speech standard thesis treaty webpage".split()
)


def _csl_type(p: Paper) -> str:
    for t in p.publication_types:
        low = t.lower()
        if low in _CSL_TYPES:
            return _CSL_TYPES[low]
        if low in _CSL_NATIVE:
            return low
    return "article-journal"


def _csl_name(name: str) -> dict[str, str]:
    fam, sep, giv = name.partition(", ")
    if sep and fam and giv and name == f"{fam.strip()}, {giv.strip()}" and fam.strip() == fam:
        return {"family": fam, "given": giv}
    return {"literal": name}


def dumps(papers: Sequence[Paper]) -> str:
    """CSL-JSON (an array, pretty-printed, UTF-8 text) for ``papers``; ids made unique."""
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    for p in papers:
        ident = p.id
        n = 1
        while ident in seen:
            n += 1
            ident = f"{p.id}-{n}"
        seen.add(ident)
        item: dict[str, Any] = {"id": ident, "type": _csl_type(p), "title": p.title}
        if p.authors:
            item["author"] = [_csl_name(a) for a in p.authors]
        if p.year is not None:
            item["issued"] = {"date-parts": [[p.year]]}
        if p.journal:
            item["container-title"] = p.journal
        for key, value in (
            ("volume", p.volume),
            ("issue", p.issue),
            ("page", p.pages),
            ("DOI", p.doi),
            ("PMID", p.pmid),
            ("PMCID", p.pmcid),
            ("URL", p.source_url),
            ("abstract", p.abstract),
        ):
            if value:
                item[key] = value
        if p.keywords:
            item["keyword"] = ", ".join(k.replace(",", " ") for k in p.keywords)
        if p.arxiv_id:
            version = f"v{p.arxiv_version}" if p.arxiv_version else ""
            item["note"] = f"arXiv: {p.arxiv_id}{version}"
        items.append(item)
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"


FORMATS: list[FormatSpec] = [
    FormatSpec(
        name="csljson",
        parser_id=PARSER_ID,
        parser_version=PARSER_VERSION,
        description="CSL-JSON (Zotero, Better BibTeX, pandoc, Crossref/DataCite content negotiation)",
        sniff=sniff,
        parse=parse,
        extensions=(".json", ".csl.json", ".csljson"),
        dumps=dumps,
    )
]
