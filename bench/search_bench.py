"""Search concurrency bench: six loopback HTTP servers (real sockets, one per provider),
each serving a recorded provider body from $LITDESK_FIXTURES after an injected latency of
100–400 ms. litdesk searches all six at once through its real transport, compilers and
parsers (providers pointed at the servers through the transport's test-only base_urls
hook). The peer is the same six lanes run one after another.

Target: the six-provider search finishes within the slowest single lane + 50 ms.

    LITDESK_FIXTURES=/work/shared/fixtures .venv/bin/python bench/search_bench.py
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from pydantic import SecretStr

from litdesk import Settings
from litdesk.core.search import PROVIDERS
from litdesk.core.trace import validate_request
from litdesk.services.app import open_app

LATENCY = {
    "europepmc": 0.40,
    "openalex": 0.25,
    "semanticscholar": 0.30,
    "crossref": 0.10,
    "pubmed": 0.15,  # esearch then efetch: two round trips (and NCBI pacing between them)
    "arxiv": 0.35,
}
BODIES = {
    "europepmc": {"": "europepmc/search-cancer-core.json"},
    "openalex": {"": "openalex/works-title-search-augmenting-llm-chemistry.json"},
    "semanticscholar": {"": "semanticscholar/paper-search-turing-title-offset0.json"},
    "crossref": {"": "crossref/works-query-widget-cursor-first.json"},
    "pubmed": {
        "esearch": "pubmed/esearch-pubmed-biopython.xml",
        "efetch": "pubmed/efetch-pubmed-12091962-9997.xml",
    },
    "arxiv": {"": "arxiv/query-testing-start0-max10.xml"},
}
RUNS = 5


def _server(provider: str, fixtures: Path) -> ThreadingHTTPServer:
    bodies = {k: (fixtures / "providers" / v).read_bytes() for k, v in BODIES[provider].items()}
    delay = LATENCY[provider]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            time.sleep(delay)
            key = next((k for k in bodies if k and k in self.path), "")
            body = bodies.get(key) or next(iter(bodies.values()))
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    return httpd


async def _search(
    settings: Settings, bases: dict[str, str], providers: list[str]
) -> tuple[float, str, int]:
    async with open_app(settings, base_urls=bases) as runtime_app:  # the real wiring
        runtime = runtime_app.providers
        request = validate_request("cancer", providers, limit=20)
        started = time.perf_counter()
        trace = await runtime.search(request, use_cache=False)
        wall = time.perf_counter() - started
    return wall, trace.status, len(trace.sightings)


def main() -> int:
    raw = os.environ.get("LITDESK_FIXTURES")
    if not raw or not Path(raw).is_dir():
        print("set LITDESK_FIXTURES to the shared fixtures folder", file=sys.stderr)
        return 2
    fixtures = Path(raw)
    servers = {p: _server(p, fixtures) for p in PROVIDERS}
    bases = {p: f"http://127.0.0.1:{s.server_address[1]}" for p, s in servers.items()}
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            data_dir=Path(tmp),
            openalex_api_key=SecretStr("bench-key"),
            contact_email="bench@example.org",
            owner_daily_requests=10_000,  # every call is reserved in the store's allowance
            openalex_daily_requests=10_000,
        )
        together: list[float] = []
        sequential: list[float] = []
        slowest: list[float] = []
        statuses = set()
        sightings = 0
        for _ in range(RUNS):
            lanes = {}
            for p in PROVIDERS:  # the peer: each lane alone, one after another
                wall, status, _n = asyncio.run(_search(settings, bases, [p]))
                lanes[p] = wall
                statuses.add(status)
            sequential.append(sum(lanes.values()))
            slowest.append(max(lanes.values()))
            wall, status, sightings = asyncio.run(_search(settings, bases, list(PROVIDERS)))
            statuses.add(status)
            together.append(wall)
    for s in servers.values():
        s.shutdown()
    t, q, m = statistics.median(together), statistics.median(sequential), statistics.median(slowest)
    print(f"runs: {RUNS}; injected latency per request (s): {LATENCY}")
    print(f"lane statuses seen: {sorted(statuses)}; sightings in a six-provider trace: {sightings}")
    print(f"slowest single lane (median): {m * 1000:.0f} ms")
    print(f"litdesk six providers concurrently (median): {t * 1000:.0f} ms")
    print(f"peer: the six lanes one after another (median): {q * 1000:.0f} ms")
    print(f"concurrent - slowest lane: {(t - m) * 1000:+.0f} ms (target <= +50 ms)")
    print(f"ratio sequential / concurrent: {q / t:.2f}x")
    return 0 if t <= m + 0.050 else 1


if __name__ == "__main__":
    raise SystemExit(main())
