"""A page that follows a job keeps following it through the server's hiccups (static/js
api.js ``followJob``), in Debian's chromium against a real server: the deduplication page
whose job status answers 503, 502 with an HTML page, or no connection at all says "Trying to
reach the server…" and still reloads at the end of the job; after a minute of failures it
says it lost contact, with a Retry button that takes it up again; a 404 ends at once with
the server's message. The failures are injected by the browser's own network layer
(``page.route``); the job is held by the test, as a worker would hold it, so it ends when the
test says. The test process's one chromium (``tests/conftest.py``), a context per test."""

from __future__ import annotations

from typing import Any

import pytest
from tests.faces.web._server import Running
from tests.faces.web.test_dedup import make_study
from tests.faces.web.test_dedup_browser import served  # noqa: F401 - fixture

pytestmark = pytest.mark.slow

STATUS = "**/api/v1/dedup-jobs/*"


def _held_run(running: Running, app: Any) -> tuple[str, Any]:
    """A Study with a deduplication job that this test holds (queued, then claimed)."""
    from litdesk.services.dedup import DEDUP_KIND

    with running.writer() as c:
        sid = make_study(c)
        job = c.post(f"/api/v1/studies/{sid}/dedup/runs").json()
    claimed = app.state.app.jobs.claim([DEDUP_KIND], "test-worker", 600.0)
    assert claimed is not None and claimed.id == job["id"]
    return sid, claimed


def _finish(app: Any, claimed: Any) -> None:
    from litdesk.services.jobs import JobRunner

    runner = JobRunner(app.state.app.jobs, app.state.app.dedup.handlers(), worker_id="test-worker")
    runner.run_claimed(claimed)


def _reached_the_end(pg: Any) -> None:
    pg.locator("#count-uncertain").wait_for()  # the page of the finished run, reloaded
    assert pg.locator("#job").count() == 0
    assert pg.locator("#count-records").inner_text() == "18"


def test_the_dedup_page_follows_its_job_through_hiccups(
    browser: Any,
    served: tuple[Running, Any],  # noqa: F811
) -> None:
    running, app = served
    sid, claimed = _held_run(running, app)
    context = browser.new_context()
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))

    # a 404 (the job is gone, or not this reader's) ends at once with the server's words
    reads: list[str] = []

    def gone(route: Any) -> None:
        reads.append(route.request.url)
        route.fulfill(
            status=404,
            content_type="application/json",
            body='{"code": "job_not_found", "message": "no deduplication job here"}',
        )

    pg.route(STATUS, gone)
    # the page's timers and Date: its back-off's waits (1 s, 2 s, 4 s: how long is the other
    # test's business) pass in a moment, time flowing as usual between the jumps
    pg.clock.install()
    pg.goto(f"{running.base}/study/{sid}/dedup")
    pg.locator("#job-status", has_text="no deduplication job here").wait_for()
    pg.clock.run_for(1_500)
    pg.wait_for_timeout(300)  # a read the page started would have reached the route by now
    assert len(reads) == 1  # not read again
    pg.unroute(STATUS)

    # 503 (Retry-After 0), 502 with a proxy's HTML page, a refused connection: read again
    hiccups = [
        lambda r: r.fulfill(status=503, headers={"retry-after": "0"}, body="busy"),
        lambda r: r.fulfill(status=502, content_type="text/html", body="<h1>Bad gateway</h1>"),
        lambda r: r.abort("connectionrefused"),
        lambda r: r.fulfill(status=200, content_type="text/html", body="<html>portal</html>"),
    ]
    answered: list[int] = []

    def flaky(route: Any) -> None:
        if hiccups:
            answered.append(0)
            hiccups.pop(0)(route)
        else:
            answered.append(1)
            route.continue_()

    pg.route(STATUS, flaky)
    pg.reload()
    pg.locator("#job-status", has_text="Trying to reach the server…").wait_for()
    # the hiccups over, the job's progress again (the job still waits for its worker)
    progress = pg.locator("#job-status", has_text="Running: starting")
    for _ in range(60):  # a second at a time; each read's (real) fetch has a moment
        if progress.count():
            break
        pg.clock.run_for(1_000)
        pg.wait_for_timeout(50)
    progress.wait_for()
    assert answered[:4] == [0, 0, 0, 0] and 1 in answered
    _finish(app, claimed)
    _reached_the_end(pg)
    assert errors == []
    context.close()


def test_after_a_minute_without_the_server_a_retry_button(
    browser: Any,
    served: tuple[Running, Any],  # noqa: F811
) -> None:
    running, app = served
    sid, claimed = _held_run(running, app)
    context = browser.new_context()
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    reads: list[int] = []

    def down(route: Any) -> None:
        reads.append(1)
        route.fulfill(status=503, body="down")

    pg.route(STATUS, down)
    pg.clock.install()  # the page's timers and Date: a minute passes in a moment
    pg.goto(f"{running.base}/study/{sid}/dedup")
    pg.locator("html[data-dedup-ready]").wait_for(state="attached")
    retry = pg.locator("#job-status button.follow-retry")
    for _ in range(150):  # a second at a time; each read's (real) fetch has a moment
        if retry.count():
            break
        pg.clock.run_for(1_000)
        pg.wait_for_timeout(50)
    assert retry.is_visible()
    assert (
        pg.locator("#job-status")
        .inner_text()
        .startswith("Lost contact with the server; refresh the page.")
    )
    # about a minute of reads 1 s, 2 s, 4 s, 8 s, then 10 s apart (fewer when a fetch
    # outlasts a step of the clock): not a read a moment
    assert 5 <= len(reads) <= 14, len(reads)
    stopped = len(reads)
    pg.clock.run_for(120_000)
    pg.wait_for_timeout(300)
    assert len(reads) == stopped  # it waits for the person now
    pg.unroute(STATUS)
    _finish(app, claimed)
    retry.click()
    for _ in range(100):  # the read after the click waits for its timer too
        if pg.locator("#count-uncertain").count():
            break
        pg.clock.run_for(1_000)
        pg.wait_for_timeout(100)
    _reached_the_end(pg)
    context.close()
