"""Per-request overhead of the web stack (issue 29): ``GET /api/v1/saved`` (50 saved papers)
on ``litdesk serve`` against a bare FastAPI + uvicorn app (one worker, the same Python)
that reads the same 50 records from the same SQLite file and answers them as JSON.

Both servers run as their own processes on loopback; the load is 8 keep-alive connections
(one thread each, ``http.client``) for ``--seconds`` per server, one run each after a
warm-up; requests/s, p50 and p95 latency, and the ratio litdesk / bare are printed. On a
shared, loaded machine the load client's threads compete with both servers, so beside it
the CPU time one request costs each app is measured in-process (the ASGI app called
directly, 400 requests, best of three; sync routes run inline so that one thread holds it
all): its ratio is the throughput ratio of one saturated worker.

    .venv/bin/python bench/web_overhead_bench.py [--seconds 10] [--connections 8]

Target (issue 29): litdesk at ≥ 50% of the bare figure.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from litdesk import Settings
from litdesk.adapters.store import open_store
from litdesk.core.records import make_paper
from litdesk.services.workspace import Workspace

PAPERS = 50
#: the bare app: FastAPI + uvicorn, one worker, the same 50 rows from the same SQLite file
BARE_APP = r"""
import json, sqlite3, sys
from fastapi import FastAPI

path = sys.argv[1]
app = FastAPI()

@app.get("/api/v1/saved")
def saved() -> dict:
    con = sqlite3.connect(path)
    try:
        rows = con.execute(
            "SELECT id, data, status FROM papers ORDER BY created_at DESC LIMIT 50"
        ).fetchall()
    finally:
        con.close()
    papers = [{"id": i, "paper": json.loads(d), "status": s} for i, d, s in rows]
    return {"papers": papers, "total": len(papers)}
"""
BARE = (
    BARE_APP
    + """
