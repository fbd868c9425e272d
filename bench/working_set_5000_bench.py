"""Bench: the 5,000-record Study of ``tests/services/studies/test_working_set_5000.py``, step
by step, with the CPU seconds of this process (all its threads; ``time.process_time``) and the
wall seconds of each step: 2,950 imported records of the labelled sets and 50 records a paged
whole search (2,000 records, 20 pages through the provider transport) finds again, the Study's
numbers read, deduplicated, an import removed and restored, the search updated (100 new), the
working set exported, the Study's ZIP. On SQLite in a temporary folder and, with
``--postgres URL``, on PostgreSQL in a fresh schema (dropped after); the PostgreSQL server's own
CPU is not in the figures (it is not this process). The GC thresholds are the test processes'
(``tests/conftest.py``) unless ``--default-gc``.

    PYTHONPATH=src:. LITDESK_FIXTURES=/work/shared/fixtures .venv/bin/python \
        bench/working_set_5000_bench.py [--postgres postgresql+psycopg://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import gc
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import httpx
import sqlalchemy as sa

from litdesk import Settings
from litdesk.services.app import App, open_app
from litdesk.services.dedup import DedupRequest
from litdesk.services.search import SearchRequest
from litdesk.services.studies import (
    AddSearchRequest,
    CreateStudyRequest,
    ImportRequest,
    UpdateStudyRequest,
    WorkingSetExportRequest,
    WorkingSetRequest,
)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the test's own data makers (as bench/zotero_bench.py)

from tests.services.studies._paged import GeneratedSearch  # noqa: E402
from tests.services.studies.test_working_set import _five_thousand  # noqa: E402
from tests.services.studies.test_working_set_5000 import _generated_ris  # noqa: E402


def _inputs(fixtures: Path, folder: Path) -> tuple[Path, Path]:
    labelled = folder / "labelled.csv"
    with open(_five_thousand(fixtures, folder / "all.csv"), encoding="utf-8") as fh:
        rows = [row for _, row in zip(range(2_950), csv.DictReader(fh), strict=False)]
    with open(labelled, "w", encoding="utf-8", newline="") as out:
        w = csv.DictWriter(out, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return labelled, _generated_ris(folder / "found-again.ris", range(50))


class Steps:
    def __init__(self) -> None:
        self.rows: list[tuple[str, float, float]] = []

    def __call__(self, name: str, fn: Callable[[], object]) -> object:
        c0, w0 = time.process_time(), time.perf_counter()
        out = fn()
        self.rows.append((name, time.process_time() - c0, time.perf_counter() - w0))
        return out


def _scenario(app: App, labelled: Path, ris_path: Path, state: dict[str, GeneratedSearch]) -> Steps:
    step = Steps()
    owner = app.owner
    studies = app.studies

    def create_and_import() -> str:
        sid = studies.create_study(CreateStudyRequest("Five thousand", None), owner=owner).id
        studies.import_files(ImportRequest(study=sid, paths=(str(labelled),)), owner=owner)
        return sid

    sid = str(step("import 2,950 (CSV)", create_and_import))
    ris = step("import 50 (RIS)", lambda: app.workspace().save_file(ris_path, study=sid))
    search = SearchRequest("malaria vaccine", providers=("europepmc",))

    def whole_search() -> None:
        job = studies.add_search(AddSearchRequest(sid, search), owner=owner).job.id
        assert studies.work_search_job(job, owner=owner).job.status == "done"

    step("whole search 2,000", whole_search)

    def numbers() -> None:
        studies.study(sid, owner=owner)
        studies.working_set(WorkingSetRequest(sid), owner=owner)
        studies.prisma(sid, owner=owner)

    step("numbers (page, working set, PRISMA)", numbers)
    step("dedup run", lambda: app.dedup.run(DedupRequest(files=(), study=sid), owner=owner))
    step("numbers after dedup", numbers)
    export = WorkingSetExportRequest(sid, "ris")
    step("working-set RIS export", lambda: studies.export_working_set(export, owner=owner))
    import_id = getattr(ris, "import_id", "")
    out = step("remove the RIS import", lambda: studies.remove_import(sid, import_id, owner=owner))
    trash_id = getattr(out, "trash_id", "") or ""
    step("restore it", lambda: studies.restore(trash_id, owner=owner))
    state["search"] = GeneratedSearch(2_100)

    def update() -> None:
        job = studies.update_study(UpdateStudyRequest(sid), owner=owner).job.id
        assert studies.work_search_job(job, owner=owner).job.status == "done"

    step("update (100 new)", update)
    step("numbers after update", numbers)
    step("working-set RIS export (7,100)", lambda: studies.export_working_set(export, owner=owner))
    step("Study ZIP", lambda: studies.export_zip(sid, owner=owner))
    return step


@contextmanager
def _schema(base: str, *, keep: bool = False) -> Iterator[str]:
    engine = sa.create_engine(base)
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        sep = "&" if "?" in base else "?"
        url = f"{base}{sep}options={quote(f'-csearch_path={schema}')}"
        if keep:
            print(f"postgres store kept: {url}")
        yield url
    finally:
        if not keep:
            with engine.begin() as conn:
                conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()


def _run(settings: Settings, labelled: Path, ris: Path) -> Steps:
    state = {"search": GeneratedSearch(2_000)}

    def handler(request: httpx.Request) -> httpx.Response:
        return state["search"](request)

    async def go() -> Steps:
        async with open_app(settings, http_transport=httpx.MockTransport(handler)) as app:
            # the migrations (a fresh store) are not part of the figures
            return await asyncio.to_thread(_scenario, app, labelled, ris, state)

    return asyncio.run(go())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--postgres", default=None, help="a PostgreSQL URL (a schema is made in it)")
    ap.add_argument("--fixtures", default=os.environ.get("LITDESK_FIXTURES", "tests/fixtures"))
    ap.add_argument(
        "--default-gc",
        action="store_true",
        help="keep Python's GC thresholds (else the test processes' ones, tests/conftest.py)",
    )
    ap.add_argument(
        "--keep", default=None, help="a new folder to make and leave the stores in (and the schema)"
    )
    args = ap.parse_args()
    if not args.default_gc:  # as pytest_collection_finish does in the test processes
        gc.collect()
        gc.freeze()
        gc.set_threshold(10_000, 10, 10)
    with tempfile.TemporaryDirectory(prefix="ws5000-") as tmp:
        folder = Path(tmp)
        if args.keep:
            folder = Path(args.keep)
            folder.mkdir(parents=True)
        labelled, ris = _inputs(Path(args.fixtures), folder)
        settings = Settings(data_dir=folder / "data")
        backends: list[tuple[str, Callable[[], Steps]]] = [
            ("sqlite", lambda: _run(settings, labelled, ris))
        ]
        if args.postgres:

            def on_pg() -> Steps:
                with _schema(args.postgres, keep=bool(args.keep)) as url:
                    pg = settings.model_copy(
                        update={"data_dir": folder / "pg", "database_url": url}
                    )
                    return _run(pg, labelled, ris)

            backends.append(("postgres", on_pg))
        for name, run in backends:
            steps = run()
            print(f"{name}: step, CPU s, wall s (load {os.getloadavg()[0]:.1f})")
            for label, cpu, wall in steps.rows:
                print(f"  {label:38s} {cpu:7.2f} {wall:7.2f}")
            cpu = sum(r[1] for r in steps.rows)
            wall = sum(r[2] for r in steps.rows)
            print(f"  {'all':38s} {cpu:7.2f} {wall:7.2f}")


if __name__ == "__main__":
    main()
