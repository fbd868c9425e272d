"""A living review's update round is its own PRISMA 2020 column (issue 28): a whole search
into a Study, an update months later that finds every earlier record again and some new
ones, decisions on records of both rounds; each round's identified, duplicates removed,
records to screen and screening boxes computed, the arithmetic holding in both."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from tests._seconds import sleep_to_next_second
from tests.services.studies._paged import GeneratedSearch

from litdesk import Settings
from litdesk.core.records import make_paper
from litdesk.core.runs import prisma_markdown
from litdesk.core.words import dates
from litdesk.services.app import App, open_app
from litdesk.services.screening import ImportDecisionsRequest, PrismaRecordsRequest
from litdesk.services.search import SearchRequest
from litdesk.services.studies import (
    AddSearchRequest,
    ImportRequest,
    RecoverRequest,
    UpdateStudyRequest,
)


def test_update_round_is_its_own_column(tmp_settings: Settings) -> None:
    state = {"search": GeneratedSearch(40)}

    def handler(request: httpx.Request) -> httpx.Response:
        return state["search"](request)

    async def run(app: App, job_id: str) -> None:
        done = await asyncio.to_thread(app.studies.work_search_job, job_id, owner=app.owner)
        assert done.job.status == "done"

    async def body(app: App) -> None:
        study = app.workspace().create_study("Living review").id
        search = SearchRequest("malaria vaccine", providers=("europepmc",))
        await run(
            app, app.studies.add_search(AddSearchRequest(study, search), owner=app.owner).job.id
        )
        state["search"] = GeneratedSearch(52)  # the update finds the 40 again and 12 new
        await run(app, app.studies.update_study(UpdateStudyRequest(study), owner=app.owner).job.id)

        def decide() -> dict[str, Any]:
            new = app.screening.prisma_records(
                PrismaRecordsRequest(study, "to_screen", 2), owner=app.owner
            ).rows
            old = app.screening.prisma_records(
                PrismaRecordsRequest(study, "to_screen", 1), owner=app.owner
            ).rows
            lines = ["record_id,decision"]
            lines += [
                f"{r['record_key']},{'include' if i < 3 else 'exclude'}"
                for i, r in enumerate(old[:10])
            ]
            lines += [
                f"{r['record_key']},{'include' if i < 2 else 'exclude'}"
                for i, r in enumerate(new[:5])
            ]
            view = app.screening.import_decisions(
                ImportDecisionsRequest(study, ("\n".join(lines) + "\n").encode()), owner=app.owner
            )
            assert view.recorded == 15 and not view.unmatched
            return app.studies.prisma(study, owner=app.owner).to_dict()

        report = await asyncio.to_thread(decide)
        flow = report["prisma_2020"]
        first, update = flow["rounds"]
        assert first["label"] == "Initial search" and update["label"].startswith("Update 1 (")
        ident = report["identification"]
        assert (
            first["identified"]["total"] + update["identified"]["total"]
            == ident["records_identified"]
        )
        assert (
            first["to_screen"] + update["to_screen"] == ident["records_after_deduplication"] == 52
        )
        assert (first["to_screen"], update["to_screen"]) == (40, 12)
        assert update["removed_duplicates"] == update["identified"]["total"] - 12
        assert (first["screened"], first["sought"], update["screened"], update["sought"]) == (
            10,
            3,
            5,
            2,
        )
        for r in (first, update):
            assert all(c["ok"] for c in r["checks"]), r["checks"]
        assert flow["table"]["columns"] == [first["label"], update["label"], "Total"]

    async def go() -> None:
        async with open_app(tmp_settings, http_transport=httpx.MockTransport(handler)) as app:
            await body(app)

    asyncio.run(go())


def test_sources_added_after_an_update_are_that_rounds(
    any_settings: Settings, fixtures_dir: Path
) -> None:
    """After the first update, a whole search with an edited query and an import join the
    update's round and column: the initial column stays as it was, the search's round is
    1 in the Study's trace (before: round 0, and both grew the initial column — Records
    identified 40 → 59 in the walk's terms), and every round's arithmetic holds. On
    SQLite and PostgreSQL."""
    state: dict[str, Any] = {"search": GeneratedSearch(40)}
    export = fixtures_dir / "bib/ris/citesource__20221207_gambling-harms_lens_49.ris"

    def handler(request: httpx.Request) -> httpx.Response:
        return state["search"](request)

    async def run(app: App, job_id: str) -> None:
        done = await asyncio.to_thread(app.studies.work_search_job, job_id, owner=app.owner)
        assert done.job.status == "done"

    def flow(app: App, study: str) -> dict[str, Any]:
        return app.studies.prisma(study, owner=app.owner).to_dict()["prisma_2020"]

    async def body(app: App) -> None:
        study = app.workspace().create_study("Living review").id
        search = SearchRequest("malaria vaccine", providers=("europepmc",))
        await run(
            app, app.studies.add_search(AddSearchRequest(study, search), owner=app.owner).job.id
        )
        state["search"] = GeneratedSearch(52)
        await run(app, app.studies.update_study(UpdateStudyRequest(study), owner=app.owner).job.id)
        before = await asyncio.to_thread(flow, app, study)
        first_before = before["rounds"][0]
        assert first_before["to_screen"] == 40
        state["search"] = GeneratedSearch(10, prefix="edit", start=1000)
        edited = SearchRequest('"malaria vaccine" OR RTS,S', providers=("europepmc",))
        await run(
            app, app.studies.add_search(AddSearchRequest(study, edited), owner=app.owner).job.id
        )
        await asyncio.to_thread(
            app.studies.import_files,
            ImportRequest(study=study, paths=(str(export),)),
            owner=app.owner,
        )
        rounds = app.studies.search_rounds(study, owner=app.owner).to_dict()["rounds"]
        assert [(r["round"], r["kind"], r["new"]) for r in rounds] == [
            (0, "search", 40),
            (1, "update", 12),
            (1, "search", 10),
        ]
        control = app.workspace().create_study("The export alone").id
        await asyncio.to_thread(
            app.studies.import_files,
            ImportRequest(study=control, paths=(str(export),)),
            owner=app.owner,
        )
        (alone,) = (await asyncio.to_thread(flow, app, control))["rounds"]
        after = await asyncio.to_thread(flow, app, study)
        first, update = after["rounds"]
        assert first == first_before  # the initial column did not move
        assert update["to_screen"] == 12 + 10 + alone["to_screen"]
        assert update["identified"]["total"] == 52 + 10 + 49
        for r in (first, update):
            assert all(c["ok"] for c in r["checks"]), r["checks"]

    async def go() -> None:
        async with open_app(any_settings, http_transport=httpx.MockTransport(handler)) as app:
            await body(app)

    asyncio.run(go())


def test_both_reports_place_every_source_in_one_round(
    any_settings: Settings, fixtures_dir: Path
) -> None:
    """A Study with a first search and two update rounds; after update 1 an ordinary search
    run is kept into it, a file imported and a paper added by hand; after update 2 another
    paper. PRISMA-S (each search's and import's round) and PRISMA 2020 (each column's
    records) read one rule (``StudyRounds.round_of``): per round, the records of the searches
    and imports PRISMA-S places there are the database records of PRISMA 2020's column, and
    the papers added by hand are each in the round they joined. Before: PRISMA-S called the
    kept run a "saved run" (no round) while PRISMA 2020 counted it in update 1, and listed
    imports with no round. On SQLite and PostgreSQL."""
    state: dict[str, Any] = {"search": GeneratedSearch(40)}
    export = fixtures_dir / "bib/ris/citesource__20221207_gambling-harms_lens_49.ris"

    def handler(request: httpx.Request) -> httpx.Response:
        return state["search"](request)

    async def run(app: App, job_id: str) -> None:
        done = await asyncio.to_thread(app.studies.work_search_job, job_id, owner=app.owner)
        assert done.job.status == "done"

    async def update(app: App, study: str) -> None:
        await run(app, app.studies.update_study(UpdateStudyRequest(study), owner=app.owner).job.id)

    async def body(app: App) -> None:
        study = app.workspace().create_study("Living review").id
        search = SearchRequest("malaria vaccine", providers=("europepmc",))
        await run(
            app, app.studies.add_search(AddSearchRequest(study, search), owner=app.owner).job.id
        )
        state["search"] = GeneratedSearch(52)
        await update(app, study)
        state["search"] = GeneratedSearch(7, prefix="kept", start=5000)
        kept = SearchRequest("kept query", providers=("europepmc",))
        view = (await app.search.search(kept, owner=app.owner)).to_dict()
        run_id = view["run"]["id"]  # type: ignore[index]
        app.search.save_run(run_id, study, owner=app.owner)
        await asyncio.to_thread(
            app.studies.import_files,
            ImportRequest(study=study, paths=(str(export),)),
            owner=app.owner,
        )
        ws = app.workspace()
        ws.save_paper(make_paper(title="Typed in after update 1", doi="10.1000/h1"), study=study)
        sleep_to_next_second()  # rounds begin to the second: update 2 begins a second later
        state["search"] = GeneratedSearch(60, prefix="u2")
        await update(app, study)
        ws.save_paper(make_paper(title="Typed in after update 2", doi="10.1000/h2"), study=study)

        s = app.search.prisma(study, owner=app.owner).to_dict()
        placed = [(x["run_id"] == run_id, x["round"], x["records"]) for x in s["searches"]]
        assert placed == [
            (False, 0, 40),
            (False, 1, 52),
            (True, 1, 7),
            (False, 2, 60),
            (False, 2, 20),  # update 2 re-runs the kept run too (with its own limit)
        ]
        assert [(i["round"], i["round_label"], i["records"]) for i in s["imports"]] == [
            (1, "update round 1", 49)
        ]
        flow = app.studies.prisma(study, owner=app.owner).to_dict()["prisma_2020"]
        columns = flow["rounds"]
        assert len(columns) == 3
        # labels for people ("Update 1 (6 Dec 2026)"; with the time when both updates
        # fall on one day), the ISO time for machines
        assert columns[0]["began"] is None
        shown = dates([datetime.fromisoformat(c["began"]) for c in columns[1:]])
        labels = [f"Update {i} ({d})" for i, d in enumerate(shown, start=1)]
        assert [c["label"] for c in columns[1:]] == labels == flow["table"]["columns"][1:3]
        for number, column in enumerate(columns):
            searched = sum(x["records"] for x in s["searches"] if x["round"] == number)
            imported = sum(i["records"] for i in s["imports"] if i["round"] == number)
            assert column["identified"]["databases"] == searched + imported, number
        assert [c["identified"]["other"] for c in columns] == [0, 1, 1]
        md = await asyncio.to_thread(app.search.prisma, study, owner=app.owner)
        text = prisma_markdown(md)
        assert "| update round 1 | Europe PMC | Europe PMC, keyword search | " in text
        assert "| Round | Import | Source | Date | Records |" in text
        assert "saved run" not in text

    async def go() -> None:
        async with open_app(any_settings, http_transport=httpx.MockTransport(handler)) as app:
            await body(app)

    asyncio.run(go())


def test_a_run_kept_after_an_update_is_that_updates_whenever_it_ran(
    any_settings: Settings,
) -> None:
    """A search run executed before the first update and kept into the Study after it
    joined in the update's round: PRISMA-S and PRISMA 2020 both place it there, and so does
    the Study recovered from its ZIP (before: its execution time stood in for when it joined,
    so both reports counted it in the initial round, which grew after the update). On SQLite
    and PostgreSQL."""
    state: dict[str, Any] = {"search": GeneratedSearch(7, prefix="early", start=7000)}

    def handler(request: httpx.Request) -> httpx.Response:
        return state["search"](request)

    async def run(app: App, job_id: str) -> None:
        done = await asyncio.to_thread(app.studies.work_search_job, job_id, owner=app.owner)
        assert done.job.status == "done"

    def placed(app: App, study: str) -> tuple[list[int | None], list[int]]:
        s = app.search.prisma(study, owner=app.owner).to_dict()
        flow = app.studies.prisma(study, owner=app.owner).to_dict()["prisma_2020"]
        kept = [x["round"] for x in s["searches"] if x["records"] == 7]
        return kept, [c["identified"]["databases"] for c in flow["rounds"]]

    async def body(app: App) -> None:
        early = SearchRequest("early query", providers=("europepmc",))
        run_id = (await app.search.search(early, owner=app.owner)).to_dict()["run"]["id"]  # type: ignore[index]
        sleep_to_next_second()  # the update begins a second after the run was executed
        state["search"] = GeneratedSearch(40)
        study = app.workspace().create_study("Living review").id
        search = SearchRequest("malaria vaccine", providers=("europepmc",))
        await run(
            app, app.studies.add_search(AddSearchRequest(study, search), owner=app.owner).job.id
        )
        state["search"] = GeneratedSearch(52)
        await run(app, app.studies.update_study(UpdateStudyRequest(study), owner=app.owner).job.id)
        app.search.save_run(run_id, study, owner=app.owner)  # kept now, after the update
        assert placed(app, study) == ([1], [40, 52 + 7])
        data = app.studies.export_zip(study, owner=app.owner).body
        back = app.studies.recover_zip(RecoverRequest(data), owner=app.owner).study.study_id
        assert placed(app, back) == ([1], [40, 52 + 7])

    async def go() -> None:
        async with open_app(any_settings, http_transport=httpx.MockTransport(handler)) as app:
            await body(app)

    asyncio.run(go())
