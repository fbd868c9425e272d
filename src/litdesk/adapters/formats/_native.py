"""Saved provider responses as import formats: ``europepmc-json``, ``openalex-json``,
``crossref-json``, ``s2-json``, ``pubmed-xml`` and ``arxiv-atom``.

Each record's raw text is that record's JSON value or XML element exactly as it stood
in the file (found by position, not re-serialised), with its line span and digest;
the Paper is built by the same record functions the live provider parsers use.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from lxml import etree

from litdesk.adapters.providers._arxiv import arxiv_entry, arxiv_error
from litdesk.adapters.providers._common import (
    ProviderParseError,
    as_dict,
    as_str,
    build_paper,
    load_xml,
    local,
)
from litdesk.adapters.providers._crossref import crossref_record
from litdesk.adapters.providers._europepmc import europepmc_record
from litdesk.adapters.providers._openalex import openalex_record
from litdesk.adapters.providers._pubmed import (
    pmc_article,
    pubmed_article,
    pubmed_docsum,
    pubmed_errors,
)
from litdesk.adapters.providers._semanticscholar import s2_record
from litdesk.core.imports import ImportRefused, Notice, RecordTrace, digest_bytes
from litdesk.core.records import (
    normalize_doi,
    normalize_openalex_id,
    normalize_pmcid,
    normalize_pmid,
    split_arxiv,
)

from ._errorbody import refuse_error_body
from ._json import DECODER
from ._spec import FormatSpec, ParseResult

__all__ = ["FORMATS"]

VERSION: Final = "1"
_DECODER = DECODER
_WS = re.compile(r"[ \t\n\r]*")

# --------------------------------------------------------------------------- JSON spans


class _Shape(ValueError):
    """The JSON is not shaped as the format expects (internal)."""


def _skip_ws(text: str, i: int) -> int:
    m = _WS.match(text, i)
    return m.end() if m else i


def _value_span(text: str, i: int) -> tuple[Any, int, int]:
    start = _skip_ws(text, i)
    value, end = _DECODER.raw_decode(text, start)
    return value, start, end


def _find(text: str, path: tuple[str, ...]) -> int:
    """The offset of the value at ``path`` (object keys from the top)."""
    i = _skip_ws(text, 0)
    for key in path:
        if i >= len(text) or text[i] != "{":
            raise _Shape(f"expected an object before {key!r}")
        i = _skip_ws(text, i + 1)
        while True:
            if i < len(text) and text[i] == "}":
                raise _Shape(f"no {key!r}")
            name, i = _DECODER.raw_decode(text, i)
            i = _skip_ws(text, i)
            if i >= len(text) or text[i] != ":":
                raise _Shape("expected ':'")
            i = _skip_ws(text, i + 1)
            if name == key:
                break
            _, i = _DECODER.raw_decode(text, i)
            i = _skip_ws(text, i)
            if i < len(text) and text[i] == ",":
                i = _skip_ws(text, i + 1)
    return i


def _array_spans(text: str, i: int) -> Iterator[tuple[Any, int, int]]:
    if i >= len(text) or text[i] != "[":
        raise _Shape("expected an array")
    i = _skip_ws(text, i + 1)
    if i < len(text) and text[i] == "]":
        return
    while True:
        value, start, end = _value_span(text, i)
        yield value, start, end
        i = _skip_ws(text, end)
        if i < len(text) and text[i] == ",":
            i += 1
            continue
        if i < len(text) and text[i] == "]":
            return
        raise _Shape("expected ',' or ']'")


# --------------------------------------------------------------------------- records


@dataclass(slots=True)
class _Raw:
    start: int
    end: int
    fields: dict[str, Any] | None
    source_id: str | None
    skip: str | None = None
    notes: list[str] = field(default_factory=list)
    #: Set when the element could not be located verbatim: its re-serialised text and line.
    text: str | None = None
    line: int | None = None


class _Lines:
    """Offset → 1-based line number."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)


def _result(text: str, raws: list[_Raw], notices: list[Notice]) -> ParseResult:
    lines = _Lines(text)
    records: list[RecordTrace] = []
    for raw in raws:
        if raw.text is not None:
            chunk = raw.text
            first = raw.line or 1
            last = first + chunk.count("\n")
        else:
            chunk = text[raw.start : raw.end]
            first = lines.line(raw.start)
            last = lines.line(max(raw.start, raw.end - 1))
        if raw.fields is None:
            notices.append(Notice("skipped", raw.skip or "not a record", line=first))
            continue
        digest = digest_bytes(chunk.encode("utf-8"))
        source = raw.fields.pop("_source", None)
        paper, notes = build_paper(raw.fields, source_id=source, fallback=digest)
        if paper is None:
            notices.append(
                Notice(
                    "skipped", "record not usable: " + "; ".join(m for _, m in notes), line=first
                )
            )
            continue
        record_notices = [Notice(_kind(k), m, line=first) for k, m in notes]
        record_notices += [Notice("dropped_field", m, line=first) for m in raw.notes]
        if raw.text is not None:
            record_notices.append(
                Notice("other", "raw record re-serialised: not located verbatim", line=first)
            )
        records.append(
            RecordTrace(
                digest=digest,
                first_line=first,
                last_line=last,
                paper=paper,
                raw=chunk,
                source_id=raw.source_id,
                notices=tuple(record_notices),
            )
        )
    if not records:
        notices.append(Notice("other", "the saved response holds no records"))
    return ParseResult(records=records, notices=notices)


