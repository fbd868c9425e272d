"""A whole search's commit looks up and saves the records a Study may know already for a
batch at a time (issue 26): the same round report, papers, savers and history as looking
them up and saving them one by one — which a batch whose records share a key or a stored
record still does — on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from litdesk import Settings
from litdesk.adapters.store import whole_searches as whole
from litdesk.adapters.store._schema import paper_savers, papers, study_history, study_papers
from litdesk.core.records import Paper
from litdesk.core.runs import RunDefinition
from litdesk.services.app import App, open_app
from litdesk.services.studies._whole_search import Harvest, LaneHarvest, commit_whole, whole_run
from litdesk.services.workspace import _study_papers as ws_module


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    if request.param == "sqlite":
        return tmp_settings
    return tmp_settings.model_copy(update={"database_url": request.getfixturevalue("pg_schema")})


def _p(n: int, **fields: Any) -> Paper:
    return Paper(id=f"MED-{n}", pmid=str(n), title=f"Record {n}", year=2020, **fields)


HELD = [
    _p(1001, doi="10.5555/t.a"),
    _p(1002),
    _p(1003),
    _p(1004),
    _p(1005, doi="10.5555/t.d"),
    _p(1008),
]
OWN_ONLY = _p(1006)  # the account's record, not in the Study

SEARCHED = [
    _p(1001, doi="10.5555/t.a"),  # known, unchanged
    Paper(id="MED-1002", pmid="1002", title="Record 1002, revised", year=2020),  # changed
    _p(1003, retracted=True),  # known, retracted since
    _p(1004, doi="10.5555/t.d"),  # two of the Study's records: known, refused
    _p(1006),  # the account's record, new to the Study
    _p(2001),  # new
    # second batch: a record seen already (skipped), a new one, one completing a record
    _p(1001, doi="10.5555/t.a"),
    _p(2002),
    _p(1008, doi="10.5555/t.e"),
    *(_p(n) for n in range(2004, 2007)),
    # third batch: two records sharing a key (looked up one by one), a new one
    _p(1003, doi="10.5555/t.c"),
    _p(1006, doi="10.5555/t.c"),
    _p(2003),
]


def _on_app(settings: Settings, body: Callable[[App], Any]) -> Any:
    async def go() -> Any:
        async with open_app(settings) as app:
            return await asyncio.to_thread(body, app)

    return asyncio.run(go())


def _commit(app: App) -> dict[str, Any]:
    ws = app.workspace()
    sid = ws.create_study("Batched commit").id
    for paper in HELD:
        ws.save_paper(paper, study=sid)
    ws.save_paper(OWN_ONLY)
    definition = RunDefinition("q", "keyword", ("europepmc",))
    lane = LaneHarvest("europepmc", "europepmc-keyword", 100, papers=list(SEARCHED[:1]))
    run, hits, _papers = whole_run(Harvest([lane]), definition)
    done = commit_whole(
        app.store, owner=app.owner, study_id=sid, run=run, hits=hits, papers=SEARCHED,
        kind="update", cap=100, job_id=None,
    )  # fmt: skip
    with app.store.read() as conn:
        held = sorted(
            conn.execute(sa.select(study_papers.c.paper_id).where(study_papers.c.study_id == sid))
            .scalars()
            .all()
        )
        data = {r.id: r.data for r in conn.execute(sa.select(papers.c.id, papers.c.data))}
        savers = sorted(conn.execute(sa.select(paper_savers.c.paper_id)).scalars().all())
        history = [
            (r.action, r.target)
            for r in conn.execute(
                sa.select(study_history.c.action, study_history.c.target)
                .where(study_history.c.study_id == sid)
                .order_by(study_history.c.seq)
            )
        ]
        rounds = whole.list_rounds(conn, sid)
    report = {k: v for k, v in done.report().items() if k != "run_id"}
    return {
        "report": report | {"created": done.created},
        "held": held,
        "data": data,
        "savers": savers,
        "history": history,
        "rounds": len(rounds),
    }


def _counting(monkeypatch: pytest.MonkeyPatch, *, batched: bool) -> list[int]:
    """Three batches of the commit; each batch's lookup told (1: batched, 0: one by one);
    with ``batched=False`` every batch is looked up one by one."""
    monkeypatch.setattr(whole, "HIT_BATCH", 6)
    calls: list[int] = []
    known_in_batch = ws_module._known_in_batch

    def counted(*args: Any, **kw: Any) -> Any:
        out = known_in_batch(*args, **kw) if batched else None
        calls.append(0 if out is None else 1)
        return out

    monkeypatch.setattr(ws_module, "_known_in_batch", counted)
    return calls


def test_batched_lookups_report_what_the_study_knew(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _counting(monkeypatch, batched=True)
    got = _on_app(settings, _commit)
    # the first two batches were looked up whole, the third (a shared key) one by one
    assert calls == [1, 1, 0]
    report = got["report"]
    assert (report["already_known"], report["refused"], report["created"]) == (5, 1, 6)
    assert report["changed_ids"] == ["MED-1002", "MED-1004", "MED-1008"]
    assert report["retracted_ids"] == ["MED-1003"]
    assert report["new_ids"] == [
        "MED-2001",
        "MED-1006",
        "MED-2002",
        "MED-2004",
        "MED-2005",
        "MED-2006",
        "MED-2003",
    ]
    assert {"MED-1006", "MED-2001", "MED-2002", "MED-2003"} <= set(got["held"])
    assert "10.5555/t.e" in got["data"]["MED-1008"]  # completed in the second batch
    assert "10.5555/t.c" in got["data"]["MED-1006"]  # completed one by one
    assert ("paper_added", "MED-1006") in got["history"]
    assert "MED-1005" in got["held"] and got["rounds"] == 1


def test_batched_and_one_by_one_commits_leave_the_same_study(
    tmp_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sqlite_template: Any
) -> None:
    from tests._store_template import copy_sqlite_template, sqlite_path

    other = Settings(data_dir=tmp_path / "one-by-one")
    copy_sqlite_template(sqlite_template, sqlite_path(other.resolved_database_url()))
    calls = _counting(monkeypatch, batched=True)
    batched = _on_app(tmp_settings, _commit)
    assert calls == [1, 1, 0]
    calls = _counting(monkeypatch, batched=False)
    one_by_one = _on_app(other, _commit)
    assert calls == [0, 0, 0]
    assert batched == one_by_one
