"""Transport over REAL loopback sockets: status mapping, limits, redirects, timeouts."""

from __future__ import annotations

import asyncio
import hashlib
from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests._meters import store_meter
from transport_kit import Route, compiled, fake_error_message, fake_parse

from litdesk.adapters.http import Pacer, ProviderTransport
from litdesk.core.search import PROVIDERS

ZERO = {p: 0.0 for p in PROVIDERS}

FIXTURE_BODIES = {
    "europepmc": "europepmc/search-cancer-lite.json",
    "openalex": "openalex/works-title-search-augmenting-llm-chemistry.json",
    "semanticscholar": "semanticscholar/paper-search-turing-title-offset0.json",
    "crossref": "crossref/works-query-ecology-rows2.json",
    "pubmed": "pubmed/esearch-pubmed-biopython.xml",
    "arxiv": "arxiv/query-testing-start0-max10.xml",
}


def _transport(settings, server_base: str, providers=PROVIDERS, **kw) -> ProviderTransport:
    kw.setdefault("pacer", Pacer(ZERO))
    kw.setdefault("meter", store_meter(settings))
    return ProviderTransport(settings, base_urls={p: server_base for p in providers}, **kw)


async def _run(settings, base, request, **kw):
    async with _transport(settings, base, **kw) as t:
        return await t.run(request, fake_parse, fake_error_message)


@pytest.mark.fixtures
@pytest.mark.parametrize("provider", PROVIDERS)
def test_recorded_body_served_over_loopback_is_ok(
    provider, keyed_settings, server, fixtures_dir: Path
):
    body = (fixtures_dir / "providers" / FIXTURE_BODIES[provider]).read_bytes()
    path = compiled(provider).url.split("://", 1)[1].split("/", 1)[1]
    server.routes["/" + path] = Route(body=body, headers={"Content-Type": "application/json"})
    outcome, exchange = asyncio.run(_run(keyed_settings, server.base, compiled(provider)))
    assert outcome.status == "ok", outcome.message
    assert outcome.http_status == 200
    assert outcome.response_bytes == len(body)
    assert outcome.response_digest == hashlib.sha256(body).hexdigest()
    assert exchange is not None and exchange.source == "network"
    assert len(server.seen) == 1


def _route(server, provider, **kw):
    path = "/" + compiled(provider).url.split("://", 1)[1].split("/", 1)[1]
    server.routes[path] = Route(**kw)
    return path


def test_content_length_over_limit_is_refused_without_reading(keyed_settings, server):
    settings = keyed_settings.model_copy(update={"http_max_response_bytes": 1000})
    _route(server, "crossref", body=b"{}" * 10, declared_length=5000)
    outcome, exchange = asyncio.run(_run(settings, server.base, compiled("crossref")))
    assert outcome.status == "unavailable"
    assert "Content-Length" in outcome.message and "1000" in outcome.message
    assert exchange is None


def test_streamed_body_over_limit_is_refused(keyed_settings, server):
    settings = keyed_settings.model_copy(update={"http_max_response_bytes": 10_000})
    _route(server, "crossref", body=b"x" * 50_000, chunked=True)
    outcome, _ = asyncio.run(_run(settings, server.base, compiled("crossref")))
    assert outcome.status == "unavailable"
    assert "while streaming" in outcome.message


def test_body_exactly_at_limit_is_read(keyed_settings, server):
    body = b'{"a":"' + b"x" * 994 + b'"}'
    assert len(body) == 1002
    settings = keyed_settings.model_copy(update={"http_max_response_bytes": 1002})
    _route(server, "crossref", body=body, chunked=True)
    outcome, _ = asyncio.run(_run(settings, server.base, compiled("crossref")))
    assert outcome.status == "ok"
    assert outcome.response_bytes == 1002


