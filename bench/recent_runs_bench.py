"""Recent search runs in the store (issue 17) against the in-process dict they replaced.

One keyword search of ``--hits`` papers (replayed from a cassette written here, abstracts of
~800 characters) is remembered ``--runs`` times under fresh ids, then each is read back by id,
then the reader's lookup of an unsaved paper runs with every remembered run holding it (its
worst case). Timed per call on SQLite and PostgreSQL (a fresh schema, dropped afterwards);
the baseline is the bounded ``OrderedDict`` of the old desk (same operations, no store).

    .venv/bin/python bench/recent_runs_bench.py [--hits 100] [--runs 50] \
        [--postgres postgresql+psycopg://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import sqlalchemy as sa

from litdesk import Settings
from litdesk.adapters.http import CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.adapters.store import dump_json
from litdesk.core.runs import SearchRun
from litdesk.services.app import open_app
from litdesk.services.search import (
    SearchArea,
    SearchRequest,
    make_definition,
    plan_search,
    run_document,
)

QUERY = "tumour growth"


def _record(i: int) -> dict[str, object]:
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


def write_cassette(folder: Path, hits: int) -> None:
    body = json.dumps(
        {"hitCount": 5000, "resultList": {"result": [_record(i) for i in range(hits)]}}
    ).encode()
    recorder = CassetteRecorder(folder)
    for lane in plan_search(make_definition(QUERY, limit=hits)).lanes:
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


def _ms(fn: Callable[[int], object], n: int) -> tuple[float, float]:
    """Median and p95 of ``n`` calls, in milliseconds."""
    times = []
    for i in range(n):
        t = time.perf_counter()
        fn(i)
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return statistics.median(times), times[min(n - 1, int(n * 0.95))]


def _baseline(run: SearchRun, runs: int) -> dict[str, tuple[float, float]]:
    kept: OrderedDict[str, SearchRun] = OrderedDict()

    def remember(i: int) -> None:
        kept[f"r{i}"] = replace(run, id=f"r{i}")
        kept.move_to_end(f"r{i}")
        while len(kept) > 200:
            kept.popitem(last=False)

    needle = run.hits[-1].paper.id

    def lookup(_: int) -> None:
        found = next(
            (h.paper for r in reversed(kept.values()) for h in r.hits if h.paper.id == needle),
            None,
        )
        assert found is not None

    return {
        "remember": _ms(remember, runs),
        "read by id": _ms(lambda i: kept[f"r{i}"], runs),
        "reader lookup": _ms(lookup, 20),
    }


def _store(area: SearchArea, run: SearchRun, runs: int) -> dict[str, tuple[float, float]]:
    needle = run.hits[-1].paper.id

    def lookup(_: int) -> None:
        assert area.paper_in_runs(needle, owner="local") is not None

    return {
        "remember": _ms(lambda i: area.remember(replace(run, id=f"r{i}"), owner="local"), runs),
        "read by id": _ms(lambda i: area.recent_run(f"r{i}", owner="local"), runs),
        "reader lookup": _ms(lookup, 20),
    }


async def _measure(url: str | None, cassette: Path, data: Path, hits: int, runs: int):
    settings = Settings(data_dir=data, database_url=url)
    async with open_app(settings, replay=cassette) as app:
        run = await app.providers.fused_search(
            SearchRequest(QUERY, limit=hits).definition, owner="local"
        )
        size = len(dump_json(run_document(run)).encode("utf-8"))
        return run, size, _store(app.search, run, runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hits", type=int, default=100)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument(
        "--postgres",
        default=os.environ.get(
            "LITDESK_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
        ),
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cassette = Path(tmp) / "cassette"
        write_cassette(cassette, args.hits)
        schema = f"bench_{uuid.uuid4().hex[:12]}"
        engine = sa.create_engine(args.postgres)
        with engine.begin() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        pg = f"{args.postgres}?options={quote(f'-csearch_path={schema}')}"
        try:
            rows = {}
            for name, url in (("SQLite", None), ("PostgreSQL", pg)):
                run, size, rows[name] = asyncio.run(
                    _measure(url, cassette, Path(tmp) / name, args.hits, args.runs)
                )
            rows["in-process dict (before)"] = _baseline(run, args.runs)
        finally:
            with engine.begin() as conn:
                conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
            engine.dispose()
    print(f"run: {len(run.hits)} hits, {size:,} bytes stored; {args.runs} runs remembered")
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'where':<26} {'operation':<14} {'median ms':>10} {'p95 ms':>8}")
    for name, ops in rows.items():
        for op, (med, p95) in ops.items():
            print(f"{name:<26} {op:<14} {med:>10.3f} {p95:>8.3f}")


if __name__ == "__main__":
    main()
