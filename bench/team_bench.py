"""Team server benchmark (issue 17): `litdesk serve --team` on PostgreSQL, 2 workers vs 1.

For each worker count, a fresh PostgreSQL schema, 50 accounts (each with 3 saved papers;
groups of 10 share a Study, its members editors), a replay cassette written here (no
network), and a real `litdesk serve --team --workers N --replay DIR` process on loopback.
50 concurrent users (one HTTP connection each, signed in through the API) loop over a mix
of reads and writes for the given time:

    GET  /api/v1/saved                      GET /api/v1/papers/{id}
    POST /api/v1/papers/{id}/comments       POST /api/v1/papers/{id}/status
    GET  /api/v1/studies/{ref}              GET /api/v1/notebook
    GET  /api/v1/search?q=…   (every third round; replayed, ranked, cached nowhere)
    POST /api/v1/assist/extract/preview + /api/v1/assist/extract   (every fourth round;
         the suggestion is a job of the shared queue: its time runs until the draft is there)

The AI-assistance calls go to a model server on loopback written here (the Anthropic
Messages wire format, one fixed answer) under a deliberately small allowance
(``--assist-total`` a day in total, ``--assist-owner`` per account, no spacing), so most of
them are refused with 429 — an expected answer, not an error. After the run the store's
counts and the model server's own count of the calls it received are compared with the
limits: any call beyond a limit is an over-spent allowance.

Client-side latency per route (p50/p95), requests per second, errors (any other status
≥ 400 or transport error) and over-spent allowances are printed for 1 worker, 2 workers,
and their ratio.

By default the users have no think time: each sends its next request as soon as the last
one is answered (a closed loop), so the server is always saturated and, by Little's law,
the mean latency is users / throughput (50 users at 63 requests/s: 0.79 s) whatever one
request costs. ``--think-ms T`` makes each user pause a random time (exponential, mean T
ms) after each answer, as a person reading the page would: the latency is then what a
request costs at the load those users offer.

The measured window opens once every user has signed in: 50 sign-ins at once are 50 Argon2
verifications (seconds of CPU on two cores), timed apart as ``POST /auth/login (all at
once)``; before, each user's first ``GET /saved`` waited behind them and made its p95.

    .venv/bin/python bench/team_bench.py [--seconds 60] [--users 50] [--workers 1,2]
        [--assist-total 40] [--assist-owner 2] [--think-ms 0]
        [--postgres postgresql+psycopg://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import httpx
import sqlalchemy as sa

from litdesk import Settings
from litdesk.adapters.http import CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.adapters.store import allowance_owner, assist_usage, open_store
from litdesk.core.records import make_paper
from litdesk.services.accounts import Accounts, Sharing
from litdesk.services.dedup import keep_working_sets
from litdesk.services.search import make_definition, plan_search
from litdesk.services.workspace import Workspace

QUERY = "tumour growth"
PASSWORD = "bench password 0123"
ABSTRACT = "Tumour growth was measured over time in this study."
MODEL_KEY = "sk-ant-bench-0000"
FIELDS = ("question", "population", "method", "intervention", "finding", "limitations")


class ModelServer:
    """A loopback server speaking the Anthropic Messages API with one fixed, verifiable
    answer (the finding quotes the saved papers' abstract); it counts the calls it gets."""

    def __init__(self) -> None:
        self.calls = 0
        self._lock = threading.Lock()
        answer = {n: {"value": "", "quote": "", "block": ""} for n in FIELDS}
        answer["finding"] = {
            "value": "growth measured",
            "quote": ABSTRACT[:-12],
            "block": "abstract",
        }
        payload = {
            "id": "msg_bench", "type": "message", "role": "assistant", "model": "bench-model",
            "content": [{"type": "text", "text": json.dumps(answer)}],
            "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 50},
        }  # fmt: skip
        reply = json.dumps(payload).encode()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with server._lock:
                    server.calls += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, format: str, *args: object) -> None:
                return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


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


