"""Web deduplication review benchmark (issue 14, page 9): a real server on loopback with a
temporary SQLite store; the labelled haematology set (1,415 records, ``$LITDESK_FIXTURES``)
imported into a Study through the API.

Measured, in one run:

1. the page's run (``POST /api/v1/studies/<id>/dedup/runs`` and polling the job until it is
   done: the Study's import traces read back from the store, deduplicated with the decisions
   in force, the run recorded) beside the baseline, ``litdesk dedup FILE``'s service call
   (``dedup_files`` on the same file, in this process: read the file, deduplicate);
2. the review data (``GET /api/v1/studies/<id>/dedup``) and the page (``GET
   /study/<id>/dedup``, 25 pairs as HTML): p50/p95 of 20 sequential loads each;
3. a decision (``POST …/dedup/decisions``, one history entry) and its withdrawal (``POST
   …/dedup/undo``): p50/p95 of 20 each;
4. the size of the run's review data as stored (``dedup_runs`` and ``dedup_run_pairs``)
   and per queued pair.

The run is a job of the store's queue (``dedup.study``) run by the app's job runner, as in
a team server; the review data is read back from the store on every load.

    .venv/bin/python bench/web_dedup_bench.py [--repeat 3] [--postgres URL]

``--postgres URL``: the store on PostgreSQL instead, in a fresh schema made (and dropped)
by the bench, e.g. ``postgresql+psycopg://postgres@127.0.0.1:5432/test``.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa
import uvicorn

from litdesk import Settings
from litdesk.adapters.store import latest_dedup_run, open_store
from litdesk.faces.web import create_app
from litdesk.services.dedup import dedup_files

HAEM = "bib/dedup/rathbone_haematology__records_pre_merged.csv"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_app(app: Any, port: int) -> Iterator[None]:
    """uvicorn in a thread on a loopback port, until the block ends."""
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise SystemExit("the server did not start")
        time.sleep(0.05)
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@contextmanager
def fresh_schema(url: str) -> Iterator[str]:
    """A new PostgreSQL schema for the bench's store (its URL), dropped afterwards."""
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in url else "?"
    try:
        yield f"{url}{sep}options=-csearch_path%3D{schema}"
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        engine.dispose()


def _in_queue(conn: sa.Connection, job_id: str) -> float:
    """Seconds from the job's submission to its end, by the store's own timestamps."""
    q = sa.text("SELECT created_at, finished_at FROM jobs WHERE id = :id")
    created, finished = conn.execute(q, {"id": job_id}).one()
    return (datetime.fromisoformat(finished) - datetime.fromisoformat(created)).total_seconds()


def _pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s) + 0.5) - 1))]  # nearest rank


def _ms(xs: list[float]) -> str:
    return f"p50 {statistics.median(xs) * 1000:.1f} ms, p95 {_pct(xs, 95) * 1000:.1f} ms"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--poll", type=float, default=0.01, help="seconds between job polls")
    ap.add_argument("--postgres", metavar="URL", help="the store on PostgreSQL (a fresh schema)")
    args = ap.parse_args()
    root = os.environ.get("LITDESK_FIXTURES")
    if not root or not (Path(root) / HAEM).is_file():
        raise SystemExit("set LITDESK_FIXTURES to the shared fixtures (bib/dedup)")
    path = Path(root) / HAEM
    with tempfile.TemporaryDirectory() as tmp:
        if args.postgres:
            with fresh_schema(args.postgres) as url:
                run_bench(args, path, Settings(data_dir=Path(tmp) / "data", database_url=url))
        else:
            run_bench(args, path, Settings(data_dir=Path(tmp) / "data"))


