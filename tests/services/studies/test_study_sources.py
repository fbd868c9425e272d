"""A Study's records follow its sources where the sources change, never on a read (issue
27), on SQLite and PostgreSQL: viewing a Study writes nothing; a whole search run leaves
the Study (its records and the papers only it brought) into the trash and comes back; a
deleted Study's papers leave the saved list with it; the reader offers the Studies that
hold the paper."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.engine import Connection
from tests.adapters.store.conftest import pg_schema, store_url
from tests.services.studies._paged import GeneratedSearch

from litdesk import Settings
from litdesk._errors import NotFoundError
from litdesk.adapters.store import Store, study_records
from litdesk.core.records import make_paper
from litdesk.services.app import App, open_app
from litdesk.services.dedup import DedupRequest, in_step, working_groups
from litdesk.services.search import SearchRequest
from litdesk.services.studies import (
    AddSearchRequest,
    RecordsRequest,
    SavedRequest,
    WorkingSetExportRequest,
    WorkingSetRequest,
)

__all__ = ["pg_schema", "store_url"]

RIS = (
    "TY  - JOUR\nTI  - Aspirin and stroke in older adults\nDO  - 10.1/one\nPY  - 2001\nER  - \n"
    "TY  - JOUR\nTI  - Generated record 3 on malaria vaccines\nDO  - 10.5555/gen.3\n"
    "PY  - 1993\nER  - \n"
)


@pytest.fixture
def settings(store_url: str, tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", database_url=store_url)


def on_app(settings: Settings, body: Callable[[App], Any], total: int = 40) -> Any:
    async def go() -> Any:
        transport = httpx.MockTransport(GeneratedSearch(total))
        async with open_app(settings, http_transport=transport) as app:
            return await asyncio.to_thread(body, app)

    return asyncio.run(go())


def _whole_search(app: App, study: str) -> str:
    search = SearchRequest("malaria vaccine", providers=("europepmc",))
    started = app.studies.add_search(AddSearchRequest(study, search), owner=app.owner)
    done = app.studies.work_search_job(started.job.id, owner=app.owner)
    assert done.job.status == "done", done.job.message
    runs = app.workspace().study_summary(study).search_runs
    assert isinstance(runs, tuple) and runs
    return str(runs[-1])


def _counts(app: App, study: str) -> tuple[int, int, bool]:
    with app.store.read() as conn:
        c = study_records.count_records(conn, study)
        return c.records, c.pending, in_step(conn, study)


@pytest.fixture
def tmp_ris(tmp_path: Path) -> Path:
    path = tmp_path / "two.ris"
    path.write_text(RIS, encoding="utf-8")
    return path


def test_viewing_a_study_writes_nothing(
    settings: Settings, tmp_ris: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def body(app: App) -> None:
        ws = app.workspace()
        study = ws.create_study("Read only").id
        ws.save_file(tmp_ris, study=study)
        _whole_search(app, study)
        hand = ws.save_paper(make_paper(pmid="77", title="A paper added by hand")).paper
        ws.add_to_study(study, hand.id)
        # every write above reconciled and regrouped the records: 2 + 40 + 1, in step,
        # none waiting (record 3 of the search is the import's second record)
        assert _counts(app, study) == (43, 0, True)
        before = app.studies.working_set(WorkingSetRequest(study), owner=app.owner).counts
        assert (before.identified, before.studies, before.pending) == (43, 42, 0)

        def refuse() -> AbstractContextManager[Connection]:
            raise AssertionError("a read opened a write transaction")

        monkeypatch.setattr(app.store, "write", refuse)
        page = app.studies.study(study, owner=app.owner).to_dict()
        assert page["working_set"] == before.to_dict()
        assert app.studies.records(RecordsRequest(study), owner=app.owner).counts == before
        ws_view = app.studies.working_set(WorkingSetRequest(study), owner=app.owner)
        assert len(ws_view.groups) == 42
        assert len(working_groups(app.store, study)) == 42
        prisma = app.studies.prisma(study, owner=app.owner).report["identification"]
        assert isinstance(prisma, dict) and prisma["records_identified"] == 43
        out = app.studies.export_working_set(WorkingSetExportRequest(study, "ris"), owner=app.owner)
        assert out.count == 42
        assert app.studies.saved(SavedRequest(study=study), owner=app.owner).matched == 42

    on_app(settings, body)


def test_reads_stay_reads_when_a_study_is_out_of_step(settings: Settings, tmp_ris: Path) -> None:
    """A Study left out of step (a write that bypassed the reconciliation, like a process
    killed between a commit and its regrouping) is shown as the store holds it and said to
    be out of step; a deduplication run brings it up to date."""

    def body(app: App) -> None:
        ws = app.workspace()
        study = ws.create_study("Out of step").id
        store: Store = app.store
        within, after = store._within, store._after
        store._within = store._after = None
        try:
            ws.save_file(tmp_ris, study=study)
        finally:
            store._within, store._after = within, after
        assert _counts(app, study) == (0, 0, False)
        assert (
            app.studies.working_set(WorkingSetRequest(study), owner=app.owner).counts.identified
            == 0
        )
        assert _counts(app, study) == (0, 0, False)  # the read wrote nothing
        app.dedup.run(DedupRequest(files=(), study=study), owner=app.owner)
        assert _counts(app, study) == (2, 0, True)

    on_app(settings, body)


def test_a_whole_search_run_leaves_the_study_and_comes_back(
    settings: Settings, tmp_ris: Path
) -> None:
    def body(app: App) -> None:
        ws = app.workspace()
        study = ws.create_study("Runs").id
        ws.save_file(tmp_ris, study=study)
        run_id = _whole_search(app, study)
        papers = len(ws.study_summary(study).papers)
        assert papers == 41  # 40 searched, one of them imported too, and the other import
        records = app.studies.records(RecordsRequest(study), owner=app.owner).counts
        assert records.identified == 42 and records.studies == 41

        out = app.studies.remove_search_run(study, run_id, owner=app.owner)
        assert out.kind == "run" and out.count == 39  # paper 3 stays: the import brought it
        assert "malaria vaccine" in out.label and "40 records" in out.label
        after = app.studies.working_set(WorkingSetRequest(study), owner=app.owner).counts
        assert (after.identified, after.studies, after.pending) == (2, 2, 0)
        assert len(ws.study_summary(study).papers) == 2
        assert run_id not in ws.study_summary(study).search_runs
        assert _counts(app, study) == (2, 0, True)
        trash = app.studies.trash(study, owner=app.owner).items
        assert [(i["kind"], i["target"]) for i in trash] == [("run", run_id)]
        history = app.studies.history(study, owner=app.owner).entries
        removed = next(e for e in history if e["action"] == "search_removed")
        assert removed["label"] == out.label

        app.studies.restore(out.trash_id or "", owner=app.owner)
        back = app.studies.working_set(WorkingSetRequest(study), owner=app.owner).counts
        assert (back.identified, back.studies, back.pending) == (42, 41, 0)
        assert len(ws.study_summary(study).papers) == 41
        again = app.studies.history(study, owner=app.owner).entries
        assert [e["action"] for e in again].count("run_restored") == 1
        with pytest.raises(NotFoundError):
            app.studies.remove_search_run(study, "no-such-run", owner=app.owner)

    on_app(settings, body)


def test_a_deleted_studys_papers_leave_the_saved_list(settings: Settings) -> None:
    def body(app: App) -> None:
        ws = app.workspace()
        gone = ws.create_study("Deleted later").id
        kept = ws.create_study("Kept").id
        only = ws.save_paper(make_paper(pmid="1", title="Only in the deleted Study")).paper
        both = ws.save_paper(make_paper(pmid="2", title="In both Studies")).paper
        loose = ws.save_paper(make_paper(pmid="3", title="In no Study")).paper
        for pid in (only.id, both.id):
            ws.add_to_study(gone, pid)
        ws.add_to_study(kept, both.id)

        def titles() -> set[str]:
            rows = app.studies.saved(SavedRequest(), owner=app.owner).rows
            return {str(r["title"]) for r in rows}

        everything = {only.title, both.title, loose.title}
        assert titles() == everything
        deleted = app.studies.delete_study(gone, owner=app.owner)
        assert titles() == {both.title, loose.title}
        assert app.studies.saved(SavedRequest(), owner=app.owner).matched == 2
        app.studies.restore(deleted.trash_id or "", owner=app.owner)
        assert titles() == everything

    on_app(settings, body)


def test_the_reader_offers_the_studies_that_hold_the_paper(settings: Settings) -> None:
    def body(app: App) -> None:
        ws = app.workspace()
        holding = ws.create_study("Holds it").id
        other = ws.create_study("Another review").id
        paper = ws.save_paper(make_paper(pmid="9", title="Read in the reader")).paper
        ws.add_to_study(holding, paper.id)
        view = app.reader.reader(paper.id, owner=app.owner)
        assert [s["id"] for s in view.studies] == [holding]
        assert other not in {s["id"] for s in view.to_dict()["studies"]}  # type: ignore[union-attr]
        ws.add_to_study(other, paper.id)
        assert {s["id"] for s in app.reader.reader(paper.id, owner=app.owner).studies} == {
            holding,
            other,
        }

    on_app(settings, body)
