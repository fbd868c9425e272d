"""Web workspace benchmark (issue 14): a real `litdesk serve` process on loopback.

1. 50 concurrent searches (GET /api/v1/search) answered from a replay cassette written
   here (a Europe PMC body of 20 records; replay is never cached, so every request plans,
   replays, parses and ranks). Server-side time from each response's Server-Timing header;
   p50/p95/max and errors. Beside it: the same search from the CLI
   (`litdesk search ... --replay DIR --json`, a fresh process each time, median of 5).
2. The Saved papers page (GET /saved, HTML) with 5,000 saved papers: 50 sequential loads,
   unfiltered and with a text filter; server-side p50/p95.

    .venv/bin/python bench/web_bench.py [--concurrency 50] [--papers 5000]

Targets: search p95 ≤ 300 ms with 0 errors; saved page p95 ≤ 150 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

from litdesk import Settings
from litdesk.adapters.http import CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.adapters.store import open_store
from litdesk.core.records import make_paper
from litdesk.services.search import make_definition, plan_search
from litdesk.services.workspace import Workspace

QUERY = "tumour growth"


def _record(i: int) -> dict:
    return {
        "id": str(30_000_000 + i),
        "source": "MED",
        "pmid": str(30_000_000 + i),
        "doi": f"10.5555/bench.{i}",
        "title": f"Tumour growth and treatment response, study {i}",
        "authorString": f"Author{i} A, Second B, Third C.",
        "journalTitle": "Journal of Benchmarks",
        "pubYear": str(2000 + i % 25),
        "abstractText": "Background. " + "Tumour growth was measured over time. " * 20,
        "citedByCount": i,
    }


def write_cassette(folder: Path) -> None:
    body = json.dumps(
        {"hitCount": 5000, "resultList": {"result": [_record(i) for i in range(20)]}}
    ).encode()
    recorder = CassetteRecorder(folder)
    for lane in plan_search(make_definition(QUERY)).lanes:  # the default 20 per lane
        req = lane.request
        assert req is not None
        recorder.record(
            Exchange(
                provider=req.provider,
                method=req.method,
                url=sanitised_url(req),
                request_body=req.body,
                status=200,
                headers={"content-type": "application/json"},
                body=body,
                received_at=datetime(2026, 12, 1, tzinfo=UTC),
            ),
            Redactor(),
        )


def seed(data_dir: Path, n: int) -> None:
    store = open_store(Settings(data_dir=data_dir))
    try:
        ws = Workspace(store)
        for i in range(n):
            ws.save_paper(
                make_paper(
                    pmid=str(20_000_000 + i),
                    doi=f"10.7777/saved.{i}",
                    title=f"Saved paper {i} on {'microbiome' if i % 7 else 'tumour growth'} and outcomes",
                    authors=[f"Writer{i} W", "Coauthor C"],
                    journal="Journal of Saved Things",
                    year=1990 + i % 35,
                    abstract="An abstract. " * 30,
                )
            )
    finally:
        store.dispose()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _server_ms(r: httpx.Response) -> float:
    return float(r.headers["server-timing"].split("dur=")[1])


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def searches(base: str, n: int) -> tuple[list[float], list[float], int]:
    async with httpx.AsyncClient(base_url=base, timeout=120) as c:
        await c.get("/api/v1/search", params={"q": QUERY})  # warm-up

        async def one() -> tuple[float, float, bool]:
            t = time.perf_counter()
            r = await c.get("/api/v1/search", params={"q": QUERY})
            wall = (time.perf_counter() - t) * 1000
            ok = r.status_code == 200 and r.json()["run"]["lanes"][0]["status"] == "ok"
            return _server_ms(r), wall, ok

        results = await asyncio.gather(*(one() for _ in range(n)))
    return [r[0] for r in results], [r[1] for r in results], sum(1 for r in results if not r[2])


def saved_loads(base: str, n: int, text: str) -> list[float]:
    out = []
    with httpx.Client(base_url=base, timeout=120) as c:
        c.get("/saved", params={"text": text})
        for _ in range(n):
            r = c.get("/saved", params={"text": text})
            assert r.status_code == 200
            out.append(_server_ms(r))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--papers", type=int, default=5_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cassette = root / "cassette"
        write_cassette(cassette)
        t = time.perf_counter()
        seed(root / "data", args.papers)
        print(f"seeded {args.papers:,} saved papers in {time.perf_counter() - t:.1f} s")
        port = _free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
        env["LITDESK_DATA_DIR"] = str(root / "data")
        cmd = [sys.executable, "-c", "from litdesk.faces.cli import main; main()"]
        server = subprocess.Popen(
            [*cmd, "serve", "--port", str(port), "--replay", str(cassette)],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stderr is not None
            print(server.stderr.readline().strip())
            base = f"http://127.0.0.1:{port}"
            for _ in range(600):
                try:
                    httpx.get(base + "/studies", timeout=5)
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            server_ms, wall_ms, errors = asyncio.run(searches(base, args.concurrency))
            print(
                f"{args.concurrency} concurrent searches (replay, 20 records): server-side p50 "
                f"{statistics.median(server_ms):.1f} ms, p95 {_pct(server_ms, 0.95):.1f} ms, max {max(server_ms):.1f} ms; "
                f"client wall p95 {_pct(wall_ms, 0.95):.1f} ms; errors {errors}"
            )
            for text in ("", "tumour growth", "10.7777/saved.4321"):
                ms = saved_loads(base, 50, text)
                label = f"text={text!r}" if text else "no filter"
                print(
                    f"saved papers page, {args.papers:,} papers, {label}: server-side p50 "
                    f"{statistics.median(ms):.1f} ms, p95 {_pct(ms, 0.95):.1f} ms"
                )
        finally:
            server.terminate()
            server.wait(timeout=30)
            if server.stderr is not None:
                server.stderr.close()
        cli = []
        for _ in range(5):
            t = time.perf_counter()
            done = subprocess.run(
                [*cmd, "search", QUERY, "--replay", str(cassette), "--json"],
                env=env,
                capture_output=True,
                check=False,
                text=True,
            )
            cli.append((time.perf_counter() - t) * 1000)
            assert done.returncode == 0, done.stderr[-500:]
        print(
            f"same search from the CLI (fresh process, replay): median {statistics.median(cli):.0f} ms over 5"
        )
        server_p95 = _pct(server_ms, 0.95)
        print(f"ratio CLI median / web server-side p95: {statistics.median(cli) / server_p95:.1f}x")


if __name__ == "__main__":
    main()
