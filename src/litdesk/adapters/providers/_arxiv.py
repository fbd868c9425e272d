"""arXiv API Atom feeds → ProviderPage: OpenSearch totals, entries (arXiv id and version
kept apart), and the Atom error entry (``…/api/errors#…``) as the provider's error."""

from __future__ import annotations

from typing import Any, Final

from lxml import etree

from litdesk.core.imports import digest_bytes
from litdesk.core.providers import provider_spec
from litdesk.core.records import split_arxiv
from litdesk.core.search import CompiledRequest, ProviderPage

from ._adapter import ProviderAdapter
from ._common import (
    Builder,
    ProviderParseError,
    ProviderReportedError,
    as_int,
    child,
    children,
    guarded,
    load_xml,
    local,
    text_of,
    xml_text,
    year_of,
)

__all__ = ["ADAPTER", "SPEC", "PARSER", "arxiv_entry", "arxiv_error", "parse_arxiv"]

SPEC: Final = provider_spec("arxiv")
PROVIDER: Final = SPEC.name
PARSER: Final = ("litdesk.providers.arxiv", "1")


def parse_arxiv(body: bytes) -> ProviderPage:
    return guarded(PROVIDER, _parse, body)


def _parse(body: bytes) -> ProviderPage:
    root = load_xml(PROVIDER, body)
    if local(root) != "feed":
        raise ProviderParseError(PROVIDER, f"unexpected XML root {local(root)[:40]!r}", body)
    if (message := arxiv_error(root)) is not None:
        raise ProviderReportedError(PROVIDER, message)
    total = as_int(text_of(root, "totalResults"))
    start = as_int(text_of(root, "startIndex")) or 0
    b = Builder(PROVIDER)
    entries = children(root, "entry")
    for entry in entries:
        fields = arxiv_entry(entry)
        if fields is None:
            b.seen += 1
            b.skip("entry without an arXiv id")
            continue
        b.add(fields, fallback=digest_bytes(etree.tostring(entry)))
    end = start + len(entries)
    cursor = str(end) if entries and total is not None and end < total else None
    return b.page(total=total, next_cursor=cursor)


def arxiv_error(root: etree._Element) -> str | None:
    """The message of an Atom error entry (id containing ``api/errors``), else ``None``."""
    for entry in children(root, "entry"):
        if "api/errors" in (text_of(entry, "id") or ""):
            return text_of(entry, "summary") or "arXiv API error"
    return None


def arxiv_entry(entry: etree._Element) -> dict[str, Any] | None:
    """Paper fields of one Atom entry, or ``None`` when its id is not an arXiv id."""
    parsed = split_arxiv(text_of(entry, "id"))
    if parsed is None:
        return None
    base, version = parsed
    categories = [c.get("term") or "" for c in children(entry, "category")]
    primary = child(entry, "primary_category")
    primary_term = primary.get("term") if primary is not None else None
    keywords = [t for t in [primary_term, *categories] if t]
    versioned = f"{base}v{version}" if version else base
    return {
        "arxiv_id": base,
        "arxiv_version": version,
        "doi": text_of(entry, "doi"),
        "title": xml_text(child(entry, "title"), limit=4_000) or "",
        "abstract": xml_text(child(entry, "summary")),
        "authors": tuple(n for n in (text_of(a, "name") for a in children(entry, "author")) if n),
        "journal": text_of(entry, "journal_ref"),
        "year": year_of(text_of(entry, "published")),
        "keywords": tuple(dict.fromkeys(keywords)),
        "publication_types": ("preprint",),
        "open_access": True,
        "source_url": f"https://arxiv.org/abs/{versioned}",
        "full_text_url": f"https://arxiv.org/pdf/{versioned}",
        "provider": SPEC.display_name,
    }


def _parse_answer(request: CompiledRequest, body: bytes) -> ProviderPage:
    return parse_arxiv(body)


#: arXiv at the edge: one request every 3 seconds, Atom answers.
ADAPTER: Final = ProviderAdapter(
    spec=SPEC,
    parser=PARSER,
    parse=_parse_answer,
    parse_body=parse_arxiv,
    interval=3.0,
    accept="application/atom+xml, application/xml;q=0.9",
)
