"""OpenAlex: ``/works`` keyword (``search=`` or a ``*.search`` filter) and semantic
(``search.semantic=``) requests, and ``/works/<id>`` lookups (pure)."""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import quote

from litdesk.core.providers import provider_spec
from litdesk.core.search import CompiledRequest, CompileRefused, SearchFilters

from ._common import (
    FIELD_NAMES,
    all_fields,
    check_limit,
    check_negations,
    finish,
    refuse_truncation,
    split_and,
    text_cursor,
    year_range,
)
from ._grammar import And, Node, Not, Query, Term

__all__ = ["SPEC", "URL", "compile_lookup", "compile_search", "filter_clauses"]

SPEC: Final = provider_spec("openalex")
PROVIDER: Final = SPEC.name
URL: Final = SPEC.url("/works")
MAX_PAGE: Final = 200
MAX_SEMANTIC_PAGE: Final = 50
MAX_SEMANTIC_CHARS: Final = 2000
_SEARCH_FILTER: Final = {
    "title": "title.search",
    "abstract": "abstract.search",
    "author": "raw_author_name.search",
}
_LUCENE_SPECIAL: Final = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
_SORT: Final = {"newest": "publication_date:desc", "cited": "cited_by_count:desc"}
_OPERATOR_WORDS: Final = frozenset({"AND", "OR", "NOT"})


def _term(term: Term, *, author: bool) -> str:
    text = term.text
    if term.phrase or author or any(c.isspace() for c in text) or text.upper() in _OPERATOR_WORDS:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return _LUCENE_SPECIAL.sub(r"\\\1", text)


def _wrap(node: Node, author: bool, plain: bool) -> str:
    text = _expr(node, author, plain)
    return text if isinstance(node, Term) else f"({text})"


def _expr(node: Node, author: bool, plain: bool) -> str:
    if isinstance(node, Term):
        return _term(node, author=author)
    if isinstance(node, And):
        split = split_and(node)
        out = (" " if plain else " AND ").join(_wrap(c, author, plain) for c in split.positives)
        for neg in split.negatives:
            out += f" NOT {_wrap(neg, author, plain)}"
        return out
    if isinstance(node, Not):
        raise CompileRefused(PROVIDER, "NOT needs a positive term")
    return " OR ".join(_wrap(c, author, plain) for c in node.children)


def filter_clauses(filters: SearchFilters) -> tuple[list[str], list[str]]:
    """The ``filter=`` clauses for the search filters, and warnings."""
    clauses: list[str] = []
    warnings: list[str] = []
    years = year_range(filters)
    if years:
        clauses.append(f"publication_year:{years[0]}-{years[1]}")
    if filters.open_access:
        clauses.append("is_oa:true")
    if not filters.include_retracted:
        clauses.append("is_retracted:false")
    if filters.type == "journal":
        clauses.append("type:article")
        warnings.append(
            "OpenAlex has no journal-article type: type:article was used, and OpenAlex "
            "type classifications differ from Europe PMC's"
        )
    elif filters.type in ("review", "preprint"):
        clauses.append(f"type:{filters.type}")
    return clauses, warnings