def run_bench(args: argparse.Namespace, path: Path, settings: Settings) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    app = create_app(settings, host="127.0.0.1", port=port)
    for _ in serve_app(app, port):
        with httpx.Client(base_url=base, headers={"origin": base}, timeout=600) as c:
            c.get("/studies")
            c.headers["x-csrf-token"] = c.cookies["ld_csrf"]
            sid = c.post("/api/v1/studies", json={"name": "Haematology"}).json()["id"]
            files = [("files", (path.name, path.read_bytes(), "text/csv"))]
            t = time.perf_counter()
            done = c.post("/api/v1/imports", params={"study": sid}, files=files).json()
            imported = time.perf_counter() - t
            records = sum(int(f["records"]) for f in done["imported"])

            runs: list[float] = []
            job_ids: list[str] = []
            baseline: list[float] = []
            view: dict[str, Any] = {}
            for _ in range(args.repeat):
                t = time.perf_counter()
                job = c.post(f"/api/v1/studies/{sid}/dedup/runs").json()
                while job["state"] == "running":
                    time.sleep(args.poll)
                    job = c.get(f"/api/v1/dedup-jobs/{job['id']}").json()
                runs.append(time.perf_counter() - t)
                job_ids.append(job["id"])
                assert job["state"] == "done", job
                t = time.perf_counter()
                report = dedup_files([path])
                baseline.append(time.perf_counter() - t)
            view = c.get(f"/api/v1/studies/{sid}/dedup").json()
            assert view["run"]["counts"]["groups"] == report.result.counts["groups"]

            api_t: list[float] = []
            page_t: list[float] = []
            for _ in range(20):
                t = time.perf_counter()
                c.get(f"/api/v1/studies/{sid}/dedup").raise_for_status()
                api_t.append(time.perf_counter() - t)
                t = time.perf_counter()
                c.get(f"/study/{sid}/dedup").raise_for_status()
                page_t.append(time.perf_counter() - t)
            run_id = view["run"]["id"]
            pairs = [p for p in view["pairs"] if p["state"] == "waiting"][:20]
            decide_t: list[float] = []
            undo_t: list[float] = []
            for p in pairs:
                t = time.perf_counter()
                r = c.post(
                    f"/api/v1/studies/{sid}/dedup/decisions",
                    json={"run_id": run_id, "pair": p["no"], "decision": "distinct"},
                )
                decide_t.append(time.perf_counter() - t)
                r.raise_for_status()
                t = time.perf_counter()
                c.post(
                    f"/api/v1/studies/{sid}/dedup/undo", json={"seq": r.json()["seq"]}
                ).raise_for_status()
                undo_t.append(time.perf_counter() - t)
            store = open_store(settings)
            try:
                with store.read() as conn:
                    row = latest_dedup_run(conn, sid)
                    assert row is not None
                    q = sa.text(
                        "SELECT (SELECT length(data) FROM dedup_runs WHERE id = :id)"
                        " + (SELECT coalesce(sum(length(data)), 0) FROM dedup_run_pairs"
                        " WHERE run_id = :id)"
                    )
                    stored = int(conn.execute(q, {"id": row.id}).scalar_one())
                    served = [_in_queue(conn, j) for j in job_ids]
            finally:
                store.dispose()

    counts = view["run"]["counts"]
    print(f"haematology: {records} records imported in {imported:.2f} s; "
          f"{counts['groups']} groups, {counts['uncertain']} uncertain pairs")  # fmt: skip
    print(f"page run (store → dedup → history), {args.repeat} runs: "
          f"{', '.join(f'{x:.2f}' for x in runs)} s (median {statistics.median(runs):.2f} s)")  # fmt: skip
    print(f"  of which submitted → done in the store's job row: "
          f"{', '.join(f'{x:.2f}' for x in served)} s (polls every {args.poll * 1000:.0f} ms)")  # fmt: skip
    print(f"baseline dedup_files (litdesk dedup FILE): "
          f"{', '.join(f'{x:.2f}' for x in baseline)} s (median {statistics.median(baseline):.2f} s)")  # fmt: skip
    print(
        f"ratio page run / baseline: {statistics.median(runs) / statistics.median(baseline):.2f}x"
    )
    print(f"GET review data: {_ms(api_t)}; GET review page (25 pairs): {_ms(page_t)}")
    print(f"decision: {_ms(decide_t)}; withdrawal: {_ms(undo_t)} ({len(pairs)} each)")
    queued = max(1, int(view["run"]["queue_shown"]))
    print(f"stored review data: {stored / 1e6:.2f} MB ({stored / queued / 1000:.1f} kB per "
          f"queued pair, {view['run']['queue_shown']} pairs)")  # fmt: skip
    print(f"store: {'PostgreSQL' if args.postgres else 'SQLite'}; "
          f"load average: {os.getloadavg()[0]:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
