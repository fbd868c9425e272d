"""Team mode on a real server (SQLite and PostgreSQL): sign-in and sign-out, the session
cookie's attributes, throttled wrong passwords, expiry, CSRF and exact Origin on the login
itself, the session gate, roles over HTTP, health and readiness, access logs."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._store_template import pg_schema_url, sqlite_url_at_head
from tests.faces.web._server import csrf_from
from tests.faces.web._team import PASSWORD, TeamServer, add_accounts, team_server

from litdesk import ManualClock, Settings
from litdesk.adapters.store import open_store
from litdesk.services.accounts import Accounts, LoginFailed, LoginThrottled


@pytest.fixture(params=["sqlite", "postgres"])
def team_settings(request: pytest.FixtureRequest, tmp_settings: Settings, tmp_path: Path):
    """A team store on each backend at the newest migration (a copy of the session's
    template, ``tests/_store_template.py``)."""
    if request.param == "sqlite":
        template = request.getfixturevalue("sqlite_template")
        url = sqlite_url_at_head(template, tmp_path / "team" / "litdesk.sqlite3")
    else:
        # the template itself (a global fixture): other test files import this fixture
        template = request.getfixturevalue("pg_template")
        schema = template.take()
        request.addfinalizer(lambda: template.give_back(schema))
        url = pg_schema_url(template.base_url, schema)
    return tmp_settings.model_copy(
        update={
            "database_url": url,
            "login_max_failures_user_address": 3,
            "login_max_failures_account": 6,
            "login_max_failures_address": 50,
        }
    )


@pytest.fixture
def server(team_settings: Settings, cassette: Path) -> Iterator[TeamServer]:
    add_accounts(team_settings, "ana", "bob")
    with team_server(team_settings, cassette) as running:
        yield running


def _cookie_attrs(set_cookie: list[str], name: str) -> str:
    found = [h for h in set_cookie if h.startswith(f"{name}=")]
    assert len(found) == 1, set_cookie
    return found[0].lower()


def test_everything_needs_a_session(server: TeamServer) -> None:
    with server.client() as c:
        r = c.get("/search", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/login?next=/search"
        r = c.get("/api/v1/saved")
        assert r.status_code == 401 and r.json()["code"] == "login_required"
        assert c.get("/api/v1/openapi.json").status_code == 401
        assert c.get("/healthz").json() == {"status": "ok"}
        ready = c.get("/readyz")
        assert ready.status_code == 200 and ready.json()["ready"] is True
        assert ready.json()["revision"] == ready.json()["head"]
        login = c.get("/login")
        assert login.status_code == 200 and 'name="password"' in login.text
        assert c.get("/static/app.css").status_code == 200


def test_login_form_sets_a_rotated_lax_session(server: TeamServer) -> None:
    with server.anonymous() as c:
        token = c.headers["x-csrf-token"]
        form = {"username": "ana", "password": PASSWORD, "csrf_token": token, "next": "/saved"}
        del c.headers["x-csrf-token"]
        r = c.post("/login", data=form, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/saved"
        attrs = _cookie_attrs(r.headers.get_list("set-cookie"), "ld_session")
        assert "httponly" in attrs and "samesite=lax" in attrs and "path=/" in attrs
        assert "secure" not in attrs  # plain http on loopback
        first = c.cookies.get("ld_session")
        new_cookie = c.cookies.get("ld_csrf")
        assert first and new_cookie and new_cookie != token  # a fresh CSRF cookie at login
        page = c.get("/saved")
        assert page.status_code == 200
        new_csrf = csrf_from(page.text)  # the session's token, neither cookie's value
        assert new_csrf not in (token, new_cookie)
        assert c.get("/api/v1/auth/me").json()["username"] == "ana"
        form["csrf_token"] = token  # the token of before the login is refused now
        r = c.post("/login", data=form, follow_redirects=False)
        assert r.status_code == 403 and "CSRF" in r.text
        # signing in again rotates the session and its CSRF token; the old token is dead
        form["csrf_token"] = new_csrf
        r = c.post("/login", data=form, follow_redirects=False)
        assert r.status_code == 303
        second = c.cookies.get("ld_session")
        assert second and second != first
        newest = csrf_from(c.get("/saved").text)
        assert newest != new_csrf
        r = c.post("/api/v1/studies", json={"name": "x"}, headers={"x-csrf-token": new_csrf})
        assert r.status_code == 403 and r.json()["code"] == "csrf"
        r = c.post("/api/v1/studies", json={"name": "Mine"}, headers={"x-csrf-token": newest})
        assert r.status_code == 200, r.text
    with server.client(cookies={"ld_session": first}) as old:
        assert old.get("/api/v1/auth/me").status_code == 401
    with server.client(cookies={"ld_session": second}) as current:
        assert current.get("/api/v1/auth/me").status_code == 200


def test_login_needs_origin_and_csrf(server: TeamServer) -> None:
    body = {"username": "ana", "password": PASSWORD}
    with server.anonymous() as c:
        token = c.headers["x-csrf-token"]
        r = c.post("/api/v1/auth/login", json=body, headers={"origin": "http://evil.example"})
        assert r.status_code == 403 and r.json()["code"] == "origin"
        del c.headers["origin"]
        r = c.post("/api/v1/auth/login", json=body)
        assert r.status_code == 403 and r.json()["code"] == "origin_missing"
        c.headers["origin"] = server.base
        r = c.post("/api/v1/auth/login", json=body, headers={"x-csrf-token": "x" * 43})
        assert r.status_code == 403 and r.json()["code"] == "csrf"
        form = {"username": "ana", "password": PASSWORD}  # a form post without the token
        del c.headers["x-csrf-token"]
        r = c.post("/login", data=form, follow_redirects=False)
        assert r.status_code == 403
        assert "ld_session" not in c.cookies
        c.headers["x-csrf-token"] = token
        assert c.post("/api/v1/auth/login", json=body).status_code == 200


def test_csrf_token_is_bound_to_the_session(server: TeamServer) -> None:
    """Red team: ana's token in both cookie and header was accepted on bob's session (a
    double-submit cookie a sibling host can set). Each session has its own token now."""
    with server.signed_in("ana") as ana, server.signed_in("bob") as bob:
        ana_token = ana.headers["x-csrf-token"]
        bob_token = bob.headers["x-csrf-token"]
        assert ana_token != bob_token
        assert csrf_from(bob.get("/saved").text) == bob_token  # the page carries the same
        # ana's token on bob's session, in the header and in the cookie: refused
        session = bob.cookies.get("ld_session")
        cookie = f"ld_session={session}; ld_csrf={ana_token}"
        r = bob.post(
            "/api/v1/studies",
            json={"name": "Forged"},
            headers={"x-csrf-token": ana_token, "cookie": cookie},
        )
        assert r.status_code == 403 and r.json()["code"] == "csrf", r.text
        form = {"name": "Forged", "csrf_token": ana_token}
        del bob.headers["x-csrf-token"]
        r = bob.post("/studies", data=form, follow_redirects=False)
        assert r.status_code == 403 and "CSRF token is missing or wrong" in r.text
        # a multipart form (a file upload without JavaScript) too
        files = {"csrf_token": (None, ana_token), "name": (None, "Forged")}
        r = bob.post("/studies", files=files, follow_redirects=False)
        assert r.status_code == 403 and "CSRF" in r.text
        assert "Forged" not in bob.get("/api/v1/studies").text
        # bob's own token is accepted, whatever the ld_csrf cookie says
        r = bob.post("/studies", data={"name": "Bob's", "csrf_token": bob_token})
        assert r.status_code in (200, 303), r.text
        r = bob.post(
            "/api/v1/studies", json={"name": "Bob's API"}, headers={"x-csrf-token": bob_token}
        )
        assert r.status_code == 200, r.text
        # logout: the session's token is left with nothing to match
        r = bob.post("/api/v1/auth/logout", headers={"x-csrf-token": bob_token})
        assert r.status_code == 200
        fresh = [h for h in r.headers.get_list("set-cookie") if h.startswith("ld_csrf=")]
        assert len(fresh) == 1 and bob_token not in fresh[0]  # a new random cookie
        r = bob.post(
            "/api/v1/auth/login",
            json={"username": "bob", "password": PASSWORD},
            headers={"x-csrf-token": bob_token},
        )
        assert r.status_code == 403 and r.json()["code"] == "csrf"


def test_writes_after_login_keep_csrf_and_origin(server: TeamServer) -> None:
    with server.signed_in("ana") as c:
        r = c.post("/api/v1/studies", json={"name": "Ana's Study"})
        assert r.status_code == 200, r.text
        r = c.post("/api/v1/studies", json={"name": "No token"}, headers={"x-csrf-token": ""})
        assert r.status_code == 403
        r = c.post(
            "/api/v1/studies", json={"name": "Elsewhere"}, headers={"origin": "http://x.example"}
        )
        assert r.status_code == 403


def test_wrong_passwords_are_throttled(server: TeamServer) -> None:
    with server.anonymous() as c:
        for _ in range(3):
            r = c.post("/api/v1/auth/login", json={"username": "ana", "password": "wrong one!!"})
            assert r.status_code == 401 and r.json()["code"] == "login_failed"
            assert PASSWORD not in r.text and "wrong one" not in r.text
        r = c.post("/api/v1/auth/login", json={"username": "ana", "password": PASSWORD})
        assert r.status_code == 429 and r.json()["code"] == "login_throttled"
        assert int(r.headers["retry-after"]) > 0
        # the form says so too
        form = {"username": "ana", "password": PASSWORD, "csrf_token": c.headers["x-csrf-token"]}
        r = c.post("/login", data=form, follow_redirects=False)
        assert r.status_code == 429 and "too many failed logins" in r.text
    with server.signed_in("bob") as other:  # another account is not affected
        assert other.get("/api/v1/auth/me").json()["username"] == "bob"


def test_a_guessing_address_never_locks_the_user_out(server: TeamServer) -> None:
    """Red team: 5 wrong passwords from anywhere locked a colleague out for 15 minutes. An
    attacker's address (here 10.6.6.6, through the service on the same store) locks only
    itself; past the name's ceiling an address that failed answers 429 with Retry-After (a
    wait, not a lock); this browser's address, without failures, signs in throughout."""
    accounts = Accounts(open_store(server.settings), server.settings)
    try:
        for _ in range(3):
            with pytest.raises(LoginFailed):
                accounts.login("ana", "wrong one!!", address="10.6.6.6")
        with pytest.raises(LoginThrottled):  # the attacker's address is locked for ana
            accounts.login("ana", PASSWORD, address="10.6.6.6")
        for i in range(3):  # six failures for ana from all addresses: the ceiling
            with pytest.raises(LoginFailed):
                accounts.login("ana", "wrong one!!", address=f"10.7.7.{i}")
    finally:
        accounts.store.dispose()
    body = {"username": "ana", "password": PASSWORD}
    with server.anonymous() as c:
        r = c.post("/api/v1/auth/login", json=body)
        assert r.status_code == 200, r.text  # ana's own address: no failures, signed in
        c.headers["x-csrf-token"] = r.json()["csrf_token"]
        wrong = {"username": "ana", "password": "a typo!!!!!!"}
        r = c.post("/api/v1/auth/login", json=wrong)
        assert r.status_code == 401 and r.json()["code"] == "login_failed"
        r = c.post("/api/v1/auth/login", json=body)  # now slowed, past the ceiling
        assert r.status_code == 429 and r.json()["code"] == "login_slowed"
        wait = int(r.headers["retry-after"])
        assert 0 < wait <= server.settings.login_slow_seconds
        assert "try again in" in r.json()["message"]
    with server.signed_in("bob") as other:  # another account is not affected
        assert other.get("/api/v1/auth/me").json()["username"] == "bob"


