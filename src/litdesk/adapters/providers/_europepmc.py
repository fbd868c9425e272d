"""Europe PMC REST search responses (JSON core/lite/idlist, XML ``responseWrapper``) and
``fullTextXML`` JATS articles → :class:`ProviderPage`."""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import urlsplit

from lxml import etree

from litdesk.core.imports import digest_bytes
from litdesk.core.providers import provider_spec
from litdesk.core.records import normalize_pmcid
from litdesk.core.search import CompiledRequest, ProviderPage

from ._adapter import ProviderAdapter, request_param
from ._common import (
    Builder,
    ProviderParseError,
    as_bool,
    as_dict,
    as_int,
    as_list,
    as_str,
    guarded,
    load_json,
    load_xml,
    local,
    one_line,
    plain_text,
    year_of,
)
from ._jats import jats_fields

__all__ = [
    "ADAPTER",
    "SPEC",
    "MAX_FULLTEXT_BYTES",
    "PARSER",
    "europepmc_record",
    "parse_europepmc",
    "xml_to_dict",
]

SPEC: Final = provider_spec("europepmc")
PROVIDER: Final = SPEC.name
PARSER: Final = ("litdesk.providers.europepmc", "1")
_FULLTEXT_HOSTS = frozenset(
    {"europepmc.org", "www.europepmc.org", "www.ncbi.nlm.nih.gov", "pmc.ncbi.nlm.nih.gov"}
)


def parse_europepmc(body: bytes, *, cursor: str | None = None) -> ProviderPage:
    """Parse a Europe PMC body. ``cursor`` is the request's ``cursorMark``: a
    ``nextCursorMark`` equal to it is the end of the results (no next page)."""
    return guarded(PROVIDER, lambda b: _parse(b, cursor), body)


def _parse(body: bytes, cursor: str | None) -> ProviderPage:
    if body.lstrip()[:1] == b"<":
        root = load_xml(PROVIDER, body)
        if local(root) == "article":
            return _article(root, body)
        if local(root) != "responseWrapper":
            raise ProviderParseError(PROVIDER, f"unexpected XML root {local(root)[:40]!r}", body)
        doc = xml_to_dict(root)
    else:
        doc = load_json(PROVIDER, body)
    if not isinstance(doc, dict):
        raise ProviderParseError(PROVIDER, "top level is not an object", body)
    if "errCode" in doc or "errMsg" in doc:
        raise ProviderParseError(PROVIDER, "body is an error report", body)
    if "resultList" not in doc or "hitCount" not in doc:
        raise ProviderParseError(PROVIDER, "no resultList/hitCount: not a search response", body)
    total = as_int(doc.get("hitCount"))
    results = as_list(as_dict(doc.get("resultList")).get("result"))
    b = Builder(PROVIDER)
    seen: dict[str, int] = {}
    for number, record in enumerate(results, start=1):
        if not isinstance(record, dict):
            b.seen += 1
            b.skip("not an object")
            continue
        key = _fallback(record)
        if key in seen:  # only byte-identical duplicates go; conflicting ones stay
            b.seen += 1
            b.skip(f"byte-identical duplicate of record {seen[key]}")
            continue
        seen[key] = number
        fields, source_id = europepmc_record(record)
        b.add(fields, source_id=source_id, fallback=key)
    next_cursor = as_str(doc.get("nextCursorMark"))
    if next_cursor is not None and (next_cursor == cursor or not results):
        next_cursor = None
    return b.page(total=total, next_cursor=next_cursor)


def _fallback(record: dict[str, Any]) -> str:
    import json

    return digest_bytes(json.dumps(record, sort_keys=True, default=str).encode("utf-8"))


def _article(root: etree._Element, body: bytes) -> ProviderPage:
    b = Builder(PROVIDER)
    fields = jats_fields(root)
    pmcid = normalize_pmcid(fields.get("pmcid"))
    if pmcid:
        fields["full_text_url"] = f"https://europepmc.org/articles/{pmcid}"
        fields["source_url"] = f"https://europepmc.org/article/PMC/{pmcid}"
    fields["provider"] = SPEC.display_name
    b.add(fields, fallback=digest_bytes(body))
    return b.page(total=len(b.papers))


