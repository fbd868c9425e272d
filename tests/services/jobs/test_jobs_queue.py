"""The jobs queue on SQLite and PostgreSQL: submit/get/list/cancel by owner, claims,
progress, leases that expire and resume, the limits, and the runner's outcomes."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import sqlalchemy as sa

from litdesk import ManualClock
from litdesk.adapters.store import Store
from litdesk.adapters.store._jobs import jobs as jobs_table
from litdesk.services.jobs import (
    JobContext,
    JobInputInvalid,
    JobLeaseLost,
    JobNotFound,
    JobRunner,
    Jobs,
    TooManyJobs,
)


def _expire(store: Store, job_id: str) -> None:
    """The holder's lease ran out (as when its process died): set it in the past."""
    with store.write() as conn:
        conn.execute(sa.update(jobs_table).where(jobs_table.c.id == job_id).values(lease_until=1.0))


def test_submit_get_list_by_owner(jobs: Jobs) -> None:
    a = jobs.submit("library.index", {"files": ["a.pdf"]}, owner="ann")
    b = jobs.submit("report.build", {}, owner="ann")
    jobs.submit("library.index", {}, owner="bob")
    assert a.status == "queued" and a.done == 0 and a.total is None and a.started is None
    got = jobs.get(a.id, owner="ann")
    assert got.params == {"files": ["a.pdf"]} and got.kind == "library.index"
    assert [j.id for j in jobs.list(owner="ann")] == [b.id, a.id]  # newest first
    assert [j.id for j in jobs.list(owner="ann", kinds=["library.index"])] == [a.id]
    with pytest.raises(JobNotFound):
        jobs.get(a.id, owner="bob")  # another owner's job is not found
    with pytest.raises(JobNotFound):
        jobs.cancel(a.id, owner="bob")
    with pytest.raises(JobNotFound):
        jobs.get("0" * 32, owner="ann")
    assert a.to_dict()["status"] == "queued" and a.to_dict()["active"] is True
    assert jobs.any_active(["library.index"]) and not jobs.any_active(["library.other"])
    jobs.cancel(a.id, owner="ann")
    assert jobs.any_active(["library.index"])  # bob's is still queued
    jobs.cancel(b.id, owner="ann")
    assert not jobs.any_active(["report.build"])  # cancelled: nothing of that kind is active


def test_bad_input_is_refused(jobs: Jobs) -> None:
    with pytest.raises(JobInputInvalid):
        jobs.submit("Library Index", {}, owner="ann")
    with pytest.raises(JobInputInvalid):
        jobs.submit("library.index", {"x": object()}, owner="ann")
    with pytest.raises(JobInputInvalid):
        jobs.submit("library.index", {"x": "y" * 70_000}, owner="ann")
    with pytest.raises(JobInputInvalid):
        jobs.submit("library.index", {}, owner="")
    assert jobs.list(owner="ann") == []


def test_active_limit_and_reuse(store: Store) -> None:
    jobs = Jobs(store, max_active=2)
    first = jobs.submit("library.index", {}, owner="ann", reuse_active=True)
    again = jobs.submit("library.index", {}, owner="ann", reuse_active=True)
    assert again.id == first.id  # one index job at a time, watched by everyone
    jobs.submit("report.build", {}, owner="ann")
    with pytest.raises(TooManyJobs) as exc:
        jobs.submit("report.build", {}, owner="ann")
    assert exc.value.details["active"] == 2
    jobs.submit("report.build", {}, owner="bob")  # per owner
    jobs.cancel(first.id, owner="ann")
    jobs.submit("report.build", {}, owner="ann")  # room again


def test_claim_progress_finish(jobs: Jobs) -> None:
    v = jobs.submit("library.index", {"n": 3}, owner="ann")
    assert jobs.claim(["report.build"], "w1", 30) is None  # other kinds only
    job = jobs.claim(["library.index"], "w1", 30)
    assert job is not None and job.id == v.id and job.attempt == 1 and job.checkpoint is None
    assert jobs.claim(["library.index"], "w2", 30) is None  # held
    assert jobs.progress(job, 1, 3, "a.pdf", rate=2.5, checkpoint={"done": ["a"]})
    seen = jobs.get(v.id, owner="ann")
    assert (seen.status, seen.done, seen.total, seen.current, seen.rate) == (
        "running",
        1,
        3,
        "a.pdf",
        2.5,
    )
    assert seen.heartbeat is not None and seen.started is not None
    end = jobs.finish(job, {"indexed": 3})
    assert end.status == "done" and end.result == {"indexed": 3} and end.finished is not None
    assert end.current is None
    with pytest.raises(JobLeaseLost):
        jobs.finish(job, {})  # recorded once
    assert jobs.cancel(v.id, owner="ann").status == "done"  # an ended job stays as it is


