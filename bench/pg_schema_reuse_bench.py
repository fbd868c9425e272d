"""What a PostgreSQL test schema costs to make ready for the next test (issue 26): clone the
template and drop the schema a test used (the pool before pgreuse26), against resetting it
(``tests/_pg_reuse.py``: lock, fingerprint and statistics checks, ``DELETE`` from every
table, sequences and the template's rows set back, rename), and the alternatives the reset
was chosen over: ``TRUNCATE`` of every table (with and without ``RESTART IDENTITY``) and a
bare ``DELETE`` from every table.

    .venv/bin/python bench/pg_schema_reuse_bench.py [--rounds 8] \
        [--postgres postgresql+psycopg://postgres@127.0.0.1:5432/test]

Before each emptying, the schema gets a row in every table (as
``tests/adapters/store/test_pg_reuse.py`` writes them). Every statement runs on one
connection, so the server's CPU for it is read from that backend's ``/proc/<pid>/stat``
(the server must run on this machine; ``-`` otherwise). Prints the median wall and server
CPU milliseconds of each operation (the CPU as a mean: the kernel counts it in 10 ms
ticks).
"""

from __future__ import annotations

import argparse
import os
import statistics as stats
import time
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa
from tests._pg_reuse import ident, statistics
from tests._store_template import PgTemplate, create_schema, drop_schema
from tests.adapters.store.test_pg_reuse import _write_everywhere


def _backend_cpu(pid: int) -> float | None:
    """The server process ``pid``'s user + system seconds (None: not readable here)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--postgres", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    template = PgTemplate(args.postgres, spares=0)
    template.engine.dispose()
    template.engine = sa.create_engine(args.postgres, poolclass=sa.pool.StaticPool)
    with template.engine.connect() as conn:
        pid = int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())
    tables = ", ".join(map(ident, template.plan.tables))
    seen: dict[str, list[tuple[float, float | None]]] = {}

    def timed(name: str, run: Callable[[], object]) -> object:
        cpu, wall = _backend_cpu(pid), time.perf_counter()
        out = run()
        wall, after = time.perf_counter() - wall, _backend_cpu(pid)
        seen.setdefault(name, []).append(
            (wall, None if cpu is None or after is None else after - cpu)
        )
        return out

    def empty(schema: str, sql: str) -> None:
        with template.engine.begin() as conn:
            conn.exec_driver_sql(f"SET LOCAL search_path = {ident(schema)}; {sql}")

    try:
        schema, alt = create_schema(template.engine), create_schema(template.engine)
        template.clone_into(schema)
        template.clone_into(alt)  # the alternatives' (a TRUNCATE moves the statistics)
        with template.engine.begin() as conn:
            template.fresh_statistics = statistics(conn, schema)
        for _ in range(args.rounds):
            other = create_schema(template.engine)
            timed("clone (before: per test)", lambda s=other: template.clone_into(s))
            timed("drop (before: per test)", lambda s=other: drop_schema(template.engine, s))
            _write_everywhere(template.engine, schema, template.plan.tables)
            new = timed("reset (after: per test)", lambda s=schema: template.reset(s))
            assert isinstance(new, str), "the reset refused a schema it should take"
            schema = new
            for name, sql in [
                ("the reset's DELETE script alone", template.plan.script),
                ("TRUNCATE every table", f"TRUNCATE {tables}"),
                ("TRUNCATE … RESTART IDENTITY", f"TRUNCATE {tables} RESTART IDENTITY"),
            ]:
                _write_everywhere(template.engine, alt, template.plan.tables)
                timed(name, lambda s=alt, q=sql: empty(s, q))
        drop_schema(template.engine, schema)
        drop_schema(template.engine, alt)
    finally:
        template.close()
    print(
        f"{'operation':34} {'wall ms':>9} {'server CPU ms':>14}  (wall: median, CPU: mean of {args.rounds})"
    )
    for name, runs in seen.items():
        wall = stats.median(w for w, _ in runs) * 1000
        cpus = [c for _, c in runs if c is not None]
        cpu = f"{stats.mean(cpus) * 1000:14.1f}" if cpus else f"{'-':>14}"
        print(f"{name:34} {wall:9.1f} {cpu}")


if __name__ == "__main__":
    main()