def write_cassette(folder: Path) -> None:
    body = json.dumps(
        {"hitCount": 5000, "resultList": {"result": [_record(i) for i in range(20)]}}
    ).encode()
    recorder = CassetteRecorder(folder)
    for lane in plan_search(make_definition(QUERY)).lanes:
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


@dataclass
class User:
    name: str
    papers: list[str]
    study: str


@dataclass
class Tally:
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    samples: list[str] = field(default_factory=list)
    refused: int = 0  # AI-assistance calls refused by the allowance (429): expected
    granted: int = 0  # AI-assistance calls that got a draft
    overspent: list[str] = field(default_factory=list)


def _schema_url(base: str, schema: str) -> str:
    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options={quote(f'-csearch_path={schema}')}"


def prepare(url: str, data_dir: Path, users: int) -> list[User]:
    settings = Settings(data_dir=data_dir, database_url=url)
    store = open_store(settings)
    keep_working_sets(store)  # as the app does: the Studies' records in step with their papers
    try:
        accounts = Accounts(store, settings)
        ids = [accounts.add(f"user{i:03d}", PASSWORD).id for i in range(users)]
        out: list[User] = []
        study = ""
        for i, account in enumerate(ids):
            ws = Workspace(store, owner=account)
            if i % 10 == 0:
                study = ws.create_study(f"Shared review {i // 10}").id
                group_owner = account
            else:
                Sharing(store, group_owner).share(study, f"user{i:03d}", "editor")
            papers = [
                ws.save_paper(
                    make_paper(
                        pmid=str(31_000_000 + i * 10 + k),
                        title=f"Saved paper {k} of user {i}",
                        abstract=ABSTRACT,
                        year=2020,
                        retrieved_at="2026-12-01T00:00:00+00:00",
                    ),
                    study=study if k == 0 else None,
                ).paper.id
                for k in range(3)
            ]
            out.append(User(f"user{i:03d}", papers, study))
        return out
    finally:
        store.dispose()


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid`` and its descendants (``/proc``)."""
    tick = os.sysconf("SC_CLK_TCK")
    parent: dict[int, int] = {}
    used: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            raw = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = raw.rpartition(")")[2].split()  # after the command's name
        parent[int(entry)] = int(fields[1])
        used[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        total += used.get(p, 0.0)
        todo += [c for c, pp in parent.items() if pp == p]
    return total


def start_server(
    url: str,
    data_dir: Path,
    cassette: Path,
    workers: int,
    model: ModelServer,
    limits: tuple[int, int],
    profile: Path | None = None,
) -> tuple[str, object]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    env |= {"LITDESK_DATA_DIR": str(data_dir), "LITDESK_DATABASE_URL": url}
    env |= {
        "LITDESK_LLM_BACKEND": "anthropic", "LITDESK_CHAT_MODEL": "bench-model",
        "LITDESK_ANTHROPIC_BASE_URL": model.base_url, "LITDESK_ANTHROPIC_API_KEY": MODEL_KEY,
        "LITDESK_ASSIST_DAILY_REQUESTS": str(limits[0]),
        "LITDESK_ASSIST_OWNER_DAILY_REQUESTS": str(limits[1]),
        "LITDESK_ASSIST_SPACING_SECONDS": "0",
    }  # fmt: skip
    data_dir.mkdir(parents=True, exist_ok=True)
    with (data_dir / "server.log").open("wb") as log:  # the child keeps its own descriptor
        code = "from litdesk.faces.cli import main; main()"
        if profile is not None:  # one worker: uvicorn serves in this very process
            here = str(Path(__file__).resolve().parent)
            code = (
                f"import sys; sys.path.insert(0, {here!r}); import _sampler; "
                f"_sampler.start({str(profile)!r}); {code}"
            )
        proc = subprocess.Popen(
            [sys.executable, "-c", code, "serve",
             "--team", "--workers", str(workers), "--port", str(port), "--replay", str(cassette)],
            env=env,
            stderr=log,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited: {(data_dir / 'server.log').read_text()[-2000:]}")
        try:
            if httpx.get(f"{base}/readyz", timeout=5).status_code == 200:
                return base, proc
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit("the server did not get ready")
        time.sleep(0.3)


#: the sign-ins, all users at once before the measured window (not counted in it)
LOGIN = "POST /auth/login (all at once)"


class Window:
    """The measured window: it starts once every user has signed in (the 50 sign-ins at once
    are Argon2 verifications, seconds of CPU; they are timed apart, as ``POST /auth/login``)."""

    def __init__(self, seconds: float, users: int) -> None:
        self.seconds = seconds
        self.barrier = asyncio.Barrier(users)
        self.stop_at: float | None = None
        self.opened_at = 0.0
        #: the server's process tree, and its CPU seconds when the window opened
        self.server_pid = 0
        self.cpu_at_open = 0.0

    async def open(self) -> float:
        await self.barrier.wait()
        if self.stop_at is None:
            self.opened_at = time.monotonic()
            self.stop_at = self.opened_at + self.seconds
            if self.server_pid:
                self.cpu_at_open = tree_cpu(self.server_pid)
        return self.stop_at


async def one_user(
    base: str, user: User, window: Window, tally: Tally, think_ms: float = 0.0
) -> None:
    rng = random.Random(user.name)
    stop_at = time.monotonic() + window.seconds  # until the window opens

    async def think() -> None:  # a person reading the answer (none by default)
        if think_ms > 0:
            await asyncio.sleep(min(rng.expovariate(1000 / think_ms), stop_at - time.monotonic()))

    async with httpx.AsyncClient(base_url=base, headers={"origin": base}, timeout=60) as c:
        await c.get("/login")
        started = time.perf_counter()
        r = await c.post(
            "/api/v1/auth/login",
            json={"username": user.name, "password": PASSWORD},
            headers={"x-csrf-token": c.cookies.get("ld_csrf") or ""},
        )
        tally.times[LOGIN].append((time.perf_counter() - started) * 1000)
        stop_at = await window.open()
        if r.status_code != 200:
            tally.errors["login"] += 1
            if len(tally.samples) < 5:
                tally.samples.append(f"login {r.status_code} {r.text[:200]}")
            return
        c.headers["x-csrf-token"] = r.json()["csrf_token"]
        await think()  # people do not all click at the same moment the window opens
        rounds = 0
        while time.monotonic() < stop_at:
            paper = user.papers[rounds % len(user.papers)]
            steps: list[tuple[str, str, str, dict[str, object] | None]] = [
                ("GET /saved", "GET", "/api/v1/saved", None),
                ("GET /papers/{id}", "GET", f"/api/v1/papers/{paper}", None),
                ("POST /papers/{id}/comments", "POST", f"/api/v1/papers/{paper}/comments",
                 {"comment": f"round {rounds}"}),
                ("GET /studies/{ref}", "GET", f"/api/v1/studies/{user.study}", None),
                ("POST /papers/{id}/status", "POST", f"/api/v1/papers/{paper}/status",
                 {"status": ("to-read", "reading", "read")[rounds % 3]}),
                ("GET /notebook", "GET", "/api/v1/notebook", None),
            ]  # fmt: skip
            if rounds % 3 == 0:
                steps.append(("GET /search", "GET", f"/api/v1/search?q={quote(QUERY)}", None))
            if rounds % 4 == 1:
                await suggest(c, paper, tally)
                await think()
            for label, method, path, body in steps:
                if time.monotonic() >= stop_at:
                    break
                started = time.perf_counter()
                try:
                    r = await c.request(method, path, json=body)
                    ok = r.status_code < 400
                    detail = f"{r.status_code} {r.text[:160]}"
                except httpx.HTTPError as exc:
                    ok, detail = False, type(exc).__name__
                tally.times[label].append((time.perf_counter() - started) * 1000)
                if not ok:
                    tally.errors[label] += 1
                    if len(tally.samples) < 5:
                        tally.samples.append(f"{label}: {detail}")
                await think()
            rounds += 1


async def follow_job(c: httpx.AsyncClient, url: str, seconds: float = 120) -> tuple[int, str]:
    """Poll an assistance job (any worker answers) until it ends: 200 for a draft, else the
    HTTP status its failure carries (429: refused by the allowance)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        r = await c.get(url)
        if r.status_code != 200:
            return r.status_code, f"job {r.status_code} {r.text[:160]}"
        job = r.json()
        if not job["active"]:
            if job["status"] == "done":
                return 200, "done"
            error = job.get("error") or {}
            return int(error.get("status", 500)), f"job {job['status']} {str(error)[:160]}"
        await asyncio.sleep(0.1)
    return 504, "job still running after the bench's wait"


