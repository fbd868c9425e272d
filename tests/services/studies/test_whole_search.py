"""Whole searches into a Study (``app.studies.preview_add_search`` / ``add_search`` /
``update_study``) on SQLite and PostgreSQL: every page of a lane read with the provider's
cursor up to the cap (the real Europe PMC cursor walk of the shared fixtures), a capped
lane recorded as capped, the run with each record's lane and rank kept with the Study in
one transaction, a cancelled job keeping nothing, an update round importing only records
new by identity with its report (new, already known, changed, retracted since)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from tests.services.studies._paged import GeneratedSearch, RealCancerPages

from litdesk import Settings
from litdesk._errors import InputError, NotFoundError
from litdesk.adapters.store import study_records
from litdesk.adapters.store import whole_searches as whole
from litdesk.core.runs import read_run
from litdesk.services.app import App, open_app
from litdesk.services.dedup._records import _run_rows
from litdesk.services.search import RunExportRequest, SearchRequest, load_run
from litdesk.services.studies import (
    EXIT_ALLOWANCE,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_PARTIAL,
    AddSearchRequest,
    PrismaExportRequest,
    UpdateStudyRequest,
)

EPMC = ("europepmc",)


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    if request.param == "sqlite":
        return tmp_settings
    url = request.getfixturevalue("pg_schema")
    return Settings(data_dir=tmp_settings.data_dir, database_url=url)


def with_app(
    settings: Settings, handler: Callable[[httpx.Request], httpx.Response], body: Any
) -> None:
    async def go() -> None:
        # the mock answers at once: Europe PMC's pacing (0.1 s a page) is the pacer's
        # tests' subject (tests/adapters/http), not these
        transport = httpx.MockTransport(handler)
        async with open_app(settings, http_transport=transport, pacing={"europepmc": 0}) as app:
            await body(app)

    asyncio.run(go())


async def run_job(app: App, job_id: str) -> Any:
    return await asyncio.to_thread(app.studies.work_search_job, job_id, owner=app.owner)


def test_real_cursor_walk_capped(settings: Settings, fixtures_dir: Path) -> None:
    pages = RealCancerPages(fixtures_dir)

    async def body(app: App) -> None:
        study = app.workspace().create_study("Cancer review").id
        request = AddSearchRequest(study, SearchRequest("cancer", providers=EPMC), 200)
        preview = await app.studies.preview_add_search(request, owner=app.owner)
        lane = preview.lanes[0]
        assert (lane["total"], lane["over_cap"], lane["records"], lane["requests"]) == (
            5_059_039, True, 200, 2,
        )  # fmt: skip
        assert lane["enough"] and preview.spent == 1 and not preview.replay
        assert lane["allowance_left"] is not None and lane["allowance_left"] > 0
        assert "over the cap of 200" in preview.warnings[0]
        started = app.studies.add_search(request, owner=app.owner)
        assert started.job.kind == "studies.add_search" and started.study_name == "Cancer review"
        ended = await run_job(app, started.job.id)
        assert ended.job.status == "done", ended.job.message
        assert ended.exit_status == EXIT_OK
        # both real pages were read with the provider's cursor (after the preview's one)
        cursors = [c.get("cursorMark") for c in pages.calls[1:]]
        assert cursors == ["*", pages.first_next]
        result = ended.job.result
        assert result is not None
        (search,) = result["searches"]
        assert search["lanes"][0]["state"] == "capped"
        assert search["lanes"][0]["retrieved"] == 200 and search["round"] == 0
        # the run: lanes with totals and the capped note, every hit with lane and rank
        with app.store.read() as conn:
            (rnd,) = whole.list_rounds(conn, study)
            hits = list(whole.run_hits(conn, rnd.run_id))
        run = load_run(app.store, rnd.run_id)
        (lane_result,) = run.lanes
        assert lane_result.total == 5_059_039 and lane_result.returned == 200
        assert lane_result.warnings[0].startswith("whole search: capped at 200")
        assert run.unique_retrieved == len(hits) == search["records"]
        assert [h.rank for h in hits] == sorted(h.rank for h in hits)
        assert hits[0].lane == "europepmc-keyword" and hits[0].rank == 1
        assert hits[-1].data["contributions"][0]["rank"] == hits[-1].rank
        # the Study's records of the run, made in the commit from the hits it had just
        # written (``written_hits``), are those the run's stored hits make when read back
        with app.store.read() as conn:
            src = next(s for s in study_records.study_sources(conn, study) if s.id == rnd.run_id)
            again = _run_rows(conn, src, study)
            made = [r for r in study_records.list_records(conn, study) if r.source_id == src.id]
        assert len(made) == len(again) == 200
        assert [replace(r, grp=None, rule=None) for r in made] == again
        # the Study holds the records as papers (new by identity), its round reported
        summary = app.workspace().study_summary(study)
        assert len(summary.papers) == search["new"] > 190
        rounds = app.studies.search_rounds(study, owner=app.owner).to_dict()
        assert rounds["rounds"][0]["kind"] == "search"
        assert rounds["rounds"][0]["lanes"][0]["state"] == "capped"
        assert rnd.run_id in summary.search_runs
        # PRISMA-S counts it per database
        prisma = app.studies.prisma(study, owner=app.owner).to_dict()
        assert "5059039" in str(prisma) or "5,059,039" in str(prisma)

    with_app(settings, pages, body)


def test_update_round_new_known_changed_retracted(settings: Settings) -> None:
    first = GeneratedSearch(250)
    state = {"search": first}

    def handler(request: httpx.Request) -> httpx.Response:
        return state["search"](request)

    async def body(app: App) -> None:
        study = app.workspace().create_study("Malaria living review").id
        search = SearchRequest("malaria vaccine", providers=EPMC)
        started = app.studies.add_search(AddSearchRequest(study, search), owner=app.owner)
        done = await run_job(app, started.job.id)
        assert done.job.status == "done" and done.exit_status == EXIT_OK
        assert done.job.result is not None
        assert done.job.result["searches"][0]["lanes"][0]["state"] == "complete"
        assert len(app.workspace().study_summary(study).papers) == 250
        # months later: 30 new records, record 3 retracted since
        state["search"] = GeneratedSearch(280, retracted=frozenset({3}))
        started = app.studies.update_study(UpdateStudyRequest(study), owner=app.owner)
        done = await run_job(app, started.job.id)
        assert done.job.status == "done" and done.exit_status == EXIT_OK
        rounds = app.studies.search_rounds(study, owner=app.owner)
        latest = rounds.latest_update
        assert latest is not None and latest["round"] == 1
        assert (latest["new"], latest["already_known"], latest["retracted_since"]) == (30, 250, 1)
        assert len(app.workspace().study_summary(study).papers) == 280
        with app.store.read() as conn:
            report = whole.list_rounds(conn, study)[-1].report
        assert report is not None and len(report["new_ids"]) == 30
        # PRISMA: the Study's numbers (its working set): 250 + 280 records identified over
        # both rounds, 280 studies after the 250 known again are removed as duplicates
        prisma = app.studies.prisma(study, owner=app.owner).to_dict()
        counts = prisma["identification"]
        assert isinstance(counts, dict) and isinstance(prisma["notes"], list)
        assert (counts["records_identified"], counts["records_after_deduplication"]) == (530, 280)
        # PRISMA-S item 13: each round's searches on their own (before: the update round's
        # search was left out of the searches, its figures only a note)
        rounds = prisma["rounds"]
        assert isinstance(rounds, list)
        assert [(r["label"], r["records"], r["new"], r["already_known"]) for r in rounds] == [
            ("first search", 250, 250, 0),
            ("update round 1", 280, 30, 250),
        ]
        assert rounds[1]["retracted_since"] == 1
        searches = prisma["searches"]
        assert isinstance(searches, list)
        assert [(s["round"], s["database"], s["records"]) for s in searches] == [
            (0, "Europe PMC", 250),
            (1, "Europe PMC", 280),
        ]
        with app.store.read() as conn:
            round_rows = whole.list_rounds(conn, study)
        for s, r in zip(searches, round_rows, strict=True):
            assert s["run_id"] == r.run_id  # the date is the round's own run's
            assert s["date"] == load_run(app.store, r.run_id).retrieved_at
        md = app.studies.export_prisma(PrismaExportRequest(study, "md"), owner=app.owner)
        text = md.body.decode()
        assert "| update round 1 | Europe PMC |" in text and "| first search | Europe PMC |" in text
        assert "| update round 1 | " in text.split("## Database searches")[0]  # rounds table
        assert "Records identified (all 2 rounds together): 530" in text
        page = app.studies.export_prisma(PrismaExportRequest(study, "html"), owner=app.owner)
        assert "<td>update round 1</td><td>Europe PMC</td>" in page.body.decode()
        # a second update with nothing new: round 2, nothing added
        started = app.studies.update_study(UpdateStudyRequest(study), owner=app.owner)
        done = await run_job(app, started.job.id)
        latest = app.studies.search_rounds(study, owner=app.owner).latest_update
        assert latest is not None and (latest["round"], latest["new"]) == (2, 0)

    with_app(settings, handler, body)


def test_cancel_keeps_nothing_and_refusals(settings: Settings) -> None:
    search = GeneratedSearch(5_000)

    async def body(app: App) -> None:
        study = app.workspace().create_study("Cancelled").id
        request = AddSearchRequest(study, SearchRequest("malaria", providers=EPMC), 5_000)
        started = app.studies.add_search(request, owner=app.owner)
        app.studies.cancel_search_job(started.job.id, owner=app.owner)  # before it runs
        ended = await run_job(app, started.job.id)
        assert ended.job.status == "cancelled"
        with app.store.read() as conn:
            assert whole.list_rounds(conn, study) == []
            assert (
                conn.execute(sa.select(sa.func.count()).select_from(whole.search_run_hits)).scalar()
                == 0
            )
        assert app.workspace().study_summary(study).papers == ()
        with pytest.raises(InputError):
            AddSearchRequest(study, SearchRequest("malaria", mode="semantic"))
        with pytest.raises(InputError):
            AddSearchRequest(study, SearchRequest("malaria"), 10_001)
        with pytest.raises(NotFoundError):  # another owner's Study is not found
            app.studies.add_search(request, owner="someone-else")
        with pytest.raises(Exception, match="no saved search"):
            app.studies.update_study(UpdateStudyRequest(study), owner=app.owner)

    with_app(settings, search, body)


def test_allowance_spent_stops_and_says_so(tmp_settings: Settings) -> None:
    settings = tmp_settings.model_copy(update={"owner_daily_requests": 3})
    search = GeneratedSearch(1_000)

    async def body(app: App) -> None:
        study = app.workspace().create_study("Allowance").id
        request = AddSearchRequest(study, SearchRequest("malaria", providers=EPMC), 1_000)
        preview = await app.studies.preview_add_search(request, owner=app.owner)
        assert not preview.lanes[0]["enough"] and preview.lanes[0]["requests"] == 10
        started = app.studies.add_search(request, owner=app.owner)
        ended = await run_job(app, started.job.id)
        assert ended.exit_status == EXIT_ALLOWANCE
        assert search.calls == 3  # the preview's one and two pages: never more
        assert ended.job.result is not None
        lane = ended.job.result["searches"][0]["lanes"][0]
        assert lane["state"] == "partial" and "allowance" in lane["message"]
        assert len(app.workspace().study_summary(study).papers) == 200

    with_app(settings, search, body)


def test_an_update_with_no_allowance_left_names_the_lane_once(tmp_settings: Settings) -> None:
    """An update whose every lane fails says which lane and why, once (before: 'no lane of
    the search returned records (europepmc: europepmc: today's allowance …)', the
    provider's id twice and never its name); nothing is committed."""
    settings = tmp_settings.model_copy(update={"owner_daily_requests": 2})
    search = GeneratedSearch(50)

    async def body(app: App) -> None:
        study = app.workspace().create_study("Spent").id
        request = AddSearchRequest(study, SearchRequest("malaria", providers=EPMC), 100)
        started = app.studies.add_search(request, owner=app.owner)  # 1 page: 1 request
        assert (await run_job(app, started.job.id)).exit_status == 0
        search.calls = 0
        spend = AddSearchRequest(study, SearchRequest("vaccine", providers=EPMC), 100)
        await run_job(app, app.studies.add_search(spend, owner=app.owner).job.id)  # the 2nd
        ended = await run_job(
            app, app.studies.update_study(UpdateStudyRequest(study), owner=app.owner).job.id
        )
        assert ended.exit_status == EXIT_ALLOWANCE and search.calls == 1
        assert ended.job.status == "failed"  # no search returned records
        assert ended.job.result is not None
        (first, _second) = ended.job.result["searches"]
        assert first["error"].startswith(
            "no lane of the search returned records (Europe PMC, keyword search: today's "
            "allowance of 2 calls for this owner is spent"
        ), first["error"]
        rounds = app.studies.search_rounds(study, owner=app.owner).to_dict()["rounds"]
        assert [r["round"] for r in rounds] == [0, 0]  # the update committed nothing

    with_app(settings, search, body)


def test_a_search_whose_every_lane_failed_is_a_failed_job(settings: Settings) -> None:
    """Every lane failed: the job is failed (exit status 1), its message names each lane
    and why, its result keeps the lanes, and the Study is unchanged (before: "done", exit
    status 3, as if part of it had worked). One lane failed of two: done, exit status 3,
    the failed lane listed. On SQLite and PostgreSQL."""
    state: dict[str, Any] = {"search": lambda _r: httpx.Response(404, content=b"{}")}

    def handler(request: httpx.Request) -> httpx.Response:
        return state["search"](request)  # type: ignore[no-any-return]

    async def body(app: App) -> None:
        study = app.workspace().create_study("Nothing came").id
        request = AddSearchRequest(study, SearchRequest("malaria", providers=EPMC), 100)
        ended = await run_job(app, app.studies.add_search(request, owner=app.owner).job.id)
        assert (ended.job.status, ended.exit_status) == ("failed", EXIT_FAILED)
        assert ended.job.message.startswith(
            "No lane returned records; nothing was added to the Study. Europe PMC, keyword search: "
        ), ended.job.message
        (lane,) = ended.job.result["searches"][0]["lanes"]
        assert lane["state"] == "failed" and ended.job.result["error"]["code"] == "whole_failed"
        assert app.workspace().study_summary(study).papers == ()
        assert app.studies.search_rounds(study, owner=app.owner).rounds == []

        state["search"] = GeneratedSearch(30)  # Europe PMC answers, OpenAlex does not
        both = AddSearchRequest(
            study, SearchRequest("malaria", providers=("europepmc", "openalex")), 100
        )
        ended = await run_job(app, app.studies.add_search(both, owner=app.owner).job.id)
        assert (ended.job.status, ended.exit_status) == ("done", EXIT_PARTIAL)
        lanes = ended.job.result["searches"][0]["lanes"]
        assert [(x["provider"], x["state"]) for x in lanes] == [
            ("europepmc", "complete"),
            ("openalex", "failed"),
        ]
        assert len(app.workspace().study_summary(study).papers) == 30

    with_app(settings, handler, body)


def test_run_hits_readable_as_run_hits(tmp_settings: Settings) -> None:
    """The working set reads a whole search's hits as run hits (lane, rank, paper)."""
    search = GeneratedSearch(120)

    async def body(app: App) -> None:
        study = app.workspace().create_study("Readable").id
        started = app.studies.add_search(
            AddSearchRequest(study, SearchRequest("malaria", providers=EPMC)), owner=app.owner
        )
        await run_job(app, started.job.id)
        with app.store.read() as conn:
            (rnd,) = whole.list_rounds(conn, study)
            hits = list(whole.run_hits(conn, rnd.run_id))
        run = load_run(app.store, rnd.run_id).to_dict()
        full = read_run(run | {"hits": [h.data for h in hits]}, max_hits=len(hits))
        assert len(full.hits) == 120 and full.hits[5].contributions[0].rank == 6

    with_app(tmp_settings, search, body)


def test_a_whole_search_run_shows_and_exports_every_hit(tmp_settings: Settings) -> None:
    """A whole search keeps its hits as rows: its saved run read alone (``runs show``,
    ``runs export``) carries them. Before, its RIS was empty and its PRISMA-S said
    "Duplicate records removed: 230, Records after deduplication: 0"."""
    search = GeneratedSearch(230)

    async def body(app: App) -> None:
        study = app.workspace().create_study("Exported").id
        started = app.studies.add_search(
            AddSearchRequest(study, SearchRequest("malaria", providers=EPMC)), owner=app.owner
        )
        await run_job(app, started.job.id)
        with app.store.read() as conn:
            (rnd,) = whole.list_rounds(conn, study)
        assert len(app.search.run(rnd.run_id, owner=app.owner).hits) == 230
        ris = app.search.export_run(RunExportRequest(rnd.run_id, "ris"), owner=app.owner)
        # every record, not the manifest's first 150
        assert ris.body.decode().count("TY  - ") == 230
        prisma = app.search.export_run(RunExportRequest(rnd.run_id, "prisma-md"), owner=app.owner)
        text = prisma.body.decode()
        assert "Duplicate records removed: 0" in text
        assert "Records after deduplication: 230" in text

    with_app(tmp_settings, search, body)
