"""Team server hardening (issue 29) on both databases: store errors answer a typed, plain
message (never the driver's text), cookies another app left on the host do not hide
litdesk's own, and every login outcome does the same work."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from tests._store_template import store_at_head
from tests.conftest import INDEX_WORKERS_VAR
from tests.faces.web._team import PASSWORD, TeamServer, add_accounts, team_server
from tests.faces.web.conftest import write_web_cassette
from tests.faces.web.test_team_auth import server, team_settings

from litdesk.adapters.store import StoreError
from litdesk.adapters.store._engine import _plain
from litdesk.faces.web._security import SecurityMiddleware

__all__ = ["server", "team_settings"]  # the fixtures, shared with test_team_auth

#: the variables tmp_settings keeps (the tests' fixtures and database, the index workers)
KEPT = {"LITDESK_FIXTURES", "LITDESK_TEST_POSTGRES_URL", INDEX_WORKERS_VAR}


def test_a_nul_in_a_study_name_is_a_plain_input_error(server: TeamServer) -> None:
    with server.signed_in("ana") as ana:
        r = ana.post("/api/v1/studies", json={"name": "a\x00b", "description": "x"})
        assert r.status_code == 400, r.text
        body = r.json()
        assert body["code"] == "nul_character"
        assert body["message"] == "text with a NUL character cannot be stored"
        r = ana.post("/api/v1/studies", json={"name": "plain", "description": "d\x00"})
        assert r.status_code == 400 and r.json()["code"] == "nul_character"
        assert ana.post("/api/v1/studies", json={"name": "plain"}).status_code in (200, 201)


def test_store_errors_carry_no_driver_text() -> None:
    import sqlalchemy as sa

    driver = sa.exc.IntegrityError("INSERT INTO studies", {"name": "secret"}, Exception("uq_x"))
    message = _plain(driver)
    assert "secret" not in message and "uq_x" not in message and "INSERT" not in message
    assert message == "the database refused a change that conflicts with stored data"
    assert _plain(sa.exc.ProgrammingError("s", {}, Exception("relation t"))) == (
        "the database failed"
    )
    assert issubclass(StoreError, Exception)


@pytest.mark.parametrize("junk", ['bad"cookie', "a=b=c; =x", "x=\x7f\x01", "{}", "ld_csrf"])
def test_an_unreadable_cookie_of_another_app_does_not_hide_ours(
    shared_server: TeamServer, junk: str
) -> None:
    server = shared_server
    with server.signed_in("ana") as ana:
        session = ana.cookies.get("ld_session")
        csrf = ana.cookies.get("ld_csrf")
        assert session and csrf
        header = f'other="un"parsable; {junk}; ld_session={session}; ld_csrf={csrf}'
        ana.cookies.clear()
        r = ana.get("/api/v1/auth/me", headers={"cookie": header})
        assert r.status_code == 200, r.text
        r = ana.post(
            "/api/v1/studies", json={"name": f"after {junk!r}"}, headers={"cookie": header}
        )
        assert r.status_code in (200, 201), r.text


def test_the_password_is_checked_alike_for_every_account(
    server: TeamServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every outcome verifies one Argon2 hash: real or unknown account, right length or over
    the limit (an over-long password answered at once for real accounts)."""
    from litdesk.services.accounts import _passwords

    calls: list[int] = []
    real = _passwords._HASHER

    class Counting:
        def verify(self, stored: str, password: str) -> bool:
            calls.append(len(password))
            return real.verify(stored, password)

        def hash(self, password: str) -> str:
            return real.hash(password)

        def check_needs_rehash(self, stored: str) -> bool:
            return real.check_needs_rehash(stored)

    monkeypatch.setattr(_passwords, "_HASHER", Counting())
    long = "x" * (_passwords.MAX_PASSWORD + 1)
    with server.anonymous() as c:
        for username, password in [
            ("ana", long),
            ("nobody", long),
            ("ana", "wrong password!"),
            ("nobody", "wrong password!"),
        ]:
            calls.clear()
            r = c.post("/api/v1/auth/login", json={"username": username, "password": password})
            assert r.status_code == 401
            assert len(calls) == 1, (username, len(password))
            assert calls[0] <= _passwords.MAX_PASSWORD
        calls.clear()
        r = c.post("/api/v1/auth/login", json={"username": "ana", "password": PASSWORD})
        assert r.status_code == 200 and len(calls) == 1


