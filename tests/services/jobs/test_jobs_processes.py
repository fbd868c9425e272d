"""Jobs across processes on SQLite and PostgreSQL: two worker processes claiming from one
queue at once never run a job twice; a worker killed mid-job (SIGKILL) loses its lease and
the job resumes elsewhere from its checkpoint."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests import _fork
from tests._ready import wait_ready

from litdesk.adapters.store import Store
from litdesk.services.jobs import Jobs

CLAIMER = r"""
import sys, time
from pathlib import Path
from litdesk.adapters.store import open_store
from litdesk.services.jobs import Jobs

store = open_store(sys.argv[1])
jobs = Jobs(store)
go = Path(sys.argv[2])
Path(sys.argv[2] + ".ready-" + sys.argv[3]).touch()
while not go.exists():
    time.sleep(0.01)
idle = 0
while idle < 3:
    job = jobs.claim(["work"], sys.argv[3], 30)
    if job is None:
        idle += 1
        time.sleep(0.05)
        continue
    idle = 0
    print(job.id, flush=True)
    jobs.progress(job, 1, 1, job.id)
    jobs.finish(job, {"by": sys.argv[3]})
store.dispose()
"""

WORKER = r"""
import sys
from litdesk.adapters.store import open_store
from litdesk.services.jobs import JobRunner, Jobs

def count(ctx):
    start = int((ctx.checkpoint or {}).get("next", 0))
    for i in range(start, 1000):
        print(ctx.attempt, i, flush=True)
        if not ctx.progress(i + 1, 1000, f"item {i}", checkpoint={"next": i + 1}):
            return None
        if i >= 2:
            import time
            time.sleep(0.2)
    return {"counted": 1000}

jobs = Jobs(open_store(sys.argv[1]))
JobRunner(jobs, {"count": count}, lease_s=1.0).run_once()
"""


def _env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[3] / "src")
    return {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}


def test_two_processes_claiming_at_once_run_each_job_once(
    store: Store, store_url: str, tmp_path: Path
) -> None:
    jobs = Jobs(store, max_active=100)
    submitted = {jobs.submit("work", {"n": i}, owner="ann").id for i in range(60)}
    go = tmp_path / "go"
    procs = [
        _fork.popen(
            [sys.executable, "-c", CLAIMER, store_url, str(go), f"worker-{n}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for n in range(2)
    ]
    wait_ready(go, ["worker-0", "worker-1"], procs)  # both are up and waiting
    outputs = [p.communicate(timeout=180) for p in procs]
    for p, (_, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err[-2000:]
    claimed = [out.split() for out, _ in outputs]
    both = claimed[0] + claimed[1]
    assert sorted(both) == sorted(submitted)  # every job claimed, none twice
    views = jobs.list(owner="ann", limit=100)
    assert {v.status for v in views} == {"done"}
    assert {v.attempts for v in views} == {1}
    by = {v.id: v.result["by"] for v in views if v.result}
    assert all(by[i] == "worker-0" for i in claimed[0])
    assert all(by[i] == "worker-1" for i in claimed[1])


def test_a_killed_worker_s_job_resumes_from_its_checkpoint(store: Store, store_url: str) -> None:
    jobs = Jobs(store)
    v = jobs.submit("count", {}, owner="ann")
    with _fork.popen(
        [sys.executable, "-c", WORKER, store_url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    ) as proc:
        assert proc.stdout is not None
        counted = []
        for line in proc.stdout:
            counted.append(int(line.split()[1]))
            if len(counted) == 4:
                break
        os.kill(proc.pid, signal.SIGKILL)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL, err[-2000:]
    seen = jobs.get(v.id, owner="ann")
    assert seen.status == "running" and seen.done >= 3  # as the dead worker left it
    # nobody marks it: the lease (1 s) runs out by itself, then another worker takes over
    deadline = time.monotonic() + 30
    job = None
    while job is None and time.monotonic() < deadline:
        job = jobs.claim(["count"], "rescuer", 30)
        time.sleep(0.1)
    assert job is not None and job.id == v.id and job.attempt == 2
    resumed_at = int(job.checkpoint["next"])  # type: ignore[index]
    assert resumed_at == seen.done and resumed_at >= 3
    assert jobs.finish(job, {"resumed_at": resumed_at}).status == "done"
    assert json.dumps(jobs.get(v.id, owner="ann").result) == json.dumps({"resumed_at": resumed_at})
