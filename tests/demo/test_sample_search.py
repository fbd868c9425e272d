"""The demo sample's search engine (litdesk.core.demo, pure): the litdesk query language
evaluated on bundled records — terms, phrases, AND/OR/NOT, fields, truncation, years,
ranking (title hits first) — checked against a brute-force reading of the same query, and
linear on hostile queries."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litdesk.core.demo import SampleIndex, SampleRecord, fold_words, search_sample
from litdesk.core.query import And, Node, Not, Or, QuerySyntaxError, Term, parse_query
from litdesk.core.query import compile_search as compile_request
from litdesk.core.search import CompileRefused, SearchFilters

RECORDS = (
    SampleRecord("W1", "Stem cells for knee osteoarthritis", "A randomised trial of stem cells.",
                 ("Ana Silva", "Bo Chen"), 2020),
    SampleRecord("W2", "Knee pain in athletes", "Stem cell injections were not used.",
                 ("Chen Bo",), 2018),
    SampleRecord("W3", "Dialectical behaviour therapy", "Borderline personality disorder trial.",
                 ("Marsha Linehan",), 2015),
    SampleRecord("W4", "Mesenchymal stromal cells", "Cells, stem-like, in the knee joint.",
                 ("Ana Silva",), 2021),
    SampleRecord("W5", "Schéma thérapie", "Schema therapy for borderline patients; café study.",
                 ("Arnoud Arntz",), 2009),
)  # fmt: skip
INDEX = SampleIndex(RECORDS)


def ids(query: str, **kw: object) -> list[str]:
    hits = search_sample(INDEX, parse_query(query), limit=100, **kw)  # type: ignore[arg-type]
    assert hits.total == len(hits.records)
    return [r.id for r in hits.records]


def test_terms_phrases_and_booleans() -> None:
    assert set(ids("knee")) == {"W1", "W2", "W4"}
    assert set(ids("knee AND stem")) == {"W1", "W2", "W4"}  # W4: "stem-like" folds to stem
    assert set(ids('"stem cells"')) == {"W1"}  # a phrase: the words in a row
    assert set(ids('"stem cell" OR "stromal cells"')) == {"W2", "W4"}
    assert set(ids("knee NOT athletes")) == {"W1", "W4"}
    assert set(ids("knee AND NOT (athletes OR mesenchymal)")) == {"W1"}
    assert set(ids("borderline OR dialectical")) == {"W3", "W5"}
    assert ids("osteoarthritis AND borderline") == []


def test_fields_case_accents_and_truncation() -> None:
    assert set(ids("TITLE:knee")) == {"W1", "W2"}
    assert set(ids("ABSTRACT:knee")) == {"W4"}
    assert set(ids('AUTHOR:"ana silva"')) == {"W1", "W4"}
    assert set(ids('AUTHOR:"silva bo"')) == set()  # a phrase never spans two authors
    assert set(ids("AUTH_LAST:chen")) == {"W1", "W2"}
    assert set(ids("KNEE")) == set(ids("knee"))
    assert set(ids("schema")) == {"W5"} and set(ids("cafe")) == {"W5"}  # accents folded
    assert set(ids("therap*")) == {"W3", "W5"}
    assert set(ids("mesench*")) == {"W4"}
    # a compound stem is its words in a row, the last truncated (before: the exact phrase
    # "stem cell", W2 only); an escaped star is the character, not truncation (before: W3, W5)
    assert set(ids("stem-cell*")) == {"W1", "W2"}
    assert set(ids("TITLE:stem-cell*")) == {"W1"}
    assert set(ids("therap\\*")) == set()
    assert fold_words("Über-naïve ±5 µg") == ["uber", "naive", "5", "μg"]


def test_ranking_years_and_paging() -> None:
    # title hits outrank abstract hits; then newest first
    assert ids("knee") == ["W1", "W2", "W4"]
    assert ids("stem", sort="newest") == ["W4", "W1", "W2"]
    assert set(ids("knee", year_from=2019)) == {"W1", "W4"}
    assert set(ids("knee", year_to=2018)) == {"W2"}
    page = search_sample(INDEX, parse_query("knee"), start=1, limit=1)
    assert page.total == 3 and [r.id for r in page.records] == ["W2"] and page.start == 1


def test_identifier_lookup() -> None:
    index = SampleIndex([SampleRecord("W9", "T", doi="10.1/ABC", pmid="42")])
    assert index.lookup("doi", "10.1/abc") is not None
    assert index.lookup("pmid", "42") is not None and index.lookup("openalex", "w9") is not None
    assert index.lookup("doi", "10.1/other") is None


def test_the_compiler_sends_the_query_and_refuses_what_the_sample_lacks() -> None:
    req = compile_request("demo", 'knee AND "stem cells"', SearchFilters(year_from=2019))
    params = dict(req.params)
    assert req.url == "https://demo-sample.litdesk.invalid/search" and req.lane == "demo-keyword"
    assert params["q"] == 'knee AND "stem cells"' and params["year_from"] == "2019"
    for bad in ("MESH:knee", "ab*"):
        with pytest.raises(CompileRefused):
            compile_request("demo", bad)
    for filters in (SearchFilters(sort="cited"), SearchFilters(type="review")):
        with pytest.raises(CompileRefused):
            compile_request("demo", "knee", filters)


# -- a brute-force oracle: the same query read record by record ---------------------------

FIELDS = {
    "title": lambda r: fold_words(r.title),
    "abstract": lambda r: fold_words(r.abstract),
}


def _words_match(words: list[str], stream: list[str]) -> bool:
    n = len(words)
    return any(stream[i : i + n] == words for i in range(len(stream) - n + 1))


def _oracle(node: Node, rec: SampleRecord) -> bool:
    if isinstance(node, Term):
        words = fold_words(node.text)
        if not words:
            return False
        names = [node.field] if node.field in FIELDS else ["title", "abstract"]
        if node.field is None:
            streams = [FIELDS[n](rec) for n in names]
            streams += [fold_words(a) for a in rec.authors]
        else:
            streams = [FIELDS[n](rec) for n in names]
        return any(_words_match(words, s) for s in streams)
    if isinstance(node, Not):
        return not _oracle(node.child, rec)
    if isinstance(node, And):
        return all(_oracle(c, rec) for c in node.children)
    assert isinstance(node, Or)
    return any(_oracle(c, rec) for c in node.children)


VOCAB = ["knee", "stem", "cells", "trial", "borderline", "therapy", "chen", "silva", "x"]
word = st.sampled_from(VOCAB)
term = st.one_of(
    word,
    st.lists(word, min_size=1, max_size=3).map(lambda ws: '"' + " ".join(ws) + '"'),
    word.map(lambda w: f"TITLE:{w}"),
    word.map(lambda w: f"ABSTRACT:{w}"),
)
queries = st.recursive(
    term,
    lambda inner: st.one_of(
        st.tuples(inner, inner).map(lambda p: f"({p[0]} AND {p[1]})"),
        st.tuples(inner, inner).map(lambda p: f"({p[0]} OR {p[1]})"),
        st.tuples(inner, inner).map(lambda p: f"({p[0]} NOT {p[1]})"),
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries)
def test_the_index_agrees_with_reading_every_record(text: str) -> None:
    query = parse_query(text)
    expected = {r.id for r in RECORDS if _oracle(query.root, r)}
    assert set(ids(text)) == expected


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_any_text_either_parses_and_runs_or_is_a_syntax_error(text: str) -> None:
    try:
        query = parse_query(text)
    except QuerySyntaxError:
        return
    hits = search_sample(INDEX, query, limit=10)
    assert 0 <= hits.total <= len(RECORDS) and len(hits.records) <= 10


def _cpu(query: str, index: SampleIndex) -> float:
    parsed = parse_query(query)
    started = time.process_time()
    search_sample(index, parsed, limit=20)
    return time.process_time() - started


def test_hostile_queries_take_linear_time() -> None:
    # a larger sample: every record holds the same common words, so every term matches all
    big = SampleIndex(
        SampleRecord(f"W{i}", "the the the knee", "the " * 200 + f"w{i}") for i in range(1_500)
    )
    hostile = [
        " OR ".join(["the"] * 100),  # the grammar allows 200 tokens
        " AND ".join(["the"] * 100),
        "NOT " * 60 + "the",
        '"' + " ".join(["the"] * 150) + '"',  # a phrase of one word repeated: substring search
        " OR ".join(f"w{i}*" for i in range(100, 190)),
        "(" * 15 + "the" + ")" * 15,
    ]
    for query in hostile:
        assert _cpu(query, big) < 2.0, query[:40]
    # doubling the query roughly doubles the work (never squares it)
    small = _cpu(" OR ".join(f'"the the w{i}"' for i in range(40)), big)
    large = _cpu(" OR ".join(f'"the the w{i}"' for i in range(80)), big)
    assert large < 4 * small + 0.05


def test_the_demo_host_answers_searches_lookups_and_bad_requests() -> None:
    import json

    import httpx

    from litdesk.adapters.demo import answer

    def get(path: str, **params: str) -> tuple[int, dict[str, object]]:
        url = httpx.URL(f"https://demo-sample.litdesk.invalid{path}", params=params)
        response = answer(httpx.Request("GET", url), INDEX)
        return response.status_code, json.loads(response.content)

    status, body = get("/search", q="knee NOT athletes", limit="1")
    assert status == 200 and body["total"] == 2 and len(body["results"]) == 1  # type: ignore[arg-type]
    assert get("/search", q="knee", field="title", sort="newest")[1]["total"] == 2
    assert get("/record", openalex="W3")[1]["results"][0]["title"].startswith("Dialectical")  # type: ignore[index]
    assert get("/record", doi="10.9/none")[0] == 404
    assert get("/search", q="knee AND")[0] == 400  # the query's own syntax error
    assert get("/search", q="knee", limit="lots")[0] == 400
    assert get("/elsewhere")[0] == 404


def test_the_demo_lanes_are_named_as_the_demo() -> None:
    from litdesk.core.providers import PROVIDERS, display_name, lane_label

    assert display_name("demo") == "Demo sample (offline)" and "demo" not in PROVIDERS
    assert lane_label("demo-keyword") == "Demo sample (offline), keyword search"
