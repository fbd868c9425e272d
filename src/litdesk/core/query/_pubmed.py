"""PubMed (NCBI E-utilities): ``esearch`` term expressions with field tags, and the
``efetch`` request for fetched PMIDs (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from litdesk.core.providers import provider_spec
from litdesk.core.records import normalize_pmid
from litdesk.core.search import CompiledRequest, CompileRefused, SearchFilters

from ._common import (
    ResolvedField,
    check_limit,
    check_negations,
    finish,
    offset_cursor,
    refuse_semantic,
    split_and,
    year_range,
)
from ._errors import IdentifierError
from ._grammar import And, Node, Not, Query, Term

__all__ = [
    "SPEC",
    "EFETCH_URL",
    "ESEARCH_URL",
    "MAX_FETCH_IDS",
    "compile_fetch",
    "compile_lookup",
    "compile_search",
]

SPEC: Final = provider_spec("pubmed")
PROVIDER: Final = SPEC.name
ESEARCH_URL: Final = SPEC.url("/entrez/eutils/esearch.fcgi")
EFETCH_URL: Final = SPEC.url("/entrez/eutils/efetch.fcgi")
MAX_PAGE: Final = 10_000
MAX_FETCH_IDS: Final = 200
_TAG: Final[dict[ResolvedField, str]] = {
    "all": "[All Fields]",
    "title": "[ti]",
    "author": "[au]",
    "author_last": "[lastau]",
    "mesh": "[MeSH Terms]",  # a controlled term: the heading and the ones below it
}
_TYPES: Final = {
    "review": "review[pt]",
    "journal": "journal article[pt]",
    "preprint": "preprint[pt]",
}
_SORT: Final = {"relevance": "relevance", "newest": "pub_date"}


#: PubMed truncates only stems of at least four characters
MIN_STEM: Final = 4


def _term(term: Term, filters: SearchFilters, warnings: list[str]) -> str:
    field = term.field or filters.field
    if field not in _TAG:
        raise CompileRefused(PROVIDER, "PubMed has no abstract-only field (only [tiab])")
    if '"' in term.text:
        raise CompileRefused(PROVIDER, "PubMed cannot search a term with a double quote")
    if not term.truncated and "*" in term.text:
        # PubMed reads every * as truncation, in quotes too, and has no escape for it
        raise CompileRefused(
            PROVIDER,
            f"PubMed reads * as truncation and cannot search a literal * ({term.text!r}, "
            f"position {term.position})",
        )
    if term.truncated and len(term.stem) < MIN_STEM:
        raise CompileRefused(
            PROVIDER,
            f"PubMed truncates stems of {MIN_STEM} or more characters: it cannot truncate "
            f"{term.text!r} (position {term.position})",
        )
    if term.compound_stem:
        # a hyphen (or other punctuation) makes a phrase at PubMed, and a quoted phrase ending
        # in * is PubMed's phrase truncation: its last word truncated
        warnings.append(
            f"{term.text} (position {term.position}) was sent as PubMed's truncated phrase "
            f'"{term.text}"{_TAG[field]}: the words of the stem in a row, the last truncated'
        )
        return f'"{term.text}"{_TAG[field]}'
    if term.truncated:  # PubMed truncates an unquoted ``therap*[tiab]``
        return f"{term.text}{_TAG[field]}"
    return f'"{term.text}"{_TAG[field]}'


def _wrap(node: Node, filters: SearchFilters, warnings: list[str]) -> str:
    text = _expr(node, filters, warnings)
    return text if isinstance(node, Term) else f"({text})"


def _expr(node: Node, filters: SearchFilters, warnings: list[str]) -> str:
    if isinstance(node, Term):
        return _term(node, filters, warnings)
    if isinstance(node, And):
        split = split_and(node)
        out = " AND ".join(_wrap(c, filters, warnings) for c in split.positives)
        for neg in split.negatives:
            out += f" NOT {_wrap(neg, filters, warnings)}"
        return out
    if isinstance(node, Not):
        raise CompileRefused(PROVIDER, "NOT needs a positive term")
    return " OR ".join(_wrap(c, filters, warnings) for c in node.children)


def expression(query: Query, filters: SearchFilters, warnings: list[str] | None = None) -> str:
    """The esearch ``term`` (query, date range, type, retraction exclusion); what was
    translated is said in ``warnings`` when given."""
    check_negations(PROVIDER, query.root)
    if filters.open_access:
        raise CompileRefused(
            PROVIDER, "PubMed has no open-access filter (free full text is not open access)"
        )
    core = _expr(query.root, filters, warnings if warnings is not None else [])
    clauses: list[str] = []
    years = year_range(filters)
    if years:
        clauses.append(f'("{years[0]}"[dp] : "{years[1]}"[dp])')
    if filters.type != "all":
        clauses.append(_TYPES[filters.type])
    out = f"({core})" if clauses or not filters.include_retracted else core
    for clause in clauses:
        out += f" AND {clause}"
    if not filters.include_retracted:
        out += " NOT retracted publication[pt]"
    return out


def compile_search(
    query: Query, filters: SearchFilters, *, cursor: str | None, limit: int, mode: str
) -> CompiledRequest:
    refuse_semantic(PROVIDER, mode)
    if filters.sort not in _SORT:
        raise CompileRefused(PROVIDER, "PubMed cannot sort by citations")
    page = check_limit(PROVIDER, limit, MAX_PAGE)
    start = offset_cursor(PROVIDER, cursor)
    if start + page > MAX_PAGE:
        raise CompileRefused(
            PROVIDER, f"esearch returns only the first {MAX_PAGE:,} results (offset {start})"
        )
    warnings: list[str] = []
    term = expression(query, filters, warnings)
    params = [
        ("db", "pubmed"),
        ("term", term),
        ("retmode", "json"),
        ("retstart", str(start)),
        ("retmax", str(page)),
        ("sort", _SORT[filters.sort]),
    ]
    return finish(
        PROVIDER,
        operation="search",
        url=ESEARCH_URL,
        params=params,
        executed=term,
        lane=SPEC.lane("keyword"),
        warnings=warnings,
    )


def compile_fetch(ids: Iterable[str]) -> CompiledRequest:
    """``efetch`` for PubMed XML records of ``ids`` (1 to 200 PMIDs, duplicates removed)."""
    if isinstance(ids, str):
        ids = [ids]
    pmids: list[str] = []
    for raw in ids:
        pmid = normalize_pmid(raw)
        if pmid is None:
            raise IdentifierError(f"not a PMID: {str(raw)[:40]!r}")
        pmids.append(pmid)
    pmids = list(dict.fromkeys(pmids))
    if not pmids:
        raise IdentifierError("no PMIDs to fetch")
    if len(pmids) > MAX_FETCH_IDS:
        raise CompileRefused(PROVIDER, f"efetch takes at most {MAX_FETCH_IDS} PMIDs per request")
    joined = ",".join(pmids)
    return finish(
        PROVIDER,
        operation="fetch",
        url=EFETCH_URL,
        params=[("db", "pubmed"), ("id", joined), ("retmode", "xml")],
        executed=joined,
        lane=SPEC.lane("fetch"),
    )


def compile_lookup(namespace: str, value: str) -> CompiledRequest:
    """``value`` is already normalised for ``namespace``."""
    if namespace == "pmid" or (namespace == "source" and value.startswith("MED-")):
        pmid = value[4:] if namespace == "source" else value
        fetch = compile_fetch([pmid])
        return finish(
            PROVIDER,
            operation="lookup",
            url=fetch.url,
            params=fetch.params,
            executed=fetch.executed_query,
            lane=SPEC.lane("lookup"),
        )
    if namespace == "doi":
        if '"' in value:
            raise CompileRefused(PROVIDER, "PubMed cannot search a DOI with a double quote")
        term = f'"{value}"[doi]'
        return finish(
            PROVIDER,
            operation="lookup",
            url=ESEARCH_URL,
            params=[("db", "pubmed"), ("term", term), ("retmode", "json"), ("retmax", "20")],
            executed=term,
            lane=SPEC.lane("lookup"),
        )
    raise CompileRefused(PROVIDER, f"PubMed cannot look up {namespace} ids exactly")
