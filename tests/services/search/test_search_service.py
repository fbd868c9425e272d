"""The search service: concurrent lanes, failures beside successes, cache, trace, secrets."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from pydantic import SecretStr
from tests._meters import store_meter

from litdesk._errors import ExternalError
from litdesk.adapters.http import EvidenceCache, Pacer, ProviderTransport
from litdesk.core.records import make_paper
from litdesk.core.search import PROVIDERS, CompiledRequest, CompileRefused, ProviderPage
from litdesk.core.trace import NONCLAIMS, ParserIdentity, validate_request
from litdesk.services.search import ProviderKit, SearchService

URLS = {
    "europepmc": "https://www.ebi.ac.uk/europepmc/webservices/rest/search",
    "openalex": "https://api.openalex.org/works",
    "semanticscholar": "https://api.semanticscholar.org/graph/v1/paper/search",
    "crossref": "https://api.crossref.org/works",
    "pubmed": "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi",
    "arxiv": "https://export.arxiv.org/api/query",
}
SECRETS = {
    "openalex_api_key": "OAX-SECRET-9f8e",
    "semantic_scholar_api_key": "S2-SECRET-7d6c",
    "ncbi_api_key": "NCBI-SECRET-5b4a",
    "crossref_plus_token": "XREF-SECRET-3a2b",
}


class Bad(ExternalError):
    default_code = "parse_error"


def _compile(provider, query, filters, limit, cursor):
    if query == "refuse-" + provider:
        raise CompileRefused(provider, "cannot express this")
    return CompiledRequest(
        provider=provider,
        operation="search",
        method="GET",
        url=URLS[provider],
        params=(("q", query), ("n", str(limit))),
        executed_query=query,
        lane=f"{provider}-keyword",
    )


def _parse(provider, request, status, body):
    data = json.loads(body)
    if not isinstance(data, dict) or "items" not in data:
        raise Bad(f"{provider}: no items")
    papers = [make_paper(doi=i["doi"], title=i["title"], provider=provider) for i in data["items"]]
    return ProviderPage(papers=papers, total=data.get("total"), next_cursor=data.get("next"))


KIT = ProviderKit(
    compile=_compile,
    parse=_parse,
    error_message=lambda p, s, b: b.decode("utf-8", "replace")[:100],
    parser_identity=lambda p: ParserIdentity(f"fake.{p}", "1"),
)


def _body(provider: str, n: int = 2) -> bytes:
    items = [{"doi": f"10.1000/{provider}.{i}", "title": f"{provider} paper {i}"} for i in range(n)]
    items.append({"doi": "10.1000/shared", "title": "Seen everywhere"})
    return json.dumps({"items": items, "total": 1000, "next": "c2"}).encode()


def _service(settings, handler, *, cache=None, meter=None):
    transport = ProviderTransport(
        settings,
        transport=httpx.MockTransport(handler),
        pacer=Pacer({p: 0.0 for p in PROVIDERS}),
        meter=meter or store_meter(settings),
    )
    return transport, SearchService(settings, transport, kit=KIT, cache=cache)


def _run(settings, handler, request, **kw):
    async def go():
        transport, service = _service(settings, handler, **kw)
        async with transport:
            return await service.search(request)

    return asyncio.run(go())


def _provider_of(request: httpx.Request) -> str:
    return next(p for p, u in URLS.items() if httpx.URL(u).host == request.url.host)


@pytest.fixture
def settings(tmp_settings):
    return tmp_settings.model_copy(update={k: SecretStr(v) for k, v in SECRETS.items()})


def test_all_six_lanes_run_concurrently(settings):
    """Every lane's request is out before any is answered: each reply waits until all six
    providers have been asked (run one after another, the first would wait in vain)."""
    asked: list[str] = []
    everyone: asyncio.Event | None = None

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal everyone
        everyone = everyone or asyncio.Event()
        asked.append(_provider_of(request))
        if len(asked) == len(PROVIDERS):
            everyone.set()
        try:
            await asyncio.wait_for(everyone.wait(), timeout=20)
        except TimeoutError:
            return httpx.Response(503, content=b"lanes ran one after another")
        return httpx.Response(200, content=_body(_provider_of(request)))

    req = validate_request("x", list(PROVIDERS))
    trace = _run(settings, handler, req)
    assert sorted(asked) == sorted(PROVIDERS)
    assert trace.status == "success", [a.to_dict() for a in trace.attempts]
    assert [a.provider for a in trace.attempts] == list(PROVIDERS)  # request order kept
    # no deduplication: the shared DOI is a sighting once per provider
    shared = [s for s in trace.sightings if s.paper.doi == "10.1000/shared"]
    assert len(shared) == 6
    assert [s.rank for s in trace.sightings_of("crossref")] == [1, 2, 3]
    assert trace.to_dict()["nonclaims"] == list(NONCLAIMS)


def test_failing_lanes_never_hide_the_others(settings):
    def handler(request: httpx.Request) -> httpx.Response:
        p = _provider_of(request)
        if p == "crossref":
            return httpx.Response(503, content=b"down for maintenance")
        if p == "arxiv":
            raise httpx.ConnectError("connection refused")
        if p == "europepmc":
            return httpx.Response(200, content=b"<html>not json</html>")
        if p == "semanticscholar":
            return httpx.Response(429, headers={"Retry-After": "7"})
        return httpx.Response(200, content=_body(p))

    trace = _run(settings, handler, validate_request("x", list(PROVIDERS)))
    by = {a.provider: a for a in trace.attempts}
    assert by["crossref"].outcome == "unavailable" and "maintenance" in by["crossref"].message
    assert by["arxiv"].outcome == "unavailable"
    assert by["europepmc"].outcome == "parse_error" and by["europepmc"].response_digest
    assert (
        by["semanticscholar"].outcome == "rate_limited" and by["semanticscholar"].retry_after == 7
    )
    assert by["openalex"].status == "success" and by["pubmed"].status == "success"
    assert trace.status == "partial"
    assert {s.provider for s in trace.sightings} == {"openalex", "pubmed"}
    assert any(w.startswith("crossref: unavailable") for w in trace.warnings)


def test_compile_refusal_is_an_unsupported_attempt(settings):
    calls = []

    def handler(request):
        calls.append(_provider_of(request))
        return httpx.Response(200, content=_body(_provider_of(request)))

    trace = _run(settings, handler, validate_request("refuse-arxiv", ["arxiv", "crossref"]))
    assert (
        trace.attempts[0].outcome == "unsupported" and "cannot express" in trace.attempts[0].message
    )
    assert trace.attempts[0].request is None
    assert calls == ["crossref"]


def test_pagination_evidence_and_parser_identity(settings):
    trace = _run(
        settings,
        lambda r: httpx.Response(200, content=_body(_provider_of(r))),
        validate_request("x", ["openalex"], cursor="c1"),
    )
    attempt = trace.to_dict()["attempts"][0]
    assert attempt["pagination"] == {
        "requested_cursor": "c1",
        "next_cursor": "c2",
        "total": 1000,
        "returned": 3,
    }
    assert attempt["parser"] == {"id": "fake.openalex", "version": "1"}
    assert attempt["request"]["executed_query"] == "x"


def test_evidence_cache_hit_for_openalex_not_for_crossref(settings, tmp_path):
    calls: list[str] = []

    def handler(request):
        calls.append(_provider_of(request))
        return httpx.Response(200, content=_body(_provider_of(request)))

    cache = EvidenceCache(tmp_path / "cache")
    req = validate_request("x", ["openalex", "crossref"])
    first = _run(settings, handler, req, cache=cache)
    second = _run(settings, handler, req, cache=cache)
    assert sorted(calls) == ["crossref", "crossref", "openalex"]
    a1, a2 = first.attempts[0], second.attempts[0]
    assert a2.reuse == "cache" and a1.reuse is None
    assert a2.response_digest == a1.response_digest
    assert a2.received_at == a1.received_at  # the original receipt time
    assert second.attempts[1].reuse is None


def test_raw_bodies_only_when_asked(settings):
    handler = lambda r: httpx.Response(200, content=_body(_provider_of(r)))  # noqa: E731
    plain = _run(settings, handler, validate_request("x", ["arxiv"])).to_dict()
    raw = _run(settings, handler, validate_request("x", ["arxiv"], include_raw=True)).to_dict()
    assert "raw" not in plain
    assert json.loads(raw["raw"]["arxiv-keyword"])["total"] == 1000


def test_trace_never_holds_credentials_even_when_echoed(settings, tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        echo = {"url": str(request.url), "headers": dict(request.headers)}
        status = 500 if _provider_of(request) == "crossref" else 200
        body = json.dumps({"items": [], "echo": echo}).encode()
        return httpx.Response(status, content=body)

    trace = _run(
        settings,
        handler,
        validate_request("x", list(PROVIDERS), include_raw=True),
        cache=EvidenceCache(tmp_path / "cache"),
    )
    text = json.dumps(trace.to_dict())
    for secret in SECRETS.values():
        assert secret not in text
    assert "[REDACTED]" in text  # the echo was there and was redacted
    for file in (tmp_path / "cache").rglob("*"):
        if file.is_file():
            assert all(s.encode() not in file.read_bytes() for s in SECRETS.values())


def test_budget_exhausted_lane(settings):
    handler = lambda r: httpx.Response(200, content=_body(_provider_of(r)))  # noqa: E731
    meter = store_meter(settings, openalex_daily_requests=1)
    meter.reserve("openalex")  # today's one OpenAlex call is spent
    trace = _run(settings, handler, validate_request("x", ["openalex", "arxiv"]), meter=meter)
    assert [a.outcome for a in trace.attempts] == ["budget_exhausted", "ok"]


def test_follow_up_fetch_failure_keeps_the_ids_with_a_warning(settings):
    import dataclasses

    def follow_up(request, page):
        if request.operation != "search":
            return None
        return dataclasses.replace(
            request,
            operation="fetch",
            url=URLS["pubmed"].replace("esearch", "efetch"),
            lane="pubmed-fetch",
        )

    kit = dataclasses.replace(KIT, follow_up=follow_up)

    def handler(request):
        if "efetch" in request.url.path:
            return httpx.Response(500, content=b"efetch broke")
        return httpx.Response(200, content=_body("pubmed"))

    async def go():
        transport = ProviderTransport(
            settings,
            transport=httpx.MockTransport(handler),
            pacer=Pacer({p: 0.0 for p in PROVIDERS}),
            meter=store_meter(settings),
        )
        async with transport:
            return await SearchService(settings, transport, kit=kit).search(
                validate_request("x", ["pubmed"])
            )

    trace = asyncio.run(go())
    assert [a.lane for a in trace.attempts] == ["pubmed-keyword", "pubmed-fetch"]
    assert [a.status for a in trace.attempts] == ["success", "failed"]
    assert trace.status == "partial"
    assert len(trace.sightings_of("pubmed")) == 3  # the ids survive
    assert any("could not be fetched" in w for w in trace.attempts[0].warnings)
