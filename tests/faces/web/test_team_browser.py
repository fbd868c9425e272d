"""Team mode in Debian's chromium: a page asked for without a session leads to the sign-in
form, the form signs in (Origin, CSRF and the session cookie as a browser sends them) and
returns to the page, the header offers "Sign out", signing out ends it; axe-core on the
sign-in and sign-out pages (no serious or critical violations)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._store_template import process_sqlite_template, sqlite_url_at_head
from tests.faces.web._hosting import Hosting
from tests.faces.web._team import PASSWORD, TeamServer, add_accounts, team_server
from tests.faces.web.test_accessibility import _violations, axe_path  # noqa: F401

from litdesk import Settings

pytestmark = pytest.mark.slow


@pytest.fixture
def server(
    tmp_settings: Settings,
    cassette: Path,
    tmp_path: Path,
    hosting: Hosting,
    request: pytest.FixtureRequest,
) -> Iterator[TeamServer]:
    team = tmp_path / "team" / "litdesk.sqlite3"  # a copy of the migrated template
    url = sqlite_url_at_head(request.getfixturevalue("sqlite_template"), team)
    settings = tmp_settings.model_copy(update={"database_url": url})
    add_accounts(settings, "ana")
    with team_server(settings, cassette, hosting) as running:
        yield running


def test_sign_in_and_out_in_a_browser(
    browser: Any,
    server: TeamServer,
    axe_path: Path,  # noqa: F811
) -> None:
    context = browser.new_context(bypass_csp=True)  # axe is injected as a script tag
    pg = context.new_page()
    pg.goto(server.base + "/studies")
    assert pg.url == server.base + "/login?next=/studies"
    assert not _violations(pg, axe_path)
    pg.fill("#l-user", "ana")
    pg.fill("#l-pass", "not the password")
    pg.click("button[type=submit]")
    assert pg.locator("[role=alert]").inner_text() == "wrong user name or password"
    pg.fill("#l-user", "ana")
    pg.fill("#l-pass", PASSWORD)
    pg.click("button[type=submit]")
    pg.wait_for_url(server.base + "/studies")
    assert pg.locator("h1").inner_text() == "Studies"
    cookies = {c["name"]: c for c in context.cookies()}
    assert cookies["ld_session"]["httpOnly"] and cookies["ld_session"]["sameSite"] == "Lax"
    pg.fill("#s-name", "Made in the browser")  # a form write with the signed-in session
    pg.click("form.create button[type=submit]")
    assert "Made in the browser" in pg.locator("h1").inner_text()
    pg.click("a.account")
    assert pg.url == server.base + "/logout"
    assert not _violations(pg, axe_path)
    pg.click("button[type=submit]")
    pg.wait_for_url(server.base + "/login")
    pg.goto(server.base + "/studies")
    assert pg.url.startswith(server.base + "/login")
    context.close()


def test_single_sign_on_button_in_a_browser(
    browser: Any,
    tmp_settings: Settings,
    cassette: Path,
    tmp_path: Path,
    hosting: Hosting,
    axe_path: Path,  # noqa: F811
) -> None:
    """The login page's "Sign in with …" link through a real OpenID provider on loopback and
    back (the CSP enforced: no script is involved), then a form write with the new session."""
    from pydantic import SecretStr
    from tests.faces.web._oidc_provider import CLIENT_ID, CLIENT_SECRET, openid_provider

    from litdesk.services.accounts import Accounts

    with openid_provider() as op:
        settings = tmp_settings.model_copy(
            update={
                "database_url": sqlite_url_at_head(
                    process_sqlite_template(), tmp_path / "sso" / "litdesk.sqlite3"
                ),
                "oidc_issuer": op.issuer,
                "oidc_client_id": CLIENT_ID,
                "oidc_client_secret": SecretStr(CLIENT_SECRET),
                "oidc_display_name": "Lab ID",
            }
        )
        add_accounts(settings, "ana")
        from litdesk.adapters.store import open_store

        store = open_store(settings)
        try:
            Accounts(store, settings).link("ana", op.script.subject)
        finally:
            store.dispose()
        with team_server(settings, cassette, hosting) as server:
            op.redirect_uris.add(server.base + "/login/oidc/callback")
            checked = browser.new_context(bypass_csp=True)  # axe is injected as a script tag
            look = checked.new_page()
            look.goto(server.base + "/login")
            assert look.locator("#sso-start").inner_text() == "Sign in with Lab ID"
            assert not _violations(look, axe_path)
            checked.close()
            context = browser.new_context()
            pg = context.new_page()
            pg.goto(server.base + "/studies")
            assert pg.url == server.base + "/login?next=/studies"
            pg.click("#sso-start")
            pg.wait_for_url(server.base + "/studies")
            assert pg.locator("h1").inner_text() == "Studies"
            cookies = {c["name"]: c for c in context.cookies()}
            assert cookies["ld_session"]["httpOnly"] and cookies["ld_session"]["sameSite"] == "Lax"
            assert "ld_oidc" not in cookies  # the pre-login cookie is spent
            pg.fill("#s-name", "Made after single sign-on")
            pg.click("form.create button[type=submit]")
            assert "Made after single sign-on" in pg.locator("h1").inner_text()
            context.close()
