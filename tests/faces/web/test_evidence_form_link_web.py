"""The evidence page of a shared Study offers to change the Study's extraction form only
to those who may (walk 12: an editor was shown "(change it)" and then refused): the
Study's owner reads "change it", an editor or a viewer "see its fields" (the same form
page, read only); the page, its JSON (``can_change_form``) and the form's own page read
one rule, the one the form's changes require (an editor's change: 403)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests._store_template import sqlite_url_at_head
from tests.faces.web._team import TeamServer, add_accounts, team_server

from litdesk import Settings


@pytest.fixture
def server(
    tmp_settings: Settings, cassette: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[TeamServer]:
    team = tmp_path / "team" / "litdesk.sqlite3"
    url = sqlite_url_at_head(request.getfixturevalue("sqlite_template"), team)
    settings = tmp_settings.model_copy(update={"database_url": url})
    add_accounts(settings, "ana", "bob", "cy")
    with team_server(settings, cassette) as running:
        yield running


def _form_link(html: str) -> str:
    """The words of the link to the Study's form in the evidence page's summary line."""
    line = re.search(r'<p class="muted" id="evidence-total">(.*?)</p>', html, re.S)
    assert line, html[:500]
    link = re.search(r'<a href="/study/[^"]+/form">([^<]*)</a>', line.group(1))
    assert link, line.group(1)
    return link.group(1)


def test_only_the_owner_is_offered_to_change_the_form(server: TeamServer) -> None:
    with server.signed_in("ana") as ana:
        sid = ana.post("/api/v1/studies", json={"name": "Shared form"}).json()["id"]
        members = f"/api/v1/studies/{sid}/members"
        assert ana.post(members, json={"username": "bob", "role": "editor"}).is_success
        assert ana.post(members, json={"username": "cy", "role": "viewer"}).is_success
        assert _form_link(ana.get("/evidence", params={"study": sid}).text) == "change it"
        assert ana.get("/api/v1/evidence", params={"study": sid}).json()["can_change_form"]
        assert ana.get(f"/api/v1/studies/{sid}/form").json()["can_configure"] is True
    for name in ("bob", "cy"):
        with server.signed_in(name) as them:
            page = them.get("/evidence", params={"study": sid})
            assert page.status_code == 200
            assert _form_link(page.text) == "see its fields" and "change it" not in page.text
            shown = them.get("/api/v1/evidence", params={"study": sid}).json()
            assert shown["can_change_form"] is False
            form = them.get(f"/api/v1/studies/{sid}/form").json()
            assert form["can_configure"] is False  # the form page: read only
            refused = them.post(f"/api/v1/studies/{sid}/form/template", json={"template": "pico"})
            assert refused.status_code == 403
    with server.signed_in("bob") as bob:  # without a Study: no form, no link
        everything = bob.get("/api/v1/evidence").json()
        assert everything["can_change_form"] is False
