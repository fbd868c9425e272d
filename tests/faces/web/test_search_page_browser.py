"""The search page's reference behaviours of issue 33 ("the rest of the reference, one line
each") in Debian's chromium against a real server, on one page: the results as a list or in
two columns (remembered in this browser), the header's live counts following "Save selected"
done in place, "Clear selection", "Export this page" leaving a conflict card out, Previous as
well as Next in provider order, a mode change resetting the field and the sort, "Use this
query" from the builder setting mode, database, field and sort without searching, and
"Restore into the search form" filling the form without running the search."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._server import Running, epmc_body, epmc_record, write_cassette

pytestmark = pytest.mark.slow

QUERY = "tumour growth"


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    folder = tmp_path / "cassette"
    # record 8 names record 7's PMID with another DOI: both become conflict cards
    first = [epmc_record(i) for i in range(1, 8)]
    first.append(epmc_record(8, pmid=first[-1]["pmid"]))
    write_cassette(folder, QUERY, epmc_body(first, next_cursor="AoE/next=="))
    write_cassette(
        folder, QUERY, epmc_body([epmc_record(i) for i in range(20, 24)]), cursor="AoE/next=="
    )
    return folder


@pytest.fixture
def page(browser: Any, running: Running):
    context = browser.new_context(viewport={"width": 1200, "height": 900}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))  # type: ignore[attr-defined]
    yield pg
    context.close()


def _wait_count(pg: Any, name: str, value: int) -> None:
    pg.wait_for_function(
        "([name, text]) => { const el = document.querySelector("
        '`.top nav .nav-count[data-count="${name}"]`);'
        " return el && !el.hidden && el.textContent === text; }",
        arg=[name, f": {value}"],
    )


def _display(pg: Any) -> str:
    return pg.evaluate("() => getComputedStyle(document.getElementById('results')).display")


def test_search_page_reference_behaviours(page: Any, running: Running) -> None:
    pg = page
    pg.goto(running.base + "/search?q=tumour+growth")
    pg.wait_for_selector("html[data-ready='1']")
    cards = pg.locator("#results > li.card")
    assert cards.count() == 8 and pg.locator("#results > li.card.conflict").count() == 2

    # the header's live counts: nothing saved, no notes yet
    _wait_count(pg, "saved", 0)
    _wait_count(pg, "notes", 0)
    assert pg.get_attribute('.top nav a[href="/saved"]', "href") == "/saved"

    # list or two columns, remembered in this browser
    assert pg.is_visible("#layout-grid") and _display(pg) == "block"
    assert pg.get_attribute("#layout-grid", "aria-pressed") == "false"
    pg.click("#layout-grid")
    assert _display(pg) == "grid" and pg.get_attribute("#layout-grid", "aria-pressed") == "true"
    first, second = cards.nth(0).bounding_box(), cards.nth(1).bounding_box()
    assert abs(first["y"] - second["y"]) < 2 and second["x"] > first["x"]  # side by side
    pg.reload()
    pg.wait_for_selector("html[data-ready='1']")
    assert _display(pg) == "grid" and pg.get_attribute("#layout-grid", "aria-pressed") == "true"
    _wait_count(pg, "saved", 0)
    pg.set_viewport_size({"width": 375, "height": 800})  # a phone: one column, no sideways scroll
    first, second = cards.nth(0).bounding_box(), cards.nth(1).bounding_box()
    assert second["y"] > first["y"] + first["height"] - 2 and abs(second["x"] - first["x"]) < 2
    assert pg.evaluate("() => document.documentElement.scrollWidth") <= 375
    pg.set_viewport_size({"width": 1200, "height": 900})

    # "Save selected" in place: the page stays, the outcome is said, the counts follow
    pg.evaluate("() => { window.__stayed = true; }")
    boxes = pg.locator('#selection input[name="paper_ids"]')
    assert boxes.count() == 6  # the two conflict cards cannot be picked
    boxes.nth(0).check()
    boxes.nth(1).check()
    pg.click('#selection button[value="save"]')
    pg.wait_for_function("() => document.getElementById('sel-outcome').textContent.length > 0")
    assert pg.text_content("#sel-outcome") == "Saved 2 papers (2 new)."
    _wait_count(pg, "saved", 2)
    assert pg.evaluate("() => window.__stayed === true")  # no reload
    boxes.nth(2).check()
    pg.click('#selection button[value="save"]')
    _wait_count(pg, "saved", 3)
    assert pg.text_content("#sel-outcome") == "Saved 3 papers (1 new)."

    # "Clear selection"
    pg.click("#sel-clear")
    assert pg.locator('#selection input[name="paper_ids"]:checked').count() == 0
    assert "Selection cleared" in pg.text_content("#sel-count")

    # "Export this page": the page's results, the conflict cards left out
    with pg.expect_download() as got:
        pg.click('#selection button[value="page_ris"]')
    ris = Path(got.value.path()).read_text(encoding="utf-8")
    assert ris.count("ER  -") == 6 and "study number 8" not in ris and "study number 6" in ris
    assert pg.evaluate("() => window.__stayed === true")

    # provider order: Next, then Previous back to the first page
    pg.click('nav.paging a[rel="next"]')
    pg.wait_for_selector("html[data-ready='1']")
    assert "study number 20" in pg.text_content("#results") and "cursor=run." in pg.url
    assert _display(pg) == "grid"  # remembered on the next page too
    _wait_count(pg, "saved", 3)
    pg.click('nav.paging a[rel="prev"]')
    pg.wait_for_selector("html[data-ready='1']")
    assert "cursor=" not in pg.url and "study number 7" in pg.text_content("#results")
    assert pg.locator('nav.paging a[rel="prev"]').count() == 0
    pg.click("#layout-grid")
    assert _display(pg) == "block" and pg.get_attribute("#layout-grid", "aria-pressed") == "false"

    # a mode change resets the field and the sort (the semantic lane expresses neither)
    pg.click("details.filters > summary")
    pg.select_option('select[name="field"]', "title")
    pg.select_option('select[name="sort"]', "newest")
    pg.check('#search-form input[name="mode"][value="semantic"]')
    assert pg.input_value('select[name="field"]') == "all"
    assert pg.input_value('select[name="sort"]') == "relevance"
    pg.select_option('select[name="type"]', "review")  # not a mode's: it stays
    pg.check('#search-form input[name="mode"][value="discovery"]')
    assert pg.input_value('select[name="type"]') == "review"
    pg.select_option('select[name="field"]', "title")
    pg.check('#search-form input[name="mode"][value="keyword"]')
    assert pg.input_value('select[name="field"]') == "all"

    # "Use this query": keyword mode, the keyword default database, field all, sort relevance
    pg.check('#search-form input[name="provider"][value="pubmed"]')
    pg.check('#search-form input[name="provider"][value="crossref"]')
    pg.select_option('select[name="field"]', "author")
    pg.select_option('select[name="sort"]', "cited")
    pg.click("#strategy > summary")
    groups = pg.locator("#strategy-form fieldset.concept")
    groups.nth(0).locator("textarea").fill("malaria\nPlasmodium infection")
    groups.nth(1).locator("textarea").fill("vaccine")
    pg.click("#strategy-form button[type=submit]")
    pg.locator("#strategy-use").wait_for()
    url = pg.url
    pg.click("#strategy-use")
    built = '("malaria" OR "Plasmodium infection") AND "vaccine"'
    assert pg.input_value("#q") == built
    assert pg.is_checked('#search-form input[name="mode"][value="keyword"]')
    checked = pg.eval_on_selector_all(
        '#search-form input[name="provider"]:checked', "els => els.map(e => e.value)"
    )
    assert checked == ["europepmc"]
    assert pg.input_value('select[name="field"]') == "all"
    assert pg.input_value('select[name="sort"]') == "relevance"
    assert pg.input_value('select[name="type"]') == "review"  # the other filters stay
    assert pg.url == url  # filled, not searched
    assert pg.is_visible("#stale")  # the results below are the last search's
    pg.wait_for_function(
        "() => document.getElementById('live').textContent.includes('Press Search to run it')"
    )

    # "Restore into the search form" from a Study fills the form and waits for the user
    run_id = pg.input_value('#selection input[name="run_id"]')
    with running.writer() as c:
        study = c.post("/api/v1/studies", json={"name": "Kept"}).json()
        assert c.post(f"/api/v1/runs/{run_id}/save", json={"study": study["id"]}).is_success
    pg.goto(f"{running.base}/study/{study['id']}")
    pg.wait_for_selector("html[data-ready='1']")
    pg.click("text=Restore into the search form")
    pg.wait_for_selector("html[data-ready='1']")
    assert "restore=true" in pg.url and pg.input_value("#q") == QUERY
    assert "has not been run" in pg.text_content("main")
    assert pg.locator("#results").count() == 0 and pg.is_hidden("#live-search")
    # a starter example of another mode changes the mode as a pick does: field and sort reset
    pg.evaluate("() => { document.querySelector('details.filters').open = true; }")
    pg.select_option('select[name="field"]', "title")
    pg.select_option('select[name="sort"]', "cited")
    pg.click("button.starter >> text=Compare methods")
    assert pg.is_checked('#search-form input[name="mode"][value="semantic"]')
    assert pg.input_value('select[name="field"]') == "all"
    assert pg.input_value('select[name="sort"]') == "relevance"
    assert "restore=true" in pg.url  # filled, not run
    assert pg.console_errors == []
