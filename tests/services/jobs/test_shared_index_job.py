"""One index job of the shared PDF library at a time, across every account and process
(issue 17), on SQLite and PostgreSQL (fresh schema): accounts submitting at once from
threads and from two processes get one and the same active ``library.index`` job; an
account that did not start it sees its progress only and cannot cancel it; once it has
ended the next submit starts a new one (a submit after its handler listed its work runs it
again first: ``test_shared_rerun``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import sqlalchemy as sa
from tests import _fork
from tests._ready import reaped, wait_ready

from litdesk.adapters.store import Store
from litdesk.adapters.store._jobs import jobs as jobs_table
from litdesk.services.jobs import JobNotFound, Jobs
from litdesk.services.library import INDEX_KIND, LibraryArea

SUBMITTER = r"""
import json, sys, threading, time
from pathlib import Path
from types import SimpleNamespace
from litdesk.adapters.store import open_store
from litdesk.services.jobs import Jobs
from litdesk.services.library import LibraryArea

store = open_store(sys.argv[1])
go, name, threads = Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
nothing = SimpleNamespace(root=Path(sys.argv[2]).parent, shelf=SimpleNamespace(push=lambda _f: None))  # index() reads no PDFs
area = LibraryArea(
    SimpleNamespace(), store=store, jobs=Jobs(store), providers=SimpleNamespace(),
    pdfs=nothing, make_library=lambda **_: None,
)
barrier = threading.Barrier(threads)
seen = []
lock = threading.Lock()

def submit(n):
    barrier.wait()
    view = area.index(owner=f"{name}-acct-{n % 3}")
    with lock:
        seen.append(view.id)

Path(str(go) + ".ready-" + name).touch()
while not go.exists():
    time.sleep(0.01)
workers = [threading.Thread(target=submit, args=(n,)) for n in range(threads)]
for w in workers:
    w.start()
for w in workers:
    w.join()
store.dispose()
print(json.dumps(seen))
"""


def _desk(store: Store, jobs: Jobs | None = None) -> LibraryArea:
    """The library area over ``store``'s job queue (``index`` reads no PDFs)."""
    nothing: Any = SimpleNamespace(
        root=Path("/nonexistent"), shelf=SimpleNamespace(push=lambda _folder: None)
    )
    return LibraryArea(
        nothing, store=store, jobs=jobs or Jobs(store), providers=nothing, pdfs=nothing,
        make_library=lambda **_: nothing,
    )  # fmt: skip


def _active_index_jobs(store: Store) -> list[tuple[str, str]]:
    t = jobs_table
    with store.read() as conn:
        rows = conn.execute(
            sa.select(t.c.id, t.c.owner).where(
                t.c.kind == INDEX_KIND, t.c.status.in_(["queued", "running"])
            )
        )
        return [(str(i), str(o)) for i, o in rows]


def _env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[3] / "src")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    return {**env, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}


def test_accounts_submitting_at_once_from_threads_get_one_index_job(store: Store) -> None:
    desk = _desk(store)
    threads = 12
    barrier = threading.Barrier(threads)
    views: list[Any] = []
    lock = threading.Lock()

    def submit(n: int) -> None:
        barrier.wait(30)
        view = desk.index(owner=f"acct-{n % 4}")
        with lock:
            views.append((f"acct-{n % 4}", view))

    workers = [threading.Thread(target=submit, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert len(views) == threads
    active = _active_index_jobs(store)
    assert len(active) == 1, active
    job_id, starter = active[0]
    assert {v.id for _, v in views} == {job_id}
    for owner, view in views:
        if owner == starter:
            assert view.owner == starter
        else:  # another account's job: its progress, not its details
            assert view.owner == "" and view.params == {} and view.result is None
            assert view.status == "queued" and view.active


def test_another_account_watches_the_progress_but_cannot_cancel(store: Store) -> None:
    jobs = Jobs(store)
    desk = _desk(store, jobs)
    started = desk.index(owner="ana")
    claimed = jobs.claim([INDEX_KIND], "worker-1", 30)
    assert claimed is not None and claimed.id == started.id and jobs.listing(claimed)
    assert jobs.progress(claimed, 3, 10, "paper.pdf", message="indexing ana's upload")
    seen = jobs.get(started.id, owner="bob")  # the web face polls this
    assert (seen.status, seen.done, seen.total, seen.current) == ("running", 3, 10, "paper.pdf")
    assert seen.owner == "" and seen.message == "" and seen.params == {}
    assert desk.index(owner="bob").id == started.id
    assert [j.id for j in jobs.list(owner="bob")] == []  # bob's own list stays his
    try:
        jobs.cancel(started.id, owner="bob")
    except JobNotFound:
        pass
    else:
        raise AssertionError("bob cancelled ana's index job")
    assert jobs.get(started.id, owner="ana").cancel_requested is False
    # a job of a kind that is not shared stays the owner's alone
    other = jobs.submit("report.build", {"x": 1}, owner="ana")
    try:
        jobs.get(other.id, owner="bob")
    except JobNotFound:
        pass
    else:
        raise AssertionError("bob saw ana's report job")
    # bob's request came after the job listed its work: it runs again before it ends
    assert jobs.finish(claimed, {"indexed": 1}).status == "queued"
    rerun = jobs.claim([INDEX_KIND], "worker-1", 30)
    assert rerun is not None and rerun.id == started.id and jobs.listing(rerun)
    assert jobs.finish(rerun, {"indexed": 1}).status == "done"
    again = desk.index(owner="bob")
    assert again.id != started.id and again.owner == "bob"
    assert _active_index_jobs(store) == [(again.id, "bob")]


def test_two_processes_of_accounts_submitting_at_once_get_one_index_job(
    store: Store, store_url: str, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    threads = 6
    procs = [
        _fork.popen(
            [sys.executable, "-c", SUBMITTER, store_url, str(go), f"p{n}", str(threads)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for n in range(2)
    ]
    seen: list[str] = []
    with reaped(procs):
        wait_ready(go, ["p0", "p1"], procs)  # both have imported litdesk and wait for go
        for p in procs:
            try:
                out, err = p.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                raise AssertionError("a submitting process did not finish within 120 s") from None
            assert p.returncode == 0, err[-3000:]
            seen.extend(json.loads(out))
    assert len(seen) == 2 * threads
    active = _active_index_jobs(store)
    assert len(active) == 1, active
    assert set(seen) == {active[0][0]}
