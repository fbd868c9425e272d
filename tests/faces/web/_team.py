"""Helpers of the team-mode web tests: a real team server (uvicorn on loopback) over a store
on SQLite or PostgreSQL, accounts made through the service, and signed-in clients."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI
from tests.faces.web._server import free_port, serve_app

from litdesk import Settings
from litdesk.adapters.store import open_store
from litdesk.faces.web import create_app
from litdesk.services.accounts import Accounts

PASSWORD = "correct horse battery"


@dataclass
class TeamServer:
    base: str
    settings: Settings
    app: FastAPI | None = None  #: the app served (its routes walked by the IDOR tests)

    def client(self, **kw: Any) -> httpx.Client:
        return httpx.Client(base_url=self.base, timeout=60, **kw)

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
def team_server(settings: Settings, cassette: Path, **app_kw: Any) -> Iterator[TeamServer]:
    port = free_port()
    app = create_app(settings, host="127.0.0.1", port=port, replay=cassette, team=True, **app_kw)
    for _ in serve_app(app, port):
        yield TeamServer(f"http://127.0.0.1:{port}", settings, app)
