"""Deduplicating a Study's imported records through the area ``app.dedup`` (the web page's
use cases), on SQLite and PostgreSQL: a run as a job, the review queue with its evidence, decisions into
the Study's history (the same entries ``litdesk dedup --study`` reuses), their withdrawal,
conflicting identifiers never merged, cancellation recording nothing."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests._dedup_data import REGISTRY_RIS, haematology_subset

from litdesk import SYSTEM_CLOCK, Clock, ManualClock, Settings
from litdesk._errors import InputError, NotFoundError, RefusedError
from litdesk.services.app import App, open_app
from litdesk.services.dedup import DecideRequest, DedupArea, study_decisions, study_history
from litdesk.services.jobs import JobRunner
from litdesk.services.studies import ImportRequest

OWNER = "local"  # the single-user owner


def import_into(app: App, study: str, files: list[tuple[str, bytes]]) -> dict:
    """Files imported into a Study within the call (the studies area's import)."""
    request = ImportRequest(study, uploads=tuple(files))
    return app.studies.import_files(request, owner=app.owner).to_dict()


def fill_study(desk: App, name: str = "aHUS review") -> str:
    study = desk.workspace().create_study(name).id
    done = import_into(
        desk,
        study,
        [("haematology.csv", haematology_subset()), ("registry.ris", REGISTRY_RIS.encode())],
    )
    assert not done["refused"] and [f["records"] for f in done["imported"]] == [15, 3]
    return str(study)


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    if request.param == "sqlite":
        return tmp_settings
    url = request.getfixturevalue("pg_schema")
    return Settings(data_dir=tmp_settings.data_dir, database_url=url)


def on_desk(
    settings: Settings, body: Callable[[App], None], *, clock: Clock = SYSTEM_CLOCK
) -> None:
    async def go() -> None:
        async with open_app(settings, clock=clock) as app:
            await asyncio.to_thread(body, app)

    asyncio.run(go())


def _run(dd: DedupArea, study: str) -> dict:
    job = dd.work(dd.start(study, owner=OWNER).id, owner=OWNER)
    assert job.state == "done", job.message
    return dd.review(study, owner=OWNER).to_dict()


def decide(dd: DedupArea, study: str, run_id: str, no: int, decision: str) -> dict:
    return dd.decide(DecideRequest(study, run_id, no, decision), owner=OWNER).to_dict()


def test_run_review_decide_undo(settings: Settings) -> None:
    def body(app: App) -> None:
        desk, dd = app, app.dedup
        study = fill_study(desk)
        view = _run(dd, study)
        run = view["run"]
        counts = run["counts"]
        assert counts["records"] == 18 and counts["stage2_merge_pairs"] == 7
        assert counts["uncertain"] == 5 and counts["distinct_pairs"] == 1
        assert run["queue_total"] == 5 and run["waiting"] == 5
        pairs = view["pairs"]
        assert [p["state"] for p in pairs] == ["waiting"] * 5
        # the evidence of ``dedup --explain``: rule, fields aligned with agreement, notes
        erratum = next(p for p in pairs if p["mergeable"])
        assert erratum["rule"].startswith("a correction notice and the article")
        fields = {f["name"]: f for f in erratum["fields"]}
        assert fields["volume"]["agree"] == "agree" and fields["pages"]["agree"] == "differ"
        assert fields["title"]["a"] != fields["title"]["b"]
        assert erratum["evidence"]["kinds"]
        # the registry pair: a merge would join different trial registry numbers
        (clash,) = [p for p in pairs if not p["mergeable"]]
        assert {clash["a"]["source_id"], clash["b"]["source_id"]} == {"R2", "R3"}
        assert "conflicting identifiers" in clash["not_mergeable"]
        nct = {f["name"]: f for f in clash["fields"]}["nct"]
        assert nct["agree"] == "unknown" and "07654321" in nct["a"] + nct["b"]
        with pytest.raises(RefusedError) as refused:
            decide(dd, study, run["id"], clash["no"], "merge")
        assert refused.value.code == "conflicting_identifiers"
        kept = decide(dd, study, run["id"], clash["no"], "distinct")
        assert kept["new"] and kept["state"] == "distinct"
        merged = decide(dd, study, run["id"], erratum["no"], "merge")
        again = decide(dd, study, run["id"], erratum["no"], "merge")
        assert merged["new"] and not again["new"] and again["seq"] == merged["seq"]
        after = dd.review(study, owner=OWNER).to_dict()
        states = {p["no"]: p["state"] for p in after["pairs"]}
        assert states[erratum["no"]] == "merge" and states[clash["no"]] == "distinct"
        assert after["run"]["waiting"] == 3
        # the history: who, when, what (both records), newest first
        newest = after["history"][0]
        assert newest["seq"] == merged["seq"] and newest["by"] == "local"
        assert newest["via"] == "web" and newest["in_force"]
        assert newest["what"].startswith("merged: ") and "haematology.csv#" in newest["what"]
        assert after["history"][-1]["kind"] == "run"
        # the same store entries the CLI reuses
        assert len(study_decisions(desk.store, study)) == 2
        undone = dd.undo(study, merged["seq"], owner=OWNER).to_dict()
        assert undone["pair"] == erratum["no"] and undone["state"] == "waiting"
        with pytest.raises(RefusedError):
            dd.undo(study, merged["seq"], owner=OWNER).to_dict()  # no longer in force
        with pytest.raises(NotFoundError):
            dd.undo(study, 9_999, owner=OWNER).to_dict()
        view = dd.review(study, owner=OWNER).to_dict()
        assert {p["no"]: p["state"] for p in view["pairs"]}[erratum["no"]] == "waiting"
        assert view["history"][0]["what"].startswith(f"withdrew #{merged['seq']} (merge)")
        assert view["history"][0]["by"] == "local"
        assert len(study_decisions(desk.store, study)) == 1
        # a second run applies the decisions in force: the kept-apart pair stays decided
        rerun = _run(dd, study)
        assert rerun["run"]["id"] != run["id"] and rerun["run"]["waiting"] == 4
        with pytest.raises(RefusedError) as stale:
            decide(dd, study, run["id"], 0, "merge")
        assert stale.value.code == "stale_run"
        with pytest.raises(NotFoundError):
            decide(dd, study, rerun["run"]["id"], 99, "merge")
        with pytest.raises(InputError) as bad:
            DecideRequest(study, rerun["run"]["id"], 0, "maybe")
        assert bad.value.code == "decision"

    on_desk(settings, body)


def test_a_merge_decision_changes_the_next_run(settings: Settings) -> None:
    def body(app: App) -> None:
        desk, dd = app, app.dedup
        study = fill_study(desk)
        first = _run(dd, study)
        for p in first["pairs"]:
            if p["mergeable"]:
                decide(dd, study, first["run"]["id"], p["no"], "merge")
        second = _run(dd, study)["run"]["counts"]
        # the erratum pairs join the two groups: one group fewer than before
        assert second["groups"] == first["run"]["counts"]["groups"] - 1
        runs = [e for e in study_history(desk.store, study) if e.kind == "run"]
        assert len(runs) == 2 and runs[-1].data["owner"] == "local"

    on_desk(settings, body)


def test_cancel_records_nothing_and_no_imports_is_refused(tmp_settings: Settings) -> None:
    def body(app: App) -> None:
        desk, dd = app, app.dedup
        empty = desk.workspace().create_study("Empty").id
        failed = dd.work(dd.start(empty, owner=OWNER).id, owner=OWNER)
        assert failed.state == "failed" and "no imported records" in (failed.message or "")
        study = fill_study(desk)
        job = dd.start(study, owner=OWNER)
        assert (
            dd.start(study, owner=OWNER).id == job.id
        )  # one active job per Study, kept by the store
        assert (
            dd.cancel(job.id, owner=OWNER).state == "cancelled"
        )  # a queued job is cancelled at once
        job = dd.work(job.id, owner=OWNER)
        assert job.state == "cancelled" and job.to_dict()["counts"] is None
        assert "nothing was recorded" in (job.message or "")
        assert study_history(desk.store, study) == []
        assert dd.review(study, owner=OWNER).to_dict()["run"] is None
        with pytest.raises(NotFoundError):
            dd.job("0" * 32, owner=OWNER)
        with pytest.raises(NotFoundError):
            dd.job("dd-nope", owner=OWNER)
        # a started job is run by a job runner (the app's, in a server) and finishes
        runner = JobRunner(app.jobs, dd.handlers(), poll_s=0.05)
        runner.start()
        try:
            started = dd.start(study, owner=OWNER)
            assert started.id != job.id and started.state == "running"
            for _ in range(1200):
                if dd.job(started.id, owner=OWNER).state != "running":
                    break
                asyncio.run(asyncio.sleep(0.05))
        finally:
            runner.stop()
        assert dd.job(started.id, owner=OWNER).state == "done"
        assert dd.cancel(started.id, owner=OWNER).state == "done"  # a finished job stays finished
        assert dd.review(study, owner=OWNER).to_dict()["run"]["id"] == started.id

    on_desk(tmp_settings, body)


def test_a_file_imported_twice_counts_once(tmp_settings: Settings) -> None:
    def body(app: App) -> None:
        desk, dd = app, app.dedup
        study = fill_study(desk)
        import_into(desk, study, [("again.ris", REGISTRY_RIS.encode())])
        view = _run(dd, study)
        assert view["run"]["counts"]["records"] == 18
        assert view["run"]["repeats_skipped"] == ["again.ris"]

    on_desk(tmp_settings, body)


def test_web_decisions_are_reused_by_the_cli_workflow(settings: Settings, tmp_path: Path) -> None:
    from litdesk.services.dedup import DedupRequest

    def body(app: App) -> None:
        desk, dd = app, app.dedup
        study = fill_study(desk)
        view = _run(dd, study)
        decided = [p for p in view["pairs"] if p["mergeable"]][:2]
        for p in decided:
            decide(dd, study, view["run"]["id"], p["no"], "distinct")
        folder = tmp_path
        (folder / "haematology.csv").write_bytes(haematology_subset())
        (folder / "registry.ris").write_bytes(REGISTRY_RIS.encode())
        asked: list[tuple[str | None, str | None]] = []

        def reviewer(pair: Any, ra: Any, pa: Any, rb: Any, pb: Any) -> None:
            asked.append((ra.source_id, rb.source_id))
            return None  # skip

        request = DedupRequest(
            (str(folder / "haematology.csv"), str(folder / "registry.ris")), study=study
        )
        outcome = dd.run(request, owner=OWNER, reviewer=reviewer)
        skipped = {frozenset((p["a"]["source_id"], p["b"]["source_id"])) for p in decided}
        assert len(asked) == 5 - len(decided)  # the web's decisions are not asked again
        assert not skipped & {frozenset(a) for a in asked}
        assert outcome.new_decisions == 0

    on_desk(settings, body)


def test_a_job_whose_worker_died_is_run_again_and_recorded_once(settings: Settings) -> None:
    """A worker that died after recording the run (before the job was marked done), and one
    that died mid-run: the next claim finishes each job with one run summary each."""
    from litdesk.services.jobs import JobContext

    clock = ManualClock()

    def body(app: App) -> None:
        desk, dd, jobs = app, app.dedup, app.jobs
        study = fill_study(desk)
        (handler,) = dd.handlers().values()
        # 1. the first worker records the run and dies before it can say "done"
        job = dd.start(study, owner=OWNER)
        claimed = jobs.claim(["dedup.study"], "dead-worker:1", 1.0)
        assert claimed is not None and claimed.id == job.id
        result = handler(JobContext(jobs, claimed, threading.Event()))
        assert result is not None and result["run"] == job.id
        assert dd.job(job.id, owner=OWNER).state == "running"  # nobody said it finished
        assert (
            dd.review(study, owner=OWNER).to_dict()["run"]["id"] == job.id
        )  # but the run is there
        clock.advance(1.2)  # its lease (1 s) runs out
        done = dd.work(job.id, owner=OWNER)
        assert done.state == "done" and done.attempts == 2
        assert done.counts == result["counts"]
        runs = [e for e in study_history(desk.store, study) if e.kind == "run"]
        assert len(runs) == 1 and runs[0].data["run"] == job.id
        # 2. a worker dies mid-run (it read the imports, recorded nothing)
        second = dd.start(study, owner=OWNER)
        claimed = jobs.claim(["dedup.study"], "dead-worker:2", 1.0)
        assert claimed is not None and claimed.id == second.id
        assert jobs.progress(claimed, 1, 2, "reading")
        assert (
            dd.job(second.id, owner=OWNER).stage == "reading"
            and dd.job(second.id, owner=OWNER).done == 1
        )
        clock.advance(1.2)
        finished = dd.work(second.id, owner=OWNER)
        assert finished.state == "done" and finished.attempts == 2
        runs = [e for e in study_history(desk.store, study) if e.kind == "run"]
        assert [r.data["run"] for r in runs] == [job.id, second.id]
        assert dd.review(study, owner=OWNER).to_dict()["run"]["id"] == second.id

    on_desk(settings, body, clock=clock)