def _keyword(
    query: Query, filters: SearchFilters, cursor: str | None, limit: int
) -> CompiledRequest:
    page = check_limit(PROVIDER, limit, MAX_PAGE)
    mark = text_cursor(PROVIDER, cursor)
    fields = all_fields(query, filters)
    if "mesh" in fields:
        raise CompileRefused(
            PROVIDER, "OpenAlex has no MeSH field (MESH:); its topics are another vocabulary"
        )
    if len(fields) > 1:
        names = " and ".join(sorted(FIELD_NAMES[f] for f in fields))
        raise CompileRefused(
            PROVIDER, f"OpenAlex cannot combine fields in one query ({names}); use one field"
        )
    (field,) = fields
    if field == "author_last":
        raise CompileRefused(PROVIDER, "OpenAlex cannot search the last author (AUTH_LAST:)")
    check_negations(PROVIDER, query.root)
    refuse_truncation(PROVIDER, query, "OpenAlex matches whole words only (with stemming)")
    plain = not query.has_boolean_syntax
    expr = _expr(query.root, field == "author", plain)
    clauses, warnings = filter_clauses(filters)
    params: list[tuple[str, str]] = [("per_page", str(page))]
    if field == "all":
        params.append(("search", expr))
        executed = expr
    else:
        if "," in expr or "|" in expr:
            raise CompileRefused(
                PROVIDER, "a search filter cannot carry ',' or '|' (OpenAlex filter separators)"
            )
        search_clause = f"{_SEARCH_FILTER[field]}:{expr}"
        clauses.insert(0, search_clause)
        executed = search_clause
    if clauses:
        params.append(("filter", ",".join(clauses)))
    if filters.sort in _SORT:
        params.append(("sort", _SORT[filters.sort]))
    params.append(("cursor", mark))
    return finish(
        PROVIDER,
        operation="search",
        url=URL,
        params=params,
        executed=executed,
        lane=SPEC.lane("keyword"),
        warnings=warnings,
    )


def _semantic(
    query: Query, filters: SearchFilters, cursor: str | None, limit: int
) -> CompiledRequest:
    if cursor not in (None, "*"):
        raise CompileRefused(PROVIDER, "semantic search has a single page (no cursor)")
    if filters.field != "all":
        raise CompileRefused(PROVIDER, "semantic search covers all fields only")
    if filters.sort != "relevance":
        raise CompileRefused(PROVIDER, "semantic search is ranked by relevance only")
    if query.has_boolean_syntax:
        raise CompileRefused(
            PROVIDER, "semantic search takes plain text (no operators, parentheses or fields)"
        )
    text = " ".join(query.text.split())
    if len(text) > MAX_SEMANTIC_CHARS:
        raise CompileRefused(
            PROVIDER, f"semantic search takes at most {MAX_SEMANTIC_CHARS:,} characters"
        )
    if limit > MAX_SEMANTIC_PAGE:
        raise CompileRefused(PROVIDER, f"semantic search returns at most {MAX_SEMANTIC_PAGE}")
    page = check_limit(PROVIDER, limit, MAX_SEMANTIC_PAGE)
    clauses, warnings = filter_clauses(filters)
    if query.has_phrase:
        warnings.append("quotes have no effect in semantic search: the text is embedded")
    params: list[tuple[str, str]] = [("per_page", str(page)), ("search.semantic", text)]
    if clauses:
        params.append(("filter", ",".join(clauses)))
    return finish(
        PROVIDER,
        operation="search",
        url=URL,
        params=params,
        executed=text,
        lane=SPEC.lane("semantic"),
        warnings=warnings,
    )


def compile_search(
    query: Query, filters: SearchFilters, *, cursor: str | None, limit: int, mode: str
) -> CompiledRequest:
    if mode == "semantic":
        return _semantic(query, filters, cursor, limit)
    if mode != "keyword":
        raise CompileRefused(PROVIDER, f"unknown search mode {mode!r}")
    return _keyword(query, filters, cursor, limit)


def compile_lookup(namespace: str, value: str) -> CompiledRequest:
    """``value`` is already normalised for ``namespace``."""
    if namespace == "openalex":
        path = value
    elif namespace == "doi":
        path = "https://doi.org/" + quote(value, safe="")
    elif namespace == "pmid":
        path = f"pmid:{value}"
    elif namespace == "pmcid":
        path = f"pmcid:{value}"
    elif namespace == "source" and value.startswith("OAX-"):
        path = value[4:]
    else:
        raise CompileRefused(PROVIDER, f"OpenAlex cannot look up {namespace} ids exactly")
    return finish(
        PROVIDER,
        operation="lookup",
        url=f"{URL}/{path}",
        params=[],
        executed=path,
        lane=SPEC.lane("keyword"),
    )