def test_cancel_queued_and_running(jobs: Jobs) -> None:
    q = jobs.submit("library.index", {}, owner="ann")
    assert jobs.cancel(q.id, owner="ann").status == "cancelled"
    assert jobs.claim(["library.index"], "w1", 30) is None
    r = jobs.submit("library.index", {}, owner="ann")
    job = jobs.claim(["library.index"], "w1", 30)
    assert job is not None
    asked = jobs.cancel(r.id, owner="ann")
    assert asked.status == "running" and asked.cancel_requested
    assert jobs.progress(job, 1, 2, "x") is False  # the handler must stop
    assert jobs.stopped(job, {"done": 1}).status == "cancelled"


def test_expired_lease_is_claimed_again_and_resumes(store: Store, jobs: Jobs) -> None:
    v = jobs.submit("library.index", {}, owner="ann")
    first = jobs.claim(["library.index"], "dead", 30)
    assert first is not None
    jobs.progress(first, 2, 5, "b.pdf", checkpoint={"finished": ["a.pdf", "b.pdf"]})
    assert jobs.claim(["library.index"], "w2", 30) is None  # lease still valid
    _expire(store, v.id)
    second = jobs.claim(["library.index"], "w2", 30)
    assert second is not None and second.id == v.id and second.attempt == 2
    assert second.checkpoint == {"finished": ["a.pdf", "b.pdf"]} and second.done == 2
    # the old holder lost the job: its writes are refused, the new holder's count
    assert jobs.progress(first, 3, 5, "c.pdf") is False
    with pytest.raises(JobLeaseLost):
        jobs.finish(first, {"by": "dead"})
    assert jobs.finish(second, {"by": "w2"}).result == {"by": "w2"}


def test_a_lease_runs_out_on_the_jobs_clock(store: Store) -> None:
    """Claims, heartbeats and cancels read the clock the queue was given: a lease runs out
    when that clock passes it, not before."""
    clock = ManualClock()
    jobs = Jobs(store, clock=clock)
    v = jobs.submit("library.index", {}, owner="ann")
    first = jobs.claim(["library.index"], "dead", 30)
    assert first is not None
    clock.advance(20)
    assert jobs.heartbeat(first)  # renewed until 20 + 30
    assert jobs.get(v.id, owner="ann").heartbeat == clock.utcnow().isoformat(
        timespec="microseconds"
    )
    clock.advance(29.9)
    assert jobs.claim(["library.index"], "w2", 30) is None  # 0.1 s of the lease left
    clock.advance(0.2)
    second = jobs.claim(["library.index"], "w2", 30)
    assert second is not None and second.id == v.id and second.attempt == 2
    assert jobs.heartbeat(first) is False  # the dead worker lost it
    clock.advance(31)
    assert jobs.cancel(v.id, owner="ann").status == "cancelled"  # its worker died too


def test_a_job_whose_worker_keeps_dying_fails(store: Store) -> None:
    jobs = Jobs(store, max_attempts=2)
    v = jobs.submit("library.index", {}, owner="ann")
    for _ in range(2):
        job = jobs.claim(["library.index"], "w", 30)
        assert job is not None
        _expire(store, v.id)
    assert jobs.claim(["library.index"], "w", 30) is None
    ended = jobs.get(v.id, owner="ann")
    assert ended.status == "failed" and "stopped 2 times" in ended.message


def test_cancel_of_a_job_whose_worker_died_is_immediate(store: Store, jobs: Jobs) -> None:
    v = jobs.submit("library.index", {}, owner="ann")
    assert jobs.claim(["library.index"], "dead", 30) is not None
    _expire(store, v.id)
    assert jobs.cancel(v.id, owner="ann").status == "cancelled"
    assert jobs.claim(["library.index"], "w2", 30) is None


# --- the runner ---------------------------------------------------------------------


def _counting(
    items: int,
    seen: list[tuple[int, int]],
    gate: threading.Event | None = None,
    waiting: threading.Event | None = None,
) -> Any:
    """A resumable handler: counts to ``items``, one checkpoint per item; waits on
    ``gate`` after the first item when given (setting ``waiting`` as it starts to wait)."""

    def handler(ctx: JobContext) -> dict[str, Any] | None:
        start = int((ctx.checkpoint or {}).get("next", 0))
        for i in range(start, items):
            seen.append((ctx.attempt, i))
            if not ctx.progress(i + 1, items, f"item {i}", rate=1.0, checkpoint={"next": i + 1}):
                return {"stopped_at": i + 1}
            if gate is not None and i == start:
                if waiting is not None:
                    waiting.set()
                gate.wait(20)
        return {"counted": items}

    return handler


def _wait(jobs: Jobs, job_id: str, predicate: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = jobs.get(job_id, owner="ann")
        if predicate(v):
            return v
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} never reached the state: {jobs.get(job_id, owner='ann')}")


