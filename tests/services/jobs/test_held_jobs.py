"""Jobs.submit_held: a job its submitter runs itself, claimed in the insert's transaction;
a bound one is never claimed by another worker and fails with its message once its holder
is gone or stops (SQLite and PostgreSQL)."""

from __future__ import annotations

import threading

import pytest

from litdesk._clock import ManualClock
from litdesk.adapters.store import Store
from litdesk.services.jobs import JobContext, JobRunner, Jobs, TooManyJobs

BOUND = "the command running this job stopped; run it again with --replay DIR"


def test_a_held_job_is_running_at_once_and_only_its_holder_runs_it(store: Store) -> None:
    clock = ManualClock()
    jobs = Jobs(store, clock=clock)
    view, held = jobs.submit_held("t.work", {"n": 1}, owner="ann", worker_id="cli", lease_s=30)
    assert (view.status, view.attempts, held.worker_id, held.bound) == ("running", 1, "cli", None)
    assert jobs.claim(["t.work"], "server", 30) is None  # nothing queued: no window
    ran: list[str] = []

    def handler(ctx: JobContext) -> dict[str, object]:
        ran.append(ctx.job.worker_id)
        return {"ok": True}

    JobRunner(jobs, {"t.work": handler}).run_claimed(held)
    done = jobs.get(view.id, owner="ann")
    assert ran == ["cli"] and done.status == "done" and done.result == {"ok": True}


def test_a_bound_job_outlives_no_holder(store: Store) -> None:
    clock = ManualClock()
    jobs = Jobs(store, clock=clock)
    gone, _ = jobs.submit_held("t.work", {}, owner="ann", worker_id="cli", lease_s=30, bound=BOUND)
    free, _ = jobs.submit_held("t.work", {}, owner="ann", worker_id="cli2", lease_s=30)
    clock.advance(31)  # neither holder heartbeats any more
    listed = {j.id: j for j in jobs.list(owner="ann")}
    assert listed[gone.id].status == "failed" and listed[gone.id].message == BOUND
    assert listed[gone.id].result == {
        "error": {
            "error": "JobAbandoned", "code": "job_abandoned", "category": "external",
            "message": BOUND, "retry_after": None, "warnings": [],
        }
    }  # fmt: skip
    assert listed[free.id].status == "running"  # not bound: taken over as any job
    taken = jobs.claim(["t.work"], "server", 30)
    assert taken is not None and taken.id == free.id and taken.attempt == 2


def test_a_stopping_runner_fails_a_bound_job_instead_of_queueing_it(store: Store) -> None:
    jobs = Jobs(store)
    view, held = jobs.submit_held(
        "t.work", {}, owner="ann", worker_id="cli", lease_s=30, bound=BOUND
    )
    started, stop = threading.Event(), threading.Event()

    def handler(ctx: JobContext) -> None:
        started.set()
        stop.wait(10)

    runner = JobRunner(jobs, {"t.work": handler})
    thread = threading.Thread(target=runner.run_claimed, args=(held,))
    thread.start()
    assert started.wait(10)
    runner.stop()  # the process is shutting down
    stop.set()
    thread.join(10)
    ended = jobs.get(view.id, owner="ann")
    assert ended.status == "failed" and ended.message == BOUND
    assert jobs.claim(["t.work"], "server", 30) is None


def test_a_workers_look_at_the_queue_ends_a_bound_job_whose_holder_is_gone(
    store: Store,
) -> None:
    clock = ManualClock()
    jobs = Jobs(store, clock=clock)
    view, _ = jobs.submit_held("t.work", {}, owner="ann", worker_id="cli", lease_s=30, bound=BOUND)
    server = Jobs(store, clock=clock)  # another process's queue
    assert server.claim_or_lease_end(["t.work"], "server", 30) == (None, clock.now() + 30)
    clock.advance(31)
    assert server.claim_or_lease_end(["t.work"], "server", 30) == (None, None)
    row = jobs.repo.get(view.id)  # as stored, not settled by this read
    assert row is not None and (row.status, row.message) == ("failed", BOUND)
    assert server.claim_or_lease_end(["t.work"], "server", 30) == (None, None)  # nothing left


def test_interrupting_the_holder_ends_its_held_jobs_at_once(store: Store) -> None:
    """The submitting process is stopped (Ctrl-C, SIGTERM): its held jobs still running
    end failed in one transaction — not after their lease — saying why, when and what to
    run again; a job that ended first is left as it is; the handler, still running, stops
    at its next progress report and records nothing more; nobody takes the job over."""
    clock = ManualClock()
    jobs = Jobs(store, clock=clock)
    again = "run `litdesk study update` for the Study 'S' again"
    bound, held_bound = jobs.submit_held(
        "t.work", {}, owner="ann", worker_id="cli", lease_s=30, bound=BOUND, again=again
    )
    live, held_live = jobs.submit_held("t.work", {}, owner="ann", worker_id="cli", lease_s=30)
    ended, held_ended = jobs.submit_held("t.work", {}, owner="ann", worker_id="cli", lease_s=30)
    jobs.finish(held_ended, {"ok": True})
    # the insert's time and the interrupt's, on the store's own clock
    stopped = jobs.interrupt_held("interrupted by the user (Ctrl-C)")
    assert {v.id for v in stopped} == {bound.id, live.id}
    assert jobs.interrupt_held("again") == []  # each once
    first = jobs.get(bound.id, owner="ann")
    stamp = clock.utcnow().strftime("%Y-%m-%d %H:%M:%S UTC")
    assert first.status == "failed" and first.finished is not None
    assert first.message == f"interrupted by the user (Ctrl-C) at {stamp}; {again}."
    assert first.result is not None and first.result["error"]["code"] == "job_interrupted"
    assert first.result["error"]["message"] == first.message
    second = jobs.get(live.id, owner="ann")
    assert (
        second.status == "failed"
        and second.message == f"interrupted by the user (Ctrl-C) at {stamp}."
    )
    assert jobs.get(ended.id, owner="ann").status == "done"  # left as it was
    # the handlers, still running, learn it at their next report and record nothing
    assert jobs.progress(held_bound, 5, 10) is False and jobs.progress(held_live, 5, 10) is False
    runner_ctx = JobContext(jobs, held_live, threading.Event())
    assert runner_ctx.progress(6, 10) is False and runner_ctx.lease_lost
    assert jobs.get(live.id, owner="ann").done == 0
    clock.advance(60)
    assert Jobs(store, clock=clock).claim(["t.work"], "server", 30) is None  # never resumed


def test_a_dead_bound_job_stops_counting_once_its_lease_ran_out(store: Store) -> None:
    """A bound job whose process died (kill -9) counts among its account's active jobs
    until its lease runs out, not after — though no read has recorded its end yet."""
    clock = ManualClock()
    jobs = Jobs(store, clock=clock, max_active=1)
    dead, _ = jobs.submit_held("t.work", {}, owner="ann", worker_id="cli", lease_s=30, bound=BOUND)
    with pytest.raises(TooManyJobs):
        jobs.submit("t.work", {}, owner="ann")
    clock.advance(31)  # no heartbeat: the process is gone
    row = jobs.repo.get(dead.id)
    assert row is not None and row.status == "running"  # not yet recorded as ended
    queued = jobs.submit("t.work", {}, owner="ann")
    assert queued.status == "queued"
    assert jobs.get(dead.id, owner="ann").status == "failed"  # its end, read
