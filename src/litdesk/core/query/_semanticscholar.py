"""Semantic Scholar Graph API: relevance search ``/paper/search`` (plain words only),
bulk search ``/paper/search/bulk`` (``+`` AND, ``|`` OR, ``-`` NOT, quotes,
parentheses; ``token`` cursor), and ``/paper/<ID>`` lookups (pure)."""

from __future__ import annotations

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
    offset_cursor,
    refuse_compound_truncation,
    refuse_semantic,
    split_and,
    text_cursor,
    year_range,
)
from ._grammar import And, Node, Not, Query, Term

__all__ = [
    "SPEC",
    "BULK_URL",
    "FIELDS",
    "PAPER_URL",
    "SEARCH_URL",
    "compile_lookup",
    "compile_search",
]

SPEC: Final = provider_spec("semanticscholar")
PROVIDER: Final = SPEC.name
SEARCH_URL: Final = SPEC.url("/graph/v1/paper/search")
BULK_URL: Final = SPEC.url("/graph/v1/paper/search/bulk")
PAPER_URL: Final = SPEC.url("/graph/v1/paper")
#: Fields requested for every paper (what the adapter maps into a Paper).
FIELDS: Final = (
    "paperId,corpusId,externalIds,title,abstract,authors,year,venue,journal,publicationDate,"
    "publicationTypes,isOpenAccess,openAccessPdf,citationCount,url"
)
MAX_PAGE: Final = 100
MAX_RELEVANCE_RESULTS: Final = 1000
_SPECIAL: Final = frozenset('+|-"*()~')
_SORT: Final = {"newest": "publicationDate:desc", "cited": "citationCount:desc"}
_TYPES: Final = {"review": "Review", "journal": "JournalArticle"}
RETRACTION_WARNING: Final = (
    "Semantic Scholar has no retraction filter: retracted works are not excluded by the "
    "provider (check retraction status after retrieval)"
)


def _bulk_term(term: Term) -> str:
    text = term.text
    if '"' in text:
        raise CompileRefused(PROVIDER, "a term with a double quote cannot be expressed")
    if term.truncated:  # bulk search's prefix match: ``therap*`` unquoted
        return text
    if term.phrase or any(c.isspace() or c in _SPECIAL for c in text):
        return f'"{text}"'
    return text


def _wrap(node: Node) -> str:
    text = _bulk(node)
    return text if isinstance(node, Term) else f"({text})"


def _bulk(node: Node) -> str:
    if isinstance(node, Term):
        return _bulk_term(node)
    if isinstance(node, And):
        split = split_and(node)
        out = " + ".join(_wrap(c) for c in split.positives)
        for neg in split.negatives:
            if not isinstance(neg, Term):
                raise CompileRefused(
                    PROVIDER, "Semantic Scholar can negate a single term or phrase only"
                )
            out += " -" + _bulk_term(neg)
        return out
    if isinstance(node, Not):
        raise CompileRefused(PROVIDER, "NOT needs a positive term")
    return " | ".join(_wrap(c) for c in node.children)


def _filters(filters: SearchFilters) -> tuple[list[tuple[str, str]], list[str]]:
    params: list[tuple[str, str]] = []
    warnings: list[str] = []
    years = year_range(filters)
    if years:
        params.append(("year", f"{years[0]}-{years[1]}"))
    if filters.open_access:
        params.append(("openAccessPdf", ""))
    if filters.type == "preprint":
        raise CompileRefused(PROVIDER, "Semantic Scholar has no preprint publication type")
    if filters.type in _TYPES:
        params.append(("publicationTypes", _TYPES[filters.type]))
    if not filters.include_retracted:
        warnings.append(RETRACTION_WARNING)
    return params, warnings


def compile_search(
    query: Query, filters: SearchFilters, *, cursor: str | None, limit: int, mode: str
) -> CompiledRequest:
    refuse_semantic(PROVIDER, mode)
    fields = all_fields(query, filters)
    if fields != {"all"}:
        names = ", ".join(sorted(FIELD_NAMES[f] for f in fields - {"all"}))
        raise CompileRefused(PROVIDER, f"Semantic Scholar cannot restrict a search to {names}")
    filter_params, warnings = _filters(filters)
    refuse_compound_truncation(
        PROVIDER, query, "Semantic Scholar's bulk search prefix-matches single words"
    )
    bulk = (
        query.has_boolean_syntax
        or query.has_phrase
        or query.has_truncation  # relevance search has no prefix match
        or filters.sort != "relevance"
    )
    if not bulk:
        page = check_limit(PROVIDER, limit, MAX_PAGE)
        offset = offset_cursor(PROVIDER, cursor)
        if offset + page > MAX_RELEVANCE_RESULTS:
            raise CompileRefused(
                PROVIDER,
                f"relevance search pages stop at {MAX_RELEVANCE_RESULTS:,} results "
                f"(offset {offset} + limit {page})",
            )
        text = " ".join(t.text for t in query.terms)
        if len(query.terms) > 1:
            warnings.append(
                "Semantic Scholar relevance search ranks by the words; results need not "
                "contain every word"
            )
        params = [("query", text), *filter_params, ("fields", FIELDS)]
        params += [("offset", str(offset)), ("limit", str(page))]
        return finish(
            PROVIDER,
            operation="search",
            url=SEARCH_URL,
            params=params,
            executed=text,
            lane=SPEC.lane("relevance"),
            warnings=warnings,
        )
    check_negations(PROVIDER, query.root)
    check_limit(PROVIDER, limit, MAX_RELEVANCE_RESULTS)
    expr = _bulk(query.root)
    params = [("query", expr), *filter_params]
    if filters.sort in _SORT:
        params.append(("sort", _SORT[filters.sort]))
    else:
        warnings.append(
            "Semantic Scholar bulk search (used for operators and phrases) does not rank "
            "by relevance"
        )
    params.append(("fields", FIELDS))
    if cursor not in (None, "*"):
        params.append(("token", text_cursor(PROVIDER, cursor)))
    warnings.append("bulk search matches the title and abstract only")
    warnings.append("bulk search returns up to 1,000 papers per page")
    return finish(
        PROVIDER,
        operation="search",
        url=BULK_URL,
        params=params,
        executed=expr,
        lane=SPEC.lane("bulk"),
        warnings=warnings,
    )


def compile_lookup(namespace: str, value: str) -> CompiledRequest:
    """``value`` is already normalised for ``namespace``."""
    if namespace == "doi":
        ident = f"DOI:{value}"
    elif namespace == "pmid":
        ident = f"PMID:{value}"
    elif namespace == "pmcid":
        ident = f"PMCID:{value[3:]}"
    elif namespace == "arxiv":
        ident = f"ARXIV:{value}"
    elif namespace == "source" and value.startswith("MED-"):
        ident = f"PMID:{value[4:]}"
    else:
        raise CompileRefused(PROVIDER, f"Semantic Scholar cannot look up {namespace} ids exactly")
    return finish(
        PROVIDER,
        operation="lookup",
        url=f"{PAPER_URL}/{quote(ident, safe='/:')}",
        params=[("fields", FIELDS)],
        executed=ident,
        lane=SPEC.lane("lookup"),
    )
