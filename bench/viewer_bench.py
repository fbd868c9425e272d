"""PDF viewer and paper-chat benchmark (issue 15): a real `litdesk serve` process on loopback
over a library of hard links to the fixture PDFs (``$LITDESK_FIXTURES/pdf``).

1. The page viewer: for every text PDF, its first pages (up to ``--pages``) with a passage
   of that page highlighted: GET /api/v1/library/pdf/<sha>?page=N&passage=… (render +
   boxes) and the page image, first cold (rendered) then warm (from the page cache).
   Server-side time from each response's Server-Timing header; p50/p95/max.
2. One question over the whole library (``--files`` PDFs, default 1,000; duplicate contents
   are used once): POST /api/v1/chat/ask through the web (server-side time) beside the same
   question through the service directly (``Library.ask`` in this process), extractive
   (no model), alternated ``--asks`` times after one warm-up each; p50 and the ratio.

    PYTHONPATH=src .venv/bin/python bench/viewer_bench.py [--files 1000] [--pages 4] [--asks 15]

Targets: viewer page p95 ≤ 200 ms; web question p50 ≤ 1.5× the service's p50.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from litdesk import Settings
from litdesk.core.library import CHUNKING_VERSION
from litdesk.services.app import app_library
from litdesk.services.library import hash_files

QUESTION = "Which evaluation datasets were used?"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ms(r: httpx.Response) -> float:
    assert r.status_code == 200, (r.status_code, r.text[:300])
    return float(r.headers["server-timing"].split("dur=")[1])


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def _line(label: str, xs: list[float]) -> str:
    return (
        f"{label}: n={len(xs)} p50 {statistics.median(xs):.1f} ms, p95 {_pct(xs, 0.95):.1f} ms, "
        f"max {max(xs):.1f} ms"
    )


def build_library(fixtures: Path, root: Path, files: int) -> Path:
    originals = []
    base = root / "src"
    base.mkdir()
    for pdf in sorted(fixtures.glob("*.pdf")):
        shutil.copyfile(pdf, base / pdf.name)
        originals.append(base / pdf.name)
    lib_dir = root / "lib"
    for i in range(files):
        src = originals[i % len(originals)]
        sub = lib_dir / f"d{i // 100:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        os.link(src, sub / f"{i:04d}_{src.name}")
    return lib_dir


def main() -> None:
    logging.getLogger("httpx").setLevel(logging.WARNING)
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--pages", type=int, default=4)
    ap.add_argument("--asks", type=int, default=15)
    args = ap.parse_args()
    fixtures = Path(os.environ.get("LITDESK_FIXTURES", "/work/shared/fixtures")) / "pdf"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        lib_dir = build_library(fixtures, root, args.files)
        data = root / "data"
        settings = Settings(data_dir=data, library_dirs=[lib_dir])
        lib = app_library(settings, workers=2)
        t = time.perf_counter()
        report = lib.index()
        print(
            f"indexed {report.files} PDFs ({len(report.indexed)} distinct contents) "
            f"in {time.perf_counter() - t:.1f} s"
        )
        # the passages to highlight: each text PDF's first chunk on each of its first pages
        files = lib.corpus().files
        hashes = hash_files(lib.catalogue, files)
        entries = lib.catalogue.entries(lib._embedder_name, CHUNKING_VERSION)
        shas = sorted({h for h in hashes.values() if h in entries and entries[h].status == "ok"})
        chunks = lib.catalogue.chunks_of(shas, lib._embedder_name, CHUNKING_VERSION)
        wanted: dict[tuple[str, int], str] = {}
        for ch in chunks:
            if ch.page <= args.pages and (ch.sha256, ch.page) not in wanted:
                wanted[(ch.sha256, ch.page)] = ch.text[:400]
        lib.ask(QUESTION)  # warm-up: vectors loaded, index built

        port = _free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
        env["LITDESK_DATA_DIR"] = str(data)
        env["LITDESK_LIBRARY_DIRS"] = f'["{lib_dir}"]'
        cmd = [sys.executable, "-c", "from litdesk.faces.cli import main; main()"]
        server = subprocess.Popen(
            [*cmd, "serve", "--port", str(port)], env=env, stderr=subprocess.PIPE, text=True
        )
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(600):
                try:
                    httpx.get(base + "/chat", timeout=5)
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            with httpx.Client(base_url=base, timeout=300, headers={"origin": base}) as c:
                c.get("/chat")
                c.headers["x-csrf-token"] = c.cookies["ld_csrf"]
                for label in ("cold (rendered)", "warm (page cache)"):
                    views: list[float] = []
                    images: list[float] = []
                    found = 0
                    for (sha, page), passage in sorted(wanted.items()):
                        r = c.get(
                            f"/api/v1/library/pdf/{sha}", params={"page": page, "passage": passage}
                        )
                        views.append(_ms(r))
                        found += bool(r.json()["found"])
                        images.append(_ms(c.get(r.json()["image"])))
                    print(_line(f"viewer page view + passage boxes, {label}", views))
                    print(_line(f"viewer page image, {label}", images))
                    print(f"  passages located: {found} of {len(wanted)}")
                web: list[float] = []
                direct: list[float] = []
                c.post("/api/v1/chat/ask", json={"question": QUESTION})  # warm-up
                for _ in range(args.asks):  # alternated, so both see the same machine load
                    web.append(_ms(c.post("/api/v1/chat/ask", json={"question": QUESTION})))
                    t = time.perf_counter()
                    lib.ask(QUESTION)
                    direct.append((time.perf_counter() - t) * 1000)
        finally:
            lib.close()
            server.terminate()
            server.wait(timeout=30)
            if server.stderr is not None:
                server.stderr.close()
        print(_line(f"question over {args.files} PDFs through the service (wall)", direct))
        print(_line(f"question over {args.files} PDFs through the web (server-side)", web))
        ratio = statistics.median(web) / statistics.median(direct)
        print(f"ratio web p50 / service p50: {ratio:.2f}x (target <= 1.5x)")


if __name__ == "__main__":
    main()
