"""Provider cursors bound to their run and owner (issue 33): the web's next-page cursor is
``run.<id>``; it pages only the same search of the same owner — replayed in another search,
by another account, or after the run is gone it is refused before any provider is asked."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.faces.web._server import epmc_body, epmc_record, write_cassette

from litdesk.services.app import open_app
from litdesk.services.search import CursorRefused, SearchRequest

QUERY = "tumour growth"


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_settings):
    if request.param == "sqlite":
        return tmp_settings
    return tmp_settings.model_copy(update={"database_url": request.getfixturevalue("pg_schema")})


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    folder = tmp_path / "cassette"
    write_cassette(
        folder, QUERY, epmc_body([epmc_record(i) for i in range(3)], next_cursor="AoE/2")
    )
    write_cassette(folder, QUERY, epmc_body([epmc_record(i) for i in range(3, 5)]), cursor="AoE/2")
    return folder


def test_a_bound_cursor_pages_only_its_own_search_and_owner(settings, cassette: Path) -> None:
    async def go() -> None:
        async with open_app(settings, replay=cassette) as app:
            first = (await app.search.search(SearchRequest(QUERY), owner="alice")).to_dict()
            token = first["paging"]["next_cursor"]
            assert token == "run." + first["run"]["id"]
            second = await app.search.search(SearchRequest(QUERY, cursor=token), owner="alice")
            assert [h.paper.pmid for h in second.run.hits] == ["40000003", "40000004"]
            assert second.run.requested_cursor == "AoE/2"  # the provider's cursor was used
            assert second.to_dict()["paging"]["next_cursor"] is None
            with pytest.raises(CursorRefused, match="not open to you"):
                await app.search.search(SearchRequest(QUERY, cursor=token), owner="bob")
            with pytest.raises(CursorRefused, match="another search"):
                await app.search.search(SearchRequest("other topic", cursor=token), owner="alice")
            with pytest.raises(CursorRefused, match="another search"):
                await app.search.search(
                    SearchRequest(QUERY, cursor=token, sort="newest"), owner="alice"
                )
            with pytest.raises(CursorRefused, match="no next page"):
                last = "run." + second.run.id
                await app.search.search(SearchRequest(QUERY, cursor=last), owner="alice")
            with pytest.raises(CursorRefused):
                await app.search.start(SearchRequest(QUERY, cursor=token), owner="bob")

    asyncio.run(go())
