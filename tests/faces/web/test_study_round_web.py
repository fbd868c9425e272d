"""The Study page's "Begin an update round" (issue 28) and its JSON API twin: a Study kept
current by exports of databases litdesk cannot query begins its update round, imports the
new export, and the PRISMA pages show the round as its own column with the import in it.
The form needs the page's Origin and CSRF token; a viewer cannot begin a round, an editor
can; a second round while the begun one is still empty is refused (409)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests._store_template import sqlite_url_at_head
from tests.faces.web._server import Running
from tests.faces.web._team import TeamServer, add_accounts, team_server
from tests.services.studies._ris import ris

from litdesk import Settings


def _upload(c: httpx.Client, sid: str, path: Path) -> None:
    files = [("files", (path.name, path.read_bytes(), "application/x-research-info-systems"))]
    r = c.post("/api/v1/imports", params={"study": sid}, files=files)
    assert r.status_code == 200, r.text


def test_begin_a_round_on_the_study_page(running: Running, tmp_path: Path) -> None:
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Exports review"}).json()["id"]
        _upload(c, sid, ris(tmp_path / "embase-1.ris", range(1, 11), "Embase"))
        _upload(c, sid, ris(tmp_path / "scopus-1.ris", range(8, 16), "Scopus"))
        page = c.get(f"/study/{sid}").text
        form = page.split('id="begin-round"', 1)[1].split("</form>", 1)[0]
        assert f'<form method="post" action="/study/{sid}/rounds"' in page
        token = re.search(r'name="csrf_token" value="([^"]+)"', form)
        assert token is not None and 'name="note"' in form
        assert "<script>" not in form
        data = {"csrf_token": token.group(1), "note": "Embase re-run, 8 Dec"}
        # without the page's Origin: refused, nothing begun
        with running.client() as stranger:
            assert stranger.post(f"/study/{sid}/rounds", data=data).status_code == 403
        assert c.get(f"/api/v1/studies/{sid}/search-rounds").json()["begun_rounds"] == []
        r = c.post(f"/study/{sid}/rounds", data=data)
        assert r.status_code == 303 and r.headers["location"] == f"/study/{sid}#begun-rounds"
        shown = c.get(f"/study/{sid}").text.split('id="begun-rounds-list"', 1)[1]
        assert "Update round 1: Embase re-run, 8 Dec" in shown.split("</ol>", 1)[0]
        # the API twin: refused while the round begun is empty (nothing imported yet)
        r = c.post(f"/api/v1/studies/{sid}/rounds", json={"note": "again"})
        assert r.status_code == 409 and r.json()["code"] == "round_empty"
        _upload(c, sid, ris(tmp_path / "embase-2.ris", range(12, 21), "Embase"))
        flow = c.get(f"/api/v1/studies/{sid}/prisma").json()["prisma_2020"]
        first, update = flow["rounds"]
        assert update["label"].startswith("Update 1 (")
        assert (first["to_screen"], update["identified"]["total"], update["to_screen"]) == (
            15,
            9,
            5,
        )
        assert update["label"] in c.get(f"/study/{sid}/prisma").text
        assert "Update 1 (" in c.get(f"/api/v1/studies/{sid}/prisma-2020.svg").text
        r = c.post(f"/api/v1/studies/{sid}/rounds")
        assert r.status_code == 201 and r.json()["round"] == 2


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


def test_a_viewer_cannot_begin_a_round_an_editor_can(server: TeamServer) -> None:
    with server.signed_in("ana") as ana:
        sid = ana.post("/api/v1/studies", json={"name": "Shared review"}).json()["id"]
        members = f"/api/v1/studies/{sid}/members"
        assert ana.post(members, json={"username": "bob", "role": "editor"}).is_success
        assert ana.post(members, json={"username": "cy", "role": "viewer"}).is_success
    with server.signed_in("cy") as cy:
        assert cy.post(f"/api/v1/studies/{sid}/rounds").status_code == 403
        assert cy.post(f"/study/{sid}/rounds", data={"note": "x"}).status_code == 403
        assert cy.get(f"/api/v1/studies/{sid}/search-rounds").json()["begun_rounds"] == []
    with server.signed_in("bob") as bob:
        r = bob.post(f"/api/v1/studies/{sid}/rounds", json={"note": "Scopus re-run"})
        assert r.status_code == 201 and r.json()["round"] == 1
    with server.signed_in("cy") as cy:  # the viewer reads it
        begun = cy.get(f"/api/v1/studies/{sid}/search-rounds").json()["begun_rounds"]
        assert [(b["round"], b["note"]) for b in begun] == [(1, "Scopus re-run")]
