"""Live searches and citation listings across two team server processes on one PostgreSQL
schema (issue 17): each process listens on its own port, so which process answers is
certain. A live search started on worker 1 is followed over worker 2's event stream to its
end and its result opens on worker 2; a slow one started on worker 1 is cancelled on
worker 2 and worker 1 stops its lane (the provider sees the connection dropped) and caches
nothing; when worker 1 is killed mid-search, worker 2 reports the search failed; a citation list shown on worker 1 is saved into a Study on worker 2; another
account finds none of it on either worker."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from tests import _fork
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture re-export
from tests.faces.web._oa_citations import write_openalex
from tests.faces.web._server import epmc_body, epmc_record, free_port, write_cassette
from tests.faces.web._slow import openalex_body
from tests.faces.web._team import WEB, add_accounts
from tests.faces.web._team import fresh as _fresh
from tests.faces.web._team import login as _login
from tests.faces.web._team import wait_ready as _wait_ready
from tests.faces.web.test_live import _events

from litdesk import Settings

LIVE = "/api/v1/search/live"
ROOT = Path(__file__).resolve().parents[3]
SRC = ROOT / "src"
GATE_SECONDS = 60.0
#: the workers' stale bound in the cancel test (seconds; their beat is a quarter of it)
STALE = 5.0


def _env(settings: Settings, tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    return env | {
        "PYTHONPATH": f"{SRC}{os.pathsep}{ROOT}",
        "LITDESK_DATA_DIR": str(tmp_path / "data"),
        "LITDESK_DATABASE_URL": str(settings.database_url),
        **extra,
    }


@contextmanager
def _servers(
    commands: list[list[str]], env: dict[str, str], tmp_path: Path
) -> Iterator[list[subprocess.Popen[bytes]]]:
    """Start one server process per command (each names its port) and wait until ready."""
    procs: list[tuple[subprocess.Popen[bytes], Path, str]] = []
    try:
        for i, (port, *argv) in enumerate(commands):
            log = tmp_path / f"server-{i + 1}.log"
            with log.open("wb") as sink:
                proc = _fork.popen(
                    [sys.executable, *argv], env=env, stderr=sink, cwd=ROOT, warm=WEB,
                    cheap_passwords=True,
                )  # fmt: skip
            procs.append((proc, log, f"http://127.0.0.1:{port}"))
        for proc, log, base in procs:
            _wait_ready(base, proc, log)
        yield [proc for proc, _log, _base in procs]
    finally:
        for proc, _log, _base in procs:
            proc.send_signal(signal.SIGINT)
        for proc, _log, _base in procs:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def _ports() -> tuple[int, int]:
    one = free_port()
    two = free_port()
    while two == one:
        two = free_port()
    return one, two


def _serve(port: int, cassette: Path) -> list[str]:
    cli = "from litdesk.faces.cli import main; main()"
    return [str(port), "-c", cli, "serve", "--team", "--port", str(port), "--replay", str(cassette)]


def _poll(c: httpx.Client, live_id: str, pred: Any, seconds: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        view = c.get(f"{LIVE}/{live_id}").json()
        if pred(view) or time.monotonic() > deadline:
            return dict(view)
        time.sleep(0.05)


def test_a_live_search_and_a_citation_list_cross_two_server_processes(
    pg_schema: str,  # noqa: F811
    tmp_settings: Settings,
    tmp_path: Path,
) -> None:
    settings = tmp_settings.model_copy(update={"database_url": pg_schema})
    add_accounts(settings, "ana", "bob")
    cassette = tmp_path / "cassette"
    write_cassette(cassette, "tumour growth", epmc_body([epmc_record(i) for i in range(1, 6)]))
    write_openalex(cassette)
    one, two = _ports()
    b1, b2 = f"http://127.0.0.1:{one}", f"http://127.0.0.1:{two}"
    with _servers(
        [_serve(one, cassette), _serve(two, cassette)], _env(settings, tmp_path), tmp_path
    ):
        ana, bob = _login(b1, "ana"), _login(b2, "bob")
        with _fresh(b1, ana) as w1, _fresh(b2, ana) as w2:
            started = w1.post(LIVE, json={"q": "tumour growth"})
            assert started.status_code == 202, started.text
            live_id = started.json()["id"]
            events = _events(w2, live_id)  # worker 2 streams what worker 1 runs
            assert events[-1]["state"] == "done" and events[-1]["final"] is True
            lane = events[-1]["lanes"][0]
            assert lane["status"] == "ok" and lane["returned"] == 5
            run_id = events[-1]["run_id"]
            page = w2.get(started.json()["result_url"])
            assert page.status_code == 200
            # the finished run itself (a search run again would have a new run id)
            assert run_id in page.text and page.text.count('<li class="card') == 5
            assert w1.get(f"{LIVE}/{live_id}").json()["run_id"] == run_id

            for base in (b2, b1):  # another account: not found on either worker
                with _fresh(base, bob) as c:
                    gone = c.get(f"{LIVE}/{live_id}")
                    assert gone.status_code == 404 and gone.json()["code"] == "live_not_found"
                    assert c.get(f"{LIVE}/{live_id}/events").status_code == 404
                    assert c.post(f"{LIVE}/{live_id}/cancel").status_code == 404

            listed = w1.get("/api/v1/citations", params={"ids": "W100"})
            assert listed.status_code == 200, listed.text
            chosen = [p["id"] for p in listed.json()["papers"][:2]]
            listing = listed.json()["listing"]
            saved = w2.post(
                "/api/v1/citations/save",
                json={"listing": listing, "paper_ids": [*chosen, "OAX-W999"], "new_study": "W1"},
            )
            assert saved.status_code == 200, saved.text
            body = saved.json()
            assert body["saved"] == chosen and body["study_name"] == "W1"
            assert body["failed"] == [
                {"id": "OAX-W999", "title": "", "reason": "not in the citation list shown"}
            ]
            study = w1.get(f"/api/v1/studies/{body['study_id']}").json()
            assert sorted(p["id"] for p in study["papers"]) == sorted(chosen)
            with _fresh(b2, bob) as c:
                other = c.post(
                    "/api/v1/citations/save",
                    json={"listing": listing, "paper_ids": chosen, "new_study": "Bob's"},
                )
            assert other.status_code == 404 and other.json()["code"] == "listing_not_open"


class GatedOpenAlex:
    """A loopback OpenAlex that holds each request until ``gate`` is set, and notices when
    the client drops the connection meanwhile (a stopped lane)."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.seen: list[str] = []
        self.dropped: list[str] = []
        body = openalex_body()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.seen.append(self.path)
                deadline = time.monotonic() + GATE_SECONDS
                while not owner.gate.wait(0.05) and time.monotonic() < deadline:
                    ready, _w, _x = select.select([self.connection], [], [], 0)
                    if ready and not self.connection.recv(1, socket.MSG_PEEK):
                        owner.dropped.append(self.path)
                        return
                try:
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass

            def log_message(self, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> GatedOpenAlex:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.gate.set()
        self.server.shutdown()
        self.server.server_close()


def _until(pred: Any, seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while not pred():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_cancel_on_one_process_stops_the_lane_running_on_the_other(
    pg_schema: str,  # noqa: F811
    tmp_settings: Settings,
    tmp_path: Path,
) -> None:
    settings = tmp_settings.model_copy(update={"database_url": pg_schema})
    add_accounts(settings, "ana")
    with ExitStack() as stack:
        oax = stack.enter_context(GatedOpenAlex())  # its port first: the workers' are free
        one, two = _ports()
        b1, b2 = f"http://127.0.0.1:{one}", f"http://127.0.0.1:{two}"
        bases = json.dumps({"openalex": oax.url})
        worker = "from tests.faces.web._live_worker import main; main()"
        env = _env(
            settings,
            tmp_path,
            LITDESK_OPENALEX_API_KEY="k-test-123456",
            LITDESK_LIVE_STALE_SECONDS=str(STALE),
        )
        commands = [[str(p), "-c", worker, str(p), bases] for p in (one, two)]
        procs = stack.enter_context(_servers(commands, env, tmp_path))
        ana = _login(b1, "ana")
        w1 = stack.enter_context(_fresh(b1, ana))
        w2 = stack.enter_context(_fresh(b2, ana))
        query = {"q": "slow lane", "provider": ["openalex"]}
        started = w1.post(LIVE, json=query)
        assert started.status_code == 202, started.text
        live_id = started.json()["id"]
        assert _until(lambda: len(oax.seen) == 1), "the lane never reached the provider"
        assert w2.get(f"{LIVE}/{live_id}").json()["state"] == "running"
        cancelled = w2.post(f"{LIVE}/{live_id}/cancel")  # worker 2 does not run it
        assert cancelled.status_code == 200, cancelled.text
        assert cancelled.json()["state"] == "cancelled"
        assert cancelled.json()["lanes"][0]["status"] == "cancelled"
        # worker 1 sees the request and stops its lane: the provider sees the client go
        assert _until(lambda: len(oax.dropped) == 1), "worker 1 did not stop the lane"
        oax.gate.set()
        after = _poll(w1, live_id, lambda v: v["final"])
        assert after["state"] == "cancelled" and after["run_id"] is None
        # nothing of the cancelled search was cached: the same search asks OpenAlex again
        again = w2.post(LIVE, json=query).json()
        done = _poll(w1, again["id"], lambda v: v["final"])
        assert done["state"] == "done", done
        assert len(oax.seen) == 2
        page = w1.get(again["result_url"])
        assert "Slow lane work W900" in page.text and done["run_id"] in page.text

        # worker 1 dies mid-search: worker 2 reports the search failed once its beat is old
        oax.gate.clear()
        third = w1.post(LIVE, json={"q": "slow lane again", "provider": ["openalex"]}).json()
        assert _until(lambda: len(oax.seen) == 3), "the lane never reached the provider"
        procs[0].kill()
        procs[0].wait(timeout=30)
        t0 = time.monotonic()
        dead = _poll(w2, third["id"], lambda v: v["final"])
        assert dead["state"] == "failed" and dead["code"] == "live_stopped", dead
        assert "server handling this search stopped" in dead["message"]
        assert dead["lanes"][0]["status"] == "failed"
        assert time.monotonic() - t0 < 60
        events = _events(w2, third["id"])  # the stream ends too, with the same end
        assert events[-1]["state"] == "failed"
