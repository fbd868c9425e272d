"""Cassettes (record → replay with no network), the evidence cache, pacing, Retry-After."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._meters import store_meter
from transport_kit import Route, compiled, fake_parse

from litdesk._errors import InputError, IntegrityError
from litdesk.adapters.http import (
    Cassette,
    CassetteMiss,
    CassetteRecorder,
    EvidenceCache,
    Exchange,
    Pacer,
    ProviderTransport,
    crossref_interval,
    parse_retry_after,
)
from litdesk.core.search import PROVIDERS

ZERO = {p: 0.0 for p in PROVIDERS}


def _path(provider: str) -> str:
    return "/" + compiled(provider).url.split("://", 1)[1].split("/", 1)[1]


def _no_network(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"network used in replay: {request.url}")


def test_record_then_replay_without_network(keyed_settings, server, tmp_path):
    bodies = {p: json.dumps({"provider": p, "n": i}).encode() for i, p in enumerate(PROVIDERS)}
    for p in PROVIDERS:
        server.routes[_path(p)] = Route(
            body=bodies[p], headers={"Content-Type": "application/json"}
        )
    folder = tmp_path / "cas"

    async def record():
        t = ProviderTransport(
            keyed_settings,
            base_urls={p: server.base for p in PROVIDERS},
            pacer=Pacer(ZERO),
            recorder=CassetteRecorder(folder),
            meter=store_meter(keyed_settings),
        )
        async with t:
            return [await t.run(compiled(p), fake_parse) for p in PROVIDERS]

    recorded = asyncio.run(record())
    index = json.loads((folder / "index.json").read_text())
    assert index["format"] == "litdesk-cassette" and len(index["exchanges"]) == 6
    one = json.loads((folder / index["exchanges"][0]["file"]).read_text())
    assert set(one) >= {"request", "response", "recorded_at", "key"}
    assert one["response"]["headers"]["content-type"] == "application/json"
    assert "mailto" not in one["request"]["url"] and "tool=" not in one["request"]["url"]

    async def replay():
        t = ProviderTransport(
            keyed_settings.model_copy(update={"openalex_api_key": None}),
            transport=httpx.MockTransport(_no_network),
            replay=Cassette(folder),
            meter=store_meter(keyed_settings),
        )
        async with t:
            return [await t.run(compiled(p), fake_parse) for p in PROVIDERS]

    replayed = asyncio.run(replay())
    for (a, _), (b, ex) in zip(recorded, replayed, strict=True):
        assert b.status == "ok"
        assert b.response_digest == a.response_digest
        assert ex is not None and ex.source == "replay"


def test_replay_miss_is_a_typed_error(tmp_path, keyed_settings):
    folder = tmp_path / "cas"
    CassetteRecorder(folder)  # an empty cassette is still a cassette once it has an index
    (folder / "index.json").write_text(
        json.dumps({"format": "litdesk-cassette", "version": 1, "exchanges": []})
    )

    async def go():
        async with ProviderTransport(
            keyed_settings, replay=Cassette(folder), meter=store_meter(keyed_settings)
        ) as t:
            await t.fetch(compiled("crossref"))

    with pytest.raises(CassetteMiss, match="holds no GET"):
        asyncio.run(go())


def test_replay_of_a_folder_without_index_is_refused(tmp_path):
    with pytest.raises(InputError):
        Cassette(tmp_path)


def _one_exchange(provider="crossref", body=b'{"ok":1}', status=200, received=None):
    from litdesk.adapters.http import sanitised_url

    req = compiled(provider)
    return req, Exchange(
        provider=provider,
        method="GET",
        url=sanitised_url(req),
        request_body=None,
        status=status,
        headers={"content-type": "application/json", "set-cookie": "x"},
        body=body,
        received_at=received or datetime(2026, 11, 1, tzinfo=UTC),
    )


def test_tampered_cassette_body_is_an_integrity_error(tmp_path):
    from litdesk.adapters.http import Redactor

    _, ex = _one_exchange()
    CassetteRecorder(tmp_path).record(ex, Redactor())
    file = tmp_path / "0001-crossref.json"
    doc = json.loads(file.read_text())
    assert "set-cookie" not in doc["response"]["headers"]
    doc["response"]["body_text"] = '{"ok":2}'
    file.write_text(json.dumps(doc))
    with pytest.raises(IntegrityError, match="sha256"):
        Cassette(tmp_path)


def test_binary_body_is_stored_as_base64(tmp_path):
    from litdesk.adapters.http import Redactor

    req, ex = _one_exchange(body=b"\xff\xfe\x00binary")
    CassetteRecorder(tmp_path).record(ex, Redactor())
    doc = json.loads((tmp_path / "0001-crossref.json").read_text())
    assert "body_base64" in doc["response"]
    got = Cassette(tmp_path).lookup("crossref", "GET", ex.url, None)
    assert got.body == b"\xff\xfe\x00binary"


def test_secret_echoed_in_body_is_redacted_in_cassette(tmp_path):
    from litdesk.adapters.http import Redactor

    _, ex = _one_exchange(body=b'{"echo":"TOPSECRET-xyz"}')
    CassetteRecorder(tmp_path).record(ex, Redactor(["TOPSECRET-xyz"]))
    text = (tmp_path / "0001-crossref.json").read_text()
    assert "TOPSECRET-xyz" not in text
    assert json.loads(text)["response"]["redacted"] is True


# -- evidence cache ------------------------------------------------------------------


def test_openalex_body_kept_14_days_then_expired_but_kept(tmp_path):
    cache = EvidenceCache(tmp_path)
    req, ex = _one_exchange("openalex", received=datetime(2026, 11, 1, tzinfo=UTC))
    entry = cache.store(req, ex, "litdesk.providers.openalex", "1")
    assert entry is not None and entry.mode == "body"
    hit = cache.fresh(req, "litdesk.providers.openalex", "1", datetime(2026, 11, 14, tzinfo=UTC))
    assert hit is not None and hit.source == "cache" and hit.body == ex.body
    assert hit.received_at == ex.received_at  # the original receipt, not a new observation
    late = datetime(2026, 11, 15, 0, 0, 1, tzinfo=UTC)
    assert cache.fresh(req, "litdesk.providers.openalex", "1", late) is None
    kept = cache.entry(req, "litdesk.providers.openalex", "1")
    assert kept is not None and kept.response_digest == ex.digest  # evidence stays
    # another parser version is another key
    assert cache.fresh(req, "litdesk.providers.openalex", "2", ex.received_at) is None


def test_semantic_scholar_is_digest_only(tmp_path):
    cache = EvidenceCache(tmp_path)
    req, ex = _one_exchange("semanticscholar")
    entry = cache.store(req, ex, "p", "1")
    assert entry is not None and entry.mode == "digest"
    assert not list(tmp_path.rglob("body.bin"))
    assert cache.fresh(req, "p", "1", ex.received_at) is None
    assert cache.entry(req, "p", "1").response_digest == ex.digest


def test_crossref_is_denied_and_non_200_not_eligible(tmp_path):
    cache = EvidenceCache(tmp_path)
    req, ex = _one_exchange("crossref")
    assert cache.store(req, ex, "p", "1") is None
    req2, ex2 = _one_exchange("openalex", status=206)
    assert cache.store(req2, ex2, "p", "1") is None
    assert not list(tmp_path.rglob("*"))


def test_tampered_cache_body_is_not_a_hit(tmp_path):
    cache = EvidenceCache(tmp_path)
    req, ex = _one_exchange("openalex")
    cache.store(req, ex, "p", "1")
    next(tmp_path.rglob("body.bin")).write_bytes(b"{}")
    assert cache.fresh(req, "p", "1", ex.received_at) is None


def test_a_fifo_or_an_oversized_cache_body_is_not_a_hit_and_never_blocks(tmp_path):
    import os

    cache = EvidenceCache(tmp_path)
    req, ex = _one_exchange("openalex")
    cache.store(req, ex, "p", "1")
    body = next(tmp_path.rglob("body.bin"))
    assert cache.fresh(req, "p", "1", ex.received_at) is not None
    body.write_bytes(body.read_bytes() + b" " * 10)  # longer than recorded: not read past it
    assert cache.fresh(req, "p", "1", ex.received_at) is None
    body.unlink()
    os.mkfifo(body)  # a FIFO planted in the cache would block a plain read forever
    assert cache.fresh(req, "p", "1", ex.received_at) is None


# -- pacing ------------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds


@pytest.mark.parametrize(
    ("provider", "interval"), [("arxiv", 3.0), ("pubmed", 1 / 3), ("crossref", 1 / 50)]
)
def test_pacing_spaces_requests(provider, interval):
    clock = FakeClock()
    pacer = Pacer(clock=clock, sleep=clock.sleep)

    async def go():
        for _ in range(3):
            await pacer.acquire(provider)

    asyncio.run(go())
    assert clock.slept == pytest.approx([interval, interval])


def test_ncbi_key_raises_pace(keyed_settings, tmp_settings):
    assert ProviderTransport(keyed_settings, meter=store_meter(keyed_settings)).pacer.intervals[
        "pubmed"
    ] == pytest.approx(0.1)
    assert ProviderTransport(tmp_settings, meter=store_meter(tmp_settings)).pacer.intervals[
        "pubmed"
    ] == pytest.approx(1 / 3)


def test_crossref_pace_follows_rate_headers(keyed_settings, server):
    server.routes[_path("crossref")] = Route(
        body=b"{}", headers={"x-rate-limit-limit": "5", "x-rate-limit-interval": "1s"}
    )
    clock = FakeClock()

    async def go():
        t = ProviderTransport(
            keyed_settings,
            base_urls={"crossref": server.base},
            clock=clock,
            sleep=clock.sleep,
            meter=store_meter(keyed_settings),
        )
        async with t:
            await t.run(compiled("crossref"), fake_parse)
            await t.run(compiled("crossref"), fake_parse)
            return t.pacer.intervals["crossref"]

    assert asyncio.run(go()) == pytest.approx(0.2)
    assert clock.slept and clock.slept[-1] == pytest.approx(0.2)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"x-rate-limit-limit": "50", "x-rate-limit-interval": "1s"}, 0.02),
        ({"x-rate-limit-limit": "10", "x-rate-limit-interval": "2000ms"}, 0.2),
        ({"x-rate-limit-limit": "0", "x-rate-limit-interval": "1s"}, None),
        ({"x-rate-limit-limit": "abc", "x-rate-limit-interval": "1s"}, None),
        ({}, None),
    ],
)
def test_crossref_interval(headers, expected):
    got = crossref_interval(headers)
    assert got == (pytest.approx(expected) if expected is not None else None)


# -- Retry-After -------------------------------------------------------------------

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_retry_after_forms():
    assert parse_retry_after("30", NOW) == 30.0
    assert parse_retry_after("Mon, 30 Nov 2026 12:10:00 GMT", NOW) == 600.0
    assert parse_retry_after("Mon, 30 Nov 2026 11:00:00 GMT", NOW) == 0.0
    assert parse_retry_after("Sat, 30 Nov 2030 12:00:00 GMT", NOW) == 3600.0
    assert parse_retry_after("soon", NOW) is None
    assert parse_retry_after(None, NOW) is None
    assert parse_retry_after("-5", NOW) is None


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=60), st.integers(min_value=-(10**6), max_value=10**6))
def test_retry_after_never_crashes_and_is_clamped(text, shift):
    got = parse_retry_after(text, NOW + timedelta(seconds=shift))
    assert got is None or 0.0 <= got <= 3600.0
