"""Crossref: ``/works?query.bibliographic=`` (or ``query.title`` / ``query.author``
for one field) and ``/works/<doi>`` lookups (pure).

Crossref has no Boolean or phrase search: operators, parentheses and quoted
phrases are refused with the reason; plain words are sent as a ranked query.
"""

from __future__ import annotations

from typing import Final
from urllib.parse import quote

from litdesk.core.providers import provider_spec
from litdesk.core.search import CompiledRequest, CompileRefused, SearchFilters

from ._common import (
    FIELD_NAMES,
    all_fields,
    check_limit,
    finish,
    has_operators,
    refuse_semantic,
    refuse_truncation,
    text_cursor,
    year_range,
)
from ._grammar import Query

__all__ = ["SPEC", "URL", "compile_lookup", "compile_search"]

SPEC: Final = provider_spec("crossref")
PROVIDER: Final = SPEC.name
URL: Final = SPEC.url("/works")
MAX_PAGE: Final = 1000
_QUERY_PARAM: Final = {
    "all": "query.bibliographic",
    "title": "query.title",
    "author": "query.author",
}
_SORT: Final = {"newest": "published", "cited": "is-referenced-by-count"}


def _filters(filters: SearchFilters) -> tuple[list[str], list[str]]:
    clauses: list[str] = []
    warnings: list[str] = []
    years = year_range(filters)
    if years:
        clauses.append(f"from-pub-date:{years[0]}-01-01")
        clauses.append(f"until-pub-date:{years[1]}-12-31")
    if filters.open_access:
        raise CompileRefused(PROVIDER, "Crossref has no open-access filter")
    if filters.type == "review":
        raise CompileRefused(PROVIDER, "Crossref has no review-article type")
    if filters.type == "journal":
        clauses.append("type:journal-article")
    elif filters.type == "preprint":
        clauses.append("type:posted-content")
        warnings.append("Crossref type posted-content holds preprints and other posted content")
    if not filters.include_retracted:
        warnings.append(
            "Crossref has no retraction filter: retracted works are not excluded by the "
            "provider (check retraction status after retrieval)"
        )
    return clauses, warnings


def compile_search(
    query: Query, filters: SearchFilters, *, cursor: str | None, limit: int, mode: str
) -> CompiledRequest:
    refuse_semantic(PROVIDER, mode)
    if query.has_operators or has_operators(query.root):
        raise CompileRefused(
            PROVIDER, "Crossref has no Boolean search (AND, OR, NOT, parentheses are refused)"
        )
    fields = all_fields(query, filters)
    if len(fields) > 1:
        raise CompileRefused(PROVIDER, "Crossref cannot combine fields in one query")
    (field,) = fields
    if field not in _QUERY_PARAM:
        raise CompileRefused(PROVIDER, f"Crossref cannot search {FIELD_NAMES[field]}")
    terms = query.terms
    refuse_truncation(PROVIDER, query, "Crossref matches whole words only")
    if field != "author" and any(t.phrase for t in terms):
        raise CompileRefused(PROVIDER, "Crossref has no phrase search (quoted phrases)")
    page = check_limit(PROVIDER, limit, MAX_PAGE)
    mark = text_cursor(PROVIDER, cursor)
    text = " ".join(t.text for t in terms)
    clauses, warnings = _filters(filters)
    if len(terms) > 1 or (field == "author" and " " in text):
        warnings.append("Crossref ranks by the words; results need not contain every word")
    params: list[tuple[str, str]] = [(_QUERY_PARAM[field], text)]
    if clauses:
        params.append(("filter", ",".join(clauses)))
    if filters.sort in _SORT:
        params += [("sort", _SORT[filters.sort]), ("order", "desc")]
    params += [("rows", str(page)), ("cursor", mark)]
    return finish(
        PROVIDER,
        operation="search",
        url=URL,
        params=params,
        executed=f"{_QUERY_PARAM[field]}={text}",
        lane=SPEC.lane("keyword"),
        warnings=warnings,
    )


def compile_lookup(namespace: str, value: str) -> CompiledRequest:
    """``value`` is already normalised for ``namespace``."""
    if namespace != "doi":
        raise CompileRefused(PROVIDER, f"Crossref looks up DOIs only, not {namespace} ids")
    return finish(
        PROVIDER,
        operation="lookup",
        url=f"{URL}/{quote(value, safe='')}",
        params=[],
        executed=value,
        lane=SPEC.lane("lookup"),
    )
