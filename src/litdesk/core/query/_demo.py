"""The demo sample (offline): the litdesk query itself, in canonical form, sent to the demo
workspace's own host, which evaluates it on the bundled records
(:func:`litdesk.core.demo.search_sample`). Every field but MeSH is expressed exactly; the
sample has no citation counts, types or open-access flags, so those filters are refused
with the reason (pure)."""

from __future__ import annotations

from typing import Final

from litdesk.core.providers import provider_spec
from litdesk.core.search import CompiledRequest, CompileRefused, SearchFilters

from ._common import check_limit, finish, offset_cursor, refuse_semantic, year_range
from ._grammar import Query, iter_terms, render

__all__ = ["MAX_PAGE", "MIN_STEM", "SPEC", "URL", "compile_lookup", "compile_search"]

SPEC: Final = provider_spec("demo")
PROVIDER: Final = SPEC.name
URL: Final = SPEC.url("/search")
LOOKUP_URL: Final = SPEC.url("/record")
MAX_PAGE: Final = 1000
MAX_START: Final = 100_000
_NAMESPACES: Final = ("doi", "pmid", "openalex")
#: the shortest stem a trailing ``*`` truncates in the demo sample (letters or digits)
MIN_STEM: Final = 3


def compile_search(
    query: Query, filters: SearchFilters, *, cursor: str | None, limit: int, mode: str
) -> CompiledRequest:
    refuse_semantic(PROVIDER, mode)
    if filters.sort not in ("relevance", "newest"):
        raise CompileRefused(PROVIDER, "the demo sample has no citation counts to sort by")
    if filters.type != "all":
        raise CompileRefused(PROVIDER, "the demo sample does not record publication types")
    if filters.open_access:
        raise CompileRefused(PROVIDER, "the demo sample does not record open access")
    if any((t.field or filters.field) == "mesh" for t in iter_terms(query.root)):
        raise CompileRefused(PROVIDER, "the demo sample has no MeSH headings (MESH:)")
    for term in iter_terms(query.root):
        # a compound stem (covid-19*) is its words in a row, the last one truncated: the
        # words before it bound the match, so its last word may be short
        if term.truncated and not term.compound_stem and len(term.stem) < MIN_STEM:
            raise CompileRefused(
                PROVIDER,
                f"the demo sample truncates stems of {MIN_STEM} or more letters: it cannot "
                f"truncate {term.text!r} (position {term.position})",
            )
    page = check_limit(PROVIDER, limit, MAX_PAGE)
    start = offset_cursor(PROVIDER, cursor)
    if start + page > MAX_START:
        raise CompileRefused(PROVIDER, f"the demo sample's pages stop at {MAX_START:,} results")
    expr = render(query.root)
    params = [("q", expr), ("field", filters.field), ("sort", filters.sort)]
    years = year_range(filters)
    if years:
        params += [("year_from", str(years[0])), ("year_to", str(years[1]))]
    params += [("start", str(start)), ("limit", str(page))]
    warnings = []
    if not filters.include_retracted:
        warnings.append("the demo sample has no retraction data: nothing is filtered out")
    executed = expr if filters.field == "all" else f"{filters.field}: {expr}"
    return finish(
        PROVIDER,
        operation="search",
        url=URL,
        params=params,
        executed=executed,
        lane=SPEC.lane("keyword"),
        warnings=warnings,
    )


def compile_lookup(namespace: str, value: str) -> CompiledRequest:
    """``value`` is already normalised for ``namespace`` (DOI, PMID or OpenAlex id)."""
    if namespace not in _NAMESPACES:
        raise CompileRefused(PROVIDER, f"the demo sample cannot look up {namespace} ids")
    return finish(
        PROVIDER,
        operation="lookup",
        url=LOOKUP_URL,
        params=[(namespace, value)],
        executed=f"{namespace}={value}",
        lane=SPEC.lane("lookup"),
    )
