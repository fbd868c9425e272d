"""Whole searches into a Study over the web (a replayed two-page Europe PMC cursor walk):
the JSON API (preview with the provider's total, the cap and the allowance; the job with
its progress and result; the Study's rounds; an update round) and the pages without
JavaScript (search page action → preview → confirm → the job's page; the Study page's
rounds and its Update button), CSRF-checked like every write."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from tests._shots import shoot
from tests.faces.web._server import Running, epmc_record, write_cassette

QUERY = "whole malaria"
FAILING = "whole failing"


def _body(records: list[dict[str, Any]], total: int, next_cursor: str | None) -> bytes:
    doc: dict[str, Any] = {"version": "6.9", "hitCount": total, "request": {}}
    doc["resultList"] = {"result": records}
    if next_cursor:
        doc["nextCursorMark"] = next_cursor
    return json.dumps(doc).encode()


def whole_cassette(folder: Path) -> None:
    first = [epmc_record(i, title=f"Whole search record {i}") for i in range(100, 200)]
    second = [epmc_record(i, title=f"Whole search record {i}") for i in range(200, 260)]
    kw: dict[str, Any] = {"providers": ["europepmc"]}
    write_cassette(folder, QUERY, _body(first[:1], 160, "W1"), limit=1, **kw)  # the preview
    write_cassette(folder, QUERY, _body(first[:20], 160, "W1"), **kw)  # the search page
    write_cassette(folder, QUERY, _body(first, 160, "W2"), limit=100, **kw)
    write_cassette(folder, QUERY, _body(second, 160, None), limit=100, cursor="W2", **kw)
    error = json.dumps({"errMsg": "internal error"}).encode()  # a walk whose first page fails
    write_cassette(folder, FAILING, error, status=500, limit=100, **kw)


@pytest.fixture
def cassette(cassette: Path) -> Iterator[Path]:  # the web tests' cassette, plus the walk
    whole_cassette(cassette)
    yield cassette


def watch(c: httpx.Client, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        r = c.get(f"/api/v1/study-search-jobs/{job_id}")
        assert r.status_code == 200, r.text
        if r.json()["job"]["status"] not in ("queued", "running"):
            return dict(r.json())
        time.sleep(0.2)
    raise AssertionError("the job did not end")


def test_whole_search_api_and_update(running: Running) -> None:
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Whole <i>malaria</i>"}).json()["id"]
        body = {"q": QUERY, "provider": ["europepmc"], "cap": 10_000}
        r = c.post(f"/api/v1/studies/{sid}/searches/preview", json=body)
        assert r.status_code == 200, r.text
        lane = r.json()["lanes"][0]
        assert (lane["total"], lane["records"], lane["requests"], lane["over_cap"]) == (
            160, 160, 2, False,
        )  # fmt: skip
        # the server replays a cassette: no allowance is spent, none is shown as left
        assert (r.json()["replay"], r.json()["spent"], lane["allowance_left"]) == (True, 0, None)
        assert lane["enough"] and r.json()["warnings"] == []
        r = c.post(f"/api/v1/studies/{sid}/searches", json=body)
        assert r.status_code == 202, r.text
        assert r.json()["study_name"] == "Whole <i>malaria</i>"
        done = watch(c, r.json()["job"]["id"])
        assert done["job"]["status"] == "done" and done["exit_status"] == 0, done
        search = done["job"]["result"]["searches"][0]
        assert search["new"] == 160 and search["lanes"][0]["state"] == "complete"
        study = c.get(f"/api/v1/studies/{sid}").json()
        assert (
            study["papers_total"] == 160
            and len(study["papers"]) == 50
            and study["search_rounds"][0]["records"] == 160
        )
        # an update round: the same records, nothing new
        r = c.post(f"/api/v1/studies/{sid}/update")
        assert r.status_code == 202, r.text
        done = watch(c, r.json()["job"]["id"])
        assert done["exit_status"] == 0, done
        rounds = c.get(f"/api/v1/studies/{sid}/search-rounds").json()
        assert rounds["latest_update"]["round"] == 1
        assert (rounds["latest_update"]["new"], rounds["latest_update"]["already_known"]) == (
            0,
            160,
        )
        # the PRISMA-S page and API: each round's searches on their own (PRISMA-S item 13)
        prisma = c.get(f"/api/v1/studies/{sid}/prisma").json()
        assert [(s["round_label"], s["records"]) for s in prisma["searches"]] == [
            ("first search", 160),
            ("update round 1", 160),
        ]
        assert [r["new"] for r in prisma["rounds"]] == [160, 0]
        page = c.get(f"/study/{sid}/prisma").text
        assert 'id="prisma-rounds"' in page
        assert '<td data-label="Round">update round 1</td><td data-label="Database">' in page
        assert "Records identified (all 2 rounds together)" in page
        # a cap below the total: recorded as capped
        r = c.post(f"/api/v1/studies/{sid}/searches/preview", json=body | {"cap": 100})
        assert r.json()["lanes"][0]["over_cap"] and "over the cap" in r.json()["warnings"][0]
        # refusals: a semantic search, a cap over 10,000, no CSRF token
        bad = c.post(f"/api/v1/studies/{sid}/searches", json=body | {"mode": "semantic"})
        assert bad.status_code == 400, bad.text
        bad = c.post(f"/api/v1/studies/{sid}/searches", json=body | {"cap": 10_001})
        assert bad.status_code == 400, bad.text
    with running.client(headers={"origin": running.base}) as anon:
        assert anon.post(f"/api/v1/studies/{sid}/update").status_code == 403


def test_whole_search_pages_without_javascript(running: Running) -> None:
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Pages review"}).json()["id"]
        token = c.headers["x-csrf-token"]
        form = {"csrf_token": token, "study": sid, "q": QUERY, "provider": "europepmc"}
        r = c.post("/study-search/preview", data=form | {"cap": "100"})
        assert r.status_code == 200, r.text
        assert "Pages review" in r.text and "over the cap" in r.text
        assert "spend none of your daily allowance" in r.text  # the server replays
        assert "Allowance left today" not in r.text and "of your allowance)" not in r.text
        assert 'action="/study-search"' in r.text
        r = c.post("/study-search", data=form | {"cap": "100"})
        assert r.status_code == 303, r.text
        job_page = r.headers["location"]
        job_id = job_page.rsplit("/", 1)[1]
        done = watch(c, job_id)
        assert done["job"]["result"]["searches"][0]["lanes"][0]["state"] == "capped"
        html = c.get(job_page).text
        assert "capped" in html and "Round 0" in html and "Pages review" in html
        assert '<span id="job-outcome">every database complete or capped</span>' in html
        study = c.get(f"/study/{sid}").text
        assert 'id="search-rounds"' in study and "Added: whole malaria" in study
        assert 'id="study-update"' in study
        r = c.post(f"/study/{sid}/update", data={"csrf_token": token})
        assert r.status_code == 303 and r.headers["location"].startswith("/study-search-jobs/")
        assert watch(c, r.headers["location"].rsplit("/", 1)[1])["exit_status"] == 0
        # a search added after the update (as the cassette holds: the same one) is that update's
        r = c.post("/study-search", data=form | {"cap": "100"})
        assert r.status_code == 303, r.text
        assert watch(c, r.headers["location"].rsplit("/", 1)[1])["exit_status"] == 0
        study = c.get(f"/study/{sid}").text
        assert "Update round 1: whole malaria" in study
        assert "Added in update round 1: whole malaria" in study


class _ConfirmForm(HTMLParser):
    """The preview page's confirm form (#whole-confirm): its fields, as a browser posts them."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = False
        self.fields: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form":
            self.inside = a.get("id") == "whole-confirm"
        elif tag == "input" and self.inside and a.get("name"):
            self.fields.append((str(a["name"]), a.get("value") or ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False


def test_the_preview_confirm_form_posts_the_search_it_shows(running: Running) -> None:
    """The confirm form's own fields start the job: list fields (providers, a subject
    picked into the query) one input per value, no paging history (they once carried
    the lists' repr, '[]', and the add was refused)."""
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Confirm review"}).json()["id"]
        picked = {"subject_vocabulary": "mesh", "subject_id": "D008288", "subject_label": "Malaria"}
        form = {"csrf_token": c.headers["x-csrf-token"], "study": sid, "q": QUERY}
        r = c.post(
            "/study-search/preview",
            data=form | picked | {"provider": "europepmc", "cap": "100", "history": ""},
        )
        assert r.status_code == 200, r.text
        parser = _ConfirmForm()
        parser.feed(r.text)
        fields = parser.fields
        names = [name for name, _ in fields]
        assert "[]" not in [value for _, value in fields] and "history" not in names, fields
        for key, value in picked.items() | {("provider", "europepmc"), ("study", sid)}:
            assert (key, value) in fields and names.count(key) == 1, (key, fields)
        r = c.post(
            "/study-search",
            content=urlencode(fields),
            headers={"content-type": "application/x-www-form-urlencoded"},
            follow_redirects=False,
        )
        assert r.status_code == 303, r.text
        done = watch(c, r.headers["location"].rsplit("/", 1)[1])
        assert done["job"]["result"]["searches"][0]["lanes"][0]["state"] == "capped", done


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    context.close()


@pytest.mark.slow
def test_browser_add_all_results_then_update(page: Any, running: Running) -> None:
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Browser review"}).json()["id"]
    pg = page
    pg.goto(f"{running.base}/search?q=whole+malaria&provider=europepmc")
    form = pg.locator("#whole-search")
    form.wait_for()
    assert "Add all 160 results to the Study" in form.inner_text()
    form.locator("select[name=study]").select_option(sid)
    form.locator("input[name=cap]").fill("100")
    shoot(pg, "whole-search-form.png", full_page=True)
    form.locator("button").click()
    pg.locator("#whole-confirm").wait_for()
    assert "over the cap" in pg.content()
    shoot(pg, "whole-search-preview.png", full_page=True)
    pg.locator("#whole-confirm button").click()
    pg.locator("#whole-job").wait_for()
    deadline = time.monotonic() + 60
    while pg.locator("#whole-job").get_attribute("data-status") in ("queued", "running"):
        assert time.monotonic() < deadline
        time.sleep(0.5)
        pg.reload()
    assert "capped" in pg.locator("#whole-job").inner_text()
    shoot(pg, "whole-search-job.png", full_page=True)
    pg.locator("#whole-job a", has_text="Open the Study").click()
    pg.locator("#search-rounds").wait_for()
    pg.locator("#study-update button").click()
    pg.locator("#whole-job").wait_for()
    deadline = time.monotonic() + 60
    while pg.locator("#whole-job").get_attribute("data-status") in ("queued", "running"):
        assert time.monotonic() < deadline
        time.sleep(0.5)
        pg.reload()
    assert "Round 1" in pg.locator("#whole-job").inner_text()
    pg.goto(f"{running.base}/study/{sid}")
    rounds = pg.locator("#search-rounds")
    rounds.wait_for()
    assert "Update round 1" in rounds.inner_text()
    shoot(pg, "whole-search-study.png", full_page=True)


def test_the_job_page_says_a_failed_lane_failed_and_why(running: Running) -> None:
    """A lane whose first page failed retrieved nothing: the job's page says it failed and
    why (the lane's stored message), not "0 of unknown"."""
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Failing review"}).json()["id"]
        body = {"q": FAILING, "provider": ["europepmc"], "cap": 100}
        r = c.post(f"/api/v1/studies/{sid}/searches", json=body)
        assert r.status_code == 202, r.text
        job_id = r.json()["job"]["id"]
        done = watch(c, job_id)
        [lane] = done["job"]["result"]["searches"][0]["lanes"]
        assert lane["state"] == "failed" and lane["retrieved"] == 0 and lane["message"], lane
        html = c.get(f"/study-search-jobs/{job_id}").text
        assert "of unknown" not in html and " 0 of " not in html
        [item] = [li.split("</li>")[0] for li in html.split('<li class="lane-failed">')[1:]]
        assert "<strong>failed</strong>:" in item, item
        assert lane["notice"] in item or lane["message"] in item, item
        # its only lane failed: the job failed and says so once (before: "Status: done ·
        # exit status 3", as if part of it had worked); the Study is unchanged
        assert (done["job"]["status"], done["exit_status"]) == ("failed", 1)
        assert (
            'Status: <strong id="job-status">failed</strong> · <span id="job-outcome">the search failed'
            in html
        )
        said = html.split('<p class="notice error">')[1].split("</p>")[0]
        assert said == "No lane returned records; nothing was added to the Study.", said
        study = c.get(f"/api/v1/studies/{sid}").json()
        assert study["papers_total"] == 0 and not study["search_rounds"], study


@pytest.mark.slow
def test_browser_prisma_page_on_a_phone_in_the_dark(browser: Any, running: Running) -> None:
    """At 420 px in dark mode the PRISMA 2020 table of a Study with an update round names
    each number's round beside it (the column headers are out of sight), and the flow
    diagrams are drawn light on dark (the SVG files themselves stay black on white)."""
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Phone review"}).json()["id"]
        body = {"q": QUERY, "provider": ["europepmc"], "cap": 10_000}
        started = c.post(f"/api/v1/studies/{sid}/searches", json=body)
        assert watch(c, started.json()["job"]["id"])["exit_status"] == 0
        updated = c.post(f"/api/v1/studies/{sid}/update")
        assert updated.status_code == 202, updated.text
        assert watch(c, updated.json()["job"]["id"])["exit_status"] == 0
        columns = c.get(f"/api/v1/studies/{sid}/prisma").json()["prisma_2020"]["table"]["columns"]
        assert len(columns) == 3, columns  # two rounds and their total
        svg = c.get(f"/study/{sid}/prisma.svg").text
        assert 'fill="#fff" stroke="#000"' in svg  # the file: black on white, for papers
    context = browser.new_context(viewport={"width": 420, "height": 900}, color_scheme="dark")
    try:
        pg = context.new_page()
        pg.goto(f"{running.base}/study/{sid}/prisma")
        row = pg.locator("#prisma-2020-table tbody tr").first
        row.wait_for()
        labels = row.locator("td").evaluate_all(
            "tds => tds.map(td => getComputedStyle(td, '::before').content)"
        )
        assert labels == [f'"{c}"' for c in columns], labels
        cells = row.locator("td").all()
        assert all(cell.is_visible() and cell.bounding_box()["x"] < 420 for cell in cells)
        shown = pg.locator("#prisma-2020-flow").evaluate("i => getComputedStyle(i).filter")
        assert "invert" in shown, shown
        shoot(pg, "prisma-420-dark.png", full_page=True)
    finally:
        context.close()