import uvicorn
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning", access_log=False)
"""
)


def seed(data_dir: Path) -> Path:
    settings = Settings(data_dir=data_dir)
    store = open_store(settings)
    try:
        ws = Workspace(store)
        for i in range(PAPERS):
            ws.save_paper(
                make_paper(
                    pmid=str(20_000_000 + i),
                    doi=f"10.7777/saved.{i}",
                    title=f"Saved paper {i} on tumour growth and outcomes",
                    authors=[f"Writer{i} W", "Coauthor C"],
                    journal="Journal of Saved Things",
                    year=1990 + i % 35,
                    abstract="An abstract. " * 30,
                )
            )
    finally:
        store.dispose()
    return data_dir / "litdesk.sqlite3"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(port: int, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(600):
        if proc.poll() is not None:
            raise SystemExit("a server exited before answering")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/api/v1/saved")
            if c.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit("a server did not answer")


def load(port: int, seconds: float, connections: int) -> tuple[float, list[float], int]:
    """``connections`` keep-alive connections asking for ``seconds``: (requests/s, the
    latencies in ms, errors)."""
    stop = time.perf_counter() + seconds
    lat: list[list[float]] = [[] for _ in range(connections)]
    errors = [0] * connections
    size: list[int] = []

    def worker(k: int) -> None:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while time.perf_counter() < stop:
            t = time.perf_counter()
            c.request("GET", "/api/v1/saved")
            r = c.getresponse()
            body = r.read()
            lat[k].append((time.perf_counter() - t) * 1000)
            if r.status != 200:
                errors[k] += 1
            elif not size:
                size.append(len(json.loads(body)["papers"]))
        c.close()

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(connections)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.perf_counter() - t0
    all_lat = [x for xs in lat for x in xs]
    assert size == [PAPERS], size  # both answer the same 50 records
    return len(all_lat) / took, all_lat, sum(errors)


def cpu_per_request(data_dir: Path, db: Path, n: int = 400) -> dict[str, float]:
    """CPU milliseconds one ``GET /api/v1/saved`` costs each app, in this process."""
    import asyncio

    import fastapi.dependencies.utils
    import fastapi.routing

    from litdesk.faces.web import create_app

    async def inline(func: Any, *a: Any, **kw: Any) -> Any:
        return func(*a, **kw)

    fastapi.routing.run_in_threadpool = inline  # type: ignore[assignment]
    fastapi.dependencies.utils.run_in_threadpool = inline  # type: ignore[assignment]
    settings = Settings(data_dir=data_dir, jobs_worker_slots=0)
    web = create_app(settings)
    space: dict[str, Any] = {}
    sys.argv[1:] = [str(db)]
    exec(BARE_APP, space)  # the bench's own app text
    bare = space["app"]
    host = f"{settings.web_host}:{settings.web_port}".encode()
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": "/api/v1/saved", "raw_path": b"/api/v1/saved",
        "query_string": b"", "root_path": "", "headers": [(b"host", host)],
        "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", settings.web_port),
    }  # fmt: skip

    async def call(target: Any) -> None:
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await target(dict(scope), receive, send)
        assert sent[0]["status"] == 200, sent[:1]

    async def run() -> dict[str, float]:
        best: dict[str, float] = {}
        async with web.router.lifespan_context(web):
            for _ in range(50):
                await call(web)
                await call(bare)
            for name, target in (("litdesk", web), ("bare FastAPI", bare)) * 3:
                t = time.process_time()
                for _ in range(n):
                    await call(target)
                ms = (time.process_time() - t) / n * 1000
                best[name] = min(best.get(name, ms), ms)
        return best

    return asyncio.run(run())


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--connections", type=int, default=8)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        db = seed(root / "data")
        env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
        env |= {"LITDESK_DATA_DIR": str(root / "data"), "LITDESK_JOBS_WORKER_SLOTS": "0"}
        lit_port, bare_port = _free_port(), _free_port()
        cmd = [sys.executable, "-c", "from litdesk.faces.cli import main; main()"]
        servers = {
            "litdesk": (
                lit_port,
                subprocess.Popen(
                    [*cmd, "serve", "--port", str(lit_port)],
                    env=env,
                    stderr=subprocess.DEVNULL,
                ),
            ),
            "bare FastAPI": (
                bare_port,
                subprocess.Popen(
                    [sys.executable, "-c", BARE, str(db), str(bare_port)],
                    env=env,
                    stderr=subprocess.DEVNULL,
                ),
            ),
        }
        results: dict[str, float] = {}
        try:
            for name, (port, proc) in servers.items():
                _wait(port, proc)
                load(port, 1.0, args.connections)  # warm-up
                rps, lat, errors = load(port, args.seconds, args.connections)
                results[name] = rps
                print(
                    f"{name:>12}: {rps:7.0f} requests/s over {args.seconds:g} s, "
                    f"{args.connections} connections; p50 {statistics.median(lat):.1f} ms, "
                    f"p95 {_pct(lat, 0.95):.1f} ms; errors {errors}"
                )
        finally:
            for _, proc in servers.values():
                proc.terminate()
                proc.wait(timeout=30)
        ratio = results["litdesk"] / results["bare FastAPI"]
        per_request = 1000 / results["litdesk"] - 1000 / results["bare FastAPI"]
        print(
            f"ratio litdesk / bare: {ratio:.0%} (target ≥ 50%); litdesk spends "
            f"{per_request:.2f} ms more per request (at {args.connections} connections)"
        )
        cpu = cpu_per_request(root / "data", db)
        print(
            f"CPU per request in-process: litdesk {cpu['litdesk']:.2f} ms, bare "
            f"{cpu['bare FastAPI']:.2f} ms; ratio bare / litdesk (one saturated worker's "
            f"throughput ratio) {cpu['bare FastAPI'] / cpu['litdesk']:.0%}"
        )


if __name__ == "__main__":
    main()
