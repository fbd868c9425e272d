"""Single sign-on through OpenID Connect against a real provider on loopback
(``_oidc_provider``) and a real team server (SQLite and PostgreSQL): the whole flow to a
working session, single-use state bound to the browser, every ID-token defect refused, a
token endpoint on another host refused, unknown identities refused or created by the
settings' rules, disabled accounts refused, failures and starts throttled per address (in
the store: two worker processes count the same starts), two tabs of one browser signing in
at once, the client secret never in a log line or a response, and a sign-in started on one
server finished on another over the same database."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests import _fork
from tests._store_template import ensure_sqlite_at_head, pg_schema_url, sqlite_url_at_head
from tests.faces.web._hosting import LOOPBACK_TLS
from tests.faces.web._oidc_provider import CLIENT_ID, CLIENT_SECRET, Provider, openid_provider
from tests.faces.web._server import csrf_from, free_port, serve_app
from tests.faces.web._team import WEB, TeamServer, add_accounts, team_server

from litdesk import Settings
from litdesk.adapters.store import open_store
from litdesk.faces.web import create_app
from litdesk.services.accounts import Accounts


def _database(request: pytest.FixtureRequest, tmp_path: Path, backend: str) -> str:
    """A team store on ``backend`` at the newest migration: a copy of the session's template
    (``tests/_store_template.py``), not a store every test migrates from zero."""
    if backend == "sqlite":
        template = request.getfixturevalue("sqlite_template")
        return sqlite_url_at_head(template, tmp_path / "team" / "litdesk.sqlite3")
    pg = request.getfixturevalue("pg_template")
    schema = pg.take()
    request.addfinalizer(lambda: pg.give_back(schema))
    return pg_schema_url(pg.base_url, schema)


def _sqlite_at_head(tmp_path: Path) -> str:
    """A SQLite team store of this test at the newest migration (a copy of the process's
    template, as :func:`_database` makes)."""
    url = f"sqlite:///{tmp_path / 't.sqlite3'}"
    ensure_sqlite_at_head(url)
    return url


@pytest.fixture
def provider() -> Iterator[Provider]:
    with openid_provider() as op:
        yield op


def _sso_settings(base: Settings, url: str, op: Provider, **over: Any) -> Settings:
    from pydantic import SecretStr

    return base.model_copy(
        update={
            "database_url": url,
            "oidc_issuer": op.issuer,
            "oidc_client_id": CLIENT_ID,
            "oidc_client_secret": SecretStr(CLIENT_SECRET),
            "oidc_display_name": "Lab ID",
            "login_max_failures_address": 50,
            **over,
        }
    )


@contextmanager
def _server(settings: Settings, cassette: Path, op: Provider) -> Iterator[TeamServer]:
    with team_server(settings, cassette) as running:
        op.redirect_uris.add(running.base + "/login/oidc/callback")
        yield running


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _link(settings: Settings, username: str, subject: str) -> None:
    store = open_store(settings)
    try:
        Accounts(store, settings).link(username, subject)
    finally:
        store.dispose()


def _start(client: httpx.Client, op: Provider, next_path: str = "/saved") -> str:
    """The provider's callback URL for this browser's new sign-in."""
    r = client.get("/login/oidc", params={"next": next_path}, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert r.headers["location"].startswith(op.base + "/authorize?")
    flow = [h for h in r.headers.get_list("set-cookie") if h.startswith("ld_oidc=")]
    assert len(flow) == 1
    attrs = flow[0].lower()
    assert "httponly" in attrs and "samesite=lax" in attrs and "path=/login/oidc" in attrs
    at_provider = httpx.get(
        r.headers["location"], follow_redirects=False, timeout=30, verify=LOOPBACK_TLS
    )
    assert at_provider.status_code == 302, at_provider.text
    return at_provider.headers["location"]


def _sign_in(server: TeamServer, op: Provider, client: httpx.Client) -> httpx.Response:
    return client.get(_start(client, op), follow_redirects=False)


def _refused(r: httpx.Response, status: int, words: str) -> None:
    assert r.status_code == status, r.text
    assert words in r.text
    assert not any(h.startswith("ld_session=") for h in r.headers.get_list("set-cookie"))


def test_sign_in_end_to_end(
    request: pytest.FixtureRequest,
    backend: str,
    tmp_settings: Settings,
    tmp_path: Path,
    cassette: Path,
    provider: Provider,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    settings = _sso_settings(tmp_settings, _database(request, tmp_path, backend), provider)
    add_accounts(settings, "ana")
    _link(settings, "ana", "sub-ana")
    bodies: list[str] = []
    with _server(settings, cassette, provider) as server, server.client() as c:
        login = c.get("/login")
        assert 'href="/login/oidc?next=/search"' in login.text
        assert "Sign in with Lab ID" in login.text
        callback = _start(c, provider, "/saved")
        r = c.get(callback, follow_redirects=False)
        bodies += [login.text, r.text]
        assert r.status_code == 303 and r.headers["location"] == "/saved", r.text
        cookies = r.headers.get_list("set-cookie")
        session = [h.lower() for h in cookies if h.startswith("ld_session=")]
        assert len(session) == 1
        assert "httponly" in session[0] and "samesite=lax" in session[0]
        assert "secure" not in session[0]  # plain http on loopback
        assert any(h.startswith("ld_csrf=") for h in cookies)
        me = c.get("/api/v1/auth/me")
        assert me.status_code == 200 and me.json()["username"] == "ana"
        # the session works for a write, with its CSRF token (the page's) and the exact Origin
        csrf = csrf_from(c.get("/saved").text)
        assert csrf != c.cookies.get("ld_csrf")  # bound to the session, not the cookie
        study = c.post(
            "/api/v1/studies",
            json={"name": "Signed in by SSO"},
            headers={"origin": server.base, "x-csrf-token": csrf},
        )
        assert study.status_code in (200, 201), study.text
        first = c.cookies.get("ld_session")
        # the same callback again: the state was single use
        again = c.get(callback, follow_redirects=False)
        bodies.append(again.text)
        _refused(again, 401, "already used")
        # a second sign-in rotates the session
        r2 = _sign_in(server, provider, c)
        assert r2.status_code == 303
        second = c.cookies.get("ld_session")
        assert second and second != first
        with server.client(cookies={"ld_session": first or ""}) as old:
            assert old.get("/api/v1/auth/me").status_code == 401
    # the provider checked secret, code, PKCE verifier and redirect URI; the secret went to
    # the token endpoint only, in the Authorization header, never in a form
    paths = [(path, auth) for path, auth, _ in provider.seen]
    assert ("/token", True) in paths
    assert all(not auth for path, auth in paths if path != "/token")
    assert all(CLIENT_SECRET not in str(form) for _, _, form in provider.seen)
    assert CLIENT_SECRET not in caplog.text
    assert all(CLIENT_SECRET not in b for b in bodies)


def test_state_is_bound_to_the_browser_and_single_use(
    tmp_settings: Settings, tmp_path: Path, cassette: Path, provider: Provider
) -> None:
    settings = _sso_settings(tmp_settings, _sqlite_at_head(tmp_path), provider)
    add_accounts(settings, "ana")
    _link(settings, "ana", "sub-ana")
    with (
        _server(settings, cassette, provider) as server,
        server.client() as a,
        server.client() as b,
    ):
        callback = _start(a, provider)
        # another browser (no pre-login cookie) cannot use it, and it is spent
        _refused(b.get(callback, follow_redirects=False), 401, "another browser")
        _refused(a.get(callback, follow_redirects=False), 401, "already used")
        # a forged or missing state
        _refused(a.get("/login/oidc/callback?code=x&state=" + "A" * 43), 401, "already used")
        _refused(a.get("/login/oidc/callback?code=x"), 401, "not valid")
        # refused at the provider
        provider.script.deny = True
        _refused(a.get(_start(a, provider), follow_redirects=False), 401, "did not sign you in")
        provider.script.deny = False
        ok = _sign_in(server, provider, a)
        assert ok.status_code == 303
        assert a.get("/api/v1/auth/me").json()["username"] == "ana"


DEFECTS: list[tuple[str, dict[str, Any], str]] = [
    ("wrong nonce", {"nonce": "not-the-one-sent"}, "nonce"),
    ("wrong audience", {"aud": "someone-else"}, "aud"),
    ("wrong issuer", {"iss": "https://evil.example"}, "iss"),
    ("expired", {"exp_in": -600}, "expired"),
    ("bad signature", {"signer": "other"}, "signature"),
    ("unsigned", {"signer": "none"}, "accepted algorithm"),
    ("issued long ago", {"iat_ago": 3_600, "exp_in": 600}, "too old"),
    ("another audience too, no azp", {"aud": [CLIENT_ID, "other-client"]}, "azp"),
]


@pytest.mark.parametrize(("label", "change", "words"), DEFECTS, ids=[d[0] for d in DEFECTS])
def test_bad_id_tokens_are_refused(
    label: str,
    change: dict[str, Any],
    words: str,
    tmp_settings: Settings,
    tmp_path: Path,
    cassette: Path,
    provider: Provider,
) -> None:
    settings = _sso_settings(tmp_settings, _sqlite_at_head(tmp_path), provider)
    add_accounts(settings, "ana")
    _link(settings, "ana", "sub-ana")
    for key, value in change.items():
        setattr(provider.script, key, value)
    with _server(settings, cassette, provider) as server, server.client() as c:
        r = _sign_in(server, provider, c)
        _refused(r, 401, words)
        assert CLIENT_SECRET not in r.text
        assert c.get("/api/v1/auth/me").status_code == 401


def test_token_endpoint_on_another_host_is_refused(
    tmp_settings: Settings, tmp_path: Path, cassette: Path, provider: Provider
) -> None:
    port = provider.base.rsplit(":", 1)[1]
    provider.script.token_endpoint = f"http://localhost:{port}/token"
    settings = _sso_settings(tmp_settings, _sqlite_at_head(tmp_path), provider)
    with _server(settings, cassette, provider) as server, server.client() as c:
        r = c.get("/login/oidc", follow_redirects=False)
        assert r.status_code == 503, r.text
        assert "another host" in r.text and "LITDESK_OIDC_ALLOWED_HOSTS" in r.text
    assert all(path != "/token" for path, _, _ in provider.seen)


def test_unknown_identity_is_refused_by_default(
    tmp_settings: Settings, tmp_path: Path, cassette: Path, provider: Provider
) -> None:
    settings = _sso_settings(tmp_settings, _sqlite_at_head(tmp_path), provider)
    add_accounts(settings, "ana")  # not linked
    with _server(settings, cassette, provider) as server, server.client() as c:
        _refused(_sign_in(server, provider, c), 401, "ask an administrator to add you")
    store = open_store(settings)
    try:
        assert [a.username for a in Accounts(store, settings).list()] == ["ana"]
    finally:
        store.dispose()


def test_accounts_created_when_allowed(
    request: pytest.FixtureRequest,
    backend: str,
    tmp_settings: Settings,
    tmp_path: Path,
    cassette: Path,
    provider: Provider,
) -> None:
    settings = _sso_settings(
        tmp_settings,
        _database(request, tmp_path, backend),
        provider,
        oidc_create_accounts=True,
        oidc_email_domains="lab.example, Partner.example",
    )
    add_accounts(settings, "ana")  # a password account of that name exists already
    with _server(settings, cassette, provider) as server:
        provider.script.email = "ana@other.example"
        with server.client() as c:
            _refused(_sign_in(server, provider, c), 401, "e-mail domain")
        provider.script.email, provider.script.email_verified = "ana@lab.example", False
        with server.client() as c:
            _refused(_sign_in(server, provider, c), 401, "verified e-mail")
        provider.script.email_verified = True
        with server.client() as c:
            assert _sign_in(server, provider, c).status_code == 303
            made = c.get("/api/v1/auth/me").json()
        assert made["username"] == "ana-2"  # "ana" was taken: never merged into it
        with server.client() as c:  # the second time, the link finds the same account
            assert _sign_in(server, provider, c).status_code == 303
            assert c.get("/api/v1/auth/me").json()["id"] == made["id"]
        # an account made by SSO has no password that works
        with server.anonymous() as c:
            r = c.post("/api/v1/auth/login", json={"username": "ana-2", "password": "!sso-only"})
            assert r.status_code == 401
    store = open_store(settings)
    try:
        linked = Accounts(store, settings).identities()
    finally:
        store.dispose()
    assert [(i.username, i.subject, i.email) for i in linked] == [
        ("ana-2", "sub-ana", "ana@lab.example")
    ]


def test_disabled_account_cannot_sign_in(
    tmp_settings: Settings, tmp_path: Path, cassette: Path, provider: Provider
) -> None:
    settings = _sso_settings(tmp_settings, _sqlite_at_head(tmp_path), provider)
    add_accounts(settings, "ana")
    _link(settings, "ana", "sub-ana")
    store = open_store(settings)
    try:
        Accounts(store, settings).set_disabled("ana")
    finally:
        store.dispose()
    with _server(settings, cassette, provider) as server, server.client() as c:
        _refused(_sign_in(server, provider, c), 401, "disabled")


def test_failed_callbacks_are_throttled_per_address(
    tmp_settings: Settings, tmp_path: Path, cassette: Path, provider: Provider
) -> None:
    settings = _sso_settings(
        tmp_settings,
        _sqlite_at_head(tmp_path),
        provider,
        login_max_failures_address=3,
    )
    add_accounts(settings, "ana")
    _link(settings, "ana", "sub-ana")
    with _server(settings, cassette, provider) as server, server.client() as c:
        for _ in range(3):
            _refused(c.get("/login/oidc/callback?code=x&state=" + "B" * 43), 401, "start again")
        r = _sign_in(server, provider, c)  # even a good one waits now
        _refused(r, 429, "too many failed sign-ins")
        assert int(r.headers["retry-after"]) > 0
        # password logins from the address are counted together
        with server.anonymous() as p:
            body = {"username": "ana", "password": "correct horse battery"}
            assert p.post("/api/v1/auth/login", json=body).status_code == 429


def test_starts_are_throttled_per_address(
    tmp_settings: Settings, tmp_path: Path, cassette: Path, provider: Provider
) -> None:
    url = _sqlite_at_head(tmp_path)
    settings = _sso_settings(tmp_settings, url, provider, oidc_max_starts_address=3)
    add_accounts(settings, "ana")
    _link(settings, "ana", "sub-ana")
    with _server(settings, cassette, provider) as server, server.client() as c:
        callback = _start(c, provider)
        _start(c, provider)
        # a new server process over the same database counts the same starts
        with _server(settings, cassette, provider) as other, other.client() as d:
            _start(d, provider)
            r = d.get("/login/oidc", params={"next": "/saved"}, follow_redirects=False)
            _refused(r, 429, "too many sign-ins started")
            assert int(r.headers["retry-after"]) == settings.login_window_seconds
            assert provider.base not in r.headers.get("location", "")
        refused = c.get("/login/oidc", follow_redirects=False)
        _refused(refused, 429, "too many sign-ins started")
        # a refused start leaves the browser's pre-login cookie (and its sign-in) alone
        assert not any(h.startswith("ld_oidc=") for h in refused.headers.get_list("set-cookie"))
        done = c.get(callback, follow_redirects=False)
        assert done.status_code == 303 and done.headers["location"] == "/saved", done.text
        # password logins are not counted with the starts
        with server.anonymous() as p:
            body = {"username": "ana", "password": "correct horse battery"}
            assert p.post("/api/v1/auth/login", json=body).status_code == 200


def test_two_tabs_of_one_browser_both_sign_in(
    tmp_settings: Settings, tmp_path: Path, cassette: Path, provider: Provider
) -> None:
    """The pre-login cookie is one per browser: a second start keeps it (rather than
    replacing it and stranding the first tab's sign-in), and it goes only with the last."""
    settings = _sso_settings(tmp_settings, _sqlite_at_head(tmp_path), provider)
    add_accounts(settings, "ana")
    _link(settings, "ana", "sub-ana")
    with _server(settings, cassette, provider) as server, server.client() as c:
        first = _start(c, provider, "/saved")
        cookie = c.cookies.get("ld_oidc")
        second = _start(c, provider, "/studies")
        assert c.cookies.get("ld_oidc") == cookie
        one = c.get(first, follow_redirects=False)
        assert one.status_code == 303 and one.headers["location"] == "/saved", one.text
        assert not any(h.startswith("ld_oidc=") for h in one.headers.get_list("set-cookie"))
        assert c.cookies.get("ld_oidc") == cookie  # the second tab's sign-in still needs it
        two = c.get(second, follow_redirects=False)
        assert two.status_code == 303 and two.headers["location"] == "/studies", two.text
        assert c.cookies.get("ld_oidc") is None  # spent with the last sign-in bound to it
        assert c.get("/api/v1/auth/me").json()["username"] == "ana"
        # a refused callback keeps the cookie while another tab's sign-in is bound to it
        third = _start(c, provider)
        cookie = c.cookies.get("ld_oidc")
        provider.script.deny = True
        _refused(c.get(_start(c, provider), follow_redirects=False), 401, "did not sign you in")
        provider.script.deny = False
        assert c.cookies.get("ld_oidc") == cookie
        assert c.get(third, follow_redirects=False).status_code == 303
        assert c.cookies.get("ld_oidc") is None
        # a cookie that binds nothing live (forged, or spent) is not kept: a new one is made
        c.cookies.set("ld_oidc", "F" * 43, domain="127.0.0.1", path="/login/oidc")
        _start(c, provider)
        assert c.cookies.get("ld_oidc") not in (None, "F" * 43)


def test_started_on_one_server_finished_on_another(
    request: pytest.FixtureRequest,
    tmp_settings: Settings,
    tmp_path: Path,
    cassette: Path,
    provider: Provider,
) -> None:
    """Two team servers over one PostgreSQL database behind one public origin (as two
    workers are): the state is in the store, not in a process."""
    url = _database(request, tmp_path, "postgres")
    port_a, port_b = free_port(), free_port()
    public = f"http://127.0.0.1:{port_a}"
    settings = _sso_settings(tmp_settings, url, provider, team_public_origin=public)
    add_accounts(settings, "ana")
    _link(settings, "ana", "sub-ana")
    provider.redirect_uris.add(public + "/login/oidc/callback")
    app_a = create_app(settings, host="127.0.0.1", port=port_a, replay=cassette, team=True)
    app_b = create_app(settings, host="127.0.0.1", port=port_b, replay=cassette, team=True)
    for _ in serve_app(app_a, port_a):
        for _ in serve_app(app_b, port_b):
            with httpx.Client(base_url=public, timeout=60, verify=LOOPBACK_TLS) as a:
                callback = _start(a, provider)
                assert callback.startswith(public + "/login/oidc/callback?")
                on_b = f"http://127.0.0.1:{port_b}" + callback[len(public) :]
                flow = a.cookies.get("ld_oidc") or ""
                with httpx.Client(timeout=60, verify=LOOPBACK_TLS, cookies={"ld_oidc": flow}) as b:
                    r = b.get(on_b, follow_redirects=False)
                    assert r.status_code == 303, r.text
                    token = r.cookies.get("ld_session") or ""
                    assert token
            with httpx.Client(
                base_url=public, timeout=60, cookies={"ld_session": token}, verify=LOOPBACK_TLS
            ) as a:
                assert a.get("/api/v1/auth/me").json()["username"] == "ana"


def test_a_refused_client_secret_is_never_echoed(
    tmp_settings: Settings,
    tmp_path: Path,
    cassette: Path,
    provider: Provider,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from pydantic import SecretStr

    caplog.set_level(logging.DEBUG)
    wrong = "wrong-secret-" + "w" * 30
    settings = _sso_settings(
        tmp_settings,
        _sqlite_at_head(tmp_path),
        provider,
        oidc_client_secret=SecretStr(wrong),
    )
    add_accounts(settings, "ana")
    _link(settings, "ana", "sub-ana")
    with _server(settings, cassette, provider) as server, server.client() as c:
        r = _sign_in(server, provider, c)
        _refused(r, 502, "invalid_client")
        assert wrong not in r.text and wrong not in str(r.headers)
    assert ("/token", True) in [(p, a) for p, a, _ in provider.seen]  # it was sent there
    assert wrong not in caplog.text


def test_behind_https_the_pre_login_cookie_is_secure(
    tmp_settings: Settings, tmp_path: Path, cassette: Path, provider: Provider
) -> None:
    public = "https://litdesk.lab.example"
    settings = _sso_settings(
        tmp_settings, _sqlite_at_head(tmp_path), provider, team_public_origin=public
    )
    with team_server(settings, cassette) as server, server.client() as c:
        r = c.get("/login/oidc", headers={"host": "litdesk.lab.example"}, follow_redirects=False)
        assert r.status_code == 303, r.text
        flow = [h.lower() for h in r.headers.get_list("set-cookie") if h.startswith("ld_oidc=")]
        assert len(flow) == 1 and "secure" in flow[0] and "httponly" in flow[0]
        # the redirect URI registered at the provider: <public origin>/login/oidc/callback
        sent = httpx.URL(r.headers["location"]).params
        assert sent["redirect_uri"] == public + "/login/oidc/callback"
        assert sent["client_id"] == CLIENT_ID and sent["code_challenge_method"] == "S256"
        assert len(sent["state"]) >= 43 and len(sent["nonce"]) >= 43


def test_sign_ins_across_two_worker_processes(
    request: pytest.FixtureRequest,
    tmp_settings: Settings,
    tmp_path: Path,
    cassette: Path,
    provider: Provider,
) -> None:
    """``litdesk serve --team --workers 2`` as a real process: each step of a sign-in on a
    new connection (either worker may answer either step), every sign-in succeeds, both
    workers took part, and the secret and the codes are in no log line of the server."""
    import json
    import os
    import signal
    import sys
    from concurrent.futures import ThreadPoolExecutor

    from tests.faces.web.test_team_workers import _wait

    url = _database(request, tmp_path, "postgres")
    settings = tmp_settings.model_copy(update={"database_url": url})
    add_accounts(settings, "ana")
    _link(settings.model_copy(update={"oidc_issuer": provider.issuer}), "ana", "sub-ana")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    provider.redirect_uris.add(base + "/login/oidc/callback")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    env |= {
        "LITDESK_DATA_DIR": str(tmp_path / "data"),
        "LITDESK_DATABASE_URL": url,
        "LITDESK_OIDC_ISSUER": provider.issuer,
        "LITDESK_OIDC_CLIENT_ID": CLIENT_ID,
        "LITDESK_OIDC_CLIENT_SECRET": CLIENT_SECRET,
        "LITDESK_OIDC_MAX_STARTS_ADDRESS": "12",
    }
    log = tmp_path / "server.log"
    codes: list[str] = []
    with log.open("wb") as sink:
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

            def sign_in(_: int) -> str:
                with httpx.Client(base_url=base, timeout=60, verify=LOOPBACK_TLS) as first:
                    callback = _start(first, provider)
                    flow = first.cookies.get("ld_oidc") or ""
                codes.append(httpx.URL(callback).params["code"])
                # a new connection for the callback: the kernel hands it to either worker
                with httpx.Client(
                    timeout=60, verify=LOOPBACK_TLS, cookies={"ld_oidc": flow}
                ) as second:
                    r = second.get(callback, follow_redirects=False)
                    assert r.status_code == 303, r.text
                    token = r.cookies.get("ld_session") or ""
                with httpx.Client(
                    base_url=base, timeout=60, verify=LOOPBACK_TLS, cookies={"ld_session": token}
                ) as c:
                    return str(c.get("/api/v1/auth/me").json()["username"])

            with ThreadPoolExecutor(max_workers=6) as pool:
                assert list(pool.map(sign_in, range(12))) == ["ana"] * 12
            # the 13th start is refused whichever worker answers: both count the same starts
            with httpx.Client(base_url=base, timeout=60, verify=LOOPBACK_TLS) as last:
                r = last.get("/login/oidc", follow_redirects=False)
                assert r.status_code == 429 and "retry-after" in r.headers, r.text
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
    text = log.read_text()
    assert CLIENT_SECRET not in text and not any(code in text for code in codes)
    lines = [json.loads(x) for x in text.splitlines() if x.startswith("{")]
    steps = [x for x in lines if x["path"].startswith("/login/oidc")]
    assert len(steps) == 25 and [x["status"] for x in steps].count(303) == 24
    assert len({x["pid"] for x in steps}) == 2  # both workers took part