def test_runner_runs_a_job_to_done(jobs: Jobs) -> None:
    seen: list[tuple[int, int]] = []
    runner = JobRunner(jobs, {"count": _counting(4, seen)}, poll_s=0.05)
    v = jobs.submit("count", {}, owner="ann")
    runner.start()
    try:
        end = _wait(jobs, v.id, lambda j: not j.active)
    finally:
        runner.stop()
    assert end.status == "done" and end.result == {"counted": 4} and end.done == 4
    assert seen == [(1, 0), (1, 1), (1, 2), (1, 3)]


def test_runner_failures_are_recorded(jobs: Jobs) -> None:
    def broken(ctx: JobContext) -> dict[str, Any]:
        raise KeyError("bug")

    def refused(ctx: JobContext) -> dict[str, Any]:
        raise JobInputInvalid("the folder is not readable")

    runner = JobRunner(jobs, {"broken": broken, "refused": refused})
    a = jobs.submit("broken", {}, owner="ann")
    b = jobs.submit("refused", {}, owner="ann")
    assert runner.run_once() and runner.run_once() and not runner.run_once()
    fa, fb = jobs.get(a.id, owner="ann"), jobs.get(b.id, owner="ann")
    assert fa.status == "failed" and fa.message == "internal error in the broken job: KeyError"
    assert fb.status == "failed" and fb.message == "the folder is not readable"


def test_runner_cancel_stops_the_handler(jobs: Jobs) -> None:
    seen: list[tuple[int, int]] = []
    gate = threading.Event()
    runner = JobRunner(jobs, {"count": _counting(5, seen, gate)}, poll_s=0.05)
    v = jobs.submit("count", {}, owner="ann")
    runner.start()
    try:
        _wait(jobs, v.id, lambda j: j.done == 1)
        jobs.cancel(v.id, owner="ann")
        gate.set()
        end = _wait(jobs, v.id, lambda j: not j.active)
    finally:
        runner.stop()
    assert end.status == "cancelled" and end.result == {"stopped_at": 2}
    assert len(seen) == 2  # stopped at its next progress report


def test_runner_stop_hands_the_job_back_and_a_new_runner_resumes(jobs: Jobs) -> None:
    seen: list[tuple[int, int]] = []
    gate, waiting = threading.Event(), threading.Event()
    first = JobRunner(jobs, {"count": _counting(4, seen, gate, waiting)}, poll_s=0.05)
    v = jobs.submit("count", {}, owner="ann")
    first.start()
    # stop only once the handler waits after item 0: its progress for item 0 is stored
    # before progress() returns, so "done == 1" alone could stop it inside that call
    assert waiting.wait(30)
    stopper = threading.Thread(target=first.stop)
    stopper.start()
    time.sleep(0.1)
    gate.set()
    stopper.join(30)
    back = jobs.get(v.id, owner="ann")
    assert back.status == "queued" and back.done == 2  # handed back after item 1 (0-based)
    second = JobRunner(jobs, {"count": _counting(4, seen)})
    assert second.run_once()
    end = jobs.get(v.id, owner="ann")
    assert end.status == "done" and end.attempts == 2
    # resumed from the checkpoint: items 0 and 1 were not counted again
    assert seen == [(1, 0), (1, 1), (2, 2), (2, 3)]


def test_runner_heartbeat_keeps_a_slow_job(store: Store) -> None:
    """A handler silent for longer than its lease keeps the job: the runner heartbeats."""
    clock = ManualClock()
    jobs = Jobs(store, clock=clock)
    release = threading.Event()

    def slow(ctx: JobContext) -> dict[str, Any]:
        release.wait(20)
        return {"ok": True}

    runner = JobRunner(jobs, {"slow": slow}, lease_s=1.0, poll_s=0.05, beat_s=0.05)
    v = jobs.submit("slow", {}, owner="ann")
    runner.start()
    try:
        _wait(jobs, v.id, lambda j: j.status == "running")
        for _ in range(4):  # two lease lengths in all without a progress report
            clock.advance(0.5)
            stamp = clock.utcnow().isoformat(timespec="microseconds")
            _wait(jobs, v.id, lambda j, s=stamp: (j.heartbeat or "") >= s)  # renewed
            assert jobs.claim(["slow"], "thief", 30) is None
        release.set()
        end = _wait(jobs, v.id, lambda j: not j.active)
    finally:
        release.set()
        runner.stop()
    assert end.status == "done" and end.attempts == 1


