"""A decisions export says each study's round (issue 28's loose end): ``search`` for the
records of the first searches, ``Update N`` for those a living review's update round
brought — the same column PRISMA 2020's flow counts them in — as a CSV column and a RIS
note; the import reads both exports back (the round ignored), as another reviewer's
decisions recorded on the same records."""

from __future__ import annotations

import asyncio
import csv
import io
from collections import Counter
from typing import Any

import httpx
from tests.services.studies._paged import GeneratedSearch

from litdesk import Settings
from litdesk.adapters.formats import loads
from litdesk.core.screening import parse_decisions
from litdesk.services.app import App, open_app
from litdesk.services.screening import (
    ExportDecisionsRequest,
    ImportDecisionsRequest,
    PrismaRecordsRequest,
)
from litdesk.services.search import SearchRequest
from litdesk.services.studies import AddSearchRequest, UpdateStudyRequest


def _living(app: App, state: dict[str, GeneratedSearch]) -> Any:
    """A Study of 40 records found by its first search, then 12 new by an update."""

    async def run(job_id: str) -> None:
        done = await asyncio.to_thread(app.studies.work_search_job, job_id, owner=app.owner)
        assert done.job.status == "done"

    async def go() -> str:
        study = app.workspace().create_study("Living exports").id
        search = SearchRequest("malaria vaccine", providers=("europepmc",))
        await run(app.studies.add_search(AddSearchRequest(study, search), owner=app.owner).job.id)
        state["search"] = GeneratedSearch(52)
        await run(app.studies.update_study(UpdateStudyRequest(study), owner=app.owner).job.id)
        return study

    return go()


def test_exports_carry_the_round_and_read_back(tmp_settings: Settings) -> None:
    state = {"search": GeneratedSearch(40)}

    def handler(request: httpx.Request) -> httpx.Response:
        return state["search"](request)

    def body(app: App, study: str) -> None:
        first = app.screening.prisma_records(
            PrismaRecordsRequest(study, "to_screen", 1), owner=app.owner
        ).rows
        update = app.screening.prisma_records(
            PrismaRecordsRequest(study, "to_screen", 2), owner=app.owner
        ).rows
        assert (len(first), len(update)) == (40, 12)
        # decisions on records of both rounds, one of them a maybe and one with a reason
        lines = ["record_id,decision,reason"]
        lines += [f"{r['record_key']},include," for r in first[:3]]
        lines += [f"{r['record_key']},exclude,off topic" for r in first[3:6]]
        lines += [f"{r['record_key']},include," for r in update[:2]]
        lines += [f"{update[2]['record_key']},maybe,"]
        mine = app.screening.import_decisions(
            ImportDecisionsRequest(study, ("\n".join(lines) + "\n").encode()), owner=app.owner
        )
        assert mine.recorded == 9 and not mine.unmatched

        export = app.screening.export_decisions(ExportDecisionsRequest(study), owner=app.owner)
        rows = list(csv.DictReader(io.StringIO(export.text)))
        assert list(rows[0])[-1] == "round"
        by_round = {r["record_id"]: r["round"] for r in rows}
        # the same records PRISMA's columns hold: 40 of the search, 12 of Update 1
        assert Counter(by_round.values()) == {"search": 40, "Update 1": 12}
        assert {r["record_key"] for r in first} == {k for k, v in by_round.items() if v == "search"}
        assert {r["record_key"] for r in update} == {
            k for k, v in by_round.items() if v == "Update 1"
        }
        decided = {r["record_id"]: r["decision"] for r in rows if r["decision"]}
        assert len(decided) == 9

        ris = app.screening.export_decisions(
            ExportDecisionsRequest(study, format="ris"), owner=app.owner
        )
        records = loads(ris.body, format="ris").records
        notes = [list((rec.extras or {}).get("N1", [])) for rec in records]
        rounds = Counter(n[len("litdesk round: ") :] for ns in notes for n in ns if "round:" in n)
        assert rounds == {"search": 40, "Update 1": 12}
        # the round note is beside the labels, never in their place
        assert all(ns[0].startswith("ASReview_") for ns in notes)

        # both read back: every decision, to the same record; the round ignored
        for text in (export.text, ris.text):
            parsed = parse_decisions(text)
            assert {d.identifiers[0][1]: d.verdict for d in parsed.decisions} == decided
            assert not parsed.problems
        for name, data in (("again.csv", export.body), ("again.ris", ris.body)):
            back = app.screening.import_decisions(
                ImportDecisionsRequest(study, data, name, reviewer=f"second {name}"),
                owner=app.owner,
            )
            assert (back.recorded, back.unmatched, back.problems) == (9, (), ())
        reason = [r for r in rows if r["reason"]]
        assert len(reason) == 3 and all(r["reason"] == "off topic" for r in reason)

    async def go() -> None:
        async with open_app(tmp_settings, http_transport=httpx.MockTransport(handler)) as app:
            study = await _living(app, state)
            await asyncio.to_thread(body, app, study)

    asyncio.run(go())


def test_a_study_without_updates_is_all_search(tmp_settings: Settings) -> None:
    """No update round: every study's round is ``search`` (the RIS note says so too)."""
    state = {"search": GeneratedSearch(15)}

    def handler(request: httpx.Request) -> httpx.Response:
        return state["search"](request)

    async def go() -> None:
        async with open_app(tmp_settings, http_transport=httpx.MockTransport(handler)) as app:
            study = app.workspace().create_study("One round").id
            search = SearchRequest("malaria", providers=("europepmc",))
            job = app.studies.add_search(AddSearchRequest(study, search), owner=app.owner).job
            await asyncio.to_thread(app.studies.work_search_job, job.id, owner=app.owner)

            def export(fmt: str) -> str:
                request = ExportDecisionsRequest(study, format=fmt)  # type: ignore[arg-type]
                return app.screening.export_decisions(request, owner=app.owner).text

            text = await asyncio.to_thread(export, "csv")
            rows = list(csv.DictReader(io.StringIO(text)))
            assert len(rows) == 15 and {r["round"] for r in rows} == {"search"}
            ris = await asyncio.to_thread(export, "ris")
            assert ris.count("N1  - litdesk round: search") == 15

    asyncio.run(go())