@pytest.mark.parametrize("code", [301, 302, 307, 308])
def test_redirect_is_refused_and_not_followed(code, keyed_settings, server):
    _route(
        server,
        "openalex",
        status=code,
        body=b"",
        headers={"Location": "https://evil.example/steal"},
    )
    outcome, _ = asyncio.run(_run(keyed_settings, server.base, compiled("openalex")))
    assert outcome.status == "unavailable"
    assert "redirect" in outcome.message
    assert "evil.example" not in outcome.message
    assert len(server.seen) == 1  # nothing followed


def test_read_timeout_is_timeout(keyed_settings, server):
    settings = keyed_settings.model_copy(update={"http_read_timeout": 0.3})
    _route(server, "europepmc", body=b"{}", delay=1.5)
    outcome, _ = asyncio.run(_run(settings, server.base, compiled("europepmc")))
    assert outcome.status == "timeout"
    assert outcome.elapsed_ms is not None and outcome.elapsed_ms < 1400


def test_slow_drip_body_hits_the_overall_deadline(keyed_settings, server):
    settings = keyed_settings.model_copy(
        update={"http_read_timeout": 0.4, "http_connect_timeout": 0.2}
    )
    _route(server, "europepmc", body=b"x" * 4096 * 8, drip=0.25)  # each chunk within read timeout
    outcome, _ = asyncio.run(_run(settings, server.base, compiled("europepmc")))
    assert outcome.status == "timeout"


def test_connect_timeout_is_timeout(keyed_settings, blackhole):
    settings = keyed_settings.model_copy(update={"http_connect_timeout": 0.3})
    outcome, _ = asyncio.run(_run(settings, blackhole, compiled("europepmc")))
    assert outcome.status == "timeout", outcome.message


def test_connection_refused_is_unavailable(keyed_settings):
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens here now
    outcome, _ = asyncio.run(
        _run(keyed_settings, f"http://127.0.0.1:{port}", compiled("europepmc"))
    )
    assert outcome.status == "unavailable"
    assert "network error" in outcome.message


def test_429_retry_after_seconds(keyed_settings, server):
    _route(
        server,
        "semanticscholar",
        status=429,
        body=b'{"message":"Too Many Requests"}',
        headers={"Retry-After": "120"},
    )
    outcome, _ = asyncio.run(_run(keyed_settings, server.base, compiled("semanticscholar")))
    assert outcome.status == "rate_limited"
    assert outcome.retry_after == 120.0


def test_429_retry_after_http_date(keyed_settings, server):
    now = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
    _route(
        server,
        "crossref",
        status=429,
        body=b"",
        headers={"Retry-After": "Mon, 30 Nov 2026 12:01:30 GMT"},
    )
    outcome, _ = asyncio.run(
        _run(keyed_settings, server.base, compiled("crossref"), now=lambda: now)
    )
    assert outcome.status == "rate_limited"
    assert outcome.retry_after == 90.0


def test_429_retry_after_is_clamped(keyed_settings, server):
    _route(server, "crossref", status=429, body=b"", headers={"Retry-After": "99999999"})
    outcome, _ = asyncio.run(_run(keyed_settings, server.base, compiled("crossref")))
    assert outcome.retry_after == 3600.0


def test_truncated_body_is_unavailable(keyed_settings, server):
    _route(server, "crossref", body=b"{" + b"x" * 9000, declared_length=20000, close_early=True)
    outcome, _ = asyncio.run(_run(keyed_settings, server.base, compiled("crossref")))
    assert outcome.status == "unavailable"
    assert outcome.page is None


def test_garbage_body_is_parse_error_with_digest(keyed_settings, server):
    garbage = b"\x00\xff<<<not json"
    _route(server, "openalex", body=garbage)
    outcome, _ = asyncio.run(_run(keyed_settings, server.base, compiled("openalex")))
    assert outcome.status == "parse_error"
    assert outcome.response_digest == hashlib.sha256(garbage).hexdigest()
    assert outcome.response_bytes == len(garbage)
    assert outcome.page is None


