"""Whole searches into a shared Study with paper records per owner (issue 29), SQLite and
PostgreSQL: the owner's search makes her records (a private record of another account with
a hit's identifiers is neither matched, filled in nor linked); an editor's update round
counts the Study's records as known and adds the new ones as his records in the Study."""

from __future__ import annotations

import asyncio

import httpx
from tests.services.studies._paged import GeneratedSearch
from tests.services.studies.test_whole_search import EPMC, settings, with_app

from litdesk import Settings
from litdesk.core.records import make_paper
from litdesk.services.accounts import Accounts, Sharing
from litdesk.services.app import App
from litdesk.services.search import SearchRequest
from litdesk.services.studies import EXIT_OK, AddSearchRequest, UpdateStudyRequest, WholeSearchJob
from litdesk.services.workspace import Workspace

__all__ = ["settings"]

PASSWORD = "correct horse battery"


def test_an_editors_update_round_keeps_records_per_owner(settings: Settings) -> None:
    state = {"search": GeneratedSearch(40)}

    async def body(app: App) -> None:
        accounts = Accounts(app.store, settings)
        ana, bob = accounts.add("ana", PASSWORD).id, accounts.add("bob", PASSWORD).id
        ws_ana, ws_bob = Workspace(app.store, owner=ana), Workspace(app.store, owner=bob)
        # bob's private record of hit 0 (its PMID and DOI), another title
        mine = make_paper(pmid="10000000", doi="10.5555/gen.0", title="Bob's private notes")
        ws_bob.save_paper(mine)
        study = ws_ana.create_study("Malaria", None).id
        search = SearchRequest("malaria vaccine", providers=EPMC)
        started = app.studies.add_search(AddSearchRequest(study, search), owner=ana)
        done = await app_job(app, started.job.id, ana)
        assert done.exit_status == EXIT_OK
        rounds = app.studies.search_rounds(study, owner=ana).to_dict()
        assert "Bob's private" not in str(rounds)
        titles = {r.paper.title for r in ws_ana.papers(study=study)}
        assert len(titles) == 40 and "Bob's private notes" not in titles
        assert ws_bob.paper(mine.id).paper.title == "Bob's private notes"  # untouched
        # bob, an editor, runs the update round: 40 known (the Study's), 10 new (his)
        Sharing(app.store, ana).share(study, "bob", "editor")
        state["search"] = GeneratedSearch(50)
        started = app.studies.update_study(UpdateStudyRequest(study), owner=bob)
        done = await app_job(app, started.job.id, bob)
        assert done.exit_status == EXIT_OK
        latest = app.studies.search_rounds(study, owner=bob).latest_update
        assert latest is not None and (latest["new"], latest["already_known"]) == (10, 40)
        rows = ws_ana.papers(study=study)
        assert len(rows) == 50
        assert "Bob's private notes" not in {r.paper.title for r in rows}
        assert ws_bob.paper(mine.id).paper.title == "Bob's private notes"

    def handler(request: httpx.Request) -> httpx.Response:
        return state["search"](request)  # the search of the moment

    with_app(settings, handler, body)


async def app_job(app: App, job_id: str, owner: str) -> WholeSearchJob:
    return await asyncio.to_thread(app.studies.work_search_job, job_id, owner=owner)
