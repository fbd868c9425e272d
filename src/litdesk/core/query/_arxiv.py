"""arXiv API: ``/api/query?search_query=`` with ``ti:``, ``abs:``, ``au:``, ``all:``,
AND / OR / ANDNOT, quoted phrases and ``submittedDate`` ranges; ``id_list`` lookups
(pure)."""

from __future__ import annotations

import re
from typing import Final

from litdesk.core.providers import provider_spec
from litdesk.core.search import CompiledRequest, CompileRefused, SearchFilters

from ._common import (
    ResolvedField,
    check_limit,
    check_negations,
    finish,
    offset_cursor,
    refuse_compound_truncation,
    refuse_semantic,
    split_and,
    year_range,
)
from ._grammar import And, Node, Not, Query, Term

__all__ = ["SPEC", "URL", "compile_lookup", "compile_search", "expression"]

SPEC: Final = provider_spec("arxiv")
PROVIDER: Final = SPEC.name
URL: Final = SPEC.url("/api/query")
MAX_PAGE: Final = 2000
MAX_START: Final = 30_000
_PREFIX: Final[dict[ResolvedField, str]] = {
    "all": "all:",
    "title": "ti:",
    "abstract": "abs:",
    "author": "au:",
}
_PLAIN: Final = re.compile(r"^[^\W_]+$")
_SORT: Final = {"relevance": "relevance", "newest": "submittedDate"}


def _term(term: Term, filters: SearchFilters) -> str:
    field = term.field or filters.field
    if field == "mesh":
        raise CompileRefused(PROVIDER, "arXiv has no MeSH field (MESH:): it is not indexed in MeSH")
    if field not in _PREFIX:
        raise CompileRefused(PROVIDER, "arXiv cannot search the last author (AUTH_LAST:)")
    if '"' in term.text:
        raise CompileRefused(PROVIDER, "arXiv cannot search a term with a double quote")
    plain = not term.phrase and (term.truncated or _PLAIN.match(term.text))
    text = term.text if plain else f'"{term.text}"'
    return _PREFIX[field] + text


def _wrap(node: Node, filters: SearchFilters) -> str:
    text = _expr(node, filters)
    return text if isinstance(node, Term) else f"({text})"


def _expr(node: Node, filters: SearchFilters) -> str:
    if isinstance(node, Term):
        return _term(node, filters)
    if isinstance(node, And):
        split = split_and(node)
        out = " AND ".join(_wrap(c, filters) for c in split.positives)
        if split.negatives and len(split.positives) > 1:
            out = f"({out})"
        for neg in split.negatives:
            out += f" ANDNOT {_wrap(neg, filters)}"
        return out
    if isinstance(node, Not):
        raise CompileRefused(PROVIDER, "arXiv ANDNOT needs a positive term before it")
    return " OR ".join(_wrap(c, filters) for c in node.children)


def expression(query: Query, filters: SearchFilters) -> tuple[str, list[str]]:
    """The ``search_query`` expression and warnings."""
    check_negations(PROVIDER, query.root)
    refuse_compound_truncation(PROVIDER, query, "arXiv truncates single words")
    warnings: list[str] = []
    if filters.type in ("review", "journal"):
        raise CompileRefused(PROVIDER, f"arXiv has no {filters.type} type (preprints only)")
    core = _expr(query.root, filters)
    years = year_range(filters)
    if years:
        dates = f"submittedDate:[{years[0]}01010000 TO {years[1]}12312359]"
        core = (
            f"({core}) AND {dates}" if not isinstance(query.root, Term) else f"{core} AND {dates}"
        )
    if filters.open_access:
        warnings.append("every arXiv paper is openly readable: the open-access filter always holds")
    if filters.type == "preprint":
        warnings.append("every arXiv paper is a preprint: the preprint filter always holds")
    if not filters.include_retracted:
        warnings.append(
            "arXiv has no retraction filter: withdrawn or retracted works are not excluded by "
            "the provider (check retraction status after retrieval)"
        )
    return core, warnings


def compile_search(
    query: Query, filters: SearchFilters, *, cursor: str | None, limit: int, mode: str
) -> CompiledRequest:
    refuse_semantic(PROVIDER, mode)
    if filters.sort not in _SORT:
        raise CompileRefused(PROVIDER, "arXiv cannot sort by citations")
    page = check_limit(PROVIDER, limit, MAX_PAGE)
    start = offset_cursor(PROVIDER, cursor)
    if start + page > MAX_START:
        raise CompileRefused(PROVIDER, f"arXiv pages stop at {MAX_START:,} results")
    expr, warnings = expression(query, filters)
    params = [
        ("search_query", expr),
        ("sortBy", _SORT[filters.sort]),
        ("sortOrder", "descending"),
        ("start", str(start)),
        ("max_results", str(page)),
    ]
    return finish(
        PROVIDER,
        operation="search",
        url=URL,
        params=params,
        executed=expr,
        lane=SPEC.lane("keyword"),
        warnings=warnings,
    )


_ARXIV_DOI: Final = "10.48550/arxiv."


def compile_lookup(namespace: str, value: str) -> CompiledRequest:
    """``value`` is already normalised for ``namespace`` (an arXiv DataCite DOI is
    looked up by its arXiv id)."""
    from litdesk.core.records import normalize_arxiv

    ident: str | None = None
    if namespace == "arxiv":
        ident = value
    elif namespace == "doi" and value.startswith(_ARXIV_DOI):
        ident = normalize_arxiv(value[len(_ARXIV_DOI) :])
    if ident is None:
        raise CompileRefused(PROVIDER, f"arXiv cannot look up {namespace} ids exactly")
    params = [("search_query", ""), ("id_list", ident), ("start", "0"), ("max_results", "1")]
    return finish(
        PROVIDER,
        operation="lookup",
        url=URL,
        params=params,
        executed=f"id_list={ident}",
        lane=SPEC.lane("lookup"),
    )