def test_the_cap_counts_an_accounts_jobs_whatever_their_owner(store: Store) -> None:
    """Issue 29: chat questions are owned by their session and deduplication runs by their
    Study; one account opening many sessions or Studies still has at most ``max_active``
    active jobs of every kind together; another account is not affected."""
    jobs = Jobs(store, max_active=3)
    jobs.submit("chat.answer", {}, owner="chat:s1", account="ann")
    jobs.submit("chat.answer", {}, owner="chat:s2", account="ann")
    jobs.submit("dedup.study", {}, owner="study:x", account="ann")
    with pytest.raises(TooManyJobs) as exc:
        jobs.submit("chat.answer", {}, owner="chat:s3", account="ann")
    assert exc.value.code == "too_many_jobs" and exc.value.details["active"] == 3
    with pytest.raises(TooManyJobs):
        jobs.submit("report.build", {}, owner="ann")  # the account's own kinds count too
    assert jobs.list(owner="chat:s3") == []
    jobs.submit("chat.answer", {}, owner="chat:s4", account="bob")
    jobs.submit("report.build", {}, owner="bob")
    # a job charged to another account does not count against its owner
    jobs.submit("dedup.study", {}, owner="study:y", account="bob")
    assert len(jobs.list(owner="bob")) == 1


def test_a_full_queue_of_one_account_does_not_run_before_anothers_next_job(
    store: Store,
) -> None:
    """Red team: bob keeps his queue full (his Studies' jobs, charged to him); ana's one
    job, queued after all of his, is the next one claimed once one of bob's runs — not
    after his whole queue (first come, first served across accounts made her wait for
    it: 18 s behind 20 imports on a team server). Within an account the order stays
    oldest first, and with every account running alike too."""
    jobs = Jobs(store, max_active=10)
    bobs = [
        jobs.submit("dedup.study", {"n": i}, owner=f"study:b{i}", account="bob") for i in range(5)
    ]
    anas = jobs.submit("dedup.study", {}, owner="study:a", account="ana")
    first = jobs.claim(["dedup.study"], "w1", 30)
    assert first is not None and first.id == bobs[0].id  # the oldest, nobody runs anything
    second = jobs.claim(["dedup.study"], "w2", 30)
    assert second is not None and second.id == anas.id, second  # not bobs[1]
    third = jobs.claim(["dedup.study"], "w3", 30)
    assert third is not None and third.id == bobs[1].id  # then bob's, oldest first
    # another kind's runner counts only its own kinds' running jobs: bob's running dedup
    # runs do not put his retrain behind ana's later one
    retrain_bob = jobs.submit("screening.retrain", {}, owner="study:b0:s", account="bob")
    retrain_ana = jobs.submit("screening.retrain", {}, owner="study:a:s", account="ana")
    got = jobs.claim(["screening.retrain"], "w4", 30)
    assert got is not None and got.id == retrain_bob.id
    got = jobs.claim(["screening.retrain"], "w5", 30)
    assert got is not None and got.id == retrain_ana.id


def test_an_idle_claim_does_not_queue_behind_another_writer(
    tmp_path: Any, sqlite_template: Any
) -> None:
    """A runner polling an empty queue reads: it neither takes SQLite's write lock nor
    waits for a writer holding it (four runners poll every second in every server)."""
    from tests._store_template import sqlite_url_at_head

    from litdesk.adapters.store import open_store

    store = open_store(sqlite_url_at_head(sqlite_template, tmp_path / "s" / "litdesk.sqlite3"))
    jobs = Jobs(store)
    try:
        with store.write():  # another writer's transaction holds the write lock
            started = time.monotonic()
            assert jobs.claim(["library.index"], "w", 30) is None
            assert time.monotonic() - started < 10  # the lock's busy timeout is 30 s
        queued = jobs.submit("library.index", {}, owner="ann")
        claimed = jobs.claim(["library.index"], "w", 30)
        assert claimed is not None and claimed.id == queued.id
    finally:
        store.dispose()


def test_a_status_read_never_waits_for_a_busy_writer(store: Store, jobs: Jobs) -> None:
    """A page polls a job's status while its worker writes (a deduplication recording its
    run, a whole search saving 3,000 records): the read answers at once with the state
    last committed — it never waits for the write lock, nor fails ("database is locked")."""
    view = jobs.submit("t.work", {}, owner="ann")
    held, release = threading.Event(), threading.Event()

    def writer() -> None:
        with store.write() as conn:  # holds the write lock (SQLite: BEGIN IMMEDIATE)
            conn.execute(
                sa.update(jobs_table).where(jobs_table.c.id == view.id).values(message="busy")
            )
            held.set()
            release.wait(10)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert held.wait(10)
        started = time.monotonic()
        seen = jobs.get(view.id, owner="ann")
        listed = jobs.list(owner="ann")
        took = time.monotonic() - started
    finally:
        release.set()
        thread.join(10)
    assert seen.status == "queued" and seen.message == "" and listed[0].id == view.id
    assert took < 2.0, took  # the busy timeout is 30 s: a wait would show
