"""OpenAlex works responses (a list with ``meta``/``results`` or one work) → ProviderPage.
Group-by responses are not works and are refused."""

from __future__ import annotations

import json
from typing import Any, Final

from litdesk.core.imports import digest_bytes
from litdesk.core.providers import provider_spec
from litdesk.core.records import normalize_openalex_id
from litdesk.core.search import CompiledRequest, ProviderPage

from ._adapter import Credential, ProviderAdapter, request_param
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
    one_line,
    year_of,
)

__all__ = [
    "ADAPTER",
    "SPEC",
    "OPENALEX_KEY_MESSAGE",
    "SEMANTIC_GAP_SECONDS",
    "MAX_ABSTRACT_WORDS",
    "PARSER",
    "openalex_record",
    "parse_openalex",
    "rebuild_abstract",
]

SPEC: Final = provider_spec("openalex")
PROVIDER: Final = SPEC.name
PARSER: Final = ("litdesk.providers.openalex", "1")
#: Bounds on ``abstract_inverted_index``: positions and distinct words.
MAX_ABSTRACT_WORDS: Final = 20_000
_WORK_KEYS = frozenset({"id", "doi", "ids", "title", "display_name", "open_access", "authorships"})


def parse_openalex(body: bytes) -> ProviderPage:
    return guarded(PROVIDER, _parse, body)


def _parse(body: bytes) -> ProviderPage:
    doc = load_json(PROVIDER, body)
    if not isinstance(doc, dict):
        raise ProviderParseError(PROVIDER, "top level is not an object", body)
    if "error" in doc and "message" in doc:
        raise ProviderParseError(PROVIDER, "body is an error report", body)
    b = Builder(PROVIDER)
    if "meta" in doc or "results" in doc:
        meta = as_dict(doc.get("meta"))
        if as_list(doc.get("group_by")) or meta.get("groups_count") is not None:
            raise ProviderParseError(PROVIDER, "a group_by response holds groups, not works", body)
        results = doc.get("results")
        if not isinstance(results, list):
            raise ProviderParseError(PROVIDER, "results is not a list", body)
        for work in results:
            _add(b, work)
        return b.page(total=as_int(meta.get("count")), next_cursor=as_str(meta.get("next_cursor")))
    if not _WORK_KEYS & doc.keys():
        raise ProviderParseError(PROVIDER, "neither a works list nor a work", body)
    _add(b, doc)
    return b.page(total=len(b.papers))


def _add(b: Builder, work: object) -> None:
    if not isinstance(work, dict):
        b.seen += 1
        b.skip("not an object")
        return
    fields, notes = openalex_record(work)
    fallback = digest_bytes(json.dumps(work, sort_keys=True, default=str).encode("utf-8"))
    paper = b.add(fields, fallback=fallback)
    if paper is not None and notes:
        index = len(b.papers) - 1
        b.notices.setdefault(index, []).extend(notes)
        b.kinds.setdefault(index, []).extend(("dropped_field", n) for n in notes)


def openalex_record(w: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Paper fields of one work and notices (a malformed abstract index)."""
    notes: list[str] = []
    ids = as_dict(w.get("ids"))
    work_id = as_str(w.get("id")) or as_str(ids.get("openalex"))
    primary = as_dict(w.get("primary_location"))
    best = as_dict(w.get("best_oa_location"))
    oa = as_dict(w.get("open_access"))
    abstract: str | None = None
    if w.get("abstract_inverted_index") is not None:
        abstract = rebuild_abstract(w.get("abstract_inverted_index"))
        if abstract is None:
            notes.append("abstract_inverted_index malformed or too large: abstract dropped")
    authors = []
    for a in as_list(w.get("authorships")):
        a = as_dict(a)
        name = one_line(as_dict(a.get("author")).get("display_name")) or one_line(
            a.get("raw_author_name")
        )
        if name:
            authors.append(name)
    kind = as_str(w.get("type"))
    openalex_id = normalize_openalex_id(work_id) if work_id else None
    fields: dict[str, Any] = {
        "openalex_id": work_id,
        "doi": as_str(w.get("doi")) or as_str(ids.get("doi")),
        "pmid": as_str(ids.get("pmid")),
        "pmcid": as_str(ids.get("pmcid")),
        "title": one_line(w.get("title")) or one_line(w.get("display_name")) or "",
        "authors": tuple(authors),
        "journal": one_line(as_dict(primary.get("source")).get("display_name")),
        "year": year_of(w.get("publication_year")),
        "volume": as_str(as_dict(w.get("biblio")).get("volume")),
        "issue": as_str(as_dict(w.get("biblio")).get("issue")),
        "pages": _pages(as_dict(w.get("biblio"))),
        "abstract": abstract,
        "publication_types": (kind,) if kind else (),
        "open_access": as_bool(oa.get("is_oa")),
        "retracted": w.get("is_retracted") is True,
        "cited_by": as_int(w.get("cited_by_count")),
        "licence": as_str(best.get("license")),
        "full_text_url": as_str(best.get("pdf_url")) or as_str(best.get("landing_page_url")),
        "source_url": f"https://openalex.org/{openalex_id}" if openalex_id else None,
        "provider": SPEC.display_name,
    }
    return fields, notes


def _pages(biblio: dict[str, Any]) -> str | None:
    first, last = as_str(biblio.get("first_page")), as_str(biblio.get("last_page"))
    if first and last and first != last:
        return f"{first}-{last}"
    return first


def rebuild_abstract(index: object) -> str | None:
    """Words placed at their positions; ``None`` for a malformed or oversized index."""
    if not isinstance(index, dict) or not index:
        return None
    slots: dict[int, str] = {}
    for word, positions in index.items():
        if not isinstance(word, str) or not isinstance(positions, list) or not positions:
            return None
        for pos in positions:
            if (
                not isinstance(pos, int)
                or isinstance(pos, bool)
                or not 0 <= pos < MAX_ABSTRACT_WORDS
            ):
                return None
            if pos in slots:
                return None
            slots[pos] = word
        if len(slots) > MAX_ABSTRACT_WORDS:
            return None
    text = " ".join(slots[p] for p in sorted(slots))
    return " ".join(text.split()) or None


OPENALEX_KEY_MESSAGE: Final = (
    "OpenAlex requires an API key (free): create one at https://openalex.org/settings/api "
    "and set LITDESK_OPENALEX_API_KEY; nothing was sent"
)
#: The semantic lane keeps one call per second for every process sharing the store.
SEMANTIC_GAP_SECONDS: Final = 1.0


def _parse_answer(request: CompiledRequest, body: bytes) -> ProviderPage:
    page = parse_openalex(body)
    if request_param(request, "search.semantic") is not None:
        # Semantic search ranks one bounded shortlist: no total, no further pages.
        page.total = None
        page.next_cursor = None
        page.warnings.append(
            f"OpenAlex semantic search returns a bounded shortlist of {len(page.papers)} works"
        )
    return page


#: OpenAlex at the edge: 10 requests a second, an API key (required) as ``api_key``,
#: ``mailto`` for the polite pool, its own global daily allowance.
ADAPTER: Final = ProviderAdapter(
    spec=SPEC,
    parser=PARSER,
    parse=_parse_answer,
    parse_body=parse_openalex,
    interval=0.1,
    credential=Credential("openalex_api_key", param="api_key"),
    key_required=OPENALEX_KEY_MESSAGE,
    contact_param="mailto",
    lane_gaps=((SPEC.lane("semantic"), SEMANTIC_GAP_SECONDS),),
    daily_limit_setting="openalex_daily_requests",
)
