"""Recent search runs live in the store (issue 17): a run one worker produced is usable from
another worker's desk (each test opens two independent runtimes, so two store handles and
no shared memory), another owner's run is not found, and the bound holds — on SQLite and on
PostgreSQL (a fresh schema per test)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest
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
from litdesk.services.desk import SearchForm

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
            first, second = first_app.desk, second_app.desk
            assert first.store is not second.store
            assert first.store.is_postgres == (settings.database_url is not None)
            view = (await first.search(SearchForm(QUERY))).to_dict()
            run_id = view["run"]["id"]
            ids = [card["paper"]["id"] for card in view["cards"]]
            assert len(ids) == 7

            # the reader of an unsaved paper finds it in the run the other worker made
            page = second_app.reader.reader(ids[4], owner=second.owner).to_dict()
            assert page["paper"]["id"] == ids[4] and page["saved"] is False
            ris = second.export_selection(run_id, ids[:2])
            assert ris.count == 2 and ris.body.count(b"ER  -") == 2
            saved = second.save_selection(run_id, [*ids[:3], "MED-1"], new_study="Growth")
            assert saved.saved == ids[:3] and saved.created == 3
            assert saved.failed == [{"id": "MED-1", "reason": "not in this search run"}]
            kept = second.save_run(run_id, saved.study_id or "")
            assert [r["id"] for r in kept.to_dict()["runs"]] == [run_id]
            manifest = first.export_run(run_id, "json")
            assert manifest.count == 7 and run_id.encode() in manifest.body

            # another owner (a second account on the same workers) finds none of it
            for app, other in (
                (first_app, first.for_owner("bob")),
                (second_app, second.for_owner("bob")),
            ):
                with pytest.raises(NotFoundError) as gone:
                    other.save_selection(run_id, ids[:1])
                assert gone.value.code == "run_not_open"
                with pytest.raises(NotFoundError):
                    other.export_selection(run_id, ids[:1])
                with pytest.raises(NotFoundError) as unread:
                    app.reader.reader(ids[5], owner=other.owner)
                assert unread.value.code == "paper_not_found"

    asyncio.run(go())


def test_the_bound_holds_through_the_desk(settings, cassette: Path) -> None:
    async def go() -> None:
        async with (
            open_app(settings, replay=cassette) as first_app,
            open_app(settings, replay=cassette) as second_app,
        ):
            first, second = first_app.desk, second_app.desk
            run = await first.providers.fused_search(
                first.definition(SearchForm(QUERY)), owner="local"
            )
            for i in range(53):  # two workers alternating: 53 runs, the newest 50 stay
                (first if i % 2 else second)._remember(replace(run, id=f"run-{i:02d}"))
            assert count_recent_runs(first.store, "local") == 50
            with pytest.raises(NotFoundError):
                second.export_selection("run-02", [run.hits[0].paper.id])
            assert first.export_selection("run-03", [run.hits[0].paper.id]).count == 1
            assert second._recent("run-52").id == "run-52"

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
