"""Provider compilers: golden requests, every filter, refusals with reasons, limits."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from litdesk.core.query import (
    MAX_URL_BYTES,
    QueryFilterError,
    QuerySyntaxError,
    compile_search,
    full_url,
    parse_query,
)
from litdesk.core.search import HOSTS, PROVIDERS, CompiledRequest, CompileRefused, SearchFilters

ALL = SearchFilters(include_retracted=True)  # no filter at all
BOOL = 'TITLE:"gene therapy" AND (crispr OR cas9) NOT mouse'


def params(req: CompiledRequest) -> dict[str, str]:
    return dict(req.params)


def refused(provider: str, query: str, filters: SearchFilters = ALL, **kw: object) -> str:
    with pytest.raises(CompileRefused) as info:
        compile_search(provider, query, filters, **kw)  # type: ignore[arg-type]
    assert info.value.provider == provider
    assert info.value.exit_code == 3
    return info.value.reason


# ------------------------------------------------------------------ Europe PMC


def test_europepmc_plain_and_defaults() -> None:
    req = compile_search("europepmc", "cancer", ALL)
    assert req.url == "https://www.ebi.ac.uk/europepmc/webservices/rest/search"
    assert req.params == (
        ("query", '"cancer"'),
        ("format", "json"),
        ("resultType", "core"),
        ("pageSize", "20"),
        ("cursorMark", "*"),
    )
    assert req.executed_query == '"cancer"'
    assert (req.lane, req.operation, req.method) == ("europepmc-keyword", "search", "GET")


def test_europepmc_boolean_fields() -> None:
    req = compile_search("europepmc", BOOL + " AUTH_LAST:roe ABSTRACT:x AUTH:doe", ALL)
    assert req.executed_query == (
        'TITLE:"gene therapy" AND ("crispr" OR "cas9") AND AUTH_LAST:"roe" AND '
        'ABSTRACT:"x" AND AUTH:"doe" AND NOT "mouse"'
    )


def test_europepmc_every_filter_and_sort() -> None:
    f = SearchFilters(year_from=2019, year_to=2021, open_access=True, type="review", sort="newest")
    req = compile_search("europepmc", "a b", f, cursor="AoIIP4T93Cg1MzE0OTUzNA==", limit=100)
    assert params(req)["query"] == (
        '("a" AND "b") AND FIRST_PDATE:[2019-01-01 TO 2021-12-31] AND OPEN_ACCESS:Y '
        'AND NOT PUB_TYPE:"Retracted Publication" AND PUB_TYPE:"Review" sort_date:y'
    )
    assert params(req)["cursorMark"] == "AoIIP4T93Cg1MzE0OTUzNA=="
    assert params(req)["pageSize"] == "100"


@pytest.mark.parametrize(
    ("filters", "tail"),
    [
        (
            SearchFilters(year_from=2020),
            ' AND FIRST_PDATE:[2020-01-01 TO 2199-12-31] AND NOT PUB_TYPE:"Retracted Publication"',
        ),
        (
            SearchFilters(year_to=1999, include_retracted=True),
            " AND FIRST_PDATE:[1800-01-01 TO 1999-12-31]",
        ),
        (SearchFilters(type="preprint", include_retracted=True), " AND SRC:PPR"),
        (
            SearchFilters(type="journal", include_retracted=True, sort="cited"),
            ' AND PUB_TYPE:"Journal Article" sort_cited:y',
        ),
    ],
)
def test_europepmc_filter_clauses(filters: SearchFilters, tail: str) -> None:
    assert compile_search("europepmc", "x", filters).executed_query == '("x")' + tail


def test_europepmc_field_filter_and_author_byline() -> None:
    f = SearchFilters(field="author", include_retracted=True)
    assert compile_search("europepmc", "Smith J", f).executed_query == 'AUTH:"Smith J"'
    f = SearchFilters(field="title", include_retracted=True)
    assert compile_search("europepmc", 'a "b\\"c"', f).executed_query == (
        'TITLE:"a" AND TITLE:"b\\"c"'
    )


# -------------------------------------------------------------------- OpenAlex


def test_openalex_keyword_search_and_filters() -> None:
    f = SearchFilters(year_from=2000, year_to=2010, open_access=True, type="preprint", sort="cited")
    req = compile_search("openalex", "machine learning", f, limit=50)
    assert req.url == "https://api.openalex.org/works"
    assert req.params == (
        ("per_page", "50"),
        ("search", "machine learning"),
        ("filter", "publication_year:2000-2010,is_oa:true,is_retracted:false,type:preprint"),
        ("sort", "cited_by_count:desc"),
        ("cursor", "*"),
    )
    assert req.lane == "openalex-keyword"


def test_openalex_boolean_and_escaping() -> None:
    req = compile_search("openalex", '(a OR "b c") AND NOT d-e AND and', ALL)
    assert params(req)["search"] == '(a OR "b c") AND "and" NOT d\\-e'


def test_openalex_title_filter_and_journal_warning() -> None:
    f = SearchFilters(field="title", type="journal", sort="newest", include_retracted=True)
    req = compile_search("openalex", "graph neural", f, cursor="abc")
    assert params(req)["filter"] == "title.search:graph neural,type:article"
    assert params(req)["sort"] == "publication_date:desc"
    assert params(req)["cursor"] == "abc"
    assert "search" not in params(req)
    assert any("type:article" in w for w in req.warnings)


def test_openalex_abstract_and_author_filters() -> None:
    assert params(compile_search("openalex", "ABSTRACT:(x OR y)", ALL))["filter"] == (
        "abstract.search:x OR y"
    )
    f = SearchFilters(field="author", include_retracted=True)
    assert params(compile_search("openalex", "Smith J", f))["filter"] == (
        'raw_author_name.search:"Smith J"'
    )


def test_openalex_refusals() -> None:
    assert "combine fields" in refused("openalex", BOOL)
    assert "last author" in refused("openalex", "AUTH_LAST:x")
    assert "','" in refused("openalex", "TITLE:(a,b)")


def test_openalex_semantic() -> None:
    f = SearchFilters(open_access=True)
    req = compile_search("openalex", '  protein   "folding" ', f, mode="semantic", limit=50)
    assert req.params == (
        ("per_page", "50"),
        ("search.semantic", 'protein "folding"'),
        ("filter", "is_oa:true,is_retracted:false"),
    )
    assert req.lane == "openalex-semantic"
    assert any("quotes have no effect" in w for w in req.warnings)


@pytest.mark.parametrize(
    ("query", "filters", "kw", "needle"),
    [
        ("x", ALL, {"cursor": "abc"}, "single page"),
        ("x", SearchFilters(field="title"), {}, "all fields"),
        ("x", SearchFilters(sort="newest"), {}, "relevance"),
        ("a AND b", ALL, {}, "plain text"),
        ("TITLE:x", ALL, {}, "plain text"),
        ("x " * 1001, ALL, {}, "2,000"),
        ("x", ALL, {"limit": 51}, "at most 50"),
    ],
)
def test_openalex_semantic_refusals(
    query: str, filters: SearchFilters, kw: dict[str, object], needle: str
) -> None:
    assert needle in refused("openalex", query, filters, mode="semantic", **kw)


def test_semantic_refused_elsewhere() -> None:
    for provider in PROVIDERS:
        if provider != "openalex":
            assert "OpenAlex" in refused(provider, "x", mode="semantic")


# ------------------------------------------------------------ Semantic Scholar


def test_s2_relevance_search() -> None:
    f = SearchFilters(year_from=1936, year_to=1937, open_access=True, type="review")
    req = compile_search("semanticscholar", "turing machine", f, cursor="100", limit=100)
    assert req.url == "https://api.semanticscholar.org/graph/v1/paper/search"
    p = params(req)
    assert (p["query"], p["year"], p["openAccessPdf"], p["publicationTypes"]) == (
        "turing machine",
        "1936-1937",
        "",
        "Review",
    )
    assert (p["offset"], p["limit"]) == ("100", "100")
    assert "paperId" in p["fields"]
    assert req.lane == "semanticscholar-relevance"
    assert any("retraction" in w for w in req.warnings)


def test_s2_bulk_for_boolean_phrase_and_sort() -> None:
    req = compile_search("semanticscholar", '("fish ladder" OR weir) salmon NOT trout', ALL)
    assert req.url.endswith("/paper/search/bulk")
    assert params(req)["query"] == '("fish ladder" | weir) + salmon -trout'
    assert "token" not in params(req) and "limit" not in params(req)
    req = compile_search(
        "semanticscholar", "kubernetes", SearchFilters(sort="cited"), cursor="tok1"
    )
    assert params(req)["sort"] == "citationCount:desc"
    assert params(req)["token"] == "tok1"
    assert (
        params(compile_search("semanticscholar", '"x"', SearchFilters(type="journal")))[
            "publicationTypes"
        ]
        == "JournalArticle"
    )
    # special characters are quoted, never passed as operators
    assert params(compile_search("semanticscholar", "a OR c++", ALL))["query"] == 'a | "c++"'


def test_s2_refusals() -> None:
    assert "the title" in refused("semanticscholar", "TITLE:x")
    assert "authors" in refused("semanticscholar", "x", SearchFilters(field="author"))
    assert "preprint" in refused("semanticscholar", "x", SearchFilters(type="preprint"))
    assert "single term" in refused("semanticscholar", "a NOT (b OR c)")
    assert "1,000" in refused("semanticscholar", "x", cursor="950", limit=100)
    assert "offset" in refused("semanticscholar", "x", cursor="abc")


# -------------------------------------------------------------------- Crossref


def test_crossref_bibliographic_and_filters() -> None:
    f = SearchFilters(year_from=2020, year_to=2021, type="journal", sort="newest")
    req = compile_search("crossref", "ecology climate", f, limit=2)
    assert req.url == "https://api.crossref.org/works"
    assert req.params == (
        ("query.bibliographic", "ecology climate"),
        ("filter", "from-pub-date:2020-01-01,until-pub-date:2021-12-31,type:journal-article"),
        ("sort", "published"),
        ("order", "desc"),
        ("rows", "2"),
        ("cursor", "*"),
    )
    assert any("retraction" in w for w in req.warnings)
    assert any("every word" in w for w in req.warnings)


def test_crossref_single_field_and_cited_sort() -> None:
    req = compile_search("crossref", "TITLE:widget", SearchFilters(sort="cited", type="preprint"))
    p = params(req)
    assert p["query.title"] == "widget"
    assert (p["sort"], p["filter"]) == ("is-referenced-by-count", "type:posted-content")
    f = SearchFilters(field="author", include_retracted=True)
    assert params(compile_search("crossref", "carl boettiger", f))["query.author"] == (
        "carl boettiger"
    )


def test_crossref_refusals() -> None:
    for query in ("a OR b", "a AND b", "a NOT b", "(a b)"):
        assert "Boolean" in refused("crossref", query)
    assert "phrase" in refused("crossref", '"exact words"')
    assert "combine" in refused("crossref", "TITLE:a AUTHOR:b")
    assert "the abstract" in refused("crossref", "ABSTRACT:a")
    assert "open-access" in refused("crossref", "x", SearchFilters(open_access=True))
    assert "review" in refused("crossref", "x", SearchFilters(type="review"))


# ---------------------------------------------------------------------- PubMed


def test_pubmed_esearch() -> None:
    f = SearchFilters(year_from=2019, year_to=2021, type="review", sort="newest")
    req = compile_search("pubmed", BOOL + " AUTHOR:smith AUTH_LAST:roe", f, cursor="40", limit=20)
    assert req.url == "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi"
    assert req.params == (
        ("db", "pubmed"),
        (
            "term",
            '("gene therapy"[ti] AND ("crispr"[All Fields] OR "cas9"[All Fields]) AND '
            '"smith"[au] AND "roe"[lastau] NOT "mouse"[All Fields]) AND '
            '("2019"[dp] : "2021"[dp]) AND review[pt] NOT retracted publication[pt]',
        ),
        ("retmode", "json"),
        ("retstart", "40"),
        ("retmax", "20"),
        ("sort", "pub_date"),
    )


def test_pubmed_types_and_no_filters() -> None:
    assert compile_search("pubmed", "x", ALL).executed_query == '"x"[All Fields]'
    f = SearchFilters(type="preprint", include_retracted=True)
    assert compile_search("pubmed", "x", f).executed_query == '("x"[All Fields]) AND preprint[pt]'
    f = SearchFilters(type="journal", field="title", include_retracted=True)
    assert compile_search("pubmed", "x", f).executed_query == '("x"[ti]) AND journal article[pt]'


def test_pubmed_refusals() -> None:
    assert "abstract" in refused("pubmed", "ABSTRACT:x")
    assert "open-access" in refused("pubmed", "x", SearchFilters(open_access=True))
    assert "citations" in refused("pubmed", "x", SearchFilters(sort="cited"))
    assert "10,000" in refused("pubmed", "x", cursor="9990", limit=20)


# ----------------------------------------------------------------------- arXiv


def test_arxiv_query() -> None:
    f = SearchFilters(
        year_from=2020, year_to=2021, open_access=True, type="preprint", sort="newest"
    )
    req = compile_search("arxiv", BOOL + " AUTHOR:smith ABSTRACT:x-ray", f, cursor="10", limit=10)
    assert req.url == "https://export.arxiv.org/api/query"
    assert req.params == (
        (
            "search_query",
            '((ti:"gene therapy" AND (all:crispr OR all:cas9) AND au:smith AND abs:"x-ray") '
            "ANDNOT all:mouse) AND submittedDate:[202001010000 TO 202112312359]",
        ),
        ("sortBy", "submittedDate"),
        ("sortOrder", "descending"),
        ("start", "10"),
        ("max_results", "10"),
    )
    assert any("open-access filter always holds" in w for w in req.warnings)
    assert any("preprint" in w for w in req.warnings)


def test_arxiv_single_term_and_year() -> None:
    f = SearchFilters(year_from=2020, include_retracted=True)
    assert compile_search("arxiv", "x", f).executed_query == (
        "all:x AND submittedDate:[202001010000 TO 219912312359]"
    )
    assert compile_search("arxiv", "a NOT b", ALL).executed_query == "all:a ANDNOT all:b"


def test_arxiv_refusals() -> None:
    assert "review" in refused("arxiv", "x", SearchFilters(type="review"))
    assert "journal" in refused("arxiv", "x", SearchFilters(type="journal"))
    assert "citations" in refused("arxiv", "x", SearchFilters(sort="cited"))
    assert "last author" in refused("arxiv", "AUTH_LAST:x")
    assert "double quote" in refused("arxiv", r'"a \" b"')


# ------------------------------------------------------------------- shared


@pytest.mark.parametrize("provider", [p for p in PROVIDERS if p != "crossref"])
@pytest.mark.parametrize("query", ["NOT a", "a OR NOT b", "NOT NOT a AND b", "NOT a NOT b"])
def test_negation_without_positive_is_refused(provider: str, query: str) -> None:
    assert "NOT" in refused(provider, query) or "negated" in refused(provider, query)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_requests_stay_on_https_provider_hosts(provider: str) -> None:
    req = compile_search(provider, "x", SearchFilters(include_retracted=True))
    parts = urlsplit(full_url(req))
    assert parts.scheme == "https" and parts.hostname in HOSTS[provider]
    assert req.method == "GET" and req.body is None
    names = {k.lower() for k, _ in req.params}
    assert not names & {"api_key", "key", "mailto", "email", "tool", "token_key"}
    assert dict(parse_qsl(parts.query, keep_blank_values=True)) == dict(req.params)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_url_byte_limit(provider: str) -> None:
    big = " ".join(["é" * 30] * 120)  # ~3,600 characters, > 4,094 bytes once encoded
    assert len(big) < 4096
    assert "4,094" in refused(provider, big) or provider == "crossref"


def test_url_limit_boundary_is_exact() -> None:
    base = compile_search("openalex", "a", ALL)
    room = MAX_URL_BYTES - len(full_url(base).encode())
    fits = compile_search("openalex", "a" * (1 + room), ALL)
    assert len(full_url(fits).encode()) == MAX_URL_BYTES
    assert "4,095" in refused("openalex", "a" * (2 + room))


@pytest.mark.parametrize(
    "filters",
    [
        SearchFilters(year_from=1799),
        SearchFilters(year_to=2200),
        SearchFilters(year_from=2022, year_to=2021),
        SearchFilters(sort="random"),  # type: ignore[arg-type]
        SearchFilters(field="journal"),  # type: ignore[arg-type]
    ],
)
def test_bad_filters_are_input_errors(filters: SearchFilters) -> None:
    with pytest.raises(QueryFilterError) as info:
        compile_search("europepmc", "x", filters)
    assert info.value.exit_code == 2


def test_bad_limit_cursor_provider_mode() -> None:
    assert "page size" in refused("europepmc", "x", limit=0)
    assert "page size" in refused("openalex", "x", limit=201)
    assert "cursor" in refused("europepmc", "x", cursor="a b")
    assert "unknown provider" in refused("google", "x")  # type: ignore[arg-type]
    assert "mode" in refused("pubmed", "x", mode="fuzzy")


def test_syntax_error_propagates() -> None:
    with pytest.raises(QuerySyntaxError):
        compile_search("europepmc", "a AND", ALL)


def test_parsed_query_is_reparsed_for_another_field() -> None:
    q = parse_query("Smith J")
    f = SearchFilters(field="author", include_retracted=True)
    assert compile_search("europepmc", q, f).executed_query == 'AUTH:"Smith J"'
    assert compile_search("europepmc", q, ALL).executed_query == '"Smith" AND "J"'


def test_unencodable_tree_is_refused() -> None:
    from litdesk.core.query import Query, Term

    tree = Query("x", Term("a\udcff"), False)
    assert "encoded" in refused("openalex", tree)  # type: ignore[arg-type]


# ------------------------------------------------------------------ truncation (therap*)

TRUNCATED = 'therap* AND "heart failure"'


def test_truncation_is_sent_unquoted_where_the_provider_truncates() -> None:
    # quoted, "therap*" is a literal phrase at Europe PMC and arXiv (the stem alone)
    epmc = compile_search("europepmc", TRUNCATED, ALL)
    assert epmc.executed_query == 'therap* AND "heart failure"'
    pubmed = compile_search("pubmed", TRUNCATED, ALL)
    assert pubmed.executed_query == 'therap*[All Fields] AND "heart failure"[All Fields]'
    arxiv = compile_search("arxiv", "TITLE:therap* OR cancer", ALL)
    assert arxiv.executed_query == "ti:therap* OR all:cancer"
    s2 = compile_search("semanticscholar", TRUNCATED, ALL)
    assert s2.executed_query == 'therap* + "heart failure"'


def test_truncation_alone_goes_to_s2_bulk_search() -> None:
    # relevance search has no prefix match: one truncated word needs bulk syntax
    req = compile_search("semanticscholar", "therap*", ALL)
    assert req.url.endswith("/paper/search/bulk")
    assert req.executed_query == "therap*"


@pytest.mark.parametrize("provider", ["openalex", "crossref"])
def test_truncation_refused_where_the_provider_matches_whole_words(provider: str) -> None:
    # OpenAlex and Crossref would search the word "therap" instead: refused with the reason
    reason = refused(provider, "therap*")
    assert "therap*" in reason and "position 1" in reason


def test_a_quoted_or_escaped_star_is_not_truncation() -> None:
    assert not parse_query('"therap*"').terms[0].truncated
    assert not parse_query("therap\\*").terms[0].truncated
    assert parse_query("covid19*").terms[0].stem == "covid19"
    compound = parse_query("covid-19*").terms[0]
    assert compound.truncated and compound.compound_stem and compound.stem == "covid-19"


# ------------------------------------------- truncation after punctuation (covid-19*)


def test_a_compound_stem_is_a_truncated_phrase_at_pubmed_and_said_in_the_trace() -> None:
    # before: every database got something else, silently — Europe PMC and arXiv a quoted
    # literal "covid-19*", OpenAlex covid\-19\*, Crossref the text, the demo the words
    # "covid 19"; PubMed documents a hyphen as a phrase and a quoted phrase ending in * as
    # a truncated phrase
    req = compile_search("pubmed", "covid-19* AND TITLE:long-covid*", ALL)
    assert req.executed_query == '"covid-19*"[All Fields] AND "long-covid*"[ti]'
    assert any("covid-19* (position 1)" in w and "truncated phrase" in w for w in req.warnings)


@pytest.mark.parametrize(
    "provider", ["europepmc", "arxiv", "semanticscholar", "openalex", "crossref"]
)
def test_a_compound_stem_is_refused_with_its_position_elsewhere(provider: str) -> None:
    # their documented truncation is of one word: the stem covid-19 is two words there
    reason = refused(provider, "sepsis covid-19*")
    assert "covid-19*" in reason and "position 8" in reason


def test_pubmed_refuses_short_stems_and_literal_stars() -> None:
    # PubMed truncates stems of four or more characters; it reads every * as truncation,
    # in quotes too, so a literal star cannot be said there
    assert "position 1" in refused("pubmed", "flu* AND sepsis")
    assert compile_search("pubmed", "infl*", ALL).executed_query == "infl*[All Fields]"
    for text in ("therap\\*", '"therap*"'):
        assert "literal *" in refused("pubmed", text)


# ------------------------------------------------ an escaped star is the character


def test_an_escaped_star_is_sent_as_the_literal_character() -> None:
    # before: therap\* was read as therap* and truncated at every database that truncates
    epmc = compile_search("europepmc", "therap\\*", ALL).executed_query
    assert epmc == '"therap\\*"'  # quoted, the star escaped: never a wildcard
    assert compile_search("arxiv", "therap\\*", ALL).executed_query == 'all:"therap*"'
    s2 = compile_search("semanticscholar", "therap\\* AND x", ALL)
    assert s2.executed_query == '"therap*" + x'
    assert compile_search("openalex", "therap\\*", ALL).executed_query == "therap\\*"
    demo = compile_search("demo", "therap\\*", ALL)
    assert dict(demo.params)["q"] == "therap\\*"