_KINDS = {"malformed_identifier", "dropped_field", "other"}


def _kind(kind: str) -> Any:
    return kind if kind in _KINDS else "other"


def _safe(record: Callable[[Any], _Raw | None], value: Any) -> _Raw | None:
    """A record function's result; an unexpected structure skips the record."""
    try:
        return record(value)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, RecursionError):
        return None


def _load_json_text(text: str) -> Any:
    try:
        return DECODER.decode(text)
    except RecursionError:
        raise ImportRefused("JSON nested too deeply", code="too_deep") from None
    except ValueError:
        raise ImportRefused("the file is not valid JSON", code="malformed") from None


def _json_parse(
    text: str,
    locate: Callable[[Any], tuple[tuple[str, ...], bool]],
    record: Callable[[Any], _Raw | None],
) -> ParseResult:
    refuse_error_body(text)
    doc = _load_json_text(text)
    try:
        path, is_array = locate(doc)
        at = _find(text, path)
        spans = _array_spans(text, at) if is_array else iter([_value_span(text, at)])
        raws: list[_Raw] = []
        for value, start, end in spans:
            raw = _safe(record, value)
            if raw is None:
                raws.append(_Raw(start, end, None, None, skip="null or non-object entry"))
                continue
            raw.start, raw.end = start, end
            raws.append(raw)
    except (_Shape, ValueError, RecursionError) as exc:
        raise ImportRefused(
            f"the JSON is not a saved response of this kind: {exc}"[:200], code="malformed"
        ) from None
    return _result(text, raws, [])


def _europepmc_locate(doc: Any) -> tuple[tuple[str, ...], bool]:
    if not isinstance(doc, dict) or "resultList" not in doc:
        raise _Shape("no resultList")
    return ("resultList", "result"), True


def _europepmc_record(value: Any) -> _Raw | None:
    if not isinstance(value, dict):
        return None
    fields, source_id = europepmc_record(value)
    fields["_source"] = source_id  # Europe PMC's <SRC>-<id> ranks as a source id
    return _Raw(0, 0, fields, source_id)


def _openalex_locate(doc: Any) -> tuple[tuple[str, ...], bool]:
    if not isinstance(doc, dict):
        raise _Shape("not an object")
    if doc.get("group_by"):
        raise _Shape("a group_by response holds groups, not works")
    return (("results",), True) if "results" in doc else ((), False)


def _openalex_record(value: Any) -> _Raw | None:
    if not isinstance(value, dict):
        return None
    fields, notes = openalex_record(value)
    work = normalize_openalex_id(
        as_str(value.get("id")) or as_str(as_dict(value.get("ids")).get("openalex"))
    )
    return _Raw(0, 0, fields, work, notes=notes)


def _crossref_locate(doc: Any) -> tuple[tuple[str, ...], bool]:
    kind = as_str(as_dict(doc).get("message-type"))
    if kind == "work-list":
        return ("message", "items"), True
    if kind == "work":
        return ("message",), False
    raise _Shape(f"message-type {str(kind)[:40]!r}")


def _crossref_record(value: Any) -> _Raw | None:
    if not isinstance(value, dict):
        return None
    return _Raw(0, 0, crossref_record(value), normalize_doi(as_str(value.get("DOI"))))


def _s2_locate(doc: Any) -> tuple[tuple[str, ...], bool]:
    if isinstance(doc, list):
        return (), True
    if isinstance(doc, dict) and "data" in doc:
        return ("data",), True
    if isinstance(doc, dict) and ("paperId" in doc or "externalIds" in doc):
        return (), False
    raise _Shape("neither a paper, a list nor a search response")


def _s2_record(value: Any) -> _Raw | None:
    if not isinstance(value, dict):
        return None
    for nested in ("citedPaper", "citingPaper"):
        if isinstance(value.get(nested), dict):
            value = value[nested]
            break
    fields, source_id = s2_record(value)
    fields["_source"] = source_id
    return _Raw(0, 0, fields, as_str(value.get("paperId")))


# --------------------------------------------------------------------------- XML