def test_logout_ends_the_session(server: TeamServer) -> None:
    with server.signed_in("ana") as c:
        token = c.cookies.get("ld_session")
        r = c.post("/api/v1/auth/logout")
        assert r.status_code == 200
        assert (
            "ld_session=" in r.headers["set-cookie"]
            and "max-age=0" in r.headers["set-cookie"].lower()
        )
        assert c.get("/api/v1/auth/me").status_code == 401
    with server.client(cookies={"ld_session": token}) as replay:
        assert replay.get("/api/v1/auth/me").status_code == 401  # ended in the store
    with server.signed_in("ana") as c:
        assert "Sign out" in c.get("/logout").text
        r = c.post("/logout", data={"csrf_token": c.headers["x-csrf-token"]})
        assert r.status_code == 303 and r.headers["location"] == "/login"
        assert c.get("/api/v1/auth/me").status_code == 401


def test_sessions_expire(team_settings: Settings, cassette: Path) -> None:
    clock = ManualClock()
    add_accounts(team_settings, "ana")
    with (
        team_server(team_settings, cassette, clock=clock) as running,
        running.signed_in("ana") as c,
    ):
        assert c.get("/api/v1/auth/me").status_code == 200
        clock.advance(team_settings.session_hours * 3600 - 1)
        assert c.get("/api/v1/auth/me").status_code == 200  # one second left
        clock.advance(1)
        assert c.get("/api/v1/auth/me").status_code == 401


