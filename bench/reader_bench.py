"""Reader benchmark (issue 14, the reader's licensed full text): a real server on loopback
with a temporary store, Europe PMC answered from a replay cassette written here with a real
article of the shared fixtures (``$LITDESK_FIXTURES/providers/europepmc/``, read at run
time, never copied).

Server-side times (Server-Timing) of the reader page of one saved paper:
1. abstract only (the baseline: store read and render, no provider call);
2. the first load with full text (replay, JATS parse with the licence gate, cache write);
3. loads with full text answered by the 30-day cache (n loads, interleaved with 1.);
beside the raw ``parse_fulltext`` of the same article in this process (median of n).

    LITDESK_FIXTURES=/work/shared/fixtures .venv/bin/python bench/reader_bench.py [-n 50] [--pmcid P]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import uvicorn

from litdesk import Settings
from litdesk.adapters.http import CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.adapters.store import open_store
from litdesk.core.fulltext import parse_fulltext
from litdesk.core.query import fulltext_request
from litdesk.core.records import make_paper
from litdesk.faces.web import create_app
from litdesk.services.workspace import Workspace

ARTICLES = {  # CC BY articles of the shared fixtures: a short one and a long one
    "PMC12061466": "providers/europepmc/fulltext-PMC12061466-ccby.xml",
    "PMC7417471": "jats/pmc7417471_nanoconv_ccby_in_licensep.nxml",
}


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ms(r: httpx.Response) -> float:
    r.raise_for_status()
    return float(r.headers["server-timing"].split("dur=")[1])


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[18] if len(values) >= 20 else max(values)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=50)
    parser.add_argument("--pmcid", choices=sorted(ARTICLES), default="PMC7417471")
    args = parser.parse_args()
    fixtures = Path(os.environ.get("LITDESK_FIXTURES", ""))
    pmcid = args.pmcid
    body = (fixtures / ARTICLES[pmcid]).read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        settings = Settings(data_dir=root / "data")
        req = fulltext_request(pmcid)
        CassetteRecorder(root / "cassette").record(
            Exchange(
                provider=req.provider,
                method=req.method,
                url=sanitised_url(req),
                request_body=None,
                status=200,
                headers={"content-type": "application/xml"},
                body=body,
                received_at=datetime.now(UTC),
            ),
            Redactor(),
        )
        store = open_store(settings)
        try:
            paper = make_paper(
                pmid="40000001", pmcid=pmcid, title="Bench paper", abstract="Abstract text. " * 20
            )
            pid = Workspace(store).save_paper(paper).paper.id
        finally:
            store.dispose()
        port = _port()
        app = create_app(settings, host="127.0.0.1", port=port, replay=root / "cassette")
        server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as c:
                for _ in range(5):  # warm-up (templates, imports, connections)
                    c.get(f"/paper/{pid}")
                first_r = c.get(f"/paper/{pid}", params={"fulltext": "1"})
                first = _ms(first_r)
                blocks = first_r.text.count('class="passage ft-block"')
                abstract: list[float] = []
                cached: list[float] = []
                for _ in range(args.n):  # interleaved, so both see the same load
                    abstract.append(_ms(c.get(f"/paper/{pid}")))
                    cached.append(_ms(c.get(f"/paper/{pid}", params={"fulltext": "1"})))
        finally:
            server.should_exit = True
            thread.join(timeout=30)
    parse = []
    for _ in range(max(5, args.n // 5)):
        t = time.perf_counter()
        parse_fulltext(body, expected_pmcid=pmcid)
        parse.append((time.perf_counter() - t) * 1000)
    print(f"reader bench: {pmcid} ({len(body):,} bytes, {blocks} paragraphs shown), n={args.n}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| measure | p50 ms | p95 ms | max ms |")
    print("|---|---|---|---|")
    for name, values in (
        ("reader page, abstract only (baseline)", abstract),
        ("reader page with full text, cached", cached),
        ("raw parse_fulltext of the same article", parse),
    ):
        print(
            f"| {name} | {statistics.median(values):.1f} | {_p95(values):.1f} | {max(values):.1f} |"
        )
    print(f"| reader page with full text, first load (replay + parse + cache) | {first:.1f} | | |")


if __name__ == "__main__":
    main()
