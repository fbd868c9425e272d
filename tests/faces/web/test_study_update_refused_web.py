"""A database that refuses a Study's saved query (Crossref has no Boolean search: nothing is
sent) is not offered a futile "Re-run Crossref only" after an update: the Study page says it
cannot run the query; a database that failed (down) still gets its button. Re-running the
refusing database alone is refused, nothing done: the job page says so, and its lane's
reason names the lane once."""

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
BOOLEAN = '"malaria vaccine" AND (trial OR cohort)'


def _handler(request: httpx.Request) -> httpx.Response:
    if request.url.host == CROSSREF_HOST:
        return STATE["cr"](request)  # type: ignore[no-any-return]
    return STATE["epmc"](request)  # type: ignore[no-any-return]


@pytest.fixture
def running(tmp_settings: Any, tmp_path: Path, hosting: Any) -> Iterator[Running]:
    STATE.update(epmc=GeneratedSearch(20), cr=GeneratedCrossref(range(10)))
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


def test_a_refusing_database_gets_no_re_run_button(running: Running) -> None:
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Boolean review"}).json()["id"]
        body = {"q": BOOLEAN, "provider": ["europepmc", "crossref"], "cap": 1000}
        r = c.post(f"/api/v1/studies/{sid}/searches", json=body)
        assert r.status_code == 202, r.text
        assert _watch(c, r.json()["job"]["id"])["outcome"] == "partial"
        r = c.post(f"/api/v1/studies/{sid}/update")
        assert r.status_code == 202, r.text
        done = _watch(c, r.json()["job"]["id"])
        assert (done["exit_status"], done["outcome"]) == (3, "partial")
        page = c.get(f"/study/{sid}").text
        assert 'id="study-update-failed"' not in page  # no futile "Re-run Crossref only"
        said = page.split('id="study-update-refused">')[1].split("</p>")[0]
        assert said.startswith("Crossref cannot run this Study's saved query"), said
        # Crossref alone: refused by every database asked — nothing done, exit status 8
        r = c.post(f"/api/v1/studies/{sid}/update", json={"providers": ["crossref"]})
        assert r.status_code == 202, r.text
        job_id = r.json()["job"]["id"]
        done = _watch(c, job_id)
        assert (done["job"]["status"], done["exit_status"], done["outcome"]) == (
            "failed",
            8,
            "refused",
        )
        html = c.get(f"/study-search-jobs/{job_id}").text
        outcome = html.split('<span id="job-outcome">')[1].split("</span>")[0]
        assert outcome.startswith("refused: every database refused the search"), outcome
        [item] = [li.split("</li>")[0] for li in html.split('<li class="lane-failed">')[1:]]
        assert item.count("Crossref, keyword search") == 1, item
        assert "cannot run this query" in item
        rounds = c.get(f"/api/v1/studies/{sid}/search-rounds").json()
        assert rounds["latest_update"]["round"] == 1  # the refused update added no round
        # Crossref down (not refusing): its button is offered
        STATE["cr"] = GeneratedCrossref(range(10), status=503)
        r = c.post(f"/api/v1/studies/{sid}/searches", json=body | {"q": "malaria vaccine"})
        assert r.status_code == 202, r.text
        _watch(c, r.json()["job"]["id"])
        r = c.post(f"/api/v1/studies/{sid}/update")
        assert r.status_code == 202, r.text
        _watch(c, r.json()["job"]["id"])
        page = c.get(f"/study/{sid}").text
        failed = page.split('id="study-update-failed"')[1].split("</form>")[0]
        assert "Re-run Crossref only" in failed
