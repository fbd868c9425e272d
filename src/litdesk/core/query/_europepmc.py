"""Europe PMC: ``/europepmc/webservices/rest/search`` (pure).

Every term is quoted (``TITLE:"…"``, ``ABSTRACT:"…"``, ``AUTH:"…"``,
``AUTH_LAST:"…"`` or bare ``"…"``) but a truncated word (``therap*``, unquoted so that Europe
PMC expands it); a literal ``*`` (escaped ``therap\\*`` or in a phrase) is escaped inside
the quotes; a truncated stem with punctuation (``covid-19*``) is refused (Europe PMC documents
truncating a single word). Filters are appended with AND exactly as the
reference: ``FIRST_PDATE:[a-01-01 TO b-12-31]``, ``OPEN_ACCESS:Y``,
``NOT PUB_TYPE:"Retracted Publication"``, ``SRC:PPR`` / ``PUB_TYPE:"Review"`` /
``PUB_TYPE:"Journal Article"``, then `` sort_date:y`` / `` sort_cited:y``.
"""

from __future__ import annotations

from typing import Final

from litdesk.core.providers import provider_spec
from litdesk.core.search import CompiledRequest, CompileRefused, SearchFilters

from ._common import (
    ResolvedField,
    check_limit,
    check_negations,
    finish,
    refuse_compound_truncation,
    refuse_semantic,
    split_and,
    text_cursor,
    year_range,
)
from ._grammar import And, Node, Not, Query, Term

__all__ = ["SPEC", "URL", "compile_lookup", "compile_search", "expression"]

SPEC: Final = provider_spec("europepmc")
PROVIDER: Final = SPEC.name
URL: Final = SPEC.url("/europepmc/webservices/rest/search")
LANE: Final = SPEC.lane("keyword")
MAX_PAGE: Final = 1000
_PREFIX: Final[dict[ResolvedField, str]] = {
    "all": "",
    "title": "TITLE:",
    "abstract": "ABSTRACT:",
    "author": "AUTH:",
    "author_last": "AUTH_LAST:",
    "mesh": "MESH:",  # a controlled term: MeSH headings Europe PMC indexed
}
_TYPES: Final = {
    "preprint": "SRC:PPR",
    "review": 'PUB_TYPE:"Review"',
    "journal": 'PUB_TYPE:"Journal Article"',
}


def _quote(text: str) -> str:
    # a literal * is escaped too: inside quotes it must never be read as a wildcard
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("*", "\\*") + '"'


def _wrap(node: Node, filters: SearchFilters) -> str:
    text = _expr(node, filters)
    return text if isinstance(node, Term) else f"({text})"


def _expr(node: Node, filters: SearchFilters) -> str:
    if isinstance(node, Term):
        # truncation stays unquoted: Europe PMC expands ``therap*``, not ``"therap*"``
        text = node.text if node.truncated else _quote(node.text)
        return _PREFIX[node.field or filters.field] + text
    if isinstance(node, And):
        split = split_and(node)
        parts = [_wrap(c, filters) for c in split.positives]
        parts += [f"NOT {_wrap(c, filters)}" for c in split.negatives]
        return " AND ".join(parts)
    if isinstance(node, Not):  # only reached for a bare NOT, refused before
        raise CompileRefused(PROVIDER, "NOT needs a positive term")
    return " OR ".join(_wrap(c, filters) for c in node.children)


def expression(query: Query, filters: SearchFilters) -> str:
    """The Europe PMC query expression (terms, filters and sort suffix)."""
    check_negations(PROVIDER, query.root)
    refuse_compound_truncation(PROVIDER, query, "Europe PMC truncates single words")
    core = _expr(query.root, filters)
    clauses: list[str] = []
    years = year_range(filters)
    if years:
        clauses.append(f"FIRST_PDATE:[{years[0]}-01-01 TO {years[1]}-12-31]")
    if filters.open_access:
        clauses.append("OPEN_ACCESS:Y")
    if not filters.include_retracted:
        clauses.append('NOT PUB_TYPE:"Retracted Publication"')
    if filters.type != "all":
        clauses.append(_TYPES[filters.type])
    out = f"({core}) AND " + " AND ".join(clauses) if clauses else core
    if filters.sort == "newest":
        out += " sort_date:y"
    elif filters.sort == "cited":
        out += " sort_cited:y"
    return out


def _request(
    query: str, page: int, cursor: str, operation: str, synonyms: bool | None = None
) -> CompiledRequest:
    params = [
        ("query", query),
        ("format", "json"),
        ("resultType", "core"),
        ("pageSize", str(page)),
        ("cursorMark", cursor),
    ]
    if synonyms is not None:  # vocabulary expansion, sent only when chosen (as the reference)
        params.append(("synonym", "TRUE" if synonyms else "FALSE"))
    return finish(
        PROVIDER,
        operation="lookup" if operation == "lookup" else "search",
        url=URL,
        params=params,
        executed=query,
        lane=LANE,
    )


def compile_search(
    query: Query, filters: SearchFilters, *, cursor: str | None, limit: int, mode: str
) -> CompiledRequest:
    refuse_semantic(PROVIDER, mode)
    page = check_limit(PROVIDER, limit, MAX_PAGE)
    mark = text_cursor(PROVIDER, cursor)
    return _request(expression(query, filters), page, mark, "search", filters.synonyms)


def compile_lookup(namespace: str, value: str) -> CompiledRequest:
    """``value`` is already normalised for ``namespace``."""
    if namespace == "doi":
        query = f"DOI:{_quote(value)}"
    elif namespace == "pmid":
        query = f"EXT_ID:{value} AND SRC:MED"
    elif namespace == "pmcid":
        query = f"PMCID:{value}"
    elif namespace == "source":
        source, accession = value.split("-", 1)
        if source in {"OAX", "ARX", "DOI", "S2", "REC"}:
            raise CompileRefused(PROVIDER, f"{source}- ids are not Europe PMC records")
        query = f"EXT_ID:{accession} AND SRC:{source}"
    else:
        raise CompileRefused(PROVIDER, f"Europe PMC cannot look up {namespace} ids exactly")
    return _request(query, 25, "*", "lookup")
