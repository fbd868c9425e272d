"""The deduplication review in Debian's chromium against a real server on loopback: from
the Study page, run, see the counts, decide with the keyboard (m/k/s/u) and the buttons,
withdraw from the history after confirming; hostile imported titles inert; axe-core finds
no serious violations (light and dark, narrow); and without JavaScript the ZIP recovery
and the review forms still work."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._shots import shoot
from tests.faces.web._hosting import Hosting
from tests.faces.web._page_checks import with_axe
from tests.faces.web._server import Running
from tests.faces.web.test_accessibility import _violations, axe_path  # noqa: F401 - fixture
from tests.faces.web.test_dedup import make_study, run_to_end

pytestmark = pytest.mark.slow


@pytest.fixture
def page(browser: Any):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.dialogs = []  # type: ignore[attr-defined]
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))  # type: ignore[attr-defined]
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))  # type: ignore[attr-defined]
    yield pg
    context.close()


def _current(pg: Any) -> dict[str, str]:
    return dict(
        pg.evaluate(
            "() => { const a = document.activeElement; return {id: a.id, state: a.dataset.state,"
            " mergeable: a.dataset.mergeable, outline: getComputedStyle(a).outlineStyle}; }"
        )
    )


def _wait_state(pg: Any, pair_id: str, state: str) -> None:
    pg.locator(f"#{pair_id}[data-state='{state}']").wait_for(state="attached")


def test_review_with_the_keyboard_and_the_history(
    page: Any,
    running: Running,
    axe_path: Path,  # noqa: F811
) -> None:
    with running.writer() as c:
        sid = make_study(c, xss=True)
    pg = page
    pg.goto(f"{running.base}/study/{sid}")
    pg.locator("html[data-ready]").wait_for(state="attached")
    pg.locator("#dedup-link").click()
    pg.locator("html[data-dedup-ready]").wait_for(state="attached")
    assert pg.locator("#no-run").is_visible()
    shoot(pg, "dedup-empty.png", full_page=True)
    pg.locator("#run-dedup").click()
    pg.locator("#count-uncertain").wait_for()
    # the run is recorded a moment before its job says done: a page drawn in between shows
    # both and its script reloads it; wait for the page without the running job
    pg.locator("#job").wait_for(state="detached")
    pg.locator("html[data-dedup-ready]").wait_for(state="attached")
    assert pg.locator("#count-records").inner_text() == "20"
    assert pg.locator("#count-uncertain").inner_text() == "6"
    assert pg.locator("article.pair").count() == 6
    # hostile imported titles show as text: no element, no dialog
    assert "<script>alert(31)</script> Hostile" in pg.locator("#review").inner_text()
    assert pg.locator("#review img, #review script").count() == 0
    shoot(pg, "dedup-review.png", full_page=True)

    first = _current(pg)
    assert first["id"] == "pair-0" and first["state"] == "waiting"
    assert first["outline"] != "none"  # the current pair's focus is visible
    # find a mergeable pair with s (skip), then merge it with m
    for _ in range(6):
        if _current(pg)["mergeable"] == "yes":
            break
        pg.keyboard.press("s")
    target = _current(pg)["id"]
    assert _current(pg)["mergeable"] == "yes"
    pg.keyboard.press("m")
    _wait_state(pg, target, "merge")
    assert "merged (your decision)" in pg.locator(f"#{target} .state").inner_text()
    pg.locator("#history-rows tr:first-child", has_text="merged:").wait_for()
    assert pg.locator("#waiting").inner_text() == "5"
    assert _current(pg)["id"] != target  # moved on to the next waiting pair
    # u withdraws it: the pair waits again, the history says so
    pg.keyboard.press("u")
    _wait_state(pg, target, "waiting")
    pg.locator("#history-rows tr:first-child", has_text="withdrew").wait_for()
    assert _current(pg)["id"] == target and pg.locator("#waiting").inner_text() == "6"

    # the pair whose merge would join different trial registry numbers: no merge offered
    clash = pg.locator("article.pair[data-mergeable='no']")
    assert clash.count() == 1 and clash.locator("button[data-act='merge']").count() == 0
    assert "Never merged: " in clash.inner_text() and "NCT" in clash.inner_text().upper()
    clash.click()
    pg.keyboard.press("m")
    pg.locator("#review-message", has_text="never merged").wait_for()
    assert clash.get_attribute("data-state") == "waiting"
    pg.keyboard.press("k")  # keep separate
    clash_id = clash.get_attribute("id")
    _wait_state(pg, clash_id, "distinct")

    # a button decision, then a withdrawal from the history, confirmed in a dialog
    other = pg.locator("article.pair[data-state='waiting'][data-mergeable='yes']").first
    other_id = other.get_attribute("id")
    other.locator("button[data-act='distinct']").click()
    _wait_state(pg, other_id, "distinct")
    row = pg.locator("#history-rows tr", has_text="kept separate").first
    row.locator("button").click()
    dialog = pg.locator("#confirm-undo")
    dialog.wait_for()
    shoot(pg, "dedup-confirm.png")
    pg.locator("#confirm-undo-no").click()  # asked first: keeping it changes nothing
    assert pg.locator(f"#{other_id}").get_attribute("data-state") == "distinct"
    row = pg.locator("#history-rows tr", has_text="kept separate").first
    row.locator("button").click()
    pg.locator("#confirm-undo-yes").click()
    _wait_state(pg, other_id, "waiting")

    # the decisions are the Study's: a reload shows the same states and history; the
    # reloaded page (the review as a fresh load of its address shows it) loads axe too
    # (the context's init script: the page's CSP in force), checked before the keys below
    with_axe(pg.context, axe_path)
    pg.reload()
    pg.locator("html[data-dedup-ready]").wait_for(state="attached")
    found = _violations(pg, axe_path)
    assert pg.locator(f"#{clash_id}").get_attribute("data-state") == "distinct"
    assert pg.locator(f"#{other_id}").get_attribute("data-state") == "waiting"
    history = pg.locator("#history-rows").inner_text()
    assert "local (web)" in history and "withdrew" in history and "run: 20 records" in history
    # the shortcuts are listed in the help overlay
    pg.keyboard.press("?")
    assert "Merge the current pair" in pg.locator("#help").inner_text()
    pg.keyboard.press("Escape")

    assert pg.dialogs == []  # type: ignore[attr-defined]
    assert pg.console_errors == []  # type: ignore[attr-defined]  # no CSP violation either
    assert found == [], found


def test_axe_dark_and_narrow(browser: Any, running: Running, axe_path: Path) -> None:  # noqa: F811
    with running.writer() as c:
        sid = make_study(c)
        run_to_end(c, sid)  # the page of a finished run (a running one reloads itself)
    context = browser.new_context(
        viewport={"width": 420, "height": 800}, color_scheme="dark", bypass_csp=True
    )
    pg = context.new_page()
    pg.goto(f"{running.base}/study/{sid}/dedup")
    pg.locator("#count-uncertain").wait_for()
    pg.locator("html[data-dedup-ready]").wait_for(state="attached")
    overflow = pg.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1  # tables scroll inside their box on a narrow window
    found = _violations(pg, axe_path)
    context.close()
    assert found == [], found


def test_without_javascript_zip_recovery_and_review_forms(
    browser: Any, running: Running, tmp_path: Path
) -> None:
    with running.writer() as c:
        sid = make_study(c, "No script")
        zipped = c.get(f"/api/v1/studies/{sid}/export").content
    (tmp_path / "study.zip").write_bytes(zipped)
    context = browser.new_context(java_script_enabled=False)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.goto(f"{running.base}/study/{sid}")
    pg.locator("#zip-file").set_input_files(str(tmp_path / "study.zip"))
    pg.locator("#zip-name").fill("Recovered without script")
    pg.locator("#zip-import button").click()
    pg.locator("#recovered").wait_for()
    assert (
        "Recovered Study “Recovered without script”: 18 papers"
        in pg.locator("#recovered").inner_text()
    )
    shoot(pg, "recovered-nojs.png", full_page=True)
    pg.locator("#open-recovered").click()
    assert pg.locator("h1").inner_text() == "Recovered without script"
    # a torn ZIP: the error page with its reason, nothing stored
    pg.goto(f"{running.base}/study/{sid}")
    pg.locator("#zip-file").set_input_files(
        [{"name": "bad.zip", "mimeType": "application/zip", "buffer": zipped[:200]}]
    )
    pg.locator("#zip-import button").click()
    assert "not a readable zip" in pg.locator("main").inner_text().lower()

    # the review without script: run, refresh until done, decide with a button
    pg.goto(f"{running.base}/study/{sid}/dedup")
    pg.locator("#run-dedup").click()
    for _ in range(200):
        if pg.locator("#count-uncertain").count():
            break
        pg.wait_for_timeout(100)
        pg.reload()
    first = pg.locator("article.pair").first
    first.locator("button[data-act='distinct']").click()
    assert "kept separate (your decision)" in pg.locator("article.pair").first.inner_text()
    assert "kept separate: " in pg.locator("#history-rows").inner_text()
    context.close()


@pytest.fixture
def served(tmp_settings: Any, cassette: Path, hosting: Hosting) -> Iterator[tuple[Running, Any]]:
    """An app without job worker threads that the test can reach (to hold a job, as a
    worker would, before it runs), on the session server."""
    from litdesk.faces.web import create_app

    settings = tmp_settings.model_copy(update={"jobs_worker_slots": 0})
    app = create_app(settings, host=hosting.host, port=hosting.port, replay=cassette)
    with hosting.serve(app) as transport:
        running = Running(
            hosting.base,
            hosting.host,
            hosting.port,
            cassette,
            Path(tmp_settings.data_dir),
            transport,
        )
        yield running, app


def test_progress_and_cancel_of_a_running_job(page: Any, served: tuple[Running, Any]) -> None:
    from litdesk.services.dedup import DEDUP_KIND
    from litdesk.services.jobs import JobRunner

    running, app = served
    with running.writer() as c:
        sid = make_study(c)
        job = c.post(f"/api/v1/studies/{sid}/dedup/runs").json()  # queued: no worker here
        assert job["state"] == "running" and job["stage"] == "queued"
    jobs = app.state.app.jobs  # the store's queue; this test is the worker that holds the job
    claimed = jobs.claim([DEDUP_KIND], "test-worker", 600.0)
    assert claimed is not None and claimed.id == job["id"]
    pg = page
    pg.goto(f"{running.base}/study/{sid}/dedup")
    pg.locator("html[data-dedup-ready]").wait_for(state="attached")
    assert pg.locator("#job-status").inner_text().startswith("Running: starting")
    assert pg.locator("#job-progress").count() == 1
    # starting another run while this one is going on gives the same job
    with running.writer() as c:
        assert c.post(f"/api/v1/studies/{sid}/dedup/runs").json()["id"] == job["id"]
    pg.locator("#cancel-run").click()
    pg.locator("#job-status", has_text="· cancelling").wait_for()  # the server says so
    assert jobs.get(job["id"], owner=claimed.owner).cancel_requested
    runner = JobRunner(jobs, app.state.app.dedup.handlers(), worker_id="test-worker")
    runner.run_claimed(claimed)  # the job now runs: it stops at its first step
    pg.locator("#job-outcome").wait_for()
    assert "cancelled; nothing was recorded" in pg.locator("#job-outcome").inner_text()
    with running.writer() as c:
        assert c.get(f"/api/v1/studies/{sid}/dedup").json()["history"] == []
        assert c.get(f"/api/v1/dedup-jobs/{job['id']}").json()["state"] == "cancelled"
    assert pg.console_errors == []  # type: ignore[attr-defined]


def test_the_waiting_count_is_the_runs_after_a_decision_on_a_page(
    page: Any, running: Running, fixtures_dir: Path
) -> None:
    """The whole haematology set (1,415 records): 102 pairs, 25 a page. A decision on
    page 1 made "102 of 102 pairs waiting" read "24 of 102" (the page's own waiting pairs);
    it is the run's count less this page's decisions, and withdrawing one counts it back."""
    csv = (fixtures_dir / "bib/dedup/rathbone_haematology__records_pre_merged.csv").read_bytes()
    with running.writer() as c:
        sid = str(c.post("/api/v1/studies", json={"name": "Haematology"}).json()["id"])
        files = [("files", ("haematology.csv", csv, "text/csv"))]
        assert c.post("/api/v1/imports", params={"study": sid}, files=files).status_code == 200
        total = run_to_end(c, sid)["run"]["waiting"]
    assert total > 25  # more than one page
    pg = page
    pg.goto(f"{running.base}/study/{sid}/dedup")
    pg.locator("html[data-dedup-ready]").wait_for(state="attached")
    assert pg.locator("article.pair").count() == 25
    assert pg.locator("#waiting").inner_text() == f"{total:,}"
    first = _current(pg)["id"]
    pg.keyboard.press("k")  # keep separate
    _wait_state(pg, first, "distinct")
    assert pg.locator("#waiting").inner_text() == f"{total - 1:,}"
    pg.keyboard.press("u")
    _wait_state(pg, first, "waiting")
    assert pg.locator("#waiting").inner_text() == f"{total:,}"
    shoot(pg, "dedup-waiting.png")
    assert pg.console_errors == []
