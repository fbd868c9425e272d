"""Helpers of the team-mode web tests: a real team server (uvicorn on loopback) over a store
on SQLite or PostgreSQL, accounts made through the service, and signed-in clients; and for
the tests of separate ``litdesk serve --team`` processes over one database: their
environment and start, the wait until they are ready, a session made over HTTP, a fresh
connection with it (the kernel hands each to either worker), and a job's lease holder."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import httpx
import sqlalchemy as sa
from fastapi import FastAPI
from tests import _fork
from tests.faces.web._hosting import LOOPBACK_TLS, Hosting, TransportFactory, client_for

from litdesk import Settings
from litdesk.adapters.store import open_store
from litdesk.adapters.store._jobs import jobs as jobs_table
from litdesk.faces.web import create_app
from litdesk.services.accounts import Accounts

PASSWORD = "correct horse battery"
#: the source tree, for the PYTHONPATH of server processes
SRC = Path(__file__).resolve().parents[3] / "src"
#: the fork server's warm-ups of a team server (``tests._fork_server.WARM_UPS``): its pages
#: and API; with a model asked over the OpenAI API, that SDK too
WEB: Final = ("web",)
WEB_OPENAI: Final = ("web", "openai")


@dataclass
class TeamServer:
    base: str
    settings: Settings
    app: FastAPI | None = None  #: the app served (its routes walked by the IDOR tests)
    #: the in-process app's transports (None: the app answers on a real socket)
    transport: TransportFactory | None = None

    def client(self, **kw: Any) -> httpx.Client:
        return client_for(self.base, self.transport, 60, **kw)

    @contextmanager
    def anonymous(self) -> Iterator[httpx.Client]:
        """A client with the page's Origin and CSRF token, not signed in."""
        with self.client(headers={"origin": self.base}) as c:
            c.get("/login")
            token = c.cookies.get("ld_csrf")
            assert token
            c.headers["x-csrf-token"] = token
            yield c

    @contextmanager
    def signed_in(self, username: str, password: str = PASSWORD) -> Iterator[httpx.Client]:
        with self.anonymous() as c:
            r = c.post("/api/v1/auth/login", json={"username": username, "password": password})
            assert r.status_code == 200, r.text
            c.headers["x-csrf-token"] = r.json()["csrf_token"]
            yield c


def add_accounts(settings: Settings, *names: str) -> dict[str, str]:
    store = open_store(settings)
    try:
        accounts = Accounts(store, settings)
        return {name: accounts.add(name, PASSWORD).id for name in names}
    finally:
        store.dispose()


@contextmanager
def team_server(
    settings: Settings, cassette: Path, hosting: Hosting | None = None, **app_kw: Any
) -> Iterator[TeamServer]:
    """A team app over ``settings``' store: in-process unless ``hosting`` says otherwise
    (a browser test's: the session server)."""
    hosting = hosting or Hosting.in_process()
    app = create_app(
        settings, host=hosting.host, port=hosting.port, replay=cassette, team=True, **app_kw
    )
    with hosting.serve(app) as transport:
        yield TeamServer(hosting.base, settings, app, transport)


# --- separate server processes ----------------------------------------------------------


def team_env(tmp_path: Path, url: str, **extra: str) -> dict[str, str]:
    """The environment of a team server process over the database ``url``: this one's
    without its ``LITDESK_*`` settings, a data directory under ``tmp_path``, and ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    env |= {"LITDESK_DATA_DIR": str(tmp_path / "data"), "LITDESK_DATABASE_URL": url}
    return env | extra


def start_team_process(
    port: int,
    cassette: Path | None,
    env: dict[str, str],
    log: Path,
    *,
    workers: int | None = None,
    new_session: bool = False,
    warm: Sequence[str] = WEB,
    cheap_passwords: bool = True,
) -> subprocess.Popen[bytes]:
    """``litdesk serve --team [--workers N]``, replaying ``cassette`` when given, its stderr
    (the access lines) into ``log``; ``new_session``: its own process group (to signal every
    worker). ``warm``: what the fork server does once before it forks the server
    (``tests._fork_server.WARM_UPS``; by default the pages' and API's per-process start,
    which every server process would pay again); ``cheap_passwords``: the server hashes
    with Argon2id's smallest parameters, as the test process does (~0.2 s of CPU less per
    login; the production parameters are checked in-process, ``real_password_hash``)."""
    args = [sys.executable, "-c", "from litdesk.faces.cli import main; main()", "serve", "--team"]
    if workers is not None:
        args += ["--workers", str(workers)]
    args += ["--port", str(port)]
    if cassette is not None:
        args += ["--replay", str(cassette)]
    with log.open("wb") as sink:
        return _fork.popen(
            args,
            env=env,
            stderr=sink,
            start_new_session=new_session,
            warm=warm,
            cheap_passwords=cheap_passwords,
        )


def wait_ready(base: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Until the server at ``base`` answers ``/readyz`` (90 s; its log when it exits). One
    client for every poll, with the shared TLS context (``httpx.get`` builds a client and
    its TLS context each time: about 19 ms of CPU the starting servers need)."""
    deadline = time.monotonic() + 90
    with httpx.Client(timeout=5, verify=LOOPBACK_TLS) as client:
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"the team server exited: {log.read_text()[-2000:]}")
            try:
                if client.get(f"{base}/readyz").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"the team server did not get ready: {log.read_text()[-2000:]}"
                )
            time.sleep(0.1)


def login(base: str, name: str) -> tuple[str, str]:
    """A session of ``name`` made over HTTP: its cookie's token and its CSRF token."""
    with httpx.Client(
        base_url=base, headers={"origin": base}, timeout=60, verify=LOOPBACK_TLS
    ) as c:
        c.get("/login")
        r = c.post(
            "/api/v1/auth/login",
            json={"username": name, "password": PASSWORD},
            headers={"x-csrf-token": c.cookies.get("ld_csrf") or ""},
        )
        assert r.status_code == 200, r.text
        return c.cookies.get("ld_session") or "", r.json()["csrf_token"]


def fresh(base: str, session: tuple[str, str]) -> httpx.Client:
    """A new connection with the session each time: the kernel hands it to either worker
    (the session lives in the store: any server knows it)."""
    return httpx.Client(
        base_url=base,
        cookies={"ld_session": session[0], "ld_csrf": session[1]},
        headers={"origin": base, "x-csrf-token": session[1]},
        timeout=60,
        verify=LOOPBACK_TLS,
    )


def job_finished_at(url: str, job_id: str) -> str | None:
    """When the job ended (ISO 8601, UTC, as the store keeps it), or None while it runs."""
    store = open_store(url)
    try:
        with store.read() as conn:
            got = conn.execute(
                sa.select(jobs_table.c.finished_at).where(jobs_table.c.id == job_id)
            ).scalar_one()
    finally:
        store.dispose()
    return str(got) if got is not None else None


def job_holder(url: str, job_id: str) -> tuple[str | None, int]:
    """The job's worker id (``host:pid:random/slot``) and attempts, from the store."""
    store = open_store(url)
    try:
        with store.read() as conn:
            row = conn.execute(
                sa.select(jobs_table.c.worker, jobs_table.c.attempts).where(
                    jobs_table.c.id == job_id
                )
            ).one()
    finally:
        store.dispose()
    return row.worker, int(row.attempts)