_DECL = re.compile(r"^\ufeff?\s*<\?xml[^>]*\?>")


def _xml_root(text: str, provider: str) -> etree._Element:
    body = _DECL.sub(lambda m: "\n" * m.group(0).count("\n"), text, count=1).encode("utf-8")
    try:
        return load_xml(provider, body)
    except ProviderParseError as exc:
        raise ImportRefused(f"the XML cannot be read: {exc.reason}", code="malformed") from None


def _element_spans(text: str, tag: str) -> list[tuple[int, int]]:
    pattern = re.compile(
        rf"<(?:[A-Za-z_][\w.-]*:)?{re.escape(tag)}(?=[\s>/])[^>]*>.*?</(?:[A-Za-z_][\w.-]*:)?{re.escape(tag)}\s*>",
        re.DOTALL,
    )
    return [(m.start(), m.end()) for m in pattern.finditer(text)]


def _xml_parse(
    text: str,
    elements: list[etree._Element],
    record: Callable[[etree._Element], _Raw],
) -> ParseResult:
    spans: dict[str, list[tuple[int, int]]] = {}
    wanted: dict[str, int] = {}
    for el in elements:
        wanted[local(el)] = wanted.get(local(el), 0) + 1
    seen: dict[str, int] = {}
    raws: list[_Raw] = []
    lines = _Lines(text)
    for el in elements:
        tag = local(el)
        if tag not in spans:
            spans[tag] = _element_spans(text, tag)
        found = spans[tag]
        n = seen.get(tag, 0)
        seen[tag] = n + 1
        raw = _safe(record, el)
        if raw is None:
            raw = _Raw(0, 0, None, None, skip="record has an unexpected structure")
        start, end = found[n] if len(found) == wanted[tag] else (-1, -1)
        line = el.sourceline if isinstance(el.sourceline, int) else None
        if start >= 0 and _is_element_span(text, start, end, el, line, lines):
            raw.start, raw.end = start, end
        else:  # not located verbatim (nested or unusual markup): keep it re-serialised
            raw.text = etree.tostring(el, encoding="unicode", with_tail=False)
            raw.line = line
        raws.append(raw)
    return _result(text, raws, [])


def _is_element_span(
    text: str, start: int, end: int, el: etree._Element, line: int | None, lines: _Lines
) -> bool:
    """The span really is ``el``: its start tag ends on the element's line, and a span
    holding a comment, CDATA or PI (where a closing tag may hide) is a whole element."""
    if line is None or lines.line(text.find(">", start, end)) != line:
        return False
    chunk = text[start:end]
    if "<![CDATA[" not in chunk and "<!--" not in chunk and "<?" not in chunk:
        return True
    decls = "".join(
        f' xmlns{":" + p if p else ""}="{uri}"'.replace("&", "&amp;").replace("<", "&lt;")
        for p, uri in el.nsmap.items()
    )
    try:
        whole = load_xml("native", f"<w{decls}>{chunk}</w>".encode())
    except ProviderParseError:
        return False
    return len(whole) == 1 and local(whole[0]) == local(el)


def _pubmed_parse(text: str) -> ParseResult:
    root = _xml_root(text, "pubmed")
    name = local(root)
    if name == "PubmedArticleSet":
        els = [e for e in root if local(e) in {"PubmedArticle", "PubmedBookArticle"}]
        return _xml_parse(text, els, lambda e: _pm(pubmed_article(e)))
    if name == "eSummaryResult":
        if errors := pubmed_errors(root):
            raise ImportRefused(
                "the saved response is a PubMed error: " + "; ".join(errors)[:200], code="malformed"
            )
        els = [e for e in root if local(e) == "DocSum"]
        return _xml_parse(text, els, lambda e: _pm(pubmed_docsum(e)))
    if name == "eSearchResult":
        if errors := pubmed_errors(root):
            raise ImportRefused(
                "the saved response is a PubMed error: " + "; ".join(errors)[:200], code="malformed"
            )
        idlist = next((e for e in root if local(e) == "IdList"), None)
        els = [e for e in idlist if local(e) == "Id"] if idlist is not None else []
        return _xml_parse(text, els, _esearch_id)
    if name in {"pmc-articleset", "article"}:
        els = [root] if name == "article" else [e for e in root if local(e) == "article"]
        return _xml_parse(text, els, lambda e: _pm(pmc_article(e)))
    raise ImportRefused(f"not a PubMed response (root {name[:40]!r})", code="malformed")


def _pm(fields: dict[str, Any]) -> _Raw:
    source = normalize_pmid(fields.get("pmid")) or normalize_pmcid(fields.get("pmcid"))
    return _Raw(0, 0, fields, source)


