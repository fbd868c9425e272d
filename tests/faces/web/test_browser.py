"""Playwright on Debian's chromium through the pages, against a real server on loopback
with a temporary store and a replay cassette: search (seeding, validation as you type,
results with XSS payloads shown as text), selection into a new Study, saved papers
(filter), the reader (a highlight made by selecting text, verified server-side), Studies
(create, rename); with ``$SHOTS_DIR`` set, screenshots (light, dark, narrow) there."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._server import SHOWN_JOURNAL, SHOWN_TITLE, Running

from litdesk.adapters.store import open_store
from litdesk.core.records import make_paper
from litdesk.services.workspace import Workspace

pytestmark = pytest.mark.slow

#: where screenshots for the record go (none taken without it; nothing reads them)
SHOTS = os.environ.get("SHOTS_DIR", "")

STORED_XSS = {
    "title": '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned=2">Stored title',
    "authors": ['<a href="javascript:alert(7)">Mallory</a>'],
    "journal": "<iframe src=javascript:alert(8)>",
    "abstract": "Stored abstract with <script>alert(9)</script> inside and a javascript:alert(10) link.",
}

IMPORT_RIS = "TY  - JOUR\nTI  - <img src=x onerror=alert(13)> Imported\nPY  - 2021\nDO  - 10.5555/imp.9\nER  - \n"

SELECT_IN_ABSTRACT = """(needle) => {
  const el = document.getElementById('abstract');
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    const at = node.data.indexOf(needle);
    if (at >= 0) {
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + needle.length);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      el.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));
      return true;
    }
  }
  return false;
}"""


@pytest.fixture
def page(browser: Any, running: Running, tmp_path: Path):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.dialogs = []  # type: ignore[attr-defined]
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))  # type: ignore[attr-defined]
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))  # type: ignore[attr-defined]
    yield pg
    context.close()


def _shot(pg: Any, tmp_path: Path, name: str) -> None:
    """A full-page screenshot for the record, into ``$SHOTS_DIR`` (``name``.png; none taken
    without it: nothing reads them)."""
    if not SHOTS:
        return
    folder = Path(SHOTS)
    folder.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def _no_script_ran(pg: Any) -> None:
    assert pg.dialogs == []
    assert pg.evaluate("() => window.__pwned === undefined")
    # no element came from provider or stored text
    assert pg.locator("main script, main iframe, main svg, main img").count() == 0


def test_search_select_and_save_into_a_study(page: Any, running: Running, tmp_path: Path) -> None:
    pg = page
    pg.goto(running.base + "/search#q=tumour%20growth")
    q = pg.locator("#q")
    pg.locator("html[data-ready]").wait_for(state="attached")
    assert q.input_value() == "tumour growth"  # seeded from the fragment, not run
    assert pg.locator(".starters").is_visible()
    _shot(pg, tmp_path, "search-start")
    q.fill("growth AND (tumour")
    check = pg.locator("#q-check")
    check.filter(has_text="at character 12").wait_for()
    q.fill("tumour growth")
    check.filter(has_text="Query looks valid").wait_for()
    pg.locator("#search-form button[type=submit]").click()
    card = pg.locator("li.card").first
    card.wait_for()
    pg.locator("html[data-ready]").wait_for(state="attached")
    assert pg.locator("li.card").count() == 7
    assert card.locator("h2.title").inner_text() == SHOWN_TITLE  # markup shown as text
    assert SHOWN_JOURNAL in card.locator(".byline").inner_text()
    assert pg.locator(".lane.ok").count() == 1
    _no_script_ran(pg)
    card.locator("details.why summary").click()
    assert "Europe PMC, keyword search: rank 1" in card.locator("details.why").inner_text()
    pg.locator("details.provenance summary").click()
    assert "Executed query" in pg.locator("details.provenance").inner_text()
    _shot(pg, tmp_path, "search-results")
    # changing the form marks the results as belonging to the last successful search
    q.fill("tumour growth rate")
    pg.locator("#stale").wait_for(state="visible")
    q.fill("tumour growth")
    boxes = pg.locator('input[name="paper_ids"]')
    boxes.nth(0).check()
    boxes.nth(1).check()
    pg.locator("#sel-count").filter(has_text="2 selected").wait_for()
    pg.locator('input[name="new_study"]').fill("Tumour review")
    pg.locator('button[value="study"]').click()
    pg.locator("#confirm-dialog").wait_for(state="visible")  # a new Study asks first
    pg.keyboard.press("Enter")
    pg.locator(".notice.ok").filter(has_text="Saved 2 papers").wait_for()
    assert "Tumour review" in pg.locator(".notice.ok").inner_text()
    _shot(pg, tmp_path, "selection-saved")
    pg.locator("a", has_text="Saved papers").first.click()
    pg.locator("p.counts").filter(has_text="2 saved papers").wait_for()
    pg.locator("#text").fill("10.5555/litdesk.2")
    pg.locator(".filters-bar button").click()
    pg.locator("p.counts").filter(has_text="1 of 2").wait_for()
    _shot(pg, tmp_path, "saved-filtered")
    _no_script_ran(pg)
    assert pg.console_errors == []


def test_reader_highlight_by_selecting_text(
    page: Any, running: Running, tmp_path: Path, tmp_settings: Any
) -> None:
    store = open_store(tmp_settings)
    try:
        saved = Workspace(store).save_paper(make_paper(pmid="41000001", **STORED_XSS)).paper
    finally:
        store.dispose()
    pg = page
    pg.goto(f"{running.base}/paper/{saved.id}")
    title = pg.locator("h1.title")
    pg.locator("html[data-ready]").wait_for(state="attached")
    assert title.inner_text() == STORED_XSS["title"]
    assert "javascript:alert(7)" in pg.locator(".byline").inner_text()
    _no_script_ran(pg)
    assert pg.locator("main a[href^='javascript']").count() == 0
    assert pg.evaluate(SELECT_IN_ABSTRACT, "inside and a")
    where = pg.locator("#hl-where")
    where.filter(has_text="Selected characters").wait_for()
    start = STORED_XSS["abstract"].index("inside and a")
    assert pg.locator("#hl-start").input_value() == str(start)
    assert pg.locator("#hl-text").input_value() == "inside and a"
    pg.locator("#hl-comment").fill("<b>not bold</b> comment")
    pg.locator("#highlight-form button[type=submit]").click()
    mark = pg.locator("#abstract mark")
    mark.wait_for()
    pg.locator("html[data-ready]").wait_for(state="attached")
    assert mark.inner_text() == "inside and a"
    assert "<b>not bold</b> comment" in pg.locator("#notes").inner_text()
    # highlight without selecting: find occurrences, choose one
    pg.locator("#hl-text").fill("a")
    pg.locator("#hl-find").click()
    pg.locator("#hl-found button").first.wait_for()
    assert pg.locator("#hl-found button").count() == STORED_XSS["abstract"].count("a")
    pg.locator("#hl-found button").nth(2).click()
    where.filter(has_text="Occurrence 3 chosen").wait_for()
    pg.locator("#evidence summary", has_text="Record evidence").click()
    pg.locator("#ev-finding").fill("<i>Growth</i> is described")
    pg.locator("#ev-population").fill("mice")
    pg.locator("#ev-passage").fill("inside and a")
    pg.locator("#evidence-form button[type=submit]").click()
    pg.locator("#evidence .card").first.wait_for()
    assert "<i>Growth</i> is described" in pg.locator("#evidence .card").inner_text()
    assert "check: ok" in pg.locator("#evidence .card").inner_text()
    pg.locator("select[name=status]").select_option("reading")
    pg.locator("form[aria-label='Reading status'] button").click()
    pg.locator("select[name=status]").wait_for()
    assert pg.locator("select[name=status]").input_value() == "reading"
    _shot(pg, tmp_path, "reader")
    _no_script_ran(pg)
    # keyboard: focus is visible on the first focusable element
    pg.keyboard.press("Tab")
    assert pg.evaluate("() => document.activeElement.className") == "skip"
    _shot(pg, tmp_path, "reader-focus")
    pg.emulate_media(color_scheme="dark")
    bg = pg.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert bg == "rgb(15, 20, 25)"
    _shot(pg, tmp_path, "reader-dark")
    pg.set_viewport_size({"width": 380, "height": 800})
    width = pg.evaluate("() => document.documentElement.scrollWidth")
    wide = pg.evaluate(
        "() => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 381 && !e.closest('.top nav')).map(e => e.tagName + '.' + e.className + '#' + e.id).slice(0, 12)"
    )
    assert width <= 380, wide  # no sideways scrolling on a narrow window
    _shot(pg, tmp_path, "reader-narrow")
    assert pg.console_errors == []


def test_studies_create_and_rename(page: Any, running: Running, tmp_path: Path) -> None:
    pg = page
    pg.goto(running.base + "/studies")
    pg.locator("#s-name").fill("<script>alert(11)</script> Study")
    pg.locator("form.create button").click()
    heading = pg.locator("main h1")
    heading.filter(has_text="Study").wait_for()
    assert heading.inner_text() == "<script>alert(11)</script> Study"
    pg.locator("#r-name").fill("Renamed study")
    pg.locator("form[action$='/rename'] button").click()
    heading.filter(has_text="Renamed study").wait_for()
    pg.locator("html[data-ready]").wait_for(state="attached")
    assert pg.locator("#count-papers").inner_text() == "0"
    pg.evaluate("() => { window.notReloaded = true; }")  # gone if the page were loaded again
    pg.locator("#import-files").set_input_files(
        [
            {"name": "refs.ris", "mimeType": "text/plain", "buffer": IMPORT_RIS.encode()},
            {"name": "junk.txt", "mimeType": "text/plain", "buffer": b"nothing here"},
        ]
    )
    pg.locator("#import-report .notice.ok").wait_for()
    report = pg.locator("#import-report").inner_text()
    assert "refs.ris: ris" in report and "1 record," in report and "junk.txt refused" in report
    # the Study's figures and papers follow the import without a reload (swap.js refresh)
    pg.locator("#count-papers", has_text="1").wait_for()
    assert pg.locator("#papers tbody tr").count() == 1
    assert "1 imported file" in pg.locator("#imports").inner_text()
    assert "0 of 1 screened" in pg.locator("#screening-section").inner_text()  # not "0 of 0"
    pg.locator("#live").filter(has_text="Imported: 1 record saved").wait_for(state="attached")
    assert pg.evaluate("() => window.notReloaded === true")
    _no_script_ran(pg)
    _shot(pg, tmp_path, "study")
    pg.goto(running.base + "/studies")
    assert pg.locator("#studies td.title a").inner_text() == "Renamed study"
    pg.locator("html[data-ready]").wait_for(state="attached")
    pg.keyboard.press("?")
    pg.locator("#help").wait_for(state="visible")
    pg.keyboard.press("Escape")
    pg.locator("#help").wait_for(state="hidden")
    pg.keyboard.press("g")
    pg.keyboard.press("s")
    pg.locator("#search-form").wait_for()
    pg.locator("html[data-ready]").wait_for(state="attached")  # the page's modules are installed
    pg.keyboard.press("/")
    assert pg.evaluate("() => document.activeElement.id") == "q"
    _shot(pg, tmp_path, "studies-help")
    _no_script_ran(pg)


_STATIC_LOADS = """() => performance.getEntriesByType('resource')
  .filter((e) => new URL(e.name).pathname.startsWith('/static/'))
  .map((e) => [new URL(e.name).pathname, e.transferSize])"""


def test_static_files_come_from_the_browser_cache_on_the_next_page(
    page: Any, running: Running
) -> None:
    """The CSS and every script module (imported relatively under the fingerprint) are
    fetched by the first page, then taken from chromium's cache by the next one: nothing
    transferred, not even a revalidation's headers (a 304 counts its headers)."""
    pg = page
    pg.goto(running.base + "/search")
    pg.wait_for_selector("html[data-ready='1']")
    first = dict(pg.evaluate(_STATIC_LOADS))
    assert {"/app.css", "/js/app.js", "/js/dom.js"} <= {p[p.index("/", 8) :] for p in first}
    assert all(size > 0 for size in first.values()), first
    pg.goto(running.base + "/studies")
    pg.wait_for_selector("html[data-ready='1']")
    second = dict(pg.evaluate(_STATIC_LOADS))
    assert set(first) - {p for p in first if p.endswith("favicon.svg")} <= set(second)
    assert all(size == 0 for size in second.values()), second
    assert pg.console_errors == []
