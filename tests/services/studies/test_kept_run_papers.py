"""A search run kept in a Study is a source like every other (issue 28): its hits become the
Study's papers in the transaction that keeps it — new ones inserted for the owner, the
owner's stored papers and the Study's own linked, none duplicated — so the Study page, the
working set, screening, PRISMA 2020, PRISMA-S and a later update's "new" / "already known"
agree. A run kept before migration 0031 (linked, its hits not the Study's papers) is caught
up by the Study's reconcile, before an update counts what is new. On SQLite and PostgreSQL.

Before: whole search 40 + a kept run of 50 → the Study page said 40 papers while screening
counted 50 records, and the update's 60 records were "20 new" (10 of them counted by
PRISMA 2020 in the initial column already)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from tests._seconds import wait_to_next_second
from tests.services.conftest import pg_schema
from tests.services.studies._paged import GeneratedSearch

from litdesk import Settings
from litdesk.core.records import make_paper
from litdesk.services.app import App, open_app
from litdesk.services.screening import ProgressRequest
from litdesk.services.search import SearchRequest
from litdesk.services.studies import AddSearchRequest, UpdateStudyRequest

__all__ = ["pg_schema"]

QUERY = "malaria vaccine"


@pytest.fixture(params=["sqlite", "postgres"])
def any_settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    if request.param == "postgres":
        return tmp_settings.model_copy(
            update={"database_url": request.getfixturevalue("pg_schema")}
        )
    return tmp_settings


def numbers(app: App, study: str) -> dict[str, Any]:
    """Every number a Study shows of its papers and records, from each of its views."""
    page = app.studies.study(study, owner=app.owner).to_dict()
    progress = app.screening.progress(ProgressRequest(study), owner=app.owner).to_dict()
    prisma = app.studies.prisma(study, owner=app.owner).to_dict()
    searches = app.search.prisma(study, owner=app.owner).to_dict()["searches"]
    return {
        "papers": page["papers_total"],
        "working_set": page["working_set"]["studies"],  # type: ignore[index]
        "records": page["working_set"]["records_identified"],  # type: ignore[index]
        "screening": progress["total"],
        "per_database": prisma["identification"]["records_per_source"],  # type: ignore[index]
        "columns": [
            (c["identified"]["databases"], c["to_screen"])
            for c in prisma["prisma_2020"]["rounds"]  # type: ignore[index]
        ],
        "prisma_s": [x["records"] for x in searches],
    }


def updates(app: App, study: str) -> list[tuple[int, int, int]]:
    """Each update round's run: (records, new, already known)."""
    rounds = app.studies.search_rounds(study, owner=app.owner).to_dict()["rounds"]
    return [(r["records"], r["new"], r["already_known"]) for r in rounds if r["kind"] == "update"]  # type: ignore[index]


Body = Callable[[App, dict[str, Any]], Awaitable[None]]


def run_app(settings: Settings, body: Body) -> None:
    state: dict[str, Any] = {"search": GeneratedSearch(40)}

    def handler(request: httpx.Request) -> httpx.Response:
        return state["search"](request)

    async def go() -> None:
        async with open_app(settings, http_transport=httpx.MockTransport(handler)) as app:
            await body(app, state)

    asyncio.run(go())


async def whole_then_kept(app: App, state: dict[str, Any]) -> tuple[str, str]:
    """A Study with a whole search (40 records), then a search of 60 kept with its first 50
    (40 the Study holds, 10 new); the Study and the kept run's id."""
    study = app.workspace().create_study("Living review").id
    search = SearchRequest(QUERY, providers=("europepmc",))
    job = app.studies.add_search(AddSearchRequest(study, search), owner=app.owner).job.id
    done = await asyncio.to_thread(app.studies.work_search_job, job, owner=app.owner)
    assert done.job.status == "done"
    state["search"] = GeneratedSearch(60)
    wanted = SearchRequest(QUERY, providers=("europepmc",), limit=50)
    view = (await app.search.search(wanted, owner=app.owner)).to_dict()
    run_id = str(view["run"]["id"])  # type: ignore[index]
    kept = app.search.save_run(run_id, study, owner=app.owner)
    assert kept.summary.papers_total == 50
    return study, run_id


async def update(app: App, study: str) -> None:
    """An update round, begun in a later second than the keep (rounds begin to the
    second)."""
    await wait_to_next_second()
    job = app.studies.update_study(UpdateStudyRequest(study), owner=app.owner).job.id
    done = await asyncio.to_thread(app.studies.work_search_job, job, owner=app.owner)
    assert done.job.status == "done"