def test_https_origin_makes_the_cookie_secure(team_settings: Settings, cassette: Path) -> None:
    proxied = team_settings.model_copy(update={"team_public_origin": "https://litdesk.test"})
    add_accounts(proxied, "ana")
    with team_server(proxied, cassette) as running:
        headers = {"host": "litdesk.test", "origin": "https://litdesk.test"}
        with running.client(headers=headers) as c:
            first = c.get("/login")
            token = c.cookies.get("ld_csrf")
            assert token
            assert "secure" in _cookie_attrs(first.headers.get_list("set-cookie"), "ld_csrf")
            # the client speaks http to the app (the proxy's side of TLS): it would not send a
            # Secure cookie back, the browser on https does
            cookie = f"ld_csrf={token}"
            r = c.post(
                "/api/v1/auth/login",
                json={"username": "ana", "password": PASSWORD},
                headers={"x-csrf-token": token, "cookie": cookie},
            )
            assert r.status_code == 200, r.text
            attrs = _cookie_attrs(r.headers.get_list("set-cookie"), "ld_session")
            assert "secure" in attrs and "samesite=lax" in attrs
            assert "secure" in _cookie_attrs(r.headers.get_list("set-cookie"), "ld_csrf")
            r = c.post(  # the loopback origin no longer writes
                "/api/v1/auth/login",
                json={"username": "ana", "password": PASSWORD},
                headers={"x-csrf-token": token, "origin": running.base, "cookie": cookie},
            )
            assert r.status_code == 403