@pytest.mark.parametrize(
    ("status", "operation", "expected"),
    [
        (404, "lookup", "ok"),
        (404, "search", "unavailable"),
        (400, "search", "unsupported"),
        (422, "search", "unsupported"),
        (401, "search", "unavailable"),
        (403, "search", "unavailable"),
        (500, "search", "unavailable"),
        (503, "search", "unavailable"),
    ],
)
def test_status_mapping(status, operation, expected, keyed_settings, server):
    _route(server, "semanticscholar", status=status, body=b'{"error":"Paper not found"}')
    req = compiled("semanticscholar", operation=operation)
    outcome, _ = asyncio.run(_run(keyed_settings, server.base, req))
    assert outcome.status == expected
    assert outcome.http_status == status
    if expected == "ok":
        assert outcome.page is not None and outcome.page.papers == [] and outcome.page.total == 0
    else:
        assert "Paper not found" in outcome.message


@pytest.mark.parametrize(
    ("url", "params", "fragment"),
    [
        ("http://api.crossref.org/works", None, "https"),
        ("https://api.crossref.org.evil.com/works", None, "not allowed"),
        ("https://api.openalex.org/works", None, "not allowed"),  # another provider's host
        ("https://93.184.216.34/works", None, "IP-literal"),
        ("https://[::1]/works", None, "IP-literal"),
        ("https://user:pw@api.crossref.org/works", None, "user info"),
        ("https://api.crossref.org:8443/works", None, "port"),
        ("https://api.crossref.org/works#frag", None, "fragment"),
        ("https://api.crossref.org/works?query=x", None, "params"),
        ("https://api.crossref.org/works", [("api_key", "x")], "credential"),
        ("https://api.crossref.org/works", [("query", "x" * 5000)], "4094"),
    ],
)
def test_refused_before_sending(url, params, fragment, keyed_settings, server):
    req = compiled("crossref", url=url, params=params)
    outcome, exchange = asyncio.run(_run(keyed_settings, server.base, req))
    assert outcome.status == "unsupported"
    assert fragment in outcome.message
    assert exchange is None
    assert server.seen == []


def test_openalex_without_key_is_refused_with_instructions(tmp_settings, server):
    _route(server, "openalex", body=b"{}")
    outcome, _ = asyncio.run(_run(tmp_settings, server.base, compiled("openalex")))
    assert outcome.status == "unavailable"
    assert "LITDESK_OPENALEX_API_KEY" in outcome.message
    assert "free" in outcome.message
    assert server.seen == []


def test_polite_pool_and_user_agent(keyed_settings, server):
    for p in PROVIDERS:
        _route(server, p, body=b"{}")

    async def go():
        async with _transport(keyed_settings, server.base) as t:
            for p in PROVIDERS:
                await t.run(compiled(p), fake_parse)

    asyncio.run(go())
    by_path = {s.path.split("?")[0]: s for s in server.seen}
    for p in PROVIDERS:
        seen = by_path["/" + compiled(p).url.split("://", 1)[1].split("/", 1)[1]]
        ua = seen.headers["User-Agent"]
        assert ua.startswith("litdesk/") and "team@example.org" in ua
        assert seen.headers.get("Accept-Encoding") == "identity"
        query = seen.path.split("?", 1)[1]
        if p in {"openalex", "crossref"}:
            assert "mailto=team%40example.org" in query
        if p == "pubmed":
            assert "tool=litdesk" in query and "email=team%40example.org" in query
        if p in {"europepmc", "semanticscholar", "arxiv"}:
            assert "mailto" not in query and "email" not in query


def test_store_meter_refuses_beyond_allowance(keyed_settings, server):
    _route(server, "crossref", body=b"{}")
    meter = store_meter(keyed_settings, owner_daily_requests=2)

    async def go():
        async with _transport(keyed_settings, server.base, meter=meter) as t:
            return [await t.run(compiled("crossref"), fake_parse) for _ in range(3)]

    results = asyncio.run(go())
    assert [o.status for o, _ in results] == ["ok", "ok", "budget_exhausted"]
    assert len(server.seen) == 2
    assert "allowance" in results[2][0].message


