"""CPU and SQL round trips per request of the read routes the team bench hits (issue 29):
``GET /api/v1/saved``, ``/papers/{id}``, ``/studies/{ref}``, ``/notebook`` and
``/search?q=…`` (replayed), on the single-user server over SQLite and on the team server
(``--team``: sessions, access per record) over PostgreSQL.

The ASGI app is called in this process (sync routes and thread hops run inline, so one
thread holds all the work and ``time.process_time`` is the request's CPU); statements are
counted with a SQLAlchemy ``before_cursor_execute`` listener. The data is the team bench's
(``bench/team_bench.py``: 50 accounts, 3 saved papers each, a shared Study per 10, a
cassette of 20 records for the search); each route is asked ``--n`` times, best of three.
Statements are those of the first measured request (SQLite's count includes its ``BEGIN``);
transactions are those that sent a ``BEGIN`` (an autocommit read sends none).

    .venv/bin/python bench/route_cost_bench.py [--n 200] [--only sqlite|postgres]
        [--profile ROUTE]   (cProfile of that route, top 30 by own time)
        [--sql]             (the statements of one request of each route)
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine

sys.path.insert(0, str(Path(__file__).parent))
import team_bench
from litdesk import Settings
from litdesk.adapters.store import open_store
from litdesk.services.accounts import Accounts

STATEMENTS = [0]
TRANSACTIONS = [0]
SHOW: list[str] = []  # the statements of one request, with --sql


@event.listens_for(Engine, "before_cursor_execute")
def _count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
    STATEMENTS[0] += 1
    SHOW.append(" ".join(statement.split())[:160])


@event.listens_for(Engine, "begin")
def _begin(conn: Any) -> None:
    if conn.get_execution_options().get("isolation_level") != "AUTOCOMMIT":  # no BEGIN sent
        TRANSACTIONS[0] += 1


def _inline_threads() -> None:
    import anyio.to_thread
    import fastapi.concurrency
    import fastapi.dependencies.utils
    import fastapi.routing
    import starlette.concurrency

    async def inline(func: Any, *a: Any, **kw: Any) -> Any:
        return func(*a, **kw)

    async def run_sync(func: Any, *a: Any, **kw: Any) -> Any:
        return func(*a)

    for mod in (fastapi.routing, fastapi.dependencies.utils, fastapi.concurrency,
                starlette.concurrency):  # fmt: skip
        if hasattr(mod, "run_in_threadpool"):
            mod.run_in_threadpool = inline  # type: ignore[attr-defined]
    anyio.to_thread.run_sync = run_sync  # type: ignore[assignment]


def routes(user: team_bench.User) -> dict[str, str]:
    return {
        "saved": "/api/v1/saved",
        "paper": f"/api/v1/papers/{user.papers[0]}",
        "study": f"/api/v1/studies/{user.study}",
        "notebook": "/api/v1/notebook",
        "search": "/api/v1/search?q=tumour%20growth",
    }


async def measure(
    web: Any, headers: list[tuple[bytes, bytes]], paths: dict[str, str], n: int,
    profile: str | None, show_sql: bool = False,
) -> dict[str, tuple[float, tuple[int, int]]]:  # fmt: skip
    async def call(path: str) -> None:
        raw, _, query = path.partition("?")
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": "GET", "scheme": "http", "path": raw, "raw_path": raw.encode(),
            "query_string": query.encode(), "root_path": "", "headers": headers,
            "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8765),
        }  # fmt: skip
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await web(scope, receive, send)
        assert sent[0]["status"] == 200, (path, sent[0]["status"], sent[1:2])

    out: dict[str, tuple[float, tuple[int, int]]] = {}
    async with web.router.lifespan_context(web):
        for name, path in paths.items():
            for _ in range(20):
                await call(path)
            best = float("inf")
            STATEMENTS[0] = TRANSACTIONS[0] = 0
            SHOW.clear()
            await call(path)
            queries = (STATEMENTS[0], TRANSACTIONS[0])
            if show_sql:
                print(f"-- {name}: {path}", *SHOW, sep="\n   ")
            for _ in range(3):
                t = time.process_time()
                for _ in range(n):
                    await call(path)
                best = min(best, (time.process_time() - t) / n * 1000)
            out[name] = (best, queries)
            if profile == name:
                prof = cProfile.Profile(time.process_time)
                prof.enable()
                for _ in range(n):
                    await call(path)
                prof.disable()
                pstats.Stats(prof).sort_stats("tottime").print_stats(30)
                pstats.Stats(prof).sort_stats("cumulative").print_stats(60)
    return out


def run(
    kind: str, n: int, profile: str | None, show_sql: bool = False
) -> dict[str, tuple[float, tuple[int, int]]]:
    from litdesk.faces.web import create_app

    postgres = os.environ.get(
        "LITDESK_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    )
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(postgres) if kind == "postgres" else None
    try:
        with tempfile.TemporaryDirectory(prefix="litdesk-route-cost-") as tmp:
            root = Path(tmp)
            url = None
            if engine is not None:
                with engine.begin() as conn:
                    conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
                url = team_bench._schema_url(postgres, schema)
            team_bench.write_cassette(root / "cassette")
            people = team_bench.prepare(url or "", root / "data", 10) if url else None
            settings = Settings(data_dir=root / "data", database_url=url, jobs_worker_slots=0)
            headers = [(b"host", f"{settings.web_host}:{settings.web_port}".encode())]
            if people is None:  # single user: the same shape under the local owner
                people = _prepare_local(settings)
            user = people[1]
            if url:
                store = open_store(settings)
                try:
                    token = (
                        Accounts(store, settings)
                        .login(user.name, team_bench.PASSWORD, address="127.0.0.1")
                        .token
                    )
                finally:
                    store.dispose()
                headers.append((b"cookie", f"ld_session={token}".encode()))
            web = create_app(settings, replay=root / "cassette", team=url is not None)
            return asyncio.run(measure(web, headers, routes(user), n, profile, show_sql))
    finally:
        if engine is not None:
            with engine.begin() as conn:
                conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            engine.dispose()


def _prepare_local(settings: Settings) -> list[team_bench.User]:
    from litdesk.core.records import make_paper
    from litdesk.services.dedup import keep_working_sets
    from litdesk.services.workspace import Workspace

    store = open_store(settings)
    keep_working_sets(store)  # as the app does
    try:
        ws = Workspace(store)
        study = ws.create_study("Shared review 0").id
        papers = [
            ws.save_paper(
                make_paper(pmid=str(31_000_000 + k), title=f"Saved paper {k}",
                           abstract=team_bench.ABSTRACT, year=2020,
                           retrieved_at="2026-12-01T00:00:00+00:00"),
                study=study if k == 0 else None,
            ).paper.id
            for k in range(3)
        ]  # fmt: skip
        user = team_bench.User("local", papers, study)
        return [user, user]
    finally:
        store.dispose()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--only", choices=("sqlite", "postgres"))
    ap.add_argument("--profile")
    ap.add_argument("--sql", action="store_true", help="print one request's statements")
    args = ap.parse_args()
    _inline_threads()
    for kind in ("sqlite", "postgres"):
        if args.only and kind != args.only:
            continue
        result = run(kind, args.n, args.profile, args.sql)
        print(f"== {kind}: CPU ms per request (best of 3 × {args.n}), SQL statements")
        for name, (ms, (queries, transactions)) in result.items():
            print(
                f"  {name:10} {ms:7.2f} ms  {queries:3d} statements in {transactions} transactions"
            )


if __name__ == "__main__":
    main()