def test_roles_over_http(server: TeamServer) -> None:
    with server.signed_in("ana") as ana, server.signed_in("bob") as bob:
        study = ana.post("/api/v1/studies", json={"name": "Shared review"}).json()
        ref = study["id"]
        assert bob.get(f"/api/v1/studies/{ref}").status_code == 404
        assert (
            bob.post(
                f"/api/v1/studies/{ref}/members", json={"username": "bob", "role": "owner"}
            ).status_code
            == 404
        )
        r = ana.post(f"/api/v1/studies/{ref}/members", json={"username": "bob", "role": "viewer"})
        assert r.status_code == 200 and r.json()["members"][0]["role"] == "viewer"
        assert bob.get(f"/api/v1/studies/{ref}").json()["name"] == "Shared review"
        r = bob.post(f"/api/v1/studies/{ref}/rename", json={"name": "Bob's now"})
        assert r.status_code == 403 and r.json()["code"] == "forbidden"
        assert bob.get(f"/api/v1/studies/{ref}/export").status_code == 200  # viewers export
        r = ana.post(f"/api/v1/studies/{ref}/members", json={"username": "bob", "role": "editor"})
        assert r.status_code == 200
        assert bob.post(f"/api/v1/studies/{ref}/rename", json={"name": "x"}).status_code == 403
        assert (
            ana.post(f"/api/v1/studies/{ref}/rename", json={"name": "Renamed"}).status_code == 200
        )
        history = bob.get(f"/api/v1/studies/{ref}/history").json()["entries"]
        actions = [(e["username"], e["action"]) for e in reversed(history)]
        assert actions == [
            ("ana", "study_created"),
            ("ana", "member_viewer"),
            ("ana", "member_editor"),
            ("ana", "study_renamed"),
        ]
        page = bob.get(f"/study/{ref}/history").text  # a team's page says who
        assert '<th scope="col">Who</th>' in page and 'data-label="Who">ana<' in page
        assert bob.get("/api/v1/studies").json()["studies"][0]["id"] == ref


