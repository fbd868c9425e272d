"""Remote subject suggestions against a real HTTP server on loopback speaking OpenAlex's
autocomplete wire format, through the app's one transport: what is asked (path, the term,
the key only to OpenAlex), the rows after the offline ones, the server's cache (a
retyped term costs no call, an old answer is asked again), nothing asked when the offline
list is full, the account's allowance spent and then refused, a replay cassette without
the exchange and a server without a key answering "unavailable" quietly."""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import SecretStr
from tests.adapters.http.transport_kit import LoopbackServer, Route

from litdesk import ManualClock, Settings
from litdesk.adapters.store import allowance_owner, usage
from litdesk.adapters.vocab import VocabularyPackage
from litdesk.core.vocab import Subject
from litdesk.services.app import App, open_app
from litdesk.services.subjects import (
    REMOTE_TTL_SECONDS,
    RemoteSuggestions,
    SubjectsArea,
    SuggestRequest,
)

KEY = "OAXSECRET-remote-1111"
SMALL = [
    Subject("mesh", "D008288", "Malaria"),
    Subject("mesh", "D017780", "Malaria Vaccines"),
    *[Subject("mesh", f"D9{i:05d}", f"Asthma type {i}") for i in range(12)],
]


def run_sync(fn: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """The async test run on its own event loop (the suite's way: ``asyncio.run``)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(fn(*args, **kwargs))

    return wrapper


def autocomplete_body(*labels: str, entity_type: str = "topic") -> bytes:
    """An answer as OpenAlex sends it (meta, then up to ten results)."""
    results = [
        {
            "id": f"https://openalex.org/T{10_000 + i}",
            "display_name": label,
            "hint": "This cluster of papers studies malaria vaccines: antigen choice, adjuvants, trials in endemic regions and the immune responses they raise.",
            "cited_by_count": 1000 - i,
            "works_count": 50,
            "entity_type": entity_type,
            "external_id": None,
            "filter_key": "topics.id",
        }
        for i, label in enumerate(labels)
    ]
    meta = {"count": len(results), "db_response_time_ms": 4, "page": 1, "per_page": 10}
    return json.dumps({"meta": meta, "results": results}).encode()


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    srv = LoopbackServer()
    srv.routes["/autocomplete/topics"] = Route(
        body=autocomplete_body(
            "Malaria Vaccines",  # offline already offers it: left out
            "Malaria Control and Epidemiology",
            "Mosquito-borne diseases and control",
        ),
        headers={"content-type": "application/json"},
    )
    yield srv
    srv.close()


def _load(package: VocabularyPackage) -> list[Subject] | None:
    return SMALL


@asynccontextmanager
async def _opened(settings: Settings, server: LoopbackServer, **kw: Any) -> AsyncIterator[App]:
    async with open_app(settings, base_urls={"openalex": server.base}, **kw) as app:
        yield app


def _keyed(settings: Settings, **update: Any) -> Settings:
    return settings.model_copy(update={"openalex_api_key": SecretStr(KEY), **update})


def _area(app: App, clock: ManualClock) -> SubjectsArea:
    remote = RemoteSuggestions(app.providers.transport_for, clock=clock)
    return SubjectsArea(load=_load, remote=remote)


def _used(app: App, owner: str) -> int:
    day = datetime.now(UTC).date()
    return usage(app.store, "openalex", day).get(allowance_owner(owner), 0)


@run_sync
async def test_remote_rows_follow_the_offline_ones_and_are_kept(
    tmp_settings: Settings, server: LoopbackServer
) -> None:
    clock = ManualClock()
    async with _opened(_keyed(tmp_settings), server) as app:
        area = _area(app, clock)
        request = SuggestRequest("vaccine AND malaria vac")
        first = (await area.remote_suggest(request, owner="ana")).to_dict()
        again = (await area.remote_suggest(SuggestRequest("MALARIA  VAC"), owner="ana")).to_dict()
        used_after_two = _used(app, "ana")
        clock.advance(REMOTE_TTL_SECONDS + 1)
        third = (await area.remote_suggest(request, owner="ana")).to_dict()
        used_after_three = _used(app, "ana")
    assert first["status"] == "ok" and not first["cached"]
    assert first["active"] == {"start": 12, "end": 23, "text": "malaria vac", "phrase": False}
    labels = [s["label"] for s in first["suggestions"]]
    assert labels == ["Malaria Control and Epidemiology", "Mosquito-borne diseases and control"]
    row = first["suggestions"][0]
    assert row["vocabulary"] == "openalex_topic" and row["id"] == "T10001"
    assert row["vocabulary_name"] == "OpenAlex topic" and row["kind"] == "remote"
    assert row["insert"] == '"Malaria Control and Epidemiology"' and row["url"] is None
    assert first["attribution"].startswith("OpenAlex")
    # what went out: the autocomplete path, the term, the key (to OpenAlex only)
    sent = [s for s in server.seen if s.path.startswith("/autocomplete/")]
    assert len(sent) == 2  # the first and the third (after the answer grew old)
    query = parse_qs(urlsplit(sent[0].path).query)
    assert urlsplit(sent[0].path).path == "/autocomplete/topics"
    assert query["q"] == ["malaria vac"] and query["api_key"] == [KEY]
    assert again["cached"] and again["suggestions"] == first["suggestions"]
    assert used_after_two == 1 and used_after_three == 2
    assert third["status"] == "ok" and not third["cached"]


@run_sync
async def test_nothing_is_asked_when_offline_fills_the_list_or_the_term_is_short(
    tmp_settings: Settings, server: LoopbackServer
) -> None:
    async with _opened(_keyed(tmp_settings), server) as app:
        area = _area(app, ManualClock())
        full = (await area.remote_suggest(SuggestRequest("asthma"), owner="ana")).to_dict()
        short = (await area.remote_suggest(SuggestRequest("ma"), owner="ana")).to_dict()
        author = await area.remote_suggest(SuggestRequest("smith", field="author"), owner="ana")
        assert _used(app, "ana") == 0
    assert full["status"] == "skipped" and full["message"] == "the offline list is full"
    assert short["status"] == "skipped" and author.status == "skipped"
    assert not [s for s in server.seen if s.path.startswith("/autocomplete/")]


@run_sync
async def test_the_accounts_allowance_is_spent_then_refused(
    tmp_settings: Settings, server: LoopbackServer
) -> None:
    settings = _keyed(tmp_settings, provider_daily_requests={"openalex": 10})
    settings = settings.model_copy(update={"owner_daily_requests": 2})
    async with _opened(settings, server) as app:
        area = _area(app, ManualClock())
        answers = [
            (await area.remote_suggest(SuggestRequest(term), owner="ana")).to_dict()
            for term in ("malaria vac", "malaria vacc", "malaria vacci")
        ]
        other = (await area.remote_suggest(SuggestRequest("malaria vacci"), owner="ben")).status
        spent = _used(app, "ana")
    assert [a["status"] for a in answers] == ["ok", "ok", "allowance_spent"]
    assert answers[2]["message"] == (
        "Remote suggestions paused: today's OpenAlex allowance is spent."
    )
    assert answers[2]["suggestions"] == []
    assert spent == 2
    assert other == "ok"  # another account has its own share
    assert len([s for s in server.seen if s.path.startswith("/autocomplete/")]) == 3


@run_sync
async def test_unavailable_without_a_key_or_a_recorded_exchange(
    tmp_settings: Settings, server: LoopbackServer, tmp_path: Path
) -> None:
    async with _opened(tmp_settings, server) as app:  # no OpenAlex key
        no_key = (
            await _area(app, ManualClock()).remote_suggest(
                SuggestRequest("malaria vac"), owner="ana"
            )
        ).to_dict()
    from litdesk.adapters.http import CassetteRecorder

    folder = tmp_path / "cassette"
    CassetteRecorder(folder)  # an empty recording
    (folder / "index.json").write_text(
        json.dumps({"format": "litdesk-cassette", "version": 1, "exchanges": []})
    )
    async with open_app(_keyed(tmp_settings), replay=folder) as app:
        replayed = (
            await _area(app, ManualClock()).remote_suggest(
                SuggestRequest("malaria vac"), owner="ana"
            )
        ).to_dict()
    assert no_key["status"] == "unavailable"
    assert no_key["message"] == (
        "Remote suggestions unavailable: no OpenAlex API key is set on this server."
    )
    assert replayed["status"] == "unavailable" and "recording" in replayed["message"]
    assert not server.seen


@run_sync
async def test_provider_trouble_is_one_quiet_status(
    tmp_settings: Settings, server: LoopbackServer
) -> None:
    route = server.routes["/autocomplete/topics"]
    async with _opened(_keyed(tmp_settings), server) as app:
        area = _area(app, ManualClock())
        route.body = b"<html>not json</html>"
        unreadable = await area.remote_suggest(SuggestRequest("malaria vac"), owner="ana")
        route.status, route.body = 429, b'{"error": "slow down"}'
        limited = await area.remote_suggest(SuggestRequest("malaria vacc"), owner="ana")
        route.status, route.body = 404, b'{"error": "none"}'
        none = await area.remote_suggest(SuggestRequest("malaria vacci"), owner="ana")
    assert (unreadable.status, unreadable.message) == (
        "unavailable",
        "Remote suggestions unavailable: OpenAlex's answer could not be read.",
    )
    assert limited.status == "rate_limited" and "slow down" in limited.message
    assert none.status == "ok" and none.suggestions == ()


@run_sync
async def test_the_apps_subjects_area_asks_openalex(
    tmp_settings: Settings, server: LoopbackServer
) -> None:
    async with _opened(_keyed(tmp_settings), server) as app:
        view = await app.subjects.remote_suggest(SuggestRequest("mosquito-bor"), owner=app.owner)
    assert view.status in {"ok", "skipped"}
    if view.status == "ok":  # MeSH installed or not, OpenAlex's rows come after it
        assert "Mosquito-borne diseases and control" in [s.subject.label for s in view.suggestions]
