"""Allowances across processes on SQLite and PostgreSQL (issue 17): 4 spawned processes x 25
threads reserve the same allowance at once and it is never over-spent.

* A provider allowance (37 a day in total, 10 per owner, 4 owners): exactly 37 granted, the
  store counts 37 in total and at most 10 per owner.
* The AI-assistance allowance (37 in total, 5 per owner, 10 owners, one call in flight per
  owner), through ``AssistAllowance``: each thread reserves, holds and finishes calls until a
  daily limit refuses it; exactly 37 calls are granted, at most 5 per owner, and no two calls
  of one owner are ever in flight together. That last one is checked across processes with
  a marker file per owner made with ``O_EXCL`` while a ticket is held (inside the store's
  in-flight window), so an overlap fails the ``open``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from tests import _fork
from tests._ready import wait_ready
from tests.adapters.store.conftest import store_url

from litdesk.adapters.store import allowance_owner, assist_usage, open_store, usage

__all__ = ["store_url"]

PROCESSES = 4
THREADS = 25
LIMIT = 37

CHILD = r"""
import json, os, sys, threading, time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from litdesk import Settings
from litdesk.adapters.store import open_store, reserve
from litdesk.services.assist import AllowanceRefused, AssistAllowance

url, go, mode, index, markers = sys.argv[1], Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]), Path(sys.argv[5])
threads = int(sys.argv[6])
store = open_store(url)
today = datetime.now(UTC).date()
barrier = threading.Barrier(threads)
results = []
lock = threading.Lock()

def provider(n):
    owner = f"owner-{n % 4}"
    barrier.wait()
    r = reserve(store, "europepmc", owner, today, 37, 10)
    with lock:
        results.append([owner, r.reason])

settings = Settings(
    data_dir=markers.parent / "data", database_url=url, assist_daily_requests=37,
    assist_owner_daily_requests=5, assist_spacing_seconds=0, assist_timeout_seconds=60,
)
allowance = AssistAllowance(store, settings)

def assist(n):
    owner = f"owner-{n % 10}"
    mine = Counter()
    barrier.wait()
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            ticket = allowance.reserve(owner, "test")
        except AllowanceRefused as exc:
            mine[exc.code] += 1
            if exc.code == "in_flight":
                time.sleep(0.002)
                continue
            break
        marker = markers / owner
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            mine["overlap"] += 1
        else:
            os.close(fd)
            time.sleep(0.01)  # the call "runs"
            os.unlink(marker)
        allowance.finish(ticket, "ok")
        mine["ok"] += 1
    else:
        mine["timeout"] += 1
    with lock:
        results.append([owner, dict(mine)])

Path(str(go) + ".ready-" + str(index)).touch()
while not go.exists():
    time.sleep(0.01)
target = provider if mode == "provider" else assist
workers = [threading.Thread(target=target, args=(index * threads + n,)) for n in range(threads)]
for w in workers:
    w.start()
for w in workers:
    w.join()
store.dispose()
print(json.dumps(results))
"""


def _env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    return {**env, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _crowd(url: str, mode: str, tmp_path: Path) -> list[list[object]]:
    """Start the processes, let them open the store, then release all threads at once."""
    open_store(url).dispose()  # migrated once before the crowd arrives
    go = tmp_path / "go"
    markers = tmp_path / "markers"
    markers.mkdir()
    procs = [
        _fork.popen(
            [sys.executable, "-c", CHILD, url, str(go), mode, str(n), str(markers), str(THREADS)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for n in range(PROCESSES)
    ]
    # every process has imported litdesk and waits for the go file
    wait_ready(go, [str(n) for n in range(PROCESSES)], procs, timeout=180)
    rows: list[list[object]] = []
    for p in procs:
        try:
            out, err = p.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise AssertionError(f"a {mode} process did not finish within 180 s") from None
        assert p.returncode == 0, err[-3000:]
        rows.extend(json.loads(out))
    assert len(rows) == PROCESSES * THREADS, "every thread reports"
    return rows


def test_a_provider_allowance_is_never_over_spent_by_four_processes(
    store_url: str, tmp_path: Path
) -> None:
    rows = _crowd(store_url, "provider", tmp_path)
    tally = Counter(str(reason) for _, reason in rows)
    print(f"\n{store_url.split(':', maxsplit=1)[0]} provider: {dict(tally)}")
    # 4 owners x 25 calls, 10 each at most: if fewer than 37 were granted every owner would
    # have been refused at 10, which is 40 — so exactly 37 is the only honest answer
    assert tally["ok"] == LIMIT, tally
    assert set(tally) <= {"ok", "daily_limit", "owner_daily_limit"}, tally
    granted = Counter(str(owner) for owner, reason in rows if reason == "ok")
    assert max(granted.values()) <= 10
    store = open_store(store_url)
    try:
        counted = usage(store, "europepmc", datetime.now(UTC).date())
    finally:
        store.dispose()
    assert counted.pop("*") == LIMIT  # the store's count
    assert counted == dict(granted)  # per owner, exactly the granted ones


def test_the_ai_allowance_is_never_over_spent_and_one_call_per_owner_is_in_flight(
    store_url: str, tmp_path: Path
) -> None:
    rows = _crowd(store_url, "assist", tmp_path)
    tally: Counter[str] = Counter()
    granted: Counter[str] = Counter()
    for owner, seen in rows:
        assert isinstance(seen, dict)
        tally.update(seen)
        granted[str(owner)] += int(seen.get("ok", 0))
    print(f"\n{store_url.split(':', maxsplit=1)[0]} assist: {dict(tally)}")
    assert tally["overlap"] == 0, "two calls of one owner were in flight together"
    assert tally["timeout"] == 0, "a thread was still being refused 'in_flight' after 90 s"
    assert set(tally) <= {"ok", "in_flight", "daily_limit", "owner_daily_limit"}, tally
    # 10 owners x 5 = 50 > 37, and a thread stops only at a daily limit: exactly 37 granted
    assert tally["ok"] == LIMIT
    assert (
        tally["daily_limit"] + tally["owner_daily_limit"] == PROCESSES * THREADS
    )  # each stops once
    assert max(granted.values()) <= 5
    assert tally["in_flight"] > 0  # the in-flight rule was exercised, not just the limits
    store = open_store(store_url)
    try:
        counted = assist_usage(store, datetime.now(UTC).date().isoformat())
    finally:
        store.dispose()
    assert sum(sum(v.values()) for v in counted.values()) == LIMIT  # the store's count
    assert {s for v in counted.values() for s in v} == {"ok"}  # none left in flight
    assert {o: v["ok"] for o, v in counted.items()} == {
        allowance_owner(o): n for o, n in granted.items() if n
    }
