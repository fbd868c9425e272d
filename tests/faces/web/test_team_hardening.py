"""Team server hardening (issue 29) on both databases: store errors answer a typed, plain
message (never the driver's text), cookies another app left on the host do not hide
litdesk's own, and every login outcome does the same work."""

from __future__ import annotations

import pytest
from tests.faces.web._team import PASSWORD, TeamServer
from tests.faces.web.test_team_auth import server, team_settings

from litdesk.adapters.store import StoreError
from litdesk.adapters.store._engine import _plain

__all__ = ["server", "team_settings"]  # the fixtures, shared with test_team_auth


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
    server: TeamServer, junk: str
) -> None:
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
    server: TeamServer, headers: dict[str, str], refused: bool, path: str
) -> None:
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
