"""Allowances (issue 29): every provider and the AI assistance have a lab-wide daily cap
and a separate, smaller per-account one (by default ``owner_share`` of the total), so one
account cannot spend the lab's day — on both databases, several accounts on one store."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.adapters.store.conftest import pg_schema, store_url

from litdesk import ManualClock, Settings
from litdesk.adapters.http import StoreMeter, TransportRefused
from litdesk.adapters.providers import ADAPTERS
from litdesk.adapters.store import open_store
from litdesk.services.assist._allowance import AllowanceRefused, AssistAllowance

__all__ = ["pg_schema", "store_url"]


def test_every_default_per_account_cap_is_a_fraction_of_the_lab_s(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    meter = StoreMeter(lambda: pytest.fail("no store needed"), settings)  # type: ignore[arg-type,return-value]
    for provider in ADAPTERS:
        lab, account = meter.limits(provider)
        assert 1 <= account < lab, provider
        assert account <= lab // 2, provider
    assert meter.limits("openalex") == (500, 125)
    assert meter.limits("crossref") == (400, 100)
    s = settings.model_copy(update={"provider_daily_requests": {"crossref": 2000}})
    assert StoreMeter(lambda: pytest.fail(""), s).limits("crossref") == (2000, 500)  # type: ignore[arg-type,return-value]
    s = settings.model_copy(update={"owner_daily_requests": 5000})
    assert StoreMeter(lambda: pytest.fail(""), s).limits("arxiv") == (400, 400)  # type: ignore[arg-type,return-value]
    ai = settings.share_of(settings.assist_daily_requests, settings.assist_owner_daily_requests)
    assert 1 <= ai < settings.assist_daily_requests
    assert settings.chat_owner_daily_requests < settings.chat_daily_requests
    assert settings.report_owner_daily_requests < settings.report_daily_requests


@pytest.mark.parametrize("provider", ["crossref", "openalex", "pubmed"])
def test_one_account_spends_its_share_and_the_lab_its_total(
    store_url: str, tmp_path: Path, provider: str
) -> None:
    settings = Settings(
        data_dir=tmp_path,
        database_url=store_url,
        daily_requests=8,
        openalex_daily_requests=8,
        owner_share=0.25,
    )
    store = open_store(store_url)
    try:
        clock = ManualClock()
        meters = {n: StoreMeter(store, settings, owner=n, clock=clock) for n in "abcde"}
        lane = "openalex-keyword" if provider == "openalex" else ""
        for name in "abc":  # each account its quarter of the lab's day, then refused
            meters[name].reserve(provider, lane=lane)
            meters[name].reserve(provider, lane=lane)
            with pytest.raises(TransportRefused) as own:
                meters[name].reserve(provider, lane=lane)
            assert own.value.details["reason"] == "owner_daily_limit"
        meters["d"].reserve(provider, lane=lane)
        meters["d"].reserve(provider, lane=lane)  # the lab's day is spent
        with pytest.raises(TransportRefused) as lab:
            meters["e"].reserve(provider, lane=lane)
        assert lab.value.details["reason"] == "daily_limit"
    finally:
        store.dispose()


def test_the_ai_allowance_per_account_is_a_share_of_the_lab_s(
    store_url: str, tmp_path: Path
) -> None:
    settings = Settings(
        data_dir=tmp_path,
        database_url=store_url,
        assist_daily_requests=4,
        assist_spacing_seconds=0,
        owner_share=0.5,
    )
    store = open_store(store_url)
    try:
        allowance = AssistAllowance(store, settings, clock=ManualClock())
        for _ in range(2):
            ticket = allowance.reserve("ana", "extract")
            allowance.finish(ticket, "ok")
        with pytest.raises(AllowanceRefused) as own:
            allowance.reserve("ana", "extract")
        assert own.value.code == "owner_daily_limit"
        for _ in range(2):
            allowance.finish(allowance.reserve("bob", "extract"), "ok")
        with pytest.raises(AllowanceRefused) as lab:
            allowance.reserve("cy", "extract")
        assert lab.value.code == "daily_limit"
    finally:
        store.dispose()