def test_access_log_has_no_query_or_credentials(
    server: TeamServer, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="litdesk.access"), server.signed_in("ana") as c:
        c.get("/api/v1/saved", params={"text": "secret-query-words"})
        c.post("/api/v1/auth/login", json={"username": "ana", "password": "typo-password-x"})
        session = c.cookies.get("ld_session") or ""
    lines: list[dict[str, Any]] = [
        json.loads(r.getMessage()) for r in caplog.records if r.name == "litdesk.access"
    ]
    assert any(line["path"] == "/api/v1/saved" and line["status"] == 200 for line in lines)
    text = "\n".join(r.getMessage() for r in caplog.records)
    for secret in ("secret-query-words", "typo-password-x", PASSWORD, session):
        assert secret and secret not in text
    signed = [line for line in lines if line["path"] == "/api/v1/saved"]
    assert signed[0]["account"] and len(signed[0]["account"]) == 12


def test_loopback_host_answers_health_checks(team_settings: Settings, cassette: Path) -> None:
    proxied = team_settings.model_copy(update={"team_public_origin": "https://litdesk.test"})
    with team_server(proxied, cassette) as running:
        port = running.base.rsplit(":", 1)[1]
        with running.client(headers={"host": f"localhost:{port}"}) as c:
            assert c.get("/readyz").json()["ready"] is True
        with running.client(headers={"host": "evil.example"}) as c:
            assert c.get("/readyz").status_code == 421  # any other name is still refused


def test_team_zotero_refuses_server_files(server: TeamServer, tmp_path: Path) -> None:
    """A team account imports no folder of the server's machine and pushes to no file
    there nor to the Zotero running there (the Web API with its own key only)."""
    with server.signed_in("ana") as c:
        page = c.get("/zotero/push")
        assert page.status_code == 200 and 'id="push-team"' in page.text
        assert 'value="ris"' not in page.text and 'value="local"' not in page.text
        for body in (
            {"study": "S", "ris_path": str(tmp_path / "x.ris")},
            {"study": "S", "local": True},
        ):
            r = c.post("/api/v1/zotero/pushes", json=body)
            assert r.status_code == 403 and r.json()["code"] == "zotero_team", r.text
        assert not (tmp_path / "x.ris").exists()
        imp = c.post("/api/v1/zotero/imports", json={"data_dir": str(tmp_path)})
        assert imp.status_code == 403 and imp.json()["code"] == "zotero_team"


def test_members_page_gives_and_takes_roles(server: TeamServer) -> None:
    """The owner sets a Study's reviewers on a page (before: only the JSON API could);
    an unknown account is said beside the form; a member sees the roles, not the form."""
    with server.signed_in("ana") as ana, server.signed_in("bob") as bob:
        ref = ana.post("/api/v1/studies", json={"name": "Shared <b>review</b>"}).json()["id"]
        study_page = ana.get(f"/study/{ref}").text
        assert f'href="/study/{ref}/members"' in study_page
        shown = ana.get(f"/study/{ref}/members").text
        assert 'id="members-form"' in shown and "Shared &lt;b&gt;review&lt;/b&gt;" in shown
        token = ana.headers["x-csrf-token"]
        r = ana.post(
            f"/study/{ref}/members", data={"username": "bob", "role": "editor", "csrf_token": token}
        )
        assert r.status_code == 303, r.text
        after = ana.get(r.headers["location"]).text
        assert 'id="members-done"' in after and '<td data-label="Role">editor</td>' in after
        assert bob.get(f"/api/v1/studies/{ref}/members").json()["members"][0]["role"] == "editor"
        r = ana.post(
            f"/study/{ref}/members",
            data={"username": "nobody", "role": "editor", "csrf_token": token},
        )
        assert r.status_code == 400 and "no account named &#39;nobody&#39;" in r.text
        assert 'value="nobody"' in r.text  # what was typed stays
        theirs = bob.get(f"/study/{ref}/members").text
        assert 'id="members-form"' not in theirs and 'id="members-locked"' in theirs
        r = ana.post(
            f"/study/{ref}/members", data={"username": "bob", "role": "remove", "csrf_token": token}
        )
        assert r.status_code == 303
        assert bob.get(f"/study/{ref}/members").status_code == 404