def europepmc_record(r: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """Paper fields and the ``<SRC>-<id>`` source id of one search result."""
    source = (as_str(r.get("source")) or "").upper()
    acc = as_str(r.get("id"))
    source_id = f"{source}-{acc}" if source and acc else None
    pmcid = as_str(r.get("pmcid"))
    pub_types = _pub_types(r)
    journal_info = as_dict(r.get("journalInfo"))
    fields: dict[str, Any] = {
        "pmid": as_str(r.get("pmid")),
        "pmcid": pmcid,
        "doi": as_str(r.get("doi")),
        "title": one_line(r.get("title")) or "",
        "authors": tuple(_authors(r)),
        "journal": one_line(as_dict(journal_info.get("journal")).get("title"))
        or one_line(r.get("journalTitle")),
        "year": year_of(as_str(r.get("pubYear")))
        or year_of(as_str(journal_info.get("yearOfPublication"))),
        "volume": as_str(journal_info.get("volume")) or as_str(r.get("journalVolume")),
        "issue": as_str(journal_info.get("issue")) or as_str(r.get("issue")),
        "pages": as_str(r.get("pageInfo")),
        "abstract": plain_text(r.get("abstractText")),
        "keywords": tuple(
            k
            for k in (one_line(x) for x in as_list(as_dict(r.get("keywordList")).get("keyword")))
            if k
        ),
        "publication_types": tuple(pub_types),
        "open_access": as_bool(r.get("isOpenAccess")),
        "retracted": _retracted(r, pub_types),
        "cited_by": as_int(r.get("citedByCount")),
        "licence": one_line(r.get("license"), limit=200),
        "full_text_url": _full_text_url(r),
        "provider": SPEC.display_name,
    }
    if source and acc and source_id:
        fields["source_url"] = f"https://europepmc.org/article/{source}/{acc}"
    return fields, source_id


def _authors(r: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for a in as_list(as_dict(r.get("authorList")).get("author")):
        a = as_dict(a)
        name = one_line(a.get("fullName")) or one_line(a.get("collectiveName"))
        if not name:
            last, initials = as_str(a.get("lastName")), as_str(a.get("initials"))
            name = " ".join(x for x in (last, initials) if x) or None
        if name:
            out.append(name)
    if not out and (s := one_line(r.get("authorString"))):
        out = [p.strip().rstrip(".") for p in s.split(",") if p.strip().rstrip(".")]
    return out


def _pub_types(r: dict[str, Any]) -> list[str]:
    listed = as_list(as_dict(r.get("pubTypeList")).get("pubType"))
    types = [t for t in (one_line(x, limit=200) for x in listed) if t]
    if not types and (flat := as_str(r.get("pubType"))):
        types = [t.strip() for t in flat.split(";") if t.strip()]
    unique: dict[str, str] = {}
    for t in types:
        unique.setdefault(t.lower(), t)
    return list(unique.values())


def _retracted(r: dict[str, Any], pub_types: list[str]) -> bool:
    if any(t.lower() == "retracted publication" for t in pub_types):
        return True
    corrections = as_list(as_dict(r.get("commentCorrectionList")).get("commentCorrection"))
    return any(
        (as_str(as_dict(c).get("type")) or "").lower() in {"retraction in", "retraction"}
        for c in corrections
    )


def _full_text_url(r: dict[str, Any]) -> str | None:
    candidates: list[tuple[int, str]] = []
    for entry in as_list(as_dict(r.get("fullTextUrlList")).get("fullTextUrl")):
        entry = as_dict(entry)
        url = as_str(entry.get("url"))
        if not url or not url.lower().startswith("https://"):
            continue
        try:
            host = (urlsplit(url).hostname or "").lower()
        except ValueError:
            continue
        if host not in _FULLTEXT_HOSTS:
            continue
        style = (as_str(entry.get("documentStyle")) or "").lower()
        candidates.append((0 if style == "html" else 1, url))
    if candidates:
        return sorted(candidates, key=lambda c: c[0])[0][1]
    pmcid = normalize_pmcid(r.get("pmcid"))
    if pmcid and as_bool(r.get("inEPMC")):
        return f"https://europepmc.org/articles/{pmcid}"
    return None


def xml_to_dict(el: etree._Element) -> Any:
    """An element as plain data: leaves → text, repeated children → lists."""
    kids = [c for c in el if local(c)]
    mixed = (el.text or "").strip() or any((c.tail or "").strip() for c in el)
    if not kids or mixed:
        return "".join(str(t) for t in el.itertext()).strip()
    out: dict[str, Any] = {}
    for c in kids:
        name = local(c)
        value = xml_to_dict(c)
        if name in out:
            prev = out[name]
            if isinstance(prev, list):
                prev.append(value)
            else:
                out[name] = [prev, value]
        else:
            out[name] = value
    return out


#: The largest full-text article read (the ``fulltext`` lane; searches keep the settings' cap).
MAX_FULLTEXT_BYTES: Final = 4_000_000


def _parse_answer(request: CompiledRequest, body: bytes) -> ProviderPage:
    return parse_europepmc(body, cursor=request_param(request, "cursorMark"))


#: Europe PMC at the edge: 10 requests a second, no key.
ADAPTER: Final = ProviderAdapter(
    spec=SPEC,
    parser=PARSER,
    parse=_parse_answer,
    parse_body=parse_europepmc,
    interval=0.1,
    body_limits=((SPEC.lane("fulltext"), MAX_FULLTEXT_BYTES),),
)
