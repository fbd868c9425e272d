"""``litdesk serve --team --workers 2`` as a real process on PostgreSQL: migrations run once
before the workers, both workers answer, a session made on one is honoured by the other (the
sessions live in the database), readiness reports the schema at head, and the JSON access
lines name the worker and never the query string."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from tests import _fork
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture re-export
from tests.faces.web._hosting import LOOPBACK_TLS
from tests.faces.web._server import epmc_body, epmc_record, free_port, write_cassette
from tests.faces.web._team import PASSWORD, WEB, add_accounts

from litdesk import Settings


def _answering_pids(log: Path) -> set[int]:
    """The worker processes whose access log shows a ``/readyz`` answer."""
    pids: set[int] = set()
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("{") and '"/readyz"' in line:
            pids.add(int(json.loads(line)["pid"]))
    return pids


def _wait(base: str, proc: subprocess.Popen[bytes], log: Path, *, workers: int = 1) -> None:
    """Until the server answers ``/readyz`` — from ``workers`` distinct worker processes
    (each on a new connection), so that a test about several workers does not start while
    one of them is still importing litdesk on a loaded machine. One client for every poll
    (no kept connection, so each poll is a new one either worker may take; the shared TLS
    context: ``httpx.get`` builds a client and its TLS context each time, about 19 ms of CPU
    twenty times a second that the starting workers need)."""
    deadline = time.monotonic() + 90
    with httpx.Client(
        timeout=5, verify=LOOPBACK_TLS, limits=httpx.Limits(max_keepalive_connections=0)
    ) as client:
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"the team server exited: {log.read_text()[-2000:]}")
            try:
                ready = client.get(f"{base}/readyz").status_code == 200
                if ready and (workers <= 1 or len(_answering_pids(log)) >= workers):
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"the team server did not get ready ({workers} workers): "
                    f"{log.read_text()[-2000:]}"
                )
            time.sleep(0.3 if workers <= 1 else 0.05)


def test_two_workers_share_sessions_and_data(
    pg_schema: str,  # noqa: F811
    tmp_settings: Settings,
    tmp_path: Path,
) -> None:
    settings = tmp_settings.model_copy(update={"database_url": pg_schema})
    add_accounts(settings, "ana")
    cassette = tmp_path / "cassette"
    write_cassette(cassette, "tumour growth", epmc_body([epmc_record(i) for i in range(1, 6)]))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    env |= {"LITDESK_DATA_DIR": str(tmp_path / "data"), "LITDESK_DATABASE_URL": pg_schema}
    log = tmp_path / "server.log"
    with log.open("wb") as sink:
        # forked from the test process's warmed interpreter (``tests/_fork.py``): the same
        # ``serve`` command, its supervisor and workers real processes; what a fresh
        # interpreter's start-up costs is not what is checked here (``test_cli_serve`` starts
        # the supervisor from one)
        proc = _fork.popen(
            [sys.executable, "-c", "from litdesk.faces.cli import main; main()", "serve",
             "--team", "--workers", "2", "--port", str(port), "--replay", str(cassette)],
            env=env,
            stderr=sink,
            warm=WEB,
            cheap_passwords=True,
        )  # fmt: skip
        try:
            _wait(base, proc, log, workers=2)
            with httpx.Client(
                base_url=base, headers={"origin": base}, timeout=60, verify=LOOPBACK_TLS
            ) as c:
                c.get("/login")
                csrf = c.cookies.get("ld_csrf") or ""
                r = c.post(
                    "/api/v1/auth/login",
                    json={"username": "ana", "password": PASSWORD},
                    headers={"x-csrf-token": csrf},
                )
                assert r.status_code == 200, r.text
                c.headers["x-csrf-token"] = r.json()["csrf_token"]
                session = c.cookies.get("ld_session") or ""
                study = c.post("/api/v1/studies", json={"name": "Across workers"}).json()

            def fresh_read(_: int) -> tuple[int, str]:
                # a new connection each time: the kernel hands it to either worker
                with httpx.Client(
                    base_url=base, cookies={"ld_session": session}, timeout=60, verify=LOOPBACK_TLS
                ) as one:
                    r = one.get(f"/api/v1/studies/{study['id']}", params={"q": "secret-q"})
                    return r.status_code, r.json().get("name", "")

            with ThreadPoolExecutor(max_workers=16) as pool:
                answers = list(pool.map(fresh_read, range(64)))
            assert answers == [(200, "Across workers")] * 64
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
    text = log.read_text()
    assert "2 workers" in text and "secret-q" not in text and PASSWORD not in text
    lines = [json.loads(x) for x in text.splitlines() if x.startswith("{")]
    reads = [x for x in lines if x["path"] == f"/api/v1/studies/{study['id']}"]
    assert len(reads) == 64 and all(x["status"] == 200 for x in reads)
    assert len({x["pid"] for x in reads}) == 2  # both workers answered, one session store