@pytest.mark.parametrize(
    ("headers", "refused"),
    [
        ({"sec-fetch-site": "same-site"}, True),  # another port on loopback
        ({"sec-fetch-site": "cross-site"}, True),
        ({"origin": "http://127.0.0.1:1"}, True),
        ({"referer": "http://127.0.0.1:1/evil"}, True),
        ({"referer": "http://127.0.0.1:1"}, True),
        ({"sec-fetch-site": "same-origin"}, False),
        ({"sec-fetch-site": "none"}, False),
        ({}, False),
    ],
)
@pytest.mark.parametrize(
    "path", ["/api/v1/search", "/api/v1/citations", "/search", "/citations", "/paper/x"]
)
def test_allowance_spending_gets_need_this_origin(
    shared_server: TeamServer, headers: dict[str, str], refused: bool, path: str
) -> None:
    server = shared_server
    with server.signed_in("ana") as ana:
        del ana.headers["origin"]
        r = ana.get(path, headers=headers)
        if refused:
            assert r.status_code == 403, r.text
            assert "allowance" in r.text
        else:
            assert r.status_code != 403, r.text
        # the same page's own referer is this origin
        same = ana.get(path, headers={"referer": server.base + "/search"})
        assert same.status_code != 403


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def shared_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TeamServer]:
    """One team server per backend for the module's parametrized checks, whose data never
    meet (each signs in anew; the GETs refused or let through by their origin headers only
    read, the cookie checks' Studies have names of their own): the ``server`` fixture's
    store, accounts and settings (``test_team_auth``), made once instead of once per check. Its accounts' hashes are made with the tests' cheap Argon2 parameters (the
    autouse fixture that sets them is per test: it comes after this one)."""
    from argon2 import PasswordHasher

    from litdesk import Settings
    from litdesk.services.accounts import _passwords

    place = tmp_path_factory.mktemp("team-reading")
    with pytest.MonkeyPatch.context() as mp:
        for key in list(os.environ):  # as tmp_settings: no settings from the host
            if key.startswith("LITDESK_") and key not in KEPT:
                mp.delenv(key)
        url = store_at_head(request, place / "team" / "litdesk.sqlite3", request.addfinalizer)
        settings = Settings(
            data_dir=place / "data",
            database_url=url,
            login_max_failures_account=3,
            login_max_failures_address=50,
        )
        mp.setattr(_passwords, "_HASHER", PasswordHasher(time_cost=1, memory_cost=1024))
        add_accounts(settings, "ana", "bob")
    with team_server(settings, write_web_cassette(place / "cassette")) as running:
        yield running


def _call(
    guarded: Any, method: str, headers: list[tuple[bytes, bytes]], receive: Any
) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": "/echo", "headers": headers}
    anyio.run(guarded, scope, receive, send)
    return sent


async def _echo_app(scope: Any, receive: Any, send: Any) -> None:
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return
        size += len(message.get("body", b""))
        if not message.get("more_body", False):
            break
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"set-cookie", b"ld_chat=abc; Path=/; HttpOnly"),
                (b"x-size", b"%d" % size),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b"ok"})


def _guard(origin: str, **kw: Any) -> Any:
    host = origin.split("://", 1)[1]
    return SecurityMiddleware(_echo_app, origin=origin, hosts=frozenset({host}), **kw)


def test_a_body_that_stops_arriving_is_cut_off_with_408() -> None:
    token = "t" * 40
    headers = [
        (b"host", b"127.0.0.1:9"),
        (b"origin", b"http://127.0.0.1:9"),
        (b"cookie", f"ld_csrf={token}".encode()),
        (b"x-csrf-token", token.encode()),
    ]
    chunks = [{"type": "http.request", "body": b"x" * 10, "more_body": True}]

    async def stalls() -> dict[str, Any]:
        if chunks:
            return chunks.pop()
        await anyio.sleep(60)
        raise AssertionError("the wait was not cut off")

    started = time.perf_counter()
    sent = _call(_guard("http://127.0.0.1:9", body_timeout=0.3), "POST", headers, stalls)
    assert time.perf_counter() - started < 5
    assert sent[0]["status"] == 408
    assert b"stopped arriving" in sent[-1]["body"]


def test_every_cookie_is_secure_under_https() -> None:
    async def empty() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    for origin, secure in [("https://litdesk.test", True), ("http://127.0.0.1:9", False)]:
        host = origin.split("://", 1)[1].encode()
        sent = _call(_guard(origin), "GET", [(b"host", host)], empty)
        cookies = [v.decode() for k, v in sent[0]["headers"] if k == b"set-cookie"]
        assert {c.split("=", 1)[0] for c in cookies} == {"ld_chat", "ld_csrf"}
        for cookie in cookies:
            assert ("; Secure" in cookie) is secure, cookie


def test_forwarded_headers_are_read_only_from_configured_proxies(tmp_settings: Any) -> None:
    from litdesk.faces.cli._serve import proxy_options

    assert tmp_settings.model_copy(update={"forwarded_allow_ips": ""}).forwarded_allow_ips == ""
    assert type(tmp_settings).model_fields["forwarded_allow_ips"].default == ""
    assert proxy_options(tmp_settings.model_copy(update={"forwarded_allow_ips": ""})) == {
        "proxy_headers": False
    }
    configured = tmp_settings.model_copy(update={"forwarded_allow_ips": " 10.0.0.5, 10.0.0.6 "})
    assert proxy_options(configured) == {
        "proxy_headers": True,
        "forwarded_allow_ips": "10.0.0.5,10.0.0.6",
    }
