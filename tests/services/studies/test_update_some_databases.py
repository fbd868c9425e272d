"""A living review's update re-run on some of its databases (walk 11): a Study searched on
Europe PMC and Crossref, Crossref down during an update (the round keeps Europe PMC's
records and names Crossref's failure), then ``UpdateStudyRequest(study, ("crossref",))``
re-runs only Crossref — Europe PMC is not asked, Crossref's new records join the Study as
the next round — and a later full update re-runs the search once on both databases, never
its Crossref-only twin beside it. A database no saved search uses is refused by name.
Screening then says what the update rounds brought (as PRISMA 2020's columns count it)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from tests.services.studies._paged import CROSSREF_HOST, GeneratedCrossref, GeneratedSearch

from litdesk import Settings
from litdesk._errors import InputError, RefusedError
from litdesk.services.app import App, open_app
from litdesk.services.screening import (
    DecideRequest,
    ItemsRequest,
    NextRequest,
    PrismaFlowRequest,
    ProgressRequest,
)
from litdesk.services.search import SearchRequest
from litdesk.services.studies import (
    EXIT_OK,
    EXIT_PARTIAL,
    AddSearchRequest,
    UpdateStudyRequest,
)


async def _run(app: App, job_id: str) -> Any:
    return await asyncio.to_thread(app.studies.work_search_job, job_id, owner=app.owner)


def _lanes(done: Any) -> list[list[tuple[str, str]]]:
    return [[(x["provider"], x["state"]) for x in s["lanes"]] for s in done.job.result["searches"]]


def test_an_update_re_runs_only_the_database_that_failed(tmp_settings: Settings) -> None:
    state: dict[str, Any] = {
        "epmc": GeneratedSearch(30),
        "cr": GeneratedCrossref(range(10), shared=(5, 6)),  # two of Europe PMC's again
    }

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == CROSSREF_HOST:
            return state["cr"](request)  # type: ignore[no-any-return]
        return state["epmc"](request)  # type: ignore[no-any-return]

    async def body(app: App) -> None:
        study = app.workspace().create_study("Malaria, kept current").id
        search = SearchRequest("malaria vaccine", providers=("europepmc", "crossref"))
        first = app.studies.add_search(AddSearchRequest(study, search), owner=app.owner)
        done = await _run(app, first.job.id)
        assert done.exit_status == EXIT_OK and done.job.result["searches"][0]["new"] == 40
        # an update while Crossref is down: Europe PMC's 5 new records kept, Crossref named
        state["epmc"] = GeneratedSearch(35)
        state["cr"] = GeneratedCrossref(range(14), status=503)
        update = app.studies.update_study(UpdateStudyRequest(study), owner=app.owner)
        done = await _run(app, update.job.id)
        assert done.exit_status == EXIT_PARTIAL
        assert _lanes(done) == [[("europepmc", "complete"), ("crossref", "failed")]]
        # PRISMA-S lists the failed search with its strategy as sent (it was blank)
        searches = app.studies.prisma(study, owner=app.owner).to_dict()["searches"]
        assert isinstance(searches, list)
        [failed] = [x for x in searches if x["round"] == 1 and x["database"] == "Crossref"]
        assert (
            failed["status"] != "ok" and failed["strategy"] == "query.bibliographic=malaria vaccine"
        )
        # Crossref back (4 new of its own): only Crossref re-run
        state["cr"] = GeneratedCrossref(range(14), shared=(5, 6, 7))  # 7: new to Crossref
        epmc_calls = state["epmc"].calls
        only = UpdateStudyRequest(study, ("Crossref",))
        done = await _run(app, app.studies.update_study(only, owner=app.owner).job.id)
        assert done.exit_status == EXIT_OK, done.job.message
        assert _lanes(done) == [[("crossref", "complete")]]
        assert state["epmc"].calls == epmc_calls  # Europe PMC was not asked
        latest = app.studies.search_rounds(study, owner=app.owner).latest_update
        assert latest is not None
        assert (latest["round"], latest["new"], latest["already_known"]) == (2, 4, 13)
        assert len(app.workspace().study_summary(study).papers) == 30 + 10 + 5 + 4
        # the Study's papers, newest first: the round's 4 new ones lead, not record 7 that
        # Crossref only enriched (walk 11: it was listed first, as if new)
        first = [p.id for p in app.workspace().study_summary(study, limit=5).papers]
        assert all(p.startswith("DOI-") for p in first[:4]) and "MED-10000007" not in first
        # a later full update: the search once, on both databases
        done = await _run(
            app, app.studies.update_study(UpdateStudyRequest(study), owner=app.owner).job.id
        )
        assert _lanes(done) == [[("europepmc", "complete"), ("crossref", "complete")]]
        latest = app.studies.search_rounds(study, owner=app.owner).latest_update
        assert latest is not None and (latest["round"], latest["new"]) == (3, 0)
        # what the reviewer is told (walk 11: nothing said the updates brought records): the
        # update rounds' records to screen, as PRISMA 2020's update columns count them
        ta = ProgressRequest(study, "title_abstract")
        news = app.screening.progress(ta, owner=app.owner).updates
        assert news is not None
        assert (news.rounds, news.added, news.latest, news.awaiting) == (3, 9, 0, 9)
        assert news.latest_label.startswith("Update 3 (")
        flow = app.screening.prisma(PrismaFlowRequest(study), owner=app.owner).to_dict()
        columns = flow["rounds"]
        assert [c["to_screen"] for c in columns] == [40, 5, 4, 0]
        assert news.latest_label == columns[-1]["label"]
        card = app.screening.next(NextRequest(study, "title_abstract", "original"), owner=app.owner)
        assert card.progress.updates == news
        # its records say where and when each was found (three identical lines before)
        found = [(m["database"], m["round"]) for m in card.members]
        assert ("Europe PMC", "Initial search") in found and ("Crossref", "Initial search") in found
        assert any(r.startswith("Update 1 (") for _, r in found), found
        rows = app.screening.items(ItemsRequest(study, page_size=100), owner=app.owner).rows
        [new] = [r["record_key"] for r in rows if r["title"].startswith("Generated record 31 ")]
        decide = DecideRequest(study, "title_abstract", new, "exclude", "not a trial")
        app.screening.decide(decide, owner=app.owner)
        news = app.screening.progress(ta, owner=app.owner).updates
        assert news is not None and (news.added, news.awaiting) == (9, 8)
        assert (
            app.screening.progress(ProgressRequest(study, "full_text"), owner=app.owner).updates
            is None
        )
        # a database no saved search uses: refused by name, nothing queued
        with pytest.raises(RefusedError) as refused:
            app.studies.update_study(UpdateStudyRequest(study, ("pubmed",)), owner=app.owner)
        assert "searches PubMed: they search Europe PMC, Crossref" in str(refused.value)
        with pytest.raises(InputError):
            UpdateStudyRequest(study, ("nosuchdb",))

    async def go() -> None:
        async with open_app(tmp_settings, http_transport=httpx.MockTransport(handler)) as app:
            await body(app)

    asyncio.run(go())
