"""The store side of an import with paper records per owner (issue 29): N generated RIS
records read once, then saved with ``Workspace.import_into_study`` by two accounts, each
into a new Study (all new records of its own) and again into a second Study (every record
matches its own saved paper). Prints, per step, the papers created, the wall time and the
SQL statements executed (the batching: a handful per 500 records, not several per record).
On SQLite (a temp file) and PostgreSQL (a fresh schema of $LITDESK_TEST_POSTGRES_URL).

    PYTHONPATH=src .venv/bin/python bench/paper_owner_import_bench.py 5000
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
import uuid

import sqlalchemy as sa

from litdesk.adapters.store import open_store
from litdesk.services.studies import ImportRequest
from litdesk.services.studies._importing import _read
from litdesk.services.workspace import Workspace


def _ris(n: int) -> bytes:
    rng = random.Random(7)
    lines: list[str] = []
    for i in range(n):
        lines += [
            "TY  - JOUR",
            f"TI  - Title {i} {rng.random()}",
            f"AU  - Smith, J{i}",
            f"PY  - {1990 + i % 30}",
            f"DO  - 10.9999/b.{i}",
            f"AB  - Abstract {i} " + "word " * 40,
            "ER  - ",
            "",
        ]
    return "\n".join(lines).encode()


def run(url: str, data: bytes) -> list[tuple[str, str, int, float, int]]:
    batch = _read(ImportRequest("x", uploads=(("b.ris", data),)), None, None)
    store = open_store(url)
    count = [0]

    def tick(*_args: object) -> None:
        count[0] += 1

    sa.event.listen(store.engine, "before_cursor_execute", tick)
    out = []
    try:
        for owner in ("local", "acct_b"):
            ws = Workspace(store, owner=owner)
            for study in ("S1", "S2"):
                count[0] = 0
                t = time.perf_counter()
                done = ws.import_into_study(batch.imports, study=f"{study}-{owner}")
                out.append(
                    (owner, study, done.created, round(time.perf_counter() - t, 2), count[0])
                )
    finally:
        store.dispose()
    return out


def main() -> None:
    data = _ris(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
    print("(account, Study, papers created, seconds, SQL statements)")
    with tempfile.TemporaryDirectory() as d:
        print("sqlite  ", run(f"sqlite:///{d}/b.sqlite3", data))
    base = os.environ.get("LITDESK_TEST_POSTGRES_URL")
    if not base:
        return
    engine = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    schema = "bench_" + uuid.uuid4().hex[:8]
    with engine.connect() as c:
        c.execute(sa.text(f"CREATE SCHEMA {schema}"))
    try:
        print("postgres", run(f"{base}?options=-csearch_path%3D{schema}", data))
    finally:
        with engine.connect() as c:
            c.execute(sa.text(f"DROP SCHEMA {schema} CASCADE"))
        engine.dispose()


if __name__ == "__main__":
    main()