async def suggest(c: httpx.AsyncClient, paper: str, tally: Tally) -> None:
    """Preview, then ask for suggested evidence with the preview's consent token."""
    started = time.perf_counter()
    detail = ""
    try:
        r = await c.post("/api/v1/assist/extract/preview", json={"paper_id": paper})
        ok = r.status_code == 200
        detail = f"preview {r.status_code} {r.text[:160]}"
        if ok:
            body = {"paper_id": paper, "consent": r.json()["consent"]["token"]}
            r = await c.post("/api/v1/assist/extract", json=body)
            detail = f"extract {r.status_code} {r.text[:160]}"
            if r.status_code == 202:  # a job of the shared queue: follow it to its draft
                status, detail = await follow_job(c, r.json()["status_url"])
            else:
                status = r.status_code
            if status == 429:
                tally.refused += 1
            elif status == 200:
                tally.granted += 1
            else:
                ok = False
    except httpx.HTTPError as exc:
        ok, detail = False, type(exc).__name__
    tally.times["POST /assist/extract (+preview)"].append((time.perf_counter() - started) * 1000)
    if not ok:
        tally.errors["POST /assist/extract (+preview)"] += 1
        if len(tally.samples) < 5:
            tally.samples.append(detail)


def check_allowance(
    url: str, data_dir: Path, people: list[User], model: ModelServer, limits: tuple[int, int],
    tally: Tally,
) -> None:  # fmt: skip
    """Compare the store's counts and the model server's with the limits."""
    settings = Settings(data_dir=data_dir, database_url=url)
    store = open_store(settings)
    try:
        accounts = {a.username: a.id for a in Accounts(store, settings).list()}
        counted = assist_usage(store, datetime.now(UTC).date().isoformat())
    finally:
        store.dispose()
    total = sum(sum(v.values()) for v in counted.values())
    if total > limits[0]:
        tally.overspent.append(f"store: {total} calls counted, the day's total is {limits[0]}")
    if model.calls > limits[0]:
        tally.overspent.append(f"model server: {model.calls} calls, the day's total is {limits[0]}")
    for u in people:
        n = sum(counted.get(allowance_owner(accounts[u.name]), {}).values())
        if n > limits[1]:
            tally.overspent.append(f"{u.name}: {n} calls, the per-account limit is {limits[1]}")