def test_store_meter_counts_across_instances(tmp_settings):
    from litdesk.adapters.http import TransportRefused

    meters = [store_meter(tmp_settings, owner_daily_requests=2) for _ in range(3)]
    meters[0].reserve("arxiv")
    meters[1].reserve("arxiv")
    with pytest.raises(TransportRefused) as err:
        meters[2].reserve("arxiv")
    assert err.value.lane_status == "budget_exhausted"
    for meter in meters:
        meter.close()


def test_base_url_hook_accepts_only_loopback(keyed_settings):
    with pytest.raises(ValueError, match="loopback"):
        ProviderTransport(
            keyed_settings,
            base_urls={"crossref": "http://example.org"},
            meter=store_meter(keyed_settings),
        )


RECORDED_ERRORS = [
    # (provider, fixture, status, operation, expected lane status, text in the message)
    ("openalex", "openalex/error-400-invalid-filter.json", 400, "search", "unsupported", "400"),
    (
        "crossref",
        "crossref/works-query-not-allowed-with-doi-400.json",
        400,
        "search",
        "unsupported",
        "400",
    ),
    ("openalex", "openalex/error-404-work-doi-not-found.html", 404, "lookup", "ok", "not found"),
    (
        "semanticscholar",
        "semanticscholar/paper-doi-not-found-404.json",
        404,
        "lookup",
        "ok",
        "not found",
    ),
    ("arxiv", "arxiv/id-abc-400-error.xml", 400, "search", "unsupported", "400"),
    ("crossref", "crossref/work-not-found-404.txt", 404, "search", "unavailable", "404"),
]


@pytest.mark.fixtures
@pytest.mark.parametrize(
    ("provider", "fixture", "status", "operation", "expected", "text"), RECORDED_ERRORS
)
def test_recorded_error_bodies_map_with_the_real_parsers(
    provider, fixture, status, operation, expected, text, keyed_settings, server, fixtures_dir
):
    from litdesk.adapters.providers import error_message, parse_response

    body = (fixtures_dir / "providers" / fixture).read_bytes()
    _route(server, provider, status=status, body=body)
    req = compiled(provider, operation=operation)

    async def go():
        async with _transport(keyed_settings, server.base) as t:
            return await t.run(req, parse_response, error_message)

    outcome, _ = asyncio.run(go())
    assert outcome.status == expected, outcome.message
    assert text in outcome.message
    assert outcome.response_digest == hashlib.sha256(body).hexdigest()
    if expected == "ok":
        assert outcome.page is not None and outcome.page.papers == []


@pytest.mark.fixtures
def test_recorded_body_cut_short_is_a_parse_error(keyed_settings, server, fixtures_dir):
    from litdesk.adapters.providers import error_message, parse_response

    body = (fixtures_dir / "providers/crossref/works-query-ecology-rows2.json").read_bytes()
    _route(server, "crossref", body=body[: len(body) // 2])  # a truncated JSON document

    async def go():
        async with _transport(keyed_settings, server.base) as t:
            return await t.run(compiled("crossref"), parse_response, error_message)

    outcome, _ = asyncio.run(go())
    assert outcome.status == "parse_error"
    assert outcome.response_bytes == len(body) // 2


def test_blank_openalex_key_counts_as_missing(tmp_settings, server):
    from pydantic import SecretStr

    settings = tmp_settings.model_copy(update={"openalex_api_key": SecretStr("  ")})
    _route(server, "openalex", body=b"{}")
    outcome, _ = asyncio.run(_run(settings, server.base, compiled("openalex")))
    assert outcome.status == "unavailable" and "LITDESK_OPENALEX_API_KEY" in outcome.message
    assert server.seen == []
