"""Credentials go only to their own provider's host and never appear in a URL we report,
an outcome, a cassette, a log line or an exception — for every provider, on every path."""

from __future__ import annotations

import asyncio
import json
import logging
from urllib.parse import unquote

import pytest
from tests._meters import store_meter
from transport_kit import SECRETS, Route, compiled, fake_error_message, fake_parse

from litdesk.adapters.http import (
    CassetteRecorder,
    Pacer,
    ProviderTransport,
    TransportFailed,
    credentials_for,
)
from litdesk.core.search import PROVIDERS

ZERO = {p: 0.0 for p in PROVIDERS}
ALL_SECRETS = list(SECRETS.values())
OWN = {
    "openalex": SECRETS["openalex_api_key"],
    "semanticscholar": SECRETS["semantic_scholar_api_key"],
    "pubmed": SECRETS["ncbi_api_key"],
    "crossref": SECRETS["crossref_plus_token"],
}


def _path(provider: str) -> str:
    return "/" + compiled(provider).url.split("://", 1)[1].split("/", 1)[1]


def _assert_clean(text: str) -> None:
    for secret in ALL_SECRETS:
        assert secret not in text
        assert secret not in unquote(text)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("status", [200, 400, 401, 429, 500])
def test_credentials_only_to_own_host_and_never_reported(
    provider, status, keyed_settings, server, tmp_path, caplog
):
    echo = json.dumps(
        {"error": "bad request", "echo": ALL_SECRETS, "url": "?api_key=" + OWN.get(provider, "")}
    )
    server.routes[_path(provider)] = Route(
        status=status, body=echo.encode(), headers={"Retry-After": "5"}
    )
    recorder = CassetteRecorder(tmp_path / "cassette")
    caplog.set_level(logging.DEBUG)

    async def go():
        t = ProviderTransport(
            keyed_settings,
            base_urls={provider: server.base},
            pacer=Pacer(ZERO),
            recorder=recorder,
            meter=store_meter(keyed_settings),
        )
        async with t:
            return await t.run(compiled(provider), fake_parse, fake_error_message)

    outcome, exchange = asyncio.run(go())
    # sent: own credential present, every other provider's absent
    assert len(server.seen) == 1
    seen = server.seen[0]
    sent = unquote(seen.path) + json.dumps(seen.headers) + seen.body.decode()
    if provider in OWN:
        assert OWN[provider] in sent
    for other, secret in OWN.items():
        if other != provider:
            assert secret not in sent
    if provider == "crossref":
        assert seen.headers["Crossref-Plus-API-Token"] == f"Bearer {OWN['crossref']}"
    if provider == "semanticscholar":
        assert seen.headers["x-api-key"] == OWN["semanticscholar"]
    # reported: nowhere
    _assert_clean(outcome.message)
    _assert_clean(json.dumps(outcome.request.to_dict()))
    assert exchange is not None
    _assert_clean(exchange.url)
    for record in caplog.records:
        _assert_clean(record.getMessage())
    assert any("HTTP Request" in r.getMessage() for r in caplog.records)  # httpx did log
    for file in (tmp_path / "cassette").iterdir():
        _assert_clean(file.read_text(encoding="utf-8"))
    if status != 200:
        assert "[REDACTED]" in outcome.message or "bad request" in outcome.message


@pytest.mark.parametrize("provider", PROVIDERS)
def test_network_error_messages_hold_no_credentials(provider, keyed_settings, caplog):
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    caplog.set_level(logging.DEBUG)

    async def go():
        t = ProviderTransport(
            keyed_settings,
            base_urls={provider: f"http://127.0.0.1:{port}"},
            pacer=Pacer(ZERO),
            meter=store_meter(keyed_settings),
        )
        async with t:
            with pytest.raises(TransportFailed) as err:
                await t.fetch(compiled(provider))
            outcome, _ = await t.run(compiled(provider), fake_parse)
            return err.value, outcome

    exc, outcome = asyncio.run(go())
    _assert_clean(str(exc))
    _assert_clean(repr(exc))
    _assert_clean(json.dumps(exc.to_dict()))
    _assert_clean(outcome.message)
    for record in caplog.records:
        _assert_clean(record.getMessage())


def test_credentials_repr_holds_no_values(keyed_settings):
    for provider in PROVIDERS:
        creds = credentials_for(provider, keyed_settings)
        _assert_clean(repr(creds))
        _assert_clean(str(creds))


def test_credentials_never_cross_providers(keyed_settings):
    for provider in PROVIDERS:
        creds = credentials_for(provider, keyed_settings)
        values = [v for _, v in creds.params] + [v for _, v in creds.headers]
        for other, secret in OWN.items():
            if other != provider:
                assert all(secret not in v for v in values)
        if provider in {"europepmc", "arxiv"}:
            assert values == []