def _esearch_id(el: etree._Element) -> _Raw:
    pmid = (el.text or "").strip()
    return _Raw(0, 0, {"pmid": pmid, "provider": "PubMed"}, pmid or None)


def _arxiv_parse(text: str) -> ParseResult:
    root = _xml_root(text, "arxiv")
    if local(root) != "feed":
        raise ImportRefused("not an Atom feed", code="malformed")
    if (message := arxiv_error(root)) is not None:
        raise ImportRefused(
            f"the saved response is an arXiv error: {message}"[:200], code="malformed"
        )
    els = [e for e in root if local(e) == "entry"]
    return _xml_parse(text, els, _arxiv_record)


def _arxiv_record(el: etree._Element) -> _Raw:
    fields = arxiv_entry(el)
    if fields is None:
        return _Raw(0, 0, None, None, skip="entry without an arXiv id")
    ident = next((c.text or "" for c in el if local(c) == "id"), "")
    parsed = split_arxiv(ident)
    source = None
    if parsed is not None:
        source = f"{parsed.base}v{parsed.version}" if parsed.version else parsed.base
    return _Raw(0, 0, fields, source)


# --------------------------------------------------------------------------- sniffing


def _json_head(head: str) -> str | None:
    stripped = head.lstrip("\ufeff \t\r\n")
    return stripped if stripped[:1] in {"{", "["} else None


def _sniff_europepmc(head: str) -> int:
    h = _json_head(head)
    return 95 if h and '"resultList"' in h and '"hitCount"' in h else 0


def _sniff_openalex(head: str) -> int:
    h = _json_head(head)
    if not h or h[:1] != "{":
        return 0
    if "openalex.org/W" in h or ('"meta"' in h and '"results"' in h and '"count"' in h):
        return 90
    if '"open_access"' in h and '"is_oa"' in h:
        return 60
    return 0


def _sniff_crossref(head: str) -> int:
    h = _json_head(head)
    return 95 if h and '"message-type"' in h and '"message"' in h else 0


def _sniff_s2(head: str) -> int:
    h = _json_head(head)
    if not h:
        return 0
    return 85 if '"paperId"' in h else 0


def _sniff_pubmed(head: str) -> int:
    if any(
        f"<{t}" in head
        for t in ("PubmedArticleSet", "eSummaryResult", "eSearchResult", "pmc-articleset")
    ):
        return 95
    if "<article" in head and any(m in head for m in ("article-meta", "journal-meta", "JATS")):
        return 50  # a single JATS article (Europe PMC fullTextXML, PMC OA package)
    return 0


def _sniff_arxiv(head: str) -> int:
    if "<feed" in head and "http://www.w3.org/2005/Atom" in head and "arxiv" in head.lower():
        return 95
    return 0


FORMATS: list[FormatSpec] = [
    FormatSpec(
        name="europepmc-json",
        parser_id="litdesk.native.europepmc-json",
        parser_version=VERSION,
        description="Europe PMC REST search response (JSON, core/lite/idlist)",
        sniff=_sniff_europepmc,
        parse=lambda text: _json_parse(text, _europepmc_locate, _europepmc_record),
        extensions=("json",),
    ),
    FormatSpec(
        name="openalex-json",
        parser_id="litdesk.native.openalex-json",
        parser_version=VERSION,
        description="OpenAlex works list or single work (JSON)",
        sniff=_sniff_openalex,
        parse=lambda text: _json_parse(text, _openalex_locate, _openalex_record),
        extensions=("json",),
    ),
    FormatSpec(
        name="crossref-json",
        parser_id="litdesk.native.crossref-json",
        parser_version=VERSION,
        description="Crossref REST work or work-list (JSON)",
        sniff=_sniff_crossref,
        parse=lambda text: _json_parse(text, _crossref_locate, _crossref_record),
        extensions=("json",),
    ),
    FormatSpec(
        name="s2-json",
        parser_id="litdesk.native.s2-json",
        parser_version=VERSION,
        description="Semantic Scholar Graph API search, batch, paper or references (JSON)",
        sniff=_sniff_s2,
        parse=lambda text: _json_parse(text, _s2_locate, _s2_record),
        extensions=("json",),
    ),
    FormatSpec(
        name="pubmed-xml",
        parser_id="litdesk.native.pubmed-xml",
        parser_version=VERSION,
        description="NCBI E-utilities efetch PubmedArticleSet, esummary, esearch or PMC JATS (XML)",
        sniff=_sniff_pubmed,
        parse=_pubmed_parse,
        extensions=("xml",),
    ),
    FormatSpec(
        name="arxiv-atom",
        parser_id="litdesk.native.arxiv-atom",
        parser_version=VERSION,
        description="arXiv API Atom feed (XML)",
        sniff=_sniff_arxiv,
        parse=_arxiv_parse,
        extensions=("xml", "atom"),
    ),
]
