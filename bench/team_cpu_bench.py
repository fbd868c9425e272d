"""CPU one request of the team bench's routes costs a team server (issue 29), measured in
this process — not the wall-clock figures of ``team_bench.py``, which on a shared 2-core
machine measure the other processes as much as the server.

The team app (``create_app(team=True)``) over a fresh PostgreSQL schema with the team
bench's data (``team_bench.prepare``: 50 accounts, 3 saved papers each, Studies shared by
10); ``--signed-in`` of them sign in (through the API: Argon2 once each, not measured).
Each route is then called ``--requests`` times through the ASGI interface directly (no
socket, no HTTP client), cycling through the signed-in users, with sync routes run inline
so that one thread holds all the work; the CPU time (``time.process_time``) and the SQL statements per request,
best of three rounds, is printed per route. ``--profile ROUTE`` runs that route's rounds
under cProfile and prints the top functions.

    PYTHONPATH=src .venv/bin/python bench/team_cpu_bench.py [--requests 300] [--signed-in 10]
        [--profile "GET /saved"] [--postgres postgresql+psycopg://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent))
from litdesk import Settings
from team_bench import PASSWORD, QUERY, User, _schema_url, prepare, write_cassette

HOST = "127.0.0.1:8765"
ORIGIN = f"http://{HOST}"


def _inline_threads() -> None:
    """Sync routes and ``to_thread`` calls run inline (one thread holds all the work)."""
    import anyio.to_thread
    import fastapi.concurrency
    import fastapi.dependencies.utils
    import fastapi.routing
    import starlette.concurrency

    async def inline(func: Callable[..., Any], *a: Any, **kw: Any) -> Any:
        return func(*a, **kw)

    async def run_sync(func: Callable[..., Any], *a: Any, **kw: Any) -> Any:
        return func(*a)

    for module in (fastapi.routing, fastapi.dependencies.utils, fastapi.concurrency,
                   starlette.concurrency):  # fmt: skip
        module.run_in_threadpool = inline  # type: ignore[attr-defined]
    anyio.to_thread.run_sync = run_sync  # type: ignore[assignment]
    asyncio.to_thread = inline  # type: ignore[assignment]


#: SQL statements executed in this process (every engine)
STATEMENTS = [0]
#: the statements' text while a route's one request is shown (``--show``)
SHOWN: list[str] = []


def _count_statements() -> None:
    from sqlalchemy.engine import Engine

    def count(_conn: Any, _cursor: Any, statement: str, *_a: Any) -> None:
        STATEMENTS[0] += 1
        if SHOWN and SHOWN[0] == "on":
            SHOWN.append(" ".join(statement.split())[:220])

    sa.event.listen(Engine, "before_cursor_execute", count)


def _routes(user: User, n: int) -> dict[str, tuple[str, str, dict[str, Any] | None]]:
    paper = user.papers[n % len(user.papers)]
    return {
        "GET /saved": ("GET", "/api/v1/saved", None),
        "GET /papers/{id}": ("GET", f"/api/v1/papers/{paper}", None),
        "GET /studies/{ref}": ("GET", f"/api/v1/studies/{user.study}", None),
        "GET /notebook": ("GET", "/api/v1/notebook", None),
        "GET /search": ("GET", f"/api/v1/search?q={quote(QUERY)}", None),
        "POST /papers/{id}/comments": (
            "POST", f"/api/v1/papers/{paper}/comments", {"comment": f"round {n}"}),
        "POST /papers/{id}/status": (
            "POST", f"/api/v1/papers/{paper}/status",
            {"status": ("to-read", "reading", "read")[n % 3]}),
    }  # fmt: skip


async def _call(
    web: Any, method: str, path: str, body: dict[str, Any] | None, auth: dict[str, str]
) -> int:
    raw = json.dumps(body).encode() if body is not None else b""
    target, _, query = path.partition("?")
    headers = [
        (b"host", HOST.encode()),
        (b"cookie", f"ld_session={auth['session']}; ld_csrf={auth['csrf']}".encode()),
        (b"sec-fetch-site", b"same-origin"),
    ]
    if method == "POST":
        headers += [
            (b"origin", ORIGIN.encode()),
            (b"x-csrf-token", auth["token"].encode()),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(raw)).encode()),
        ]
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": "http", "path": target, "raw_path": target.encode(),
        "query_string": query.encode(), "root_path": "", "headers": headers,
        "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8765),
    }  # fmt: skip
    sent: list[dict[str, Any]] = []
    given = False

    async def receive() -> dict[str, Any]:
        nonlocal given
        if given:
            await asyncio.sleep(3600)
        given = True
        return {"type": "http.request", "body": raw, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await web(scope, receive, send)
    return int(sent[0]["status"])


async def _sign_in(web: Any, user: User) -> dict[str, str]:
    transport = httpx.ASGITransport(app=web)
    async with httpx.AsyncClient(
        transport=transport, base_url=ORIGIN, headers={"origin": ORIGIN}
    ) as c:
        await c.get("/login")
        r = await c.post(
            "/api/v1/auth/login",
            json={"username": user.name, "password": PASSWORD},
            headers={"x-csrf-token": c.cookies.get("ld_csrf") or ""},
        )
        assert r.status_code == 200, r.text
        return {
            "session": c.cookies["ld_session"],
            "csrf": c.cookies["ld_csrf"],
            "token": r.json()["csrf_token"],
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--signed-in", type=int, default=10)
    parser.add_argument(
        "--profile",
        default=None,
        help="route labels, comma-separated, e.g. 'GET /saved,GET /notebook'",
    )
    parser.add_argument("--top", type=int, default=35)
    parser.add_argument("--show", default=None, help="route labels: print one request's SQL")
    parser.add_argument(
        "--postgres",
        default=os.environ.get(
            "LITDESK_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
        ),
    )
    args = parser.parse_args()
    _inline_threads()
    _count_statements()
    from litdesk.faces.web import create_app

    schema = f"bench_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(args.postgres)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    url = _schema_url(args.postgres, schema)
    try:
        with tempfile.TemporaryDirectory(prefix="litdesk-team-cpu-") as tmp:
            data = Path(tmp)
            write_cassette(data / "cassette")
            people = prepare(url, data / "data", args.users)
            settings = Settings(data_dir=data / "data", database_url=url, jobs_worker_slots=0)
            web = create_app(settings, team=True, replay=data / "cassette")
            print(f"load {os.getloadavg()[0]:.2f}; {args.requests} requests per route and round")

            async def run() -> None:
                async with web.router.lifespan_context(web):
                    signed = [await _sign_in(web, u) for u in people[: args.signed_in]]
                    labels = list(_routes(people[0], 0))
                    for label in labels:  # warm-up (and every status must be 200)
                        for i in range(20):
                            who = i % len(signed)
                            method, path, body = _routes(people[who], i)[label]
                            status = await _call(web, method, path, body, signed[who])
                            assert status == 200, (label, status)
                    for label in (args.show or "").split(","):
                        if label:
                            method, path, body = _routes(people[0], 1)[label]
                            SHOWN[:] = ["on"]
                            await _call(web, method, path, body, signed[0])
                            print(f"{label}: {len(SHOWN) - 1} statements")
                            for line in SHOWN[1:]:
                                print("   ", line)
                            SHOWN.clear()
                    print(f"{'route':30} {'CPU ms/request':>15} {'statements':>11}")
                    total = 0.0
                    for label in labels:
                        best = float("inf")
                        wanted = label in (args.profile or "").split(",")
                        prof = cProfile.Profile(time.process_time) if wanted else None
                        before = STATEMENTS[0]
                        for _round in range(3):
                            t = time.process_time()
                            if prof is not None:
                                prof.enable()
                            for i in range(args.requests):
                                who = i % len(signed)
                                method, path, body = _routes(people[who], i)[label]
                                await _call(web, method, path, body, signed[who])
                            if prof is not None:
                                prof.disable()
                            best = min(best, (time.process_time() - t) / args.requests * 1000)
                        total += best
                        per = (STATEMENTS[0] - before) / (3 * args.requests)
                        print(f"{label:30} {best:15.2f} {per:11.1f}")
                        if prof is not None:
                            out = io.StringIO()
                            stats = pstats.Stats(prof, stream=out)
                            stats.sort_stats("cumulative").print_stats(args.top)
                            stats.sort_stats("tottime").print_stats(args.top)
                            print(out.getvalue())
                    print(f"{'mean of the routes':30} {total / len(labels):15.2f}")

            asyncio.run(run())
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        engine.dispose()


if __name__ == "__main__":
    main()
