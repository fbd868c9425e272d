"""Bench: a reviewer's pages of a 5,000-record Study (issues 26 and 28), as a user meets them.

The Study of ``tests/services/studies/test_working_set.py`` (``_five_thousand``: 5,000 records
of the two labelled sets, imported by ``_study``), deduplicated once (``dedup run``), then each
use case a reviewer's pages call timed ``--n`` times (wall and CPU of this process, all its
threads: ``time.process_time``; median, min): the Study page (``studies.study``), the working
set view, PRISMA (``studies.prisma`` and ``litdesk study prisma --json`` in-process through
the CLI, which opens its own app each time), the records list page, ``screening.next``,
``GET /study/{id}`` (the HTML page) through the web app in-process (httpx's ASGI transport,
the same opened app), and the numbers check of ``_same_numbers`` (page, working set, PRISMA,
working-set RIS export). Each use case is called once before it is timed (a warm process, as a
server is). On SQLite in a temporary folder and, with ``--postgres URL``, on PostgreSQL in a
fresh schema (dropped after); the PostgreSQL server's own CPU is not in the figures.

    PYTHONPATH=src:. LITDESK_FIXTURES=/work/shared/fixtures .venv/bin/python \
        bench/study_bench.py [--postgres postgresql+psycopg://postgres@127.0.0.1:5432/test] \
        [--n 7] [--profile CASE]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from litdesk import Settings
from litdesk.services.app import App, open_app
from litdesk.services.dedup import DedupRequest
from litdesk.services.screening import NextRequest
from litdesk.services.studies import RecordsRequest, WorkingSetExportRequest, WorkingSetRequest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the test's own data makers (as bench/working_set_5000_bench.py)
sys.path.insert(0, str(ROOT / "bench"))

from tests.services.studies.test_working_set import _five_thousand, _study  # noqa: E402

from working_set_5000_bench import _schema  # noqa: E402


def _cases(app: App, settings: Settings, sid: str) -> dict[str, Callable[[], object]]:
    from typer.testing import CliRunner

    from litdesk._settings import get_settings
    from litdesk.faces.cli import app as cli
    from litdesk.faces.web import create_app

    owner = app.owner
    st = app.studies
    env = {"LITDESK_DATA_DIR": str(settings.data_dir)}
    if settings.database_url:
        env["LITDESK_DATABASE_URL"] = settings.database_url
    runner = CliRunner()
    web = create_app(settings, app=app)
    web.state.app = app  # what its lifespan (not run by the ASGI transport) sets
    host = f"{settings.web_host}:{settings.web_port}"
    loop = asyncio.new_event_loop()
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=web), base_url=f"http://{host}")

    def cli_prisma() -> object:
        get_settings.cache_clear()  # a CLI process reads its settings afresh
        out = runner.invoke(cli, ["study", "prisma", sid, "--json"], env=env)
        assert out.exit_code == 0, out.output
        return out

    def get_page() -> object:
        res = loop.run_until_complete(client.get(f"/study/{sid}"))
        assert res.status_code == 200, (res.status_code, res.text[-1500:])
        return res

    def numbers() -> object:  # tests/services/studies/test_working_set.py::_same_numbers
        page = st.study(sid, owner=owner).to_dict()["working_set"]
        ws = st.working_set(WorkingSetRequest(sid), owner=owner)
        idn = st.prisma(sid, owner=owner).report["identification"]
        export = st.export_working_set(WorkingSetExportRequest(sid, "ris"), owner=owner)
        assert ws.counts.to_dict() == page and isinstance(idn, dict)
        assert idn["records_identified"] == page["records_identified"]  # type: ignore[index]
        assert export.count == page["studies"]  # type: ignore[index]
        return page

    return {
        "study page (studies.study)": lambda: st.study(sid, owner=owner),
        "working set view": lambda: st.working_set(WorkingSetRequest(sid), owner=owner),
        "PRISMA (studies.prisma)": lambda: st.prisma(sid, owner=owner),
        "records list page": lambda: st.records(RecordsRequest(sid), owner=owner),
        "screening next": lambda: app.screening.next(NextRequest(sid), owner=owner),
        "screening line (progress_stages)": lambda: app.screening.progress_stages(sid, owner=owner),
        "GET /study/{id} (ASGI)": get_page,
        "study prisma --json (CLI)": cli_prisma,
        "numbers check (_same_numbers)": numbers,
    }


def _time(fn: Callable[[], object], n: int) -> tuple[list[float], list[float]]:
    fn()  # warm
    cpu, wall = [], []
    for _ in range(n):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return cpu, wall


def _scenario(
    app: App, settings: Settings, fixtures: Path, folder: Path, args: argparse.Namespace
) -> None:
    c0, w0 = time.process_time(), time.perf_counter()
    sid = _study(app, "Five thousand", [_five_thousand(fixtures, folder / "five.csv")])
    app.dedup.run(DedupRequest(files=(), study=sid), owner=app.owner)
    made = time.process_time() - c0, time.perf_counter() - w0
    print(f"  (Study made and deduplicated: {made[0]:.1f} s CPU, {made[1]:.1f} s wall)")
    print(f"  {'use case':32s} {'CPU ms med':>10s} {'min':>7s} {'wall ms med':>11s} {'min':>7s}")
    for name, fn in _cases(app, settings, sid).items():
        if args.only and args.only not in name:
            continue
        cpu, wall = _time(fn, args.n)
        print(
            f"  {name:32s} {statistics.median(cpu) * 1e3:10.1f} {min(cpu) * 1e3:7.1f}"
            f" {statistics.median(wall) * 1e3:11.1f} {min(wall) * 1e3:7.1f}",
            flush=True,
        )
        if args.profile and args.profile in name:
            prof = cProfile.Profile(time.process_time)
            prof.enable()
            for _ in range(args.n):
                fn()
            prof.disable()
            pstats.Stats(prof).sort_stats("cumulative").print_stats(45)


def _run(settings: Settings, fixtures: Path, folder: Path, args: argparse.Namespace) -> None:
    async def go() -> None:
        async with open_app(settings) as app:
            await asyncio.to_thread(_scenario, app, settings, fixtures, folder, args)

    asyncio.run(go())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--postgres", default=None, help="a PostgreSQL URL (a schema is made in it)")
    ap.add_argument("--fixtures", default=os.environ.get("LITDESK_FIXTURES", "tests/fixtures"))
    ap.add_argument("--n", type=int, default=7, help="timed calls per use case (median)")
    ap.add_argument("--only", default=None, help="the use cases whose name holds this")
    ap.add_argument("--profile", default=None, help="cProfile the use case whose name holds this")
    ap.add_argument("--no-sqlite", action="store_true")
    args = ap.parse_args()
    gc.collect()  # as the test processes (tests/conftest.py)
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)
    with tempfile.TemporaryDirectory(prefix="study-bench-") as tmp:
        folder = Path(tmp)
        if not args.no_sqlite:
            print(f"sqlite (load {os.getloadavg()[0]:.1f})", flush=True)
            _run(Settings(data_dir=folder / "data"), Path(args.fixtures), folder, args)
        if args.postgres:
            with _schema(args.postgres) as url:
                print(f"postgres (load {os.getloadavg()[0]:.1f})", flush=True)
                pg = Settings(data_dir=folder / "pg", database_url=url)
                _run(pg, Path(args.fixtures), folder, args)


if __name__ == "__main__":
    main()
