"""When an idle job runner looks at the queue (SQLite and PostgreSQL): at once for a job
queued through its own :class:`Jobs` (whatever area submitted it, with no explicit
``wake()``), just after a running job's lease runs out (its worker died), and within its
poll for a job queued by another process — so a runner polls every second, not ten times a
second, and still misses nothing; the idle runners of one queue (an app's four) share one
look per poll."""

from __future__ import annotations

import threading
import time
from typing import Any

import sqlalchemy as sa

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


def test_the_idle_runners_of_one_queue_share_one_look(store: Store) -> None:
    """Four idle runners of one :class:`Jobs` (an app's) polling every 0.1 s read the queue
    about once a poll for all of them — before, each read it every poll (about 40 reads a
    second here) — and a job another process queues for any of them still runs."""
    here, there = Jobs(store), Jobs(store)
    runners = [JobRunner(here, {f"work{n}": _ok}, poll_s=0.1) for n in range(4)]
    reads: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if "FROM jobs" in statement:
            reads.append(statement)

    for runner in runners:
        runner.start()
    sa.event.listen(store.engine, "before_cursor_execute", seen)
    try:
        time.sleep(0.3)  # every runner has looked once and waits
        reads.clear()
        time.sleep(1.0)
        assert 1 <= len(reads) <= 20, reads  # ~10 shared looks (+ each runner's own every 1 s)
        jobs = [there.submit(f"work{n}", {}, owner="ann") for n in (0, 3)]
        assert all(_ended(here, v.id, 5).status == "done" for v in jobs)
    finally:
        sa.event.remove(store.engine, "before_cursor_execute", seen)
        for runner in runners:
            runner.stop()
    deadline = time.monotonic() + 5
    while here._looker is not None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert here._looker is None  # the look ends with its last listener


def test_an_app_stops_a_runner_started_on_its_own(tmp_settings: Any) -> None:
    """A runner of an app started without ``start_workers`` (a test's, a one-shot
    worker's) stops when the app closes, instead of polling its closed store."""
    from litdesk.services.app import open_app_sync

    with open_app_sync(tmp_settings) as app:
        runner = app.job_runner
        runner.start()
        assert runner.running
    assert not runner.running


def test_the_last_listener_stops_after_the_look_in_flight(store: Store) -> None:
    """Stopping the last polling listener waits for a look that is reading the queue: an
    app closes its store right after stopping its runners, and a read after that would
    open a connection on the disposed engine that nobody closes (seen as psycopg's
    ResourceWarning in a later test)."""
    jobs = Jobs(store)
    reading, release = threading.Event(), threading.Event()
    soonest = jobs.repo.soonest

    def slow_soonest(kinds: Any) -> Any:
        reading.set()
        release.wait(5)
        return soonest(kinds)

    jobs.repo.soonest = slow_soonest  # type: ignore[method-assign]
    stop = jobs.listen(["work"], lambda: None, poll_s=0.05)
    looker = jobs._looker
    assert looker is not None and reading.wait(5)
    threading.Timer(0.3, release.set).start()
    stop()
    assert not looker.is_alive()  # before: stop returned while the read was in flight
    assert jobs._looker is None