def _p(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_once(
    postgres: str,
    workers: int,
    users: int,
    seconds: float,
    limits: tuple[int, int],
    think_ms: float = 0.0,
    profile: Path | None = None,
) -> Tally:
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(postgres)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    url = _schema_url(postgres, schema)
    proc = None
    model = ModelServer()
    try:
        with tempfile.TemporaryDirectory(prefix="litdesk-team-bench-") as tmp:
            data = Path(tmp)
            cassette = data / "cassette"
            write_cassette(cassette)
            people = prepare(url, data / "data", users)
            base, proc = start_server(url, data / "data", cassette, workers, model, limits, profile)
            tally = Tally()
            assert isinstance(proc, subprocess.Popen)
            server_pid = proc.pid

            async def everyone() -> None:
                window = Window(seconds, len(people))
                window.server_pid = server_pid
                await asyncio.gather(*(one_user(base, u, window, tally, think_ms) for u in people))
                tally.times["_elapsed"] = [time.monotonic() - window.opened_at]
                tally.times["_server_cpu"] = [tree_cpu(server_pid) - window.cpu_at_open]

            asyncio.run(everyone())
            assert isinstance(proc, subprocess.Popen)
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
            proc = None
            check_allowance(url, data / "data", people, model, limits, tally)
            return tally
    finally:
        model.close()
        if isinstance(proc, subprocess.Popen):
            proc.kill()
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--assist-total", type=int, default=40)
    parser.add_argument("--assist-owner", type=int, default=2)
    parser.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="each user's mean pause after an answer (exponential; 0: none, a closed loop)",
    )
    parser.add_argument(
        "--postgres",
        default=os.environ.get(
            "LITDESK_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
        ),
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="with --workers 1: sample the server's stacks into this file (bench/_sampler.py)",
    )
    args = parser.parse_args()
    counts = [int(x) for x in args.workers.split(",")]
    if args.profile is not None and counts != [1]:
        parser.error("--profile needs --workers 1 (one process serves every request)")
    results: dict[int, Tally] = {}
    for n in counts:
        load = os.getloadavg()[0]
        think = f", think time {args.think_ms:.0f} ms" if args.think_ms > 0 else ", no think time"
        print(
            f"== {n} worker(s), {args.users} users{think}, {args.seconds:.0f} s (load {load:.2f})"
        )
        limits = (args.assist_total, args.assist_owner)
        tally = results[n] = run_once(
            args.postgres, n, args.users, args.seconds, limits, args.think_ms, args.profile
        )
        elapsed = tally.times.pop("_elapsed")[0]
        server_cpu = tally.times.pop("_server_cpu")[0]
        window = {k: v for k, v in tally.times.items() if k != LOGIN}
        total = sum(len(v) for v in window.values())
        errors = sum(tally.errors.values())
        if tally.errors.get("login"):
            print(f"logins refused: {tally.errors['login']} of {args.users}")
        print(f"{'route':30} {'requests':>9} {'p50 ms':>8} {'p95 ms':>8} {'errors':>7}")
        for label in sorted(tally.times):
            times = tally.times[label]
            print(
                f"{label:30} {len(times):9d} {_p(times, 0.5):8.1f} {_p(times, 0.95):8.1f}"
                f" {tally.errors.get(label, 0):7d}"
            )
        print(f"{'all':30} {total:9d} {'':8} {'':8} {errors:7d}   {total / elapsed:.1f} req/s")
        print(
            f"server CPU in the window (its processes, user + system): {server_cpu:.1f} s over "
            f"{elapsed:.1f} s = {server_cpu / elapsed:.2f} cores; "
            f"{server_cpu / max(1, total) * 1000:.2f} ms CPU per request "
            f"(load {os.getloadavg()[0]:.2f} at the end)"
        )
        if args.think_ms <= 0 and total:  # a closed loop: Little's law, L = X × R
            busy = sum(x for v in window.values() for x in v) / 1000 / elapsed
            print(
                f"Little's law (closed loop, no think time): {busy:.1f} requests in flight on "
                f"average (of {args.users} users), so mean latency "
                f"= {busy:.1f} / {total / elapsed:.1f} req/s = {busy / (total / elapsed) * 1000:.0f}"
                f" ms; with all {args.users} in flight, p95 ≤ 150 ms needs"
                f" ≥ {args.users / 0.15:.0f} req/s"
            )
        for sample in tally.samples:
            print("  error:", sample)
        print(
            f"AI assistance: {tally.granted} drafts, {tally.refused} refused by the allowance "
            f"(limits {args.assist_total} a day, {args.assist_owner} an account); "
            f"over-spent allowances: {len(tally.overspent)}"
        )
        for line in tally.overspent:
            print("  over-spent:", line)
    if len(counts) == 2:
        a, b = (results[n] for n in counts)
        rate = [sum(len(v) for v in t.times.values()) for t in (a, b)]
        print(f"throughput {counts[1]} vs {counts[0]} worker(s): {rate[1] / max(1, rate[0]):.2f}x")
        both = sorted(set(a.times) & set(b.times))
        p95 = statistics.median(_p(b.times[k], 0.95) / _p(a.times[k], 0.95) for k in both)
        print(f"median p95 ratio ({counts[1]}/{counts[0]}): {p95:.2f}")


if __name__ == "__main__":
    main()
