"""Properties of the compilers over generated queries and filters."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.query import (
    QueryFilterError,
    QuerySyntaxError,
    compile_lookup,
    compile_search,
    full_url,
    parse_query,
    plan_identifier,
)
from litdesk.core.search import PROVIDERS, CompiledRequest, CompileRefused, SearchFilters

_WORDS = st.sampled_from(
    ["cancer", "gene", "c++", "x-ray", "naïve", "a:b", "HIV", "and", "10.1/x", "α", "*", "é"]
)
_ATOMS = st.one_of(
    _WORDS,
    _WORDS.map(lambda w: f'"{w} therapy"'),
    st.tuples(st.sampled_from(["TITLE:", "ABSTRACT:", "AUTHOR:", "AUTH_LAST:"]), _WORDS).map(
        "".join
    ),
)


_SIX = st.integers(0, 5)
_OPS = st.sampled_from([" AND ", " OR ", " ", " NOT "])


@st.composite
def queries(draw: st.DrawFn, depth: int = 0) -> str:
    if depth > 2 or draw(st.booleans()):
        atom = draw(_ATOMS)
        return f"NOT {atom}" if draw(_SIX) == 0 else atom
    op = draw(_OPS)
    parts = draw(_PARTS[depth + 1])
    return "(" + op.join(parts) + ")"


# the sub-queries of each depth, made once (made inside queries they were made, validated and
# measured again at every level of every draw); the values drawn are the same
_PARTS = {depth: st.lists(queries(depth), min_size=2, max_size=3) for depth in (1, 2, 3)}


_FILTERS = st.builds(
    SearchFilters,
    field=st.sampled_from(["all", "title", "abstract", "author"]),
    year_from=st.one_of(st.none(), st.integers(1790, 2210)),
    year_to=st.one_of(st.none(), st.integers(1790, 2210)),
    open_access=st.booleans(),
    include_retracted=st.booleans(),
    type=st.sampled_from(["all", "review", "preprint", "journal"]),
    sort=st.sampled_from(["relevance", "newest", "cited"]),
)


def _quoted_epmc(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("*", "\\*") + '"'


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(queries(), st.text(max_size=40)),
    _FILTERS,
    st.sampled_from(PROVIDERS),
    st.sampled_from(["keyword", "semantic"]),
)
def test_compile_gives_request_or_refusal(
    text: str, filters: SearchFilters, provider: str, mode: str
) -> None:
    try:
        query = parse_query(text, field=filters.field)
    except QuerySyntaxError:
        return
    try:
        req = compile_search(provider, query, filters, mode=mode)  # type: ignore[arg-type]
    except CompileRefused as exc:
        assert exc.provider == provider and exc.reason
        return
    except QueryFilterError:
        lo, hi = filters.year_from, filters.year_to
        assert any(y is not None and not 1800 <= y <= 2199 for y in (lo, hi)) or (
            lo is not None and hi is not None and lo > hi
        )
        return
    assert isinstance(req, CompiledRequest)
    assert req.provider == provider and req.executed_query
    if provider in ("europepmc", "pubmed", "arxiv"):
        for term in query.terms:
            quoted = provider == "europepmc" and not term.truncated
            needle = _quoted_epmc(term.text) if quoted else term.text
            assert needle in req.executed_query, (term, req.executed_query)
    if provider == "europepmc" and not filters.include_retracted:
        assert 'NOT PUB_TYPE:"Retracted Publication"' in req.executed_query
    if provider == "pubmed" and not filters.include_retracted:
        assert req.executed_query.endswith(" NOT retracted publication[pt]")
    if provider in ("semanticscholar", "crossref", "arxiv") and not filters.include_retracted:
        assert any("retraction" in w for w in req.warnings)


@settings(max_examples=100, deadline=None)
@given(queries())
def test_every_term_reaches_openalex_and_bulk(text: str) -> None:
    try:
        query = parse_query(text)
    except QuerySyntaxError as exc:
        assert exc.code in {"empty", "field", "unsupported"}  # a lone * is refused
        return
    filters = SearchFilters(include_retracted=True)
    for provider in ("openalex", "semanticscholar"):
        try:
            req = compile_search(provider, query, filters)
        except CompileRefused:
            continue
        for term in query.terms:
            core = "".join(ch for ch in term.text if ch.isalnum())
            flat = "".join(ch for ch in req.executed_query if ch.isalnum())
            assert core in flat


_ID_TEXT = st.one_of(
    st.text(max_size=60),
    st.from_regex(r"(doi:|https://doi\.org/)?10\.\d{4,6}/[^\s]{1,30}", fullmatch=True),
    st.from_regex(r"(PMID:|PMC|W|arXiv:)?\d{1,12}", fullmatch=True),
)


@settings(max_examples=200, deadline=None)
@given(_ID_TEXT, st.sampled_from(PROVIDERS))
def test_identifier_plan_and_lookup_never_crash(text: str, provider: str) -> None:
    ident = plan_identifier(text)
    if ident is None:
        return
    try:
        req = compile_lookup(provider, ident.namespace, ident.value)
    except CompileRefused as exc:
        assert exc.provider == provider
        return
    assert req.operation == "lookup"
    assert full_url(req).startswith("https://")
