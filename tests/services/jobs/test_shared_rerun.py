"""A shared job (the library's index: one at a time for every account) reused by a request
after its handler last listed its work runs again, on SQLite and PostgreSQL: the request's
work is never left unread (CI: a PDF uploaded while the index job built its vector index
stayed "not indexed yet"). Requests before the listing are read by it and cost no second
run; many requests still make one job; a request that finds the job ending (PostgreSQL:
between the reuse's read and its mark) queues a new job instead."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa

from litdesk.adapters.store import Store
from litdesk.adapters.store._jobs import jobs as jobs_table
from litdesk.services.jobs import JobContext, JobRunner, Jobs

KIND = "library.index"


def _submit(jobs: Jobs, owner: str) -> str:
    """An upload's request: the active shared job, or a new one (as ``LibraryArea.index``)."""
    return jobs.submit(KIND, {}, owner=owner, reuse_active=True, shared=True).id


def _lister(
    inbox: list[str], reads: list[list[str]], after: Callable[[int], None]
) -> Callable[[JobContext], dict[str, Any]]:
    """A handler that lists ``inbox`` (telling the queue first), reads it, then calls
    ``after(run)`` — the window where it shares folders and builds the vector index."""

    def handler(ctx: JobContext) -> dict[str, Any]:
        assert ctx.listing()
        reads.append(list(inbox))
        after(len(reads))
        return {"read": reads[-1]}

    return handler


def _status(store: Store, job_id: str) -> tuple[str, int, bool]:
    t = jobs_table
    with store.read() as conn:
        row = conn.execute(
            sa.select(t.c.status, t.c.attempts, t.c.rerun_requested).where(t.c.id == job_id)
        ).one()
    return str(row[0]), int(row[1]), bool(row[2])


def test_an_upload_after_the_last_listing_runs_the_job_again(store: Store) -> None:
    web, other_host = Jobs(store), Jobs(store)  # the request comes through another process
    inbox = ["a.pdf"]
    reads: list[list[str]] = []
    joined: list[str] = []

    def upload_late(run: int) -> None:
        if run == 1:  # the handler has listed; it is building the vector index
            inbox.append("late.pdf")
            joined.extend(_submit(other_host, "ben") for _ in range(3))

    runner = JobRunner(web, {KIND: _lister(inbox, reads, upload_late)})
    job_id = _submit(web, "ann")
    assert runner.run_once()
    assert joined == [job_id] * 3  # the uploads joined the running job: one job
    assert _status(store, job_id) == ("queued", 0, False)  # back in the queue, not ended
    assert web.get(job_id, owner="ann").active
    assert runner.run_once()
    assert reads == [["a.pdf"], ["a.pdf", "late.pdf"]]  # the late upload was read, once
    end = web.get(job_id, owner="ann")
    assert end.status == "done" and end.result == {"read": ["a.pdf", "late.pdf"]}
    assert end.attempts == 1  # a run again is not a worker that died
    assert not runner.run_once()


def test_uploads_before_the_listing_are_read_by_it_and_cost_no_second_run(
    store: Store,
) -> None:
    jobs = Jobs(store)
    inbox = ["a.pdf"]
    reads: list[list[str]] = []
    job_id = _submit(jobs, "ann")
    runner = JobRunner(jobs, {KIND: _lister(inbox, reads, lambda _run: None)})
    held = jobs.claim([KIND], "w1", 30)
    assert held is not None and held.id == job_id
    inbox.append("b.pdf")  # uploaded after the claim, before the handler lists
    assert _submit(jobs, "ben") == job_id
    assert _status(store, job_id) == ("running", 1, True)
    runner.run_claimed(held)
    assert reads == [["a.pdf", "b.pdf"]]
    assert jobs.get(job_id, owner="ann").status == "done"
    assert not runner.run_once()


def test_a_cancelled_or_failed_job_is_not_run_again(store: Store) -> None:
    jobs = Jobs(store)
    job_id = _submit(jobs, "ann")
    held = jobs.claim([KIND], "w1", 30)
    assert held is not None and jobs.listing(held)
    assert _submit(jobs, "ben") == job_id
    jobs.fail(held, "the disk is full")
    assert _status(store, job_id) == ("failed", 1, True)
    assert _submit(jobs, "ben") != job_id  # the next upload starts a new job


@pytest.mark.parametrize("store_url", ["postgres"], indirect=True)
def test_a_request_that_finds_the_job_ending_queues_a_new_one(store: Store) -> None:
    """PostgreSQL: the job finishes between the request's read of it (still running) and
    its mark; the mark's update finds it ended, so the request queues a new job."""
    jobs = Jobs(store)
    job_id = _submit(jobs, "ann")
    held = jobs.claim([KIND], "w1", 30)
    assert held is not None and jobs.listing(held)
    finished: list[str] = []

    def finish_first(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if statement.startswith("UPDATE jobs SET rerun_requested") and not finished:
            finished.append(jobs.finish(held, {"read": []}).status)  # another connection

    sa.event.listen(store.engine, "before_cursor_execute", finish_first)
    try:
        again = _submit(jobs, "ben")
    finally:
        sa.event.remove(store.engine, "before_cursor_execute", finish_first)
    assert finished == ["done"]
    assert again != job_id
    assert _status(store, job_id) == ("done", 1, False)
    assert _status(store, again) == ("queued", 0, False)
