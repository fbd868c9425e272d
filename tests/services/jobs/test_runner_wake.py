"""When an idle job runner looks at the queue (SQLite and PostgreSQL): at once for a job
queued through its own :class:`Jobs` (whatever area submitted it, with no explicit
``wake()``), just after a running job's lease runs out (its worker died), and within its
poll for a job queued by another process — so a runner polls every second, not ten times a
second, and still misses nothing."""

from __future__ import annotations

import threading
import time
from typing import Any

from litdesk.adapters.store import Store
from litdesk.services.jobs import JobContext, JobRunner, Jobs, JobView


def _ok(ctx: JobContext) -> dict[str, Any]:
    return {"ran": ctx.job.id}


def _ended(jobs: Jobs, job_id: str, within: float) -> JobView:
    """The job once it ended, within ``within`` seconds (else what it was)."""
    deadline = time.monotonic() + within
    while True:
        view = jobs.get(job_id, owner="ann")
        if not view.active or time.monotonic() > deadline:
            return view
        time.sleep(0.02)


def test_a_job_submitted_through_the_queue_wakes_the_idle_runner(jobs: Jobs) -> None:
    """Nothing calls ``runner.wake()``: the queue does. Before, the runner found the job
    only at its next poll (30 s here)."""
    runner = JobRunner(jobs, {"work": _ok}, poll_s=30)
    runner.start()
    try:
        time.sleep(0.2)  # the runner has looked once and waits
        for _ in range(3):  # and again once idle after each job
            v = jobs.submit("work", {}, owner="ann")
            assert _ended(jobs, v.id, 5).status == "done"
        other = jobs.submit("other.kind", {}, owner="ann")  # not this runner's
        time.sleep(0.2)
        assert jobs.get(other.id, owner="ann").status == "queued"
    finally:
        runner.stop()
    stopped = jobs.submit("work", {}, owner="ann")  # a stopped runner no longer listens
    time.sleep(0.2)
    assert jobs.get(stopped.id, owner="ann").status == "queued"


def test_a_dead_workers_job_is_taken_over_as_its_lease_ends(jobs: Jobs) -> None:
    """A worker holding a job stops heartbeating (its process died): the idle runner looks
    again just after the lease ends, not at its next poll (30 s here)."""
    v = jobs.submit("work", {}, owner="ann")
    held = jobs.claim(["work"], "dead-worker", 1.0)
    assert held is not None and held.id == v.id
    runner = JobRunner(jobs, {"work": _ok}, poll_s=30)
    started = time.monotonic()
    runner.start()
    try:
        end = _ended(jobs, v.id, 6)
    finally:
        runner.stop()
    assert end.status == "done" and end.attempts == 2
    assert time.monotonic() - started < 4  # the lease was 1 s


def test_a_job_queued_by_another_process_is_found_by_polling(store: Store) -> None:
    """Another process's queue (another :class:`Jobs` on the same store) cannot wake this
    runner: it finds the job at its next poll."""
    here, there = Jobs(store), Jobs(store)
    runner = JobRunner(here, {"work": _ok}, poll_s=0.5)
    runner.start()
    try:
        time.sleep(0.2)
        v = there.submit("work", {}, owner="ann")
        assert _ended(here, v.id, 5).status == "done"
    finally:
        runner.stop()


def test_slots_share_the_wake_up_and_none_is_lost(jobs: Jobs) -> None:
    """Jobs submitted from several threads at once, runners of two slots polling every
    30 s: every job runs promptly (a wake-up arriving during a claim is not lost)."""
    runner = JobRunner(jobs, {"work": _ok}, slots=2, poll_s=30)
    runner.start()
    try:
        ids: list[str] = []
        lock = threading.Lock()

        def submit() -> None:
            for _ in range(5):
                view = jobs.submit("work", {}, owner="ann")
                with lock:
                    ids.append(view.id)
                time.sleep(0.01)

        threads = [threading.Thread(target=submit) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(_ended(jobs, i, 10).status == "done" for i in ids)
    finally:
        runner.stop()
