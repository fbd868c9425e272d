"""Crossref REST responses (``message-type`` ``work`` and ``work-list``) → ProviderPage.
Sparse ``select=`` items parse; JATS abstracts become plain text."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from litdesk.core.imports import digest_bytes
from litdesk.core.providers import provider_spec
from litdesk.core.records import normalize_doi
from litdesk.core.search import CompiledRequest, ProviderPage

from ._adapter import Credential, ProviderAdapter, request_param
from ._common import (
    Builder,
    ProviderParseError,
    as_dict,
    as_int,
    as_list,
    as_str,
    drop_heading,
    guarded,
    load_json,
    one_line,
    plain_text,
    year_of,
)

__all__ = ["ADAPTER", "SPEC", "crossref_interval", "PARSER", "crossref_record", "parse_crossref"]

SPEC: Final = provider_spec("crossref")
PROVIDER: Final = SPEC.name
PARSER: Final = ("litdesk.providers.crossref", "1")
_DATES = ("issued", "published", "published-print", "published-online")


def parse_crossref(body: bytes) -> ProviderPage:
    return guarded(PROVIDER, _parse, body)


def _parse(body: bytes) -> ProviderPage:
    doc = load_json(PROVIDER, body)
    if not isinstance(doc, dict):
        raise ProviderParseError(PROVIDER, "top level is not an object", body)
    kind = as_str(doc.get("message-type"))
    message = doc.get("message")
    if as_str(doc.get("status")) not in (None, "ok"):
        raise ProviderParseError(PROVIDER, "body is an error report", body)
    b = Builder(PROVIDER)
    if kind == "work-list" and isinstance(message, dict):
        items = message.get("items")
        if not isinstance(items, list):
            raise ProviderParseError(PROVIDER, "message.items is not a list", body)
        for item in items:
            _add(b, item)
        cursor = as_str(message.get("next-cursor")) if items else None
        return b.page(total=as_int(message.get("total-results")), next_cursor=cursor)
    if kind == "work" and isinstance(message, dict):
        _add(b, message)
        return b.page(total=len(b.papers))
    raise ProviderParseError(
        PROVIDER, f"message-type {str(kind)[:40]!r} is not a work or work-list", body
    )


def _add(b: Builder, item: object) -> None:
    if not isinstance(item, dict):
        b.seen += 1
        b.skip("not an object")
        return
    fallback = digest_bytes(json.dumps(item, sort_keys=True, default=str).encode("utf-8"))
    b.add(crossref_record(item), fallback=fallback)


def crossref_record(w: dict[str, Any]) -> dict[str, Any]:
    """Paper fields of one Crossref work."""
    kind = as_str(w.get("type"))
    subtype = as_str(w.get("subtype"))
    types = [t for t in (kind, subtype) if t]
    if kind == "posted-content" and subtype in (None, "preprint") and "preprint" not in types:
        types.append("preprint")
    retracted = any(
        (as_str(as_dict(u).get("type")) or "").lower() in {"retraction", "removal"}
        for u in as_list(w.get("updated-by"))
    )
    doi = as_str(w.get("DOI"))
    return {
        "doi": doi,
        "title": _first(w.get("title")) or "",
        "authors": tuple(_authors(w)),
        "journal": _first(w.get("container-title")),
        "year": _year(w),
        "volume": as_str(w.get("volume")),
        "issue": as_str(w.get("issue")),
        "pages": as_str(w.get("page")),
        "abstract": drop_heading(plain_text(w.get("abstract"))),
        "keywords": tuple(k for k in (one_line(s) for s in as_list(w.get("subject"))) if k),
        "publication_types": tuple(types),
        "retracted": retracted,
        "cited_by": as_int(w.get("is-referenced-by-count")),
        "licence": _licence(w),
        "source_url": f"https://doi.org/{norm}" if (norm := normalize_doi(doi)) else None,
        "provider": SPEC.display_name,
    }


def _first(value: object) -> str | None:
    for v in as_list(value):
        if text := one_line(v):
            return text
    return None


def _authors(w: dict[str, Any]) -> list[str]:
    out = []
    for a in as_list(w.get("author")):
        a = as_dict(a)
        name = " ".join(x for x in (one_line(a.get("given")), one_line(a.get("family"))) if x)
        name = name or one_line(a.get("name")) or ""
        if name:
            out.append(name)
    return out


def _year(w: dict[str, Any]) -> int | None:
    for key in _DATES:
        parts = as_list(as_dict(w.get(key)).get("date-parts"))
        first = as_list(parts[0]) if parts else []
        if first and (year := year_of(first[0])):
            return year
    return None


def _licence(w: dict[str, Any]) -> str | None:
    licences = [as_dict(x) for x in as_list(w.get("license"))]
    for wanted in ("vor", None):
        for lic in licences:
            if wanted is None or as_str(lic.get("content-version")) == wanted:
                url = as_str(lic.get("URL"))
                if url:
                    return url
    return None


_MAX_INTERVAL: Final = 60.0


def crossref_interval(headers: Mapping[str, str]) -> float | None:
    """Seconds between requests from Crossref's rate headers, or None when absent/invalid."""
    limit_raw = headers.get("x-rate-limit-limit", "").strip()
    interval_raw = headers.get("x-rate-limit-interval", "").strip().lower()
    if not limit_raw or not interval_raw:
        return None
    m = re.fullmatch(r"(\d{1,6})\s*(s|ms|m)?", interval_raw)
    if not limit_raw.isdigit() or m is None:
        return None
    limit = int(limit_raw)
    if limit <= 0:
        return None
    amount = float(m.group(1))
    unit = m.group(2) or "s"
    seconds = amount / 1000 if unit == "ms" else amount * 60 if unit == "m" else amount
    return min(max(seconds / limit, 0.0), _MAX_INTERVAL)


def _parse_answer(request: CompiledRequest, body: bytes) -> ProviderPage:
    page = parse_crossref(body)
    if page.next_cursor is not None and page.next_cursor == request_param(request, "cursor"):
        page.next_cursor = None
    return page


#: Crossref at the edge: 50 requests a second (the public pool) until its rate headers say
#: otherwise, an optional Plus token as a Bearer header, ``mailto`` for the polite pool.
ADAPTER: Final = ProviderAdapter(
    spec=SPEC,
    parser=PARSER,
    parse=_parse_answer,
    parse_body=parse_crossref,
    interval=1 / 50,
    interval_from_headers=crossref_interval,
    credential=Credential(
        "crossref_plus_token", header="Crossref-Plus-API-Token", template="Bearer {key}"
    ),
    contact_param="mailto",
)
