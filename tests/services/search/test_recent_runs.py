"""Recent search runs live in the store (issue 17): a run one worker produced is usable from
another worker's search area (and its desk's reader) (each test opens two independent runtimes, so two store handles and
no shared memory), another owner's run is not found, and the bound holds — on SQLite and on
PostgreSQL (a fresh schema per test)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest
import sqlalchemy as sa
from tests.faces.web._server import epmc_body, epmc_record, write_cassette

from litdesk._errors import NotFoundError
from litdesk.adapters.store import (
    count_recent_runs,
    get_recent_run,
    open_store,
    recent_runs_holding,
    remember_run,
)
from litdesk.services.app import open_app
from litdesk.services.search import RunExportRequest, SaveSelectionRequest, SearchRequest

QUERY = "tumour growth"


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_settings, tmp_path: Path):
    if request.param == "sqlite":
        return tmp_settings
    return tmp_settings.model_copy(update={"database_url": request.getfixturevalue("pg_schema")})


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    folder = tmp_path / "cassette"
    write_cassette(folder, QUERY, epmc_body([epmc_record(i) for i in range(1, 8)]))
    return folder


def test_a_run_from_one_worker_is_usable_from_another(settings, cassette: Path) -> None:
    async def go() -> None:
        async with (
            open_app(settings, replay=cassette) as first_app,
            open_app(settings, replay=cassette) as second_app,
        ):
            first, second = first_app.search, second_app.search
            assert first.store is not second.store
            assert first.store.is_postgres == (settings.database_url is not None)
            view = (await first.search(SearchRequest(QUERY), owner="local")).to_dict()
            run = view["run"]
            assert isinstance(run, dict)
            run_id = run["id"]
            cards = view["cards"]
            assert isinstance(cards, list)
            ids = [card["paper"]["id"] for card in cards]
            assert len(ids) == 7

            # the reader of an unsaved paper finds it in the run the other worker made
            page = second_app.reader.reader(ids[4], owner="local").to_dict()
            assert page["paper"]["id"] == ids[4] and page["saved"] is False
            ris = second.export_selection(run_id, ids[:2], owner="local")
            assert ris.count == 2 and ris.body.count(b"ER  -") == 2
            chosen = SaveSelectionRequest(run_id, (*ids[:3], "MED-1"), new_study="Growth")
            saved = second.save_selection(chosen, owner="local")
            assert saved.saved == ids[:3] and saved.created == 3
            assert saved.failed == [
                {"id": "MED-1", "title": "", "reason": "not in this search run"}
            ]
            kept = second.save_run(run_id, saved.study_id or "", owner="local")
            assert [r["id"] for r in kept.runs] == [run_id]
            manifest = first.export_run(RunExportRequest(run_id, "json"), owner="local")
            assert manifest.count == 7 and run_id.encode() in manifest.body

            # another owner (a second account on the same workers) finds none of it
            for area, app in ((first, first_app), (second, second_app)):
                with pytest.raises(NotFoundError) as gone:
                    area.save_selection(SaveSelectionRequest(run_id, (ids[0],)), owner="bob")
                assert gone.value.code == "run_not_open"
                with pytest.raises(NotFoundError):
                    area.export_selection(run_id, ids[:1], owner="bob")
                with pytest.raises(NotFoundError) as unread:
                    app.reader.reader(ids[5], owner="bob")
                assert unread.value.code == "paper_not_found"

    asyncio.run(go())


def test_the_bound_holds_through_the_search_area(settings, cassette: Path) -> None:
    async def go() -> None:
        async with (
            open_app(settings, replay=cassette) as first_app,
            open_app(settings, replay=cassette) as second_app,
        ):
            first, second = first_app.search, second_app.search
            run = (await first.search(SearchRequest(QUERY), owner="local")).run
            for i in range(53):  # two workers alternating: 53 runs, the newest 50 stay
                (first if i % 2 else second).remember(
                    replace(run, id=f"run-{i:02d}"), owner="local"
                )
            assert count_recent_runs(first.store, "local") == 50
            with pytest.raises(NotFoundError):
                second.export_selection("run-02", [run.hits[0].paper.id], owner="local")
            assert (
                first.export_selection("run-03", [run.hits[0].paper.id], owner="local").count == 1
            )
            assert second.recent_run("run-52", owner="local").id == "run-52"

    asyncio.run(go())


def test_store_bound_age_and_owner(settings) -> None:
    store = open_store(settings.resolved_database_url())
    try:
        doc = {"papers": ["MED-1_2"]}
        t0 = 1_000_000.0
        remember_run(store, "ana", "old", doc, now=t0)
        for i in range(5):
            remember_run(
                store, "ana", f"r{i}", {"n": i, "papers": ["MED-1%2"]}, now=t0 + 10 + i, keep=3
            )
        remember_run(store, "bob", "b0", doc, now=t0 + 20)
        # per owner: the newest three of ana's; bob's own run untouched by ana's bound
        assert count_recent_runs(store, "ana") == 3 and count_recent_runs(store, "bob") == 1
        assert get_recent_run(store, "ana", "r4", now=t0 + 30)["n"] == 4
        with pytest.raises(NotFoundError):
            get_recent_run(store, "ana", "r1", now=t0 + 30)  # beyond the newest three
        with pytest.raises(NotFoundError):
            get_recent_run(store, "bob", "r4", now=t0 + 30)  # another owner's run
        # LIKE wildcards in a needle match only themselves
        assert list(recent_runs_holding(store, "ana", "MED-1_2", now=t0 + 30)) == []
        found = recent_runs_holding(store, "ana", "MED-1%2", now=t0 + 30)
        assert [d["n"] for d in found] == [4, 3, 2]
        # older than a day: not served, and dropped at the next write (anyone's)
        day_later = t0 + 20 + 86_400 + 1
        with pytest.raises(NotFoundError):
            get_recent_run(store, "bob", "b0", now=day_later)
        remember_run(store, "cyd", "c0", doc, now=day_later)
        assert count_recent_runs(store, "bob") == 0 and count_recent_runs(store, "ana") == 0
        assert count_recent_runs(store, "cyd") == 1
    finally:
        store.dispose()


def test_expired_runs_are_dropped_at_most_once_a_minute_of_writes(settings) -> None:
    store = open_store(settings.resolved_database_url())
    deletes: list[str] = []

    def seen(_conn: object, _cursor: object, statement: str, *_a: object) -> None:
        if statement.lstrip().upper().startswith("DELETE") and "seen_at <" in statement:
            deletes.append(statement)

    sa.event.listen(store.engine, "before_cursor_execute", seen)
    try:
        t0 = 2_000_000.0
        remember_run(store, "ana", "old", {"n": 0}, now=t0)
        assert len(deletes) == 1
        for i in range(5):  # a search a second: no scan of everyone's runs each time
            remember_run(store, "bob", f"b{i}", {"n": i}, now=t0 + 86_400 + 1 + i)
        assert len(deletes) == 2  # the first write a minute on dropped the expired run
        assert count_recent_runs(store, "ana") == 0
        remember_run(store, "bob", "b9", {"n": 9}, now=t0 + 86_400 + 62)
        assert len(deletes) == 3
    finally:
        sa.event.remove(store.engine, "before_cursor_execute", seen)
        store.dispose()