AFTER_KEEP = {
    "papers": 50,
    "working_set": 50,
    "records": 90,
    "screening": 50,
    "per_database": {"Europe PMC": 90},
    "columns": [(90, 50)],
    "prisma_s": [40, 50],
}
AFTER_UPDATE = {
    "papers": 60,
    "working_set": 60,
    "records": 200,
    "screening": 60,
    "per_database": {"Europe PMC": 200},
    "columns": [(90, 50), (110, 10)],
    "prisma_s": [40, 50, 60, 50],
}


def test_a_kept_runs_hits_are_the_studys_papers(any_settings: Settings) -> None:
    async def body(app: App, state: dict[str, Any]) -> None:
        ws = app.workspace()
        # one of the run's records the account saved before (its own copy, no Study)
        mine = ws.save_paper(make_paper(title="My copy of record 45", doi="10.5555/gen.45"))
        study, run_id = await whole_then_kept(app, state)
        assert numbers(app, study) == AFTER_KEEP
        ids = [p.id for p in app.studies.study(study, owner=app.owner).summary.papers]
        assert mine.paper.id in ids and len(ids) == len(set(ids))  # linked, not duplicated
        with app.store.read() as conn:
            keyed = conn.execute(
                sa.text("SELECT COUNT(*) FROM paper_keys WHERE key = :k"),
                {"k": "doi:10.5555/gen.45"},
            ).scalar_one()
        assert keyed == 1
        # keeping the same run again adds nothing
        again = app.search.save_run(run_id, study, owner=app.owner)
        assert again.summary.papers_total == 50
        assert numbers(app, study) == AFTER_KEEP
        # the update finds the 50 again: "already known", not "new"
        await update(app, study)
        assert updates(app, study) == [(60, 10, 50), (50, 0, 50)]
        assert numbers(app, study) == AFTER_UPDATE

    run_app(any_settings, body)


def test_a_run_kept_before_the_change_is_caught_up(any_settings: Settings) -> None:
    """The state a run kept before migration 0031 left (linked, its 10 new hits no papers
    at all, its records naming no paper) is made whole by the next update, before it
    counts: the 10 are the Study's papers and "already known", the records name them (no
    "added by hand" twins), and the Study's history says so."""

    async def body(app: App, state: dict[str, Any]) -> None:
        study, run_id = await whole_then_kept(app, state)
        with app.store.read() as conn:
            whole_ids = {
                r[0]
                for r in conn.execute(
                    sa.text(
                        "SELECT paper_id FROM study_records WHERE study_id = :s AND source_id <> :r"
                    ),
                    {"s": study, "r": run_id},
                )
            }
        with app.store.engine.begin() as conn:  # back to what the old keep left
            only_run = [
                r[0]
                for r in conn.execute(
                    sa.text("SELECT paper_id FROM study_papers WHERE study_id = :s"),
                    {"s": study},
                )
                if r[0] not in whole_ids
            ]
            assert len(only_run) == 10
            for table in ("paper_savers", "study_papers", "paper_keys"):
                conn.execute(
                    sa.text(f"DELETE FROM {table} WHERE paper_id IN :ids").bindparams(
                        sa.bindparam("ids", expanding=True)
                    ),
                    {"ids": only_run},
                )
            conn.execute(
                sa.text("DELETE FROM papers WHERE id IN :ids").bindparams(
                    sa.bindparam("ids", expanding=True)
                ),
                {"ids": only_run},
            )
            conn.execute(
                sa.text(
                    "UPDATE study_records SET paper_id = NULL WHERE study_id = :s "
                    "AND paper_id IN :ids"
                ).bindparams(sa.bindparam("ids", expanding=True)),
                {"s": study, "ids": only_run},
            )
            conn.execute(
                sa.text("UPDATE study_search_runs SET papers_at = NULL WHERE run_id = :r"),
                {"r": run_id},
            )
        old = numbers(app, study)
        assert (old["papers"], old["screening"]) == (40, 50)  # the inconsistency reported
        await update(app, study)
        assert updates(app, study) == [(60, 10, 50), (50, 0, 50)]  # was (60, 20, 40)
        assert numbers(app, study) == AFTER_UPDATE
        with app.store.read() as conn:
            unnamed = conn.execute(
                sa.text(
                    "SELECT COUNT(*) FROM study_records WHERE study_id = :s AND paper_id IS NULL"
                ),
                {"s": study},
            ).scalar_one()
        assert unnamed == 0
        history = app.studies.history(study, owner=app.owner).to_dict()
        text = str(history)
        assert "10 new of 50 records (kept before)" in text

    run_app(any_settings, body)
