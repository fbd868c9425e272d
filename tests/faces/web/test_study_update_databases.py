"""The Study page after an update one database of which failed (walk 11): the round names
the failure and why, a "Re-run Crossref only" button re-runs that database alone (Europe
PMC is not asked again), the update form lets the reviewer untick databases, and the JSON
twin takes ``providers``; a database no saved search uses is refused by name. The Study
page and the screening page say what the update rounds brought to screen."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.faces.web._server import Running
from tests.services.studies._paged import CROSSREF_HOST, GeneratedCrossref, GeneratedSearch

from litdesk.faces.web import create_app

STATE: dict[str, Any] = {}


def _handler(request: httpx.Request) -> httpx.Response:
    if request.url.host == CROSSREF_HOST:
        return STATE["cr"](request)  # type: ignore[no-any-return]
    return STATE["epmc"](request)  # type: ignore[no-any-return]


@pytest.fixture
def running(tmp_settings: Any, tmp_path: Path, hosting: Any) -> Iterator[Running]:
    STATE.update(epmc=GeneratedSearch(30), cr=GeneratedCrossref(range(10), shared=(5, 6)))
    app = create_app(
        tmp_settings,
        host=hosting.host,
        port=hosting.port,
        app_hooks={"http_transport": httpx.MockTransport(_handler)},
    )
    with hosting.serve(app) as transport:
        yield Running(
            hosting.base, hosting.host, hosting.port, tmp_path, tmp_path / "data", transport
        )


def _watch(c: httpx.Client, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        r = c.get(f"/api/v1/study-search-jobs/{job_id}")
        assert r.status_code == 200, r.text
        if r.json()["job"]["status"] not in ("queued", "running"):
            return dict(r.json())
        time.sleep(0.2)
    raise AssertionError("the job did not end")


def _lanes(done: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (x["provider"], x["state"]) for s in done["job"]["result"]["searches"] for x in s["lanes"]
    ]


def test_a_failed_database_is_named_and_re_run_alone(running: Running) -> None:
    with running.writer() as c:
        token = c.headers["x-csrf-token"]
        sid = c.post("/api/v1/studies", json={"name": "Kept current"}).json()["id"]
        body = {"q": "malaria vaccine", "provider": ["europepmc", "crossref"], "cap": 1000}
        r = c.post(f"/api/v1/studies/{sid}/searches", json=body)
        assert r.status_code == 202, r.text
        assert _watch(c, r.json()["job"]["id"])["exit_status"] == 0
        page = c.get(f"/study/{sid}").text
        assert 'id="study-update-failed"' not in page  # nothing failed yet
        assert 'name="provider" value="crossref" checked' in page  # the update form's choice
        # an update while Crossref is down (the JSON twin without a body: every database)
        STATE.update(epmc=GeneratedSearch(35), cr=GeneratedCrossref(range(14), status=503))
        r = c.post(f"/api/v1/studies/{sid}/update")
        assert r.status_code == 202, r.text
        done = _watch(c, r.json()["job"]["id"])
        assert done["exit_status"] == 3
        assert _lanes(done) == [("europepmc", "complete"), ("crossref", "failed")]
        page = c.get(f"/study/{sid}").text
        assert "Crossref failed (Crossref is not working just now" in page
        failed = page.split('id="study-update-failed"')[1].split("</form>")[0]
        assert '<input type="hidden" name="provider" value="crossref">' in failed
        assert "could not search Crossref" in failed and "Re-run Crossref only" in failed
        # Crossref back: its button re-runs Crossref alone
        STATE["cr"] = GeneratedCrossref(range(14), shared=(5, 6))
        asked = STATE["epmc"].calls
        r = c.post(f"/study/{sid}/update", data={"csrf_token": token, "provider": "crossref"})
        assert r.status_code == 303, r.text
        done = _watch(c, r.headers["location"].rsplit("/", 1)[1])
        assert _lanes(done) == [("crossref", "complete")] and STATE["epmc"].calls == asked
        rounds = c.get(f"/api/v1/studies/{sid}/search-rounds").json()
        assert (rounds["latest_update"]["round"], rounds["latest_update"]["new"]) == (2, 4)
        page = c.get(f"/study/{sid}").text
        assert 'id="study-update-failed"' not in page
        runs = page.split('id="runs-list"')[1].split("</ul>")[0]  # each run says its round
        assert [x.split("</span>")[0] for x in runs.split('<span class="run-round">')[1:]] == [
            "first search",
            "update round 1",
            "update round 2",
        ]
        # what the update rounds brought, on the Study page and the screening page alike
        said = page.split('id="screen-updates">')[1].split("</span>")[0]
        assert said.startswith("The 2 update rounds added 9 records to screen: 9 still yours")
        assert "the latest, Update 2 (" in said and "added 4)" in said
        screen = c.get(f"/study/{sid}/screen?stage=title_abstract").text
        news = screen.split('id="update-news">')[1].split("</p>")[0]
        assert news.startswith("The 2 update rounds added 9 records to screen; 9 are still yours")
        assert 'id="update-news"' not in c.get(f"/study/{sid}/screen?stage=full_text").text
        first = c.get(f"/study/{sid}/screen?stage=title_abstract&order=original").text
        listed = first.split("records of this study (duplicates merged)")[1].split("</ul>")[0]
        assert "· Europe PMC · search “malaria vaccine”, " in listed
        assert "· Initial search</span>" in listed and "· Update 1 (" in listed, listed
        # the JSON twin: a database no saved search uses is refused by name
        r = c.post(f"/api/v1/studies/{sid}/update", json={"providers": ["pubmed"]})
        assert r.status_code >= 400 and "searches PubMed" in r.text, r.text
