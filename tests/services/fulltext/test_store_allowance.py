"""The store's daily allowance in front of every reading call (real SQLite / PostgreSQL)."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from litdesk._settings import Settings
from litdesk.adapters.http import DailyMeter, ProviderTransport
from litdesk.adapters.store import open_store
from litdesk.services.citations import CitationService
from litdesk.services.fulltext import AllowanceRefused, FullTextService, StoreAllowance


def _work(work: str, refs: list[str]) -> bytes:
    return json.dumps(
        {"id": f"https://openalex.org/{work}", "referenced_works": refs, "title": "t"}
    ).encode()


def _discover(settings: Settings, allowance: StoreAllowance, sent: list[str]) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.path)
        if request.url.path == "/works":
            return httpx.Response(200, content=b'{"meta":{"count":0},"results":[]}')
        return httpx.Response(200, content=_work("W1", ["https://openalex.org/W2"]))

    async def main() -> Any:
        transport = ProviderTransport(
            settings,
            transport=httpx.MockTransport(handler),
            meter=DailyMeter({"openalex": 1000, "europepmc": 1000}),
        )
        try:
            service = CitationService(transport, allowance=allowance)
            return await service.discover("references", ["W1"])
        finally:
            await transport.aclose()

    return asyncio.run(main())


def _check_limits(settings: Settings, url: str) -> None:
    settings = settings.model_copy(
        update={
            "openalex_api_key": SecretStr("k"),
            "openalex_daily_requests": 10_000,  # the shared database's global count grows
            "owner_daily_requests": 3,
        }
    )
    store = open_store(url)
    owner = f"test-{uuid.uuid4().hex[:12]}"
    allowance = StoreAllowance(store, settings, owner=owner)
    sent: list[str] = []
    _discover(settings, allowance, sent)  # seed lookup + works page = 2 reservations
    assert sent == ["/works/W1", "/works"]
    with pytest.raises(AllowanceRefused) as info:
        _discover(settings, allowance, sent)  # the 3rd passes (seed), the 4th is refused
    assert sent == ["/works/W1", "/works", "/works/W1"]
    assert info.value.details["reason"] == "owner_daily_limit"
    assert "nothing was sent" in info.value.message
    tomorrow = datetime.now(UTC) + timedelta(days=1)
    fresh = StoreAllowance(store, settings, owner=owner, now=lambda: tomorrow)
    fresh.reserve("openalex")  # a new UTC day starts a new allowance
    store.dispose()


def test_store_allowance_on_sqlite(tmp_settings: Settings) -> None:
    _check_limits(tmp_settings, tmp_settings.resolved_database_url())


@pytest.mark.postgres
def test_store_allowance_on_postgresql(tmp_settings: Settings, postgres_url: str) -> None:
    _check_limits(tmp_settings, postgres_url)


def test_unreachable_store_fails_closed(tmp_settings: Settings) -> None:
    allowance = StoreAllowance(_FailingStore(), tmp_settings)
    sent: list[str] = []

    async def main() -> Any:
        transport = ProviderTransport(
            tmp_settings, transport=httpx.MockTransport(lambda _r: _sent(sent))
        )
        try:
            return await FullTextService(transport, cache_dir=None, allowance=allowance).get("PMC5")
        finally:
            await transport.aclose()

    with pytest.raises(AllowanceRefused, match="could not be checked"):
        asyncio.run(main())
    assert sent == []


class _FailingStore:
    """A store whose transactions always fail the way a lost database does."""

    def write(self) -> Any:
        from litdesk.adapters.store import StoreError

        raise StoreError("the database is unavailable")

    def lock(self, *args: Any) -> None:
        raise AssertionError("not reached")


def _sent(sent: list[str]) -> httpx.Response:
    sent.append("x")
    return httpx.Response(200)
