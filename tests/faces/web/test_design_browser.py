"""The one visual design in a browser (issue 34): the search results are a few Tab presses
away (a "Skip to results" link after "Skip to content", the advanced options folded), a
filter updates the saved list in place (swap.js) and the address follows it, its flash and
fade only for readers who accept motion (``prefers-reduced-motion``), on a narrow window the
nav is one scrolling row that does not push the page down, and the occasional pages under
"More" open from the keyboard. (That at 1280 px the top bar is one row on every main page, the
current page marked, is checked where every page is loaded: ``test_every_page_browser``.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._server import Running

pytestmark = pytest.mark.slow

ACTIVE = """() => {
  const a = document.activeElement;
  return {tag: a.tagName, text: (a.textContent || '').trim(), inResults: !!a.closest('#results')};
}"""


@pytest.fixture
def page(browser: Any, running: Running, tmp_path: Path):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))  # type: ignore[attr-defined]
    yield pg
    context.close()


def test_the_first_result_is_three_tab_presses_away(page: Any, running: Running) -> None:
    pg = page
    pg.goto(running.base + "/search?q=tumour+growth")
    pg.locator("html[data-ready]").wait_for(state="attached")
    pg.keyboard.press("Tab")
    assert pg.evaluate(ACTIVE)["text"] == "Skip to content"
    pg.keyboard.press("Tab")
    assert pg.evaluate(ACTIVE)["text"] == "Skip to results"
    pg.keyboard.press("Enter")
    pg.keyboard.press("Tab")
    first = pg.evaluate(ACTIVE)
    assert first["tag"] == "A" and first["inResults"], first
    assert first["text"] == pg.locator("#results li.card h2.title a").first.inner_text()
    # without the skip link: the nav, the query, Search, the mode, two folded option groups
    # (the issue counted 24 presses; the selection's buttons now follow the results)
    pg.goto(running.base + "/search?q=tumour+growth")
    pg.locator("html[data-ready]").wait_for(state="attached")
    presses = 0
    while not pg.evaluate(ACTIVE)["inResults"]:
        pg.keyboard.press("Tab")
        presses += 1
        assert presses <= 20, pg.evaluate(ACTIVE)
    assert pg.evaluate(ACTIVE)["tag"] == "A"
    assert pg.console_errors == []


#: the motion of a partial update (swap.js): the flash of a swapped region, the fade of a
#: busy one
MOTION = """() => {
  const flash = document.createElement('div');
  flash.className = 'swapped';
  const busy = document.createElement('div');
  busy.setAttribute('aria-busy', 'true');
  document.body.append(flash, busy);
  const seen = [getComputedStyle(flash).animationName, getComputedStyle(busy).transitionDuration];
  flash.remove();
  busy.remove();
  return seen;
}"""


def test_partial_updates_move_only_for_readers_who_accept_motion(
    page: Any, running: Running
) -> None:
    pg = page
    pg.goto(running.base + "/saved")
    pg.locator("html[data-ready]").wait_for(state="attached")
    pg.emulate_media(reduced_motion="no-preference")
    assert pg.evaluate(MOTION) == ["swapped", "0.2s"]
    pg.emulate_media(reduced_motion="reduce")  # the system's "reduce motion" setting
    assert pg.evaluate(MOTION) == ["none", "0s"]


def test_a_filter_updates_the_saved_list_in_place(page: Any, running: Running) -> None:
    pg = page
    with running.writer() as c:
        data = c.get("/api/v1/search", params={"q": "tumour growth"}).json()
        ids = [card["paper"]["id"] for card in data["cards"][:3]]
        saved = c.post(
            "/api/v1/selection/save", json={"run_id": data["run"]["id"], "paper_ids": ids}
        )
        assert saved.status_code == 200, saved.text
    pg.goto(running.base + "/saved")
    pg.locator("html[data-ready]").wait_for(state="attached")
    assert pg.locator("#saved-counts").inner_text() == "3 saved papers."
    assert pg.locator("#saved-list tbody tr").count() == 3
    pg.evaluate("() => { window.notReloaded = true; }")  # gone if the page were loaded again
    doi = data["cards"][1]["paper"]["doi"]
    pg.locator("#text").fill(doi)
    pg.locator(".filters-bar button[type=submit]").click()
    pg.locator("#saved-counts", has_text="1 of 3 saved papers").wait_for()
    assert pg.locator("#saved-list tbody tr").count() == 1
    assert pg.evaluate("() => window.notReloaded === true")  # swapped, not reloaded
    assert "text=" in pg.url  # the address is the filter's, as without script
    pg.locator("#live").filter(has_text="1 of 3 saved papers").wait_for(state="attached")
    assert pg.console_errors == []


def test_the_nav_is_one_row_on_a_narrow_window(page: Any, running: Running) -> None:
    pg = page
    pg.set_viewport_size({"width": 420, "height": 800})
    pg.goto(running.base + "/studies")
    pg.locator("html[data-ready]").wait_for(state="attached")
    links = pg.locator(".top .nav-links a")
    tops = {round(links.nth(i).bounding_box()["y"]) for i in range(links.count())}
    assert len(tops) == 1  # one row (it scrolls sideways), not eleven wrapped lines
    more = pg.locator(".top .nav-more > summary").bounding_box()
    assert more is not None and more["x"] + more["width"] <= 420  # "More" is in view
    assert round(more["y"]) in tops
    assert pg.evaluate("() => document.querySelector('.top').getBoundingClientRect().height") < 120
    assert pg.evaluate("() => document.documentElement.scrollWidth") <= 420
    # the current page's link is scrolled into view
    box = pg.locator('.top nav a[aria-current="page"]').bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 420


def test_more_opens_from_the_keyboard_and_shuts_on_escape(page: Any, running: Running) -> None:
    pg = page
    pg.goto(running.base + "/citations")
    pg.locator("html[data-ready]").wait_for(state="attached")
    more = pg.locator(".top .nav-more")
    link = pg.locator('.top .nav-more-links a[aria-current="page"]')
    assert link.text_content() == "Citations" and not link.is_visible()
    pg.locator(".top .nav-more > summary").focus()
    pg.keyboard.press("Enter")
    assert more.evaluate("d => d.open") and link.is_visible()
    pg.keyboard.press("Tab")
    assert pg.evaluate(ACTIVE)["text"] == "Citations"
    pg.keyboard.press("Escape")
    assert not more.evaluate("d => d.open")
    assert pg.evaluate(ACTIVE) == {"tag": "SUMMARY", "text": "More", "inResults": False}
    pg.keyboard.press("Enter")
    pg.locator(".top .brand").click()  # a click elsewhere shuts it
    assert not more.evaluate("d => d.open")
    pg.keyboard.press("g")
    pg.keyboard.press("r")  # a page under "More" keeps its key
    pg.wait_for_url("**/reports")
    assert pg.locator(".top .nav-more > summary").get_attribute("class") == "current"
    assert pg.console_errors == []
