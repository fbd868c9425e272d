"""An idle job worker's poll (issue 26): CPU per ``Jobs.claim_or_lease_end`` on a queue
with nothing to claim, on SQLite and, with ``--postgres URL``, on PostgreSQL in a fresh
schema (dropped after). Two cases: an empty queue, and one job of the polled kinds
running (the poll reads when its lease ends). Each app's four runners poll so once a
second (``jobs_poll_seconds``) while idle.

    .venv/bin/python bench/idle_poll_bench.py [--polls 2000] [--rounds 3] \
        [--postgres postgresql+psycopg://postgres@127.0.0.1:5432/test]

Prints, per backend and case, the CPU (user+system of this process) and wall time per
poll, the best of ``--rounds``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import sqlalchemy as sa

from litdesk.adapters.store import open_store
from litdesk.services.jobs import Jobs

KINDS = ["library.index", "dedup.run", "study.import", "report.build"]


def _cpu() -> float:
    t = os.times()
    return t.user + t.system


def _polls(jobs: Jobs, n: int) -> tuple[float, float]:
    cpu, wall = _cpu(), time.perf_counter()
    for _ in range(n):
        job, _end = jobs.claim_or_lease_end(KINDS, "bench-idle", 30)
        assert job is None
    return (_cpu() - cpu) / n, (time.perf_counter() - wall) / n


def bench(url: str, polls: int, rounds: int) -> None:
    store = open_store(url)
    try:
        jobs = Jobs(store)
        _polls(jobs, 50)  # warm: connections, compiled statements
        empty = min(_polls(jobs, polls) for _ in range(rounds))
        jobs.submit("library.index", {}, owner="local")
        held = jobs.claim(["library.index"], "bench-busy", 600)
        assert held is not None
        _polls(jobs, 50)
        running = min(_polls(jobs, polls) for _ in range(rounds))
        for case, (cpu, wall) in (("empty queue", empty), ("one running", running)):
            print(
                f"{store.dialect:10} {case:12} cpu {cpu * 1e6:7.1f} µs/poll"
                f"  wall {wall * 1e6:7.1f} µs/poll"
            )
    finally:
        store.dispose()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--polls", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--postgres", default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="litdesk-idle-poll-") as tmp:
        bench(f"sqlite:///{Path(tmp) / 'litdesk.sqlite3'}", args.polls, args.rounds)
    if args.postgres:
        engine = sa.create_engine(args.postgres)
        schema = f"bench_{uuid.uuid4().hex[:12]}"
        with engine.begin() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        try:
            sep = "&" if "?" in args.postgres else "?"
            url = f"{args.postgres}{sep}options={quote(f'-csearch_path={schema}')}"
            bench(url, args.polls, args.rounds)
        finally:
            with engine.begin() as conn:
                conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
            engine.dispose()


if __name__ == "__main__":
    main()
