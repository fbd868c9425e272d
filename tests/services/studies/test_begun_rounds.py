"""A living review's update round begun by hand (issue 28): a team re-runs its searches in
databases litdesk cannot query and imports the exports. Two imports (the first round), an
update round begun with a note, a third import → PRISMA 2020 has two columns, the third
import's records in the update column (those duplicating earlier records removed there
as duplicates, the rest to screen), the arithmetic holding; PRISMA-S tags each import with
its round; title/abstract screening offers only what is new; a viewer cannot begin a
round; a second round with nothing in the first is refused; ``study update`` after a
begun round joins it, then numbers on. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import csv
import io
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests._seconds import sleep_to_next_second
from tests.services.conftest import pg_schema
from tests.services.studies._paged import GeneratedSearch
from tests.services.studies._ris import ris

from litdesk import Settings
from litdesk._errors import InputError, RefusedError
from litdesk.adapters.store import NotPermitted
from litdesk.adapters.store import accounts as access
from litdesk.core.runs import prisma_markdown
from litdesk.services.app import App, open_app, open_app_sync
from litdesk.services.screening import (
    ImportDecisionsRequest,
    NextRequest,
    PrismaFlowRequest,
    PrismaRecordsRequest,
)
from litdesk.services.search import SearchRequest
from litdesk.services.studies import (
    AddSearchRequest,
    BeginRoundRequest,
    ImportRequest,
    UpdateStudyRequest,
)
from litdesk.services.workspace import now_iso

__all__ = ["pg_schema"]


@pytest.fixture(params=["sqlite", "postgres"])
def any_settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    if request.param == "postgres":
        return tmp_settings.model_copy(
            update={"database_url": request.getfixturevalue("pg_schema")}
        )
    return tmp_settings


def _import(app: App, study: str, path: Path) -> str:
    outcome = app.studies.import_files(ImportRequest(study, paths=(str(path),)), owner=app.owner)
    assert outcome.result is not None and outcome.result.done is not None
    return outcome.result.done.files[0].import_id


def _keys(app: App, study: str, box: str, column: int | None) -> list[dict[str, Any]]:
    view = app.screening.prisma_records(PrismaRecordsRequest(study, box, column), owner=app.owner)
    return list(view.rows)


def test_a_round_begun_by_hand_is_its_own_column(any_settings: Settings, tmp_path: Path) -> None:
    embase = ris(tmp_path / "embase-1.ris", range(1, 11), "Embase")  # r1..r10
    scopus = ris(tmp_path / "scopus-1.ris", range(8, 16), "Scopus")  # r8..r15: 3 duplicates
    again = ris(tmp_path / "embase-2.ris", range(12, 21), "Embase")  # r12..r20: 4 known, 5 new
    with open_app_sync(any_settings) as app:
        study = app.workspace().create_study("Living review by exports").id
        _import(app, study, embase)
        _import(app, study, scopus)
        flow = app.studies.prisma(study, owner=app.owner).to_dict()["prisma_2020"]
        assert len(flow["rounds"]) == 1 and flow["rounds"][0]["to_screen"] == 15

        # every record of the first round screened (2 included)
        first = _keys(app, study, "to_screen", 1)
        assert len(first) == 15
        lines = ["record_id,decision"] + [
            f"{r['record_key']},{'include' if i < 2 else 'exclude'}" for i, r in enumerate(first)
        ]
        done = app.screening.import_decisions(
            ImportDecisionsRequest(study, ("\n".join(lines) + "\n").encode()), owner=app.owner
        )
        assert done.recorded == 15

        with pytest.raises(InputError):
            BeginRoundRequest(study, "x" * 501)
        begun = app.studies.begin_round(
            BeginRoundRequest(study, " Embase re-run, export of 8 Dec "), owner=app.owner
        )
        assert (begun.round, begun.note, begun.by) == (1, "Embase re-run, export of 8 Dec", "local")
        assert begun.began_at.endswith("+00:00") and "." not in begun.began_at  # a whole second
        # nothing in it yet: its column is there (empty), and another round is refused
        empty = app.studies.prisma(study, owner=app.owner).to_dict()["prisma_2020"]["rounds"]
        assert [c["identified"]["total"] for c in empty] == [18, 0]
        with pytest.raises(RefusedError) as refused:
            app.studies.begin_round(BeginRoundRequest(study), owner=app.owner)
        assert refused.value.code == "round_empty"

        third = _import(app, study, again)
        report = app.studies.prisma(study, owner=app.owner).to_dict()
        flow = report["prisma_2020"]
        before, update = flow["rounds"]
        assert before["label"] == "Initial search" and update["label"].startswith("Update 1 (")
        assert update["began"] == begun.began_at
        assert flow["table"]["columns"] == [before["label"], update["label"], "Total"]
        assert (before["identified"]["total"], before["removed_duplicates"]) == (18, 3)
        assert (update["identified"]["total"], update["removed_duplicates"]) == (9, 4)
        assert (before["to_screen"], update["to_screen"]) == (15, 5)
        for column in (before, update):  # identified − duplicates = screened, and so on
            assert (
                column["identified"]["total"] - column["removed_duplicates"] == column["to_screen"]
            )
            assert all(c["ok"] for c in column["checks"]), column["checks"]
        assert before["screened"] == 15 and update["screened"] == 0
        ident = report["identification"]
        assert ident["records_identified"] == 27 and ident["records_after_deduplication"] == 20
        # the third import's records are in the update column: 5 new to screen, 4 removed
        new = _keys(app, study, "to_screen", 2)
        found = _keys(app, study, "identified", 2)
        assert len(new) == 5 and len(found) == 9
        assert len(_keys(app, study, "removed_duplicates", 2)) == 4

        # screening offers only what is new: the 5, the known 4 joined screened groups
        card = app.screening.next(NextRequest(study), owner=app.owner).to_dict()
        news = card["progress"]["updates"]
        assert (news["rounds"], news["added"], news["latest"], news["awaiting"]) == (1, 5, 5, 5)
        assert card["record_key"] in {r["record_key"] for r in new}

        # PRISMA-S: the round is listed, each import tagged with its round
        s = app.search.prisma(study, owner=app.owner)
        data = s.to_dict()
        assert [(r["round"], r["searches"]) for r in data["rounds"]] == [(1, 0)]
        rounds = {i["id"]: (i["round"], i["records"]) for i in data["imports"]}
        assert rounds[third] == (1, 9)
        assert sorted(rounds.values()) == [(0, 8), (0, 10), (1, 9)]
        assert "| update round 1 | " in prisma_markdown(s)

        # the flow's files carry the column: CSV (a column per round), Markdown, SVG
        table = list(csv.reader(io.StringIO(app.screening.export_prisma(
            PrismaFlowRequest(study, "csv"), owner=app.owner
        ).text)))  # fmt: skip
        rows = {row[0]: row[1:] for row in table}
        assert rows["Embase"][1:] == ["10", "9", "19"] and rows["Scopus"][1:] == ["8", "0", "8"]
        assert update["label"] in table[0]
        for fmt in ("md", "svg"):
            text = app.screening.export_prisma(PrismaFlowRequest(study, fmt), owner=app.owner).text
            assert "Update 1 (" in text, fmt

        # who began it, in the Study's history and its page
        history = app.studies.history(study, owner=app.owner).entries
        assert any(e["action"] == "round_begun" for e in history)
        rounds_view = app.studies.search_rounds(study, owner=app.owner).to_dict()
        assert rounds_view["begun_rounds"] == [
            {"round": 1, "began_at": begun.began_at, "by": "local", "note": begun.note}
        ]
        # now round 1 has records: round 2 may begin
        assert app.studies.begin_round(BeginRoundRequest(study), owner=app.owner).round == 2


def test_a_viewer_cannot_begin_a_round(any_settings: Settings) -> None:
    with open_app_sync(any_settings) as app:
        ana = app.workspace("acct_ana")
        study = ana.create_study("Shared").id
        with app.store.write() as conn:
            access.set_member(conn, study, "acct_vic", "viewer", "acct_ana", now_iso())
            access.set_member(conn, study, "acct_ed", "editor", "acct_ana", now_iso())
        with pytest.raises(NotPermitted):
            app.studies.begin_round(BeginRoundRequest(study), owner="acct_vic")
        assert app.studies.search_rounds(study, owner="acct_vic").begun == []
        assert app.studies.begin_round(BeginRoundRequest(study), owner="acct_ed").round == 1


def test_study_update_after_a_begun_round(any_settings: Settings, tmp_path: Path) -> None:
    """``study update`` after a round begun by hand with no whole search yet runs as that
    round (its searches beside the imports); the next update is the next number; a round
    begun after that follows it."""
    state = {"search": GeneratedSearch(20)}

    def handler(request: httpx.Request) -> httpx.Response:
        return state["search"](request)

    async def run(app: App, job_id: str) -> None:
        done = await asyncio.to_thread(app.studies.work_search_job, job_id, owner=app.owner)
        assert done.job.status == "done"

    async def body(app: App) -> None:
        study = app.workspace().create_study("Both kinds").id
        search = SearchRequest("malaria vaccine", providers=("europepmc",))
        await run(
            app, app.studies.add_search(AddSearchRequest(study, search), owner=app.owner).job.id
        )
        begun = await asyncio.to_thread(
            app.studies.begin_round, BeginRoundRequest(study, "Embase"), owner=app.owner
        )
        assert begun.round == 1
        export = ris(tmp_path / "embase.ris", range(1, 6), "Embase")
        await asyncio.to_thread(_import, app, study, export)
        # rounds begin to the second (the rule, unchanged): update 2 begins a second later
        sleep_to_next_second()
        state["search"] = GeneratedSearch(24)  # the 20 again and 4 new
        update = UpdateStudyRequest(study)
        await run(app, app.studies.update_study(update, owner=app.owner).job.id)
        sleep_to_next_second()
        await run(app, app.studies.update_study(update, owner=app.owner).job.id)
        rounds = app.studies.search_rounds(study, owner=app.owner).to_dict()["rounds"]
        assert [(r["round"], r["kind"]) for r in rounds] == [
            (0, "search"),
            (1, "update"),
            (2, "update"),
        ]
        later = await asyncio.to_thread(
            app.studies.begin_round, BeginRoundRequest(study), owner=app.owner
        )
        assert later.round == 3
        flow = app.studies.prisma(study, owner=app.owner).to_dict()["prisma_2020"]["rounds"]
        assert len(flow) == 4
        # round 1: the update's 24 records (4 new) and the export's 5; round 2 found all again
        assert [c["identified"]["total"] for c in flow] == [20, 29, 24, 0]
        assert [c["to_screen"] for c in flow] == [20, 9, 0, 0]
        for column in flow:
            assert all(c["ok"] for c in column["checks"]), column["checks"]

    async def go() -> None:
        async with open_app(any_settings, http_transport=httpx.MockTransport(handler)) as app:
            await body(app)

    asyncio.run(go())
