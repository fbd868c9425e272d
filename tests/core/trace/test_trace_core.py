"""Search request validation, cache identity, the trace and the evidence cache policy."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.records import make_paper
from litdesk.core.search import PROVIDERS, CompiledRequest, LaneOutcome, ProviderPage, SearchFilters
from litdesk.core.trace import (
    NONCLAIMS,
    EvidenceEntry,
    ParserIdentity,
    SearchRequestError,
    attempt_from_outcome,
    build_trace,
    cache_identity,
    cache_mode_for,
    entry_is_fresh,
    evidence_key,
    validate_request,
)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"query": "   "}, "query"),
        ({"query": "x" * 4001}, "query"),
        ({"query": "a\x00b"}, "query"),
        ({"providers": []}, "providers"),
        ({"providers": ["google-scholar"]}, "providers"),
        ({"providers": ["crossref", "Crossref"]}, "providers"),
        ({"filters": SearchFilters(year_from=2020, year_to=2010)}, "year_from"),
        ({"filters": SearchFilters(year_from=99)}, "year_from"),
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"limit": True}, "limit"),
        ({"cursor": ""}, "cursor"),
        ({"cursor": "c" * 5000}, "cursor"),
        ({"cursor": "abc", "providers": ["crossref", "arxiv"]}, "cursor"),
    ],
)
def test_invalid_requests_are_refused_with_the_field(kwargs, field):
    args = {"query": "cancer", "providers": ["crossref"]} | kwargs
    query = args.pop("query")
    providers = args.pop("providers")
    with pytest.raises(SearchRequestError) as err:
        validate_request(query, providers, **args)
    assert err.value.details["field"] == field
    assert err.value.exit_code == 2


def test_valid_request_is_normalised():
    req = validate_request("  cancer  ", ["Crossref", "arxiv"], limit=5)
    assert req.query == "cancer" and req.providers == ("crossref", "arxiv")


def test_cache_identity_ignores_provider_order_and_binds_the_rest():
    a = validate_request("cancer", ["crossref", "arxiv"])
    b = validate_request("cancer", ["arxiv", "crossref"])
    assert cache_identity(a) == cache_identity(b)
    differs = [
        validate_request("cancer", ["crossref", "arxiv"], include_raw=True),
        validate_request("cancer", ["crossref", "arxiv"], limit=21),
        validate_request("cancers", ["crossref", "arxiv"]),
        validate_request("cancer", ["crossref"]),
        validate_request("cancer", ["crossref", "arxiv"], filters=SearchFilters(year_from=2000)),
        validate_request("cancer", ["crossref"], cursor="x"),
    ]
    ids = {cache_identity(r) for r in differs}
    assert len(ids) == len(differs) and cache_identity(a) not in ids


@settings(max_examples=100, deadline=None)
@given(
    st.text(min_size=1, max_size=80).filter(lambda s: s.strip()),
    st.permutations(list(PROVIDERS)),
    st.integers(min_value=1, max_value=6),
)
def test_identity_is_stable_under_permutation(query, order, n):
    try:
        a = validate_request(query, order[:n])
    except SearchRequestError:
        return  # control characters etc. are refused, never crash
    b = validate_request(query, sorted(order[:n]))
    assert cache_identity(a) == cache_identity(b)
    assert len(cache_identity(a)) == 64


def _request(provider="crossref"):
    return CompiledRequest(
        provider=provider,
        operation="search",
        method="GET",
        url="https://api.crossref.org/works",
        params=(("query", "x"), ("cursor", "*")),
        executed_query="x",
        lane=f"{provider}-keyword",
    )


def _outcome(status="ok", papers=2, notices=None):
    page = ProviderPage(
        papers=[make_paper(doi=f"10.1000/{i}", title=f"T{i}") for i in range(papers)],
        total=99,
        next_cursor="n",
        notices=notices or {},
    )
    return LaneOutcome(
        provider="crossref",
        lane="crossref-keyword",
        status=status,
        request=_request(),
        page=page if status == "ok" else None,
        http_status=200 if status == "ok" else 503,
        message="" if status == "ok" else "down",
    )


def test_attempt_statuses():
    parser = ParserIdentity("p", "1")
    assert (
        attempt_from_outcome(_outcome(), parser=parser, requested_cursor=None).status == "success"
    )
    partial = attempt_from_outcome(
        _outcome(notices={1: ["malformed DOI dropped"]}), parser=parser, requested_cursor=None
    )
    assert partial.status == "partial"
    failed = attempt_from_outcome(_outcome("unavailable"), parser=parser, requested_cursor=None)
    assert failed.status == "failed" and failed.parser is None and failed.returned == 0


def test_trace_keeps_order_duplicates_and_nonclaims():
    req = validate_request("x", ["crossref", "arxiv"])
    ok = _outcome()
    dup = _outcome()  # the same papers again: kept, not deduplicated
    failed = _outcome("unavailable")
    parser = ParserIdentity("p", "1")
    pairs = [
        (o, attempt_from_outcome(o, parser=parser, requested_cursor=None))
        for o in (ok, dup, failed)
    ]
    trace = build_trace(req, pairs, trace_id="t1", created_at=datetime(2026, 1, 1, tzinfo=UTC))
    data = json.loads(json.dumps(trace.to_dict()))
    assert [s["rank"] for s in data["sightings"]] == [1, 2, 1, 2]
    assert data["sightings"][1]["notices"] == []
    assert data["sightings"][0]["identifiers"]["doi"] == "10.1000/0"
    assert data["status"] == "partial"
    assert data["nonclaims"] == list(NONCLAIMS)
    assert any("deduplication" in n for n in data["nonclaims"])
    assert data["warnings"] == ["crossref: unavailable: down"]
    assert data["summary"] == {"attempts": 3, "succeeded": 2, "failed": 1, "sightings": 4}


def test_cache_policies():
    assert cache_mode_for("openalex", "search").ttl == timedelta(days=14)
    assert cache_mode_for("semanticscholar", "search").mode == "digest"
    assert cache_mode_for("crossref", "lookup").mode == "deny"
    assert cache_mode_for("openalex", "fetch").mode == "deny"
    assert cache_mode_for("nope", "search").mode == "deny"


def test_evidence_key_binds_page_and_parser():
    a = evidence_key(_request(), "p", "1")
    assert a == evidence_key(_request(), "p", "1")
    assert a.digest() != evidence_key(_request(), "p", "2").digest()
    other_page = dataclasses.replace(_request(), params=(("query", "x"), ("cursor", "abc")))
    b = evidence_key(other_page, "p", "1")
    assert a.page_digest != b.page_digest and a.request_digest != b.request_digest


def test_entry_freshness():
    key = evidence_key(_request("openalex"), "p", "1")
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    entry = EvidenceEntry(key, 200, "d", 1, t0, t0 + timedelta(days=14), "body")
    assert entry_is_fresh(entry, t0 + timedelta(days=13))
    assert not entry_is_fresh(entry, t0 + timedelta(days=14))
    digest_only = EvidenceEntry(key, 200, "d", 1, t0, None, "digest")
    assert not entry_is_fresh(digest_only, t0)


@settings(max_examples=150, deadline=None)
@given(
    st.text(max_size=50),
    st.lists(st.text(max_size=20), max_size=8),
    st.one_of(st.none(), st.integers(min_value=-5, max_value=3000)),
    st.integers(min_value=-5, max_value=200),
    st.one_of(st.none(), st.text(max_size=30)),
)
def test_validate_request_refuses_or_accepts_never_crashes(query, providers, year, limit, cursor):
    try:
        req = validate_request(
            query, providers, filters=SearchFilters(year_from=year), limit=limit, cursor=cursor
        )
    except SearchRequestError as exc:
        assert exc.message
        return
    assert req.query.strip() == req.query and req.query
    assert set(req.providers) <= set(PROVIDERS) and len(set(req.providers)) == len(req.providers)
    assert 1 <= req.limit <= 100
