"""Two reviewers screening the same Study blind, in two chromium sessions signed in to a team
server (issue 28; over SQLite: the in-process team server over a PostgreSQL schema failed to
import files here — "relation studies does not exist" — while the screening area's own
PostgreSQL tests cover its scoping): each decides with the keyboard and sees only their own
decisions and counts; the owner reveals the stage from the settings page and the other
reviewer then sees both decisions and the conflict; axe-core finds nothing serious on the
team pages (conflicts, agreement, import and export); screenshots of them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._store_template import sqlite_url_at_head
from tests.faces.web._hosting import Hosting
from tests.faces.web._team import PASSWORD, TeamServer, add_accounts, team_server
from tests.faces.web.test_accessibility import _violations, axe_path  # noqa: F401 - fixture
from tests.faces.web.test_screening_browser import _decide, _record, _shots
from tests.faces.web.test_screening_web import _api, make_screening_study

from litdesk import Settings

pytestmark = pytest.mark.slow


@pytest.fixture
def server(
    tmp_settings: Settings,
    cassette: Path,
    hosting: Hosting,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> Iterator[TeamServer]:
    team = tmp_path / "team" / "litdesk.sqlite3"  # a copy of the migrated template
    url = sqlite_url_at_head(request.getfixturevalue("sqlite_template"), team)
    settings = tmp_settings.model_copy(update={"database_url": url})
    add_accounts(settings, "ana", "bob")
    with team_server(settings, cassette, hosting) as running:
        yield running


def _signed_in(browser: Any, base: str, name: str, **kw: Any) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, **kw)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))  # type: ignore[attr-defined]
    pg.goto(base + "/studies")  # to the sign-in form, then back
    pg.fill("#l-user", name)
    pg.fill("#l-pass", PASSWORD)
    pg.click("button[type=submit]")
    pg.wait_for_url(base + "/studies")
    return pg


def _history(pg: Any) -> list[str]:
    return [str(t) for t in pg.locator("#record-history li").all_inner_texts()]


def test_two_sessions_screen_blind_then_reveal(
    browser: Any,
    server: TeamServer,
    tmp_path: Path,
    axe_path: Path,  # noqa: F811
) -> None:
    shots = _shots(tmp_path)
    with server.signed_in("ana") as c:
        sid = make_screening_study(c, "Blind pair")
        assert c.post(
            f"/api/v1/studies/{sid}/members", json={"username": "bob", "role": "editor"}
        ).is_success
        c.post(f"{_api(sid)}/settings", json={"dual_review": {"title_abstract": True}})
    ana = _signed_in(browser, server.base, "ana")
    bob = _signed_in(browser, server.base, "bob")
    screen = f"{server.base}/study/{sid}/screen?stage=title_abstract"
    for pg in (ana, bob):
        pg.goto(screen)
        pg.locator("html[data-screen-ready]").wait_for(state="attached")
    first = _record(ana)
    assert _record(bob) == first  # the same queue (original order), each their own
    _decide(ana, "i")
    _decide(bob, "e")  # a conflict on the first record
    _decide(ana, "e")
    _decide(bob, "e")
    for pg in (ana, bob):
        pg.locator("#progress-line", has_text="2 of 8 screened").wait_for()
        assert "(yours; blind)" in pg.locator("#progress-line").inner_text()
    # blind: each sees only their own decision on the first record
    for pg, verdict in ((ana, "Include"), (bob, "Exclude")):
        pg.goto(f"{screen}&record={first}")
        history = _history(pg)
        assert len(history) == 1 and history[0].startswith(verdict) and "· you ·" in history[0]
    bob.goto(f"{server.base}/study/{sid}/screen/conflicts")
    assert "still blind" in bob.locator("#conflicts-state").inner_text()
    bob.screenshot(path=str(shots / "scr-web-conflicts-blind.png"), full_page=True)
    # the owner reveals from the settings page
    ana.goto(f"{server.base}/study/{sid}/screen/settings")
    ana.screenshot(path=str(shots / "scr-web-settings-team.png"), full_page=True)
    ana.locator("#reveal-title_abstract").click()
    ana.wait_for_url(f"{server.base}/study/{sid}/screen/conflicts?stage=title_abstract")
    assert "1 conflict waiting" in ana.locator("#conflicts-state").inner_text()
    ana.screenshot(path=str(shots / "scr-web-conflicts.png"), full_page=True)
    bob.goto(f"{screen}&record={first}")
    assert len(_history(bob)) == 2  # revealed: both decisions
    bob.goto(f"{server.base}/study/{sid}/screen/conflicts")
    assert "1 conflict waiting" in bob.locator("#conflicts-state").inner_text()
    ana.locator("#conflict-1 button.v-include").click()
    ana.locator("#conflicts-state", has_text="0 conflicts waiting").wait_for()
    assert ana.console_errors == [] and bob.console_errors == []  # type: ignore[attr-defined]
    ana.context.close()
    bob.context.close()

    checked = _signed_in(browser, server.base, "ana", bypass_csp=True)
    for name, path in (
        ("conflicts", "/screen/conflicts"),
        ("agreement", "/screen/agreement"),
        ("exchange", "/screen/exchange"),
    ):
        checked.goto(f"{server.base}/study/{sid}{path}")
        checked.screenshot(path=str(shots / f"scr-web-{name}-team.png"), full_page=True)
        found = _violations(checked, axe_path)
        assert found == [], (name, found)
    checked.context.close()
