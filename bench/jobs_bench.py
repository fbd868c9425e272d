"""Background jobs benchmark (issue 15's index job, issue 17's shared queue).

In one run:
1. Indexing through the ``library.index`` job (a JobRunner thread, progress and lease
   written to the store after every file) vs ``Library.index`` called directly, over the
   same real PDFs, each on a fresh data dir; alternated ``--rounds`` times. The job's
   overhead is the ratio of the wall times.
2. Queue throughput: ``--jobs`` trivial jobs claimed, progressed once and finished by one
   worker process vs two worker processes at once (each job run exactly once, checked), on
   SQLite and, with ``--postgres URL``, on PostgreSQL in a fresh schema (dropped after).

    LITDESK_FIXTURES=/work/shared/fixtures .venv/bin/python bench/jobs_bench.py \
        [--rounds 2] [--jobs 300] [--postgres postgresql+psycopg://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import sqlalchemy as sa

from litdesk._settings import Settings
from litdesk.adapters.store import open_store
from litdesk.services.app import app_library, open_app_sync
from litdesk.services.jobs import JobRunner, Jobs
from litdesk.services.library import INDEX_KIND, index_handler

#: The fixture PDFs with a text layer (the excluded ones cost no pages).
SKIP = ("scanned_no_text", "encrypted", "broken")

CLAIMER = r"""
import sys, time
from pathlib import Path
from litdesk.adapters.store import open_store
from litdesk.services.jobs import Jobs
store = open_store(sys.argv[1]); jobs = Jobs(store); go = Path(sys.argv[2])
while not go.exists():
    time.sleep(0.005)
n = 0
while True:
    job = jobs.claim(["work"], sys.argv[3], 30)
    if job is None:
        break
    jobs.progress(job, 1, 1, job.id)
    jobs.finish(job, {"by": sys.argv[3]})
    n += 1
print(n)
store.dispose()
"""


def _pdfs(fixtures: Path, into: Path) -> tuple[list[Path], int]:
    import pypdfium2 as pdfium

    into.mkdir(parents=True)
    out, pages = [], 0
    for p in sorted(fixtures.glob("*.pdf")):
        if any(s in p.name for s in SKIP):
            continue
        shutil.copy(p, into / p.name)
        out.append(into / p.name)
        pages += len(pdfium.PdfDocument(str(p)))
    return out, pages


def _index_direct(folder: Path, data: Path) -> float:
    settings = Settings(data_dir=data, inbox_dir=folder)
    t0 = time.perf_counter()
    with app_library(settings) as lib:
        report = lib.index()
        lib.prepare_vector_index()
    took = time.perf_counter() - t0
    assert report.indexed, "nothing indexed"
    return took


def _index_job(folder: Path, data: Path) -> float:
    settings = Settings(data_dir=data, inbox_dir=folder)
    with open_app_sync(settings) as app:
        jobs = app.jobs
        handler = index_handler(app.make_library)
        runner = JobRunner(jobs, {INDEX_KIND: handler}, poll_s=0.01)
        t0 = time.perf_counter()
        view = jobs.submit(INDEX_KIND, {}, owner="bench")
        runner.start()
        while jobs.get(view.id, owner="bench").active:
            time.sleep(0.01)
        took = time.perf_counter() - t0
        runner.stop()
        end = jobs.get(view.id, owner="bench")
        assert end.status == "done" and end.result and end.result["indexed"], end
        return took


def bench_index(fixtures: Path, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "pdfs"
        files, pages = _pdfs(fixtures, folder)
        print(f"indexing {len(files)} real PDFs, {pages} pages (2 pool workers, wordllama)")
        direct, job = [], []
        for r in range(rounds):
            direct.append(_index_direct(folder, Path(tmp) / f"d{r}"))
            job.append(_index_job(folder, Path(tmp) / f"j{r}"))
            print(
                f"  round {r + 1}: direct {direct[-1]:.2f} s ({pages / direct[-1]:.1f} pages/s), "
                f"job {job[-1]:.2f} s ({pages / job[-1]:.1f} pages/s), "
                f"job/direct {job[-1] / direct[-1]:.2f}x"
            )
        print(
            f"  best: direct {min(direct):.2f} s, job {min(job):.2f} s, "
            f"job/direct {min(job) / min(direct):.2f}x"
        )


def _queue(url: str, n_jobs: int, workers: int, tmp: Path) -> float:
    store = open_store(url)
    try:
        jobs = Jobs(store, max_active=n_jobs)
        for i in range(n_jobs):
            jobs.submit("work", {"n": i}, owner="bench")
        go = tmp / f"go-{uuid.uuid4().hex}"
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", CLAIMER, url, str(go), f"w{w}"],
                stdout=subprocess.PIPE,
                text=True,
                env=env,
            )
            for w in range(workers)
        ]
        time.sleep(2.0)  # every process has opened the store
        t0 = time.perf_counter()
        go.touch()
        counts = [int(p.communicate(timeout=600)[0].strip() or 0) for p in procs]
        took = time.perf_counter() - t0
        views = jobs.list(owner="bench", limit=200)
        assert sum(counts) == n_jobs, counts
        assert all(v.attempts == 1 and v.status == "done" for v in views)
        return took
    finally:
        store.dispose()


def bench_queue(n_jobs: int, postgres: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        targets = [("SQLite", None)] + ([("PostgreSQL", postgres)] if postgres else [])
        for label, base in targets:
            for workers in (1, 2):
                if base is None:
                    url = f"sqlite:///{Path(tmp) / uuid.uuid4().hex / 'q.sqlite3'}"
                    took = _queue(url, n_jobs, workers, Path(tmp))
                else:
                    schema = f"bench_{uuid.uuid4().hex[:12]}"
                    engine = sa.create_engine(base)
                    with engine.begin() as conn:
                        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
                    sep = "&" if "?" in base else "?"
                    url = f"{base}{sep}options={quote(f'-csearch_path={schema}')}"
                    try:
                        took = _queue(url, n_jobs, workers, Path(tmp))
                    finally:
                        with engine.begin() as conn:
                            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
                        engine.dispose()
                print(
                    f"queue {label}: {n_jobs} jobs, {workers} worker process(es): "
                    f"{took:.2f} s, {n_jobs / took:.0f} jobs/s (claim + progress + finish each)"
                )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=300)
    ap.add_argument("--postgres", default=None)
    ap.add_argument("--only", choices=["index", "queue"], default=None)
    args = ap.parse_args()
    fixtures = Path(os.environ.get("LITDESK_FIXTURES", "")) / "pdf"
    print(f"load average: {os.getloadavg()[0]:.2f}")
    if args.only in (None, "index"):
        if not fixtures.is_dir():
            sys.exit("set LITDESK_FIXTURES to the shared fixtures folder")
        bench_index(fixtures, args.rounds)
    if args.only in (None, "queue"):
        bench_queue(args.jobs, args.postgres)
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
