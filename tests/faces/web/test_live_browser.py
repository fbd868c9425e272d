"""Playwright on Debian's chromium: a search followed live (each lane shown as it finishes,
before the results), cancelled with the keyboard (the lanes stop, the last successful
results stay with their notice), then run to its result view, where a long shared-references
look-up is stopped with Escape; selection actions (compare
evidence, shared references with the paper that fails beside the others, by keyboard);
the citation browser saving chosen works into a new Study through the keyboard-friendly
confirmation. Screenshots under the test's tmp dir ("screens"); axe-core finds no serious
or critical violation in these states (light and dark)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._hosting import Hosting
from tests.faces.web._page_checks import COLOUR_RULES
from tests.faces.web._server import Running
from tests.faces.web._slow import slow_server
from tests.faces.web.test_accessibility import _DARK_JS, AXE, _violations
from tests.faces.web.test_live import cassette  # noqa: F401 - the OpenAlex answers too

pytestmark = pytest.mark.slow

#: where screenshots for the record go (none taken without it; nothing reads them)
SHOTS = os.environ.get("SHOTS_DIR", "")


def _shot(pg: Any, tmp_path: Path, name: str) -> None:
    """A full-page screenshot for the record, into ``$SHOTS_DIR`` (``name``.png; none taken
    without it: nothing reads them)."""
    if not SHOTS:
        return
    folder = Path(SHOTS)
    folder.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(folder / f"{name}.png"), full_page=True)


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    """Pages with CSP bypassed only so that axe-core can be injected."""
    contexts: list[Any] = []

    def make(scheme: str = "light") -> Any:
        context = browser.new_context(
            viewport={"width": 1200, "height": 900}, bypass_csp=True, color_scheme=scheme
        )
        contexts.append(context)
        pg = context.new_page()
        pg.set_default_timeout(30_000)
        pg.dialogs = []
        pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
        pg.console_errors = []
        pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))
        return pg

    yield make
    for context in contexts:
        context.close()


def _axe(
    pg: Any, where: str, problems: dict[str, list[str]], rules: tuple[str, ...] | None = None
) -> None:
    if AXE.is_file():
        found = _violations(pg, AXE, rules)
        if found:
            problems[where] = found


def _schemes(pg: Any, tmp_path: Path, where: str, problems: dict[str, list[str]]) -> None:
    """The page as it is, light then dark (the emulated scheme switched on it, asserted),
    shot for the record and checked by axe: every rule in the light, the colour rules in
    the dark (the dark scheme changes colours only); left in the light."""
    for scheme in ("light", "dark"):
        pg.emulate_media(color_scheme=scheme)
        assert pg.evaluate(_DARK_JS) == (scheme == "dark"), f"{where}: not in {scheme}"
        _shot(pg, tmp_path, f"{where}-{scheme}")
        _axe(pg, f"{where}-{scheme}", problems, COLOUR_RULES if scheme == "dark" else None)
    pg.emulate_media(color_scheme="light")


def _until_seen(provider: Any, n: int) -> None:
    deadline = time.monotonic() + 30
    while len(provider.seen) < n and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(provider.seen) >= n


def _ready(pg: Any) -> None:
    pg.locator("html[data-ready]").wait_for(state="attached")


def test_live_lanes_cancel_by_keyboard_then_results(
    open_page: Any, tmp_settings: Any, tmp_path: Path, hosting: Hosting
) -> None:
    problems: dict[str, list[str]] = {}
    with slow_server(tmp_settings, tmp_path, hosting) as slow:
        pg = open_page()
        pg.goto(slow.running.base + "/search")
        _ready(pg)
        pg.locator("#q").fill("tumour growth")
        pg.locator("details.filters summary").click()
        pg.locator('input[name="provider"][value="europepmc"]').check()
        pg.locator("#search-form button[type=submit]").click()
        pg.wait_for_url("**live=**")  # the live search ended in the ordinary result view
        _ready(pg)
        assert pg.locator("li.card").count() == 3
        # now both lanes: Europe PMC answers at once, OpenAlex waits behind its gate
        pg.locator('input[name="provider"][value="openalex"]').check()
        pg.locator("#search-form button[type=submit]").click()
        live = pg.locator("#live-search")
        live.wait_for(state="visible")
        lanes = pg.locator("#live-lanes .lane")
        pg.locator('#live-lanes .lane.ok[data-lane="europepmc-keyword"]').wait_for()
        running = pg.locator('#live-lanes .lane.running[data-lane="openalex-keyword"]')
        assert running.is_visible() and lanes.count() == 2
        assert "3 returned" in lanes.first.inner_text()
        assert "1 of 2 databases finished" in pg.locator("#live-status").inner_text()
        assert pg.locator("li.card").count() == 3  # the earlier results are still shown
        _shot(pg, tmp_path, "live-running")
        _axe(pg, "live-running", problems)
        pg.keyboard.press("?")  # the page's own keys are on the help overlay
        assert "Cancel the running search" in pg.locator("#help").inner_text()
        pg.keyboard.press("Escape")
        pg.evaluate("() => document.activeElement && document.activeElement.blur()")
        pg.keyboard.press("x")
        pg.locator("#live-status").filter(has_text="cancelled").wait_for()
        assert pg.locator("#live-h").inner_text() == "Search cancelled"
        assert pg.locator('#live-lanes .lane.cancelled[data-lane="openalex-keyword"]').count() == 1
        assert pg.locator("#stale").is_visible()  # the results belong to the last search
        assert pg.locator("li.card").count() == 3 and pg.locator("#live-cancel").is_hidden()
        _shot(pg, tmp_path, "live-cancelled")
        # open the gate: the same search runs again (nothing was cached) to its results
        slow.openalex.gate.set()
        pg.locator("#search-form button[type=submit]").click()
        pg.wait_for_url("**provider=openalex&live=**")
        _ready(pg)
        pg.locator("li.card h2.title", has_text="Slow lane work W900").wait_for()
        assert pg.locator("section.lanes .lane.ok").count() == 2
        assert len(slow.openalex.seen) == 2
        _shot(pg, tmp_path, "live-done")
        # a long selection look-up can be stopped from the page (it changes nothing)
        slow.openalex.gate.clear()
        pg.locator('li.card input[name="paper_ids"]').nth(0).check()
        pg.locator('li.card input[name="paper_ids"]').nth(1).check()
        pg.keyboard.press("f")
        _until_seen(slow.openalex, 3)  # the look-up is under way (the page awaits its answer)
        pg.keyboard.press("Escape")
        pg.locator("#sel-count").filter(has_text="Stopped").wait_for()
        slow.openalex.gate.set()  # let the server-side look-up finish before the server stops
        assert "/search?" in pg.url and pg.locator("li.card").count() > 0
        assert pg.dialogs == []
    assert problems == {}, problems


def test_selection_compare_evidence_and_shared_references(
    open_page: Any, running: Running, tmp_path: Path
) -> None:
    with running.writer() as c:
        run = c.get("/api/v1/search", params={"q": "tumour growth"}).json()
        ids = [card["paper"]["id"] for card in run["cards"]]
        saved = c.post(
            "/api/v1/selection/save", json={"run_id": run["run"]["id"], "paper_ids": ids[1:3]}
        ).json()["saved"]
        abstract = c.get(f"/api/v1/papers/{saved[0]}").json()["paper"]["abstract"]
        passage = abstract[abstract.index("growth slowed") :][:13]
        r = c.post(
            f"/api/v1/papers/{saved[0]}/evidence",
            json={"finding": "<b>growth</b> slowed", "passage": passage, "population": "mice"},
        )
        assert r.status_code == 200, r.text
    problems: dict[str, list[str]] = {}
    # walked once; each state seen light, then dark by switching the emulated scheme
    # (its dark colours are CSS media rules, which change no layout and no clickability:
    # test_every_page_browser.test_dark_scheme_changes_colours_only)
    pg = open_page("light")
    pg.goto(running.base + "/search?q=tumour+growth")
    _ready(pg)
    boxes = pg.locator('input[name="paper_ids"]')
    for i in (1, 2, 4):
        boxes.nth(i).check()
    pg.keyboard.press("v")  # compare evidence (focus is on a checkbox: keys still work)
    pg.locator("h1", has_text="Compare evidence").wait_for()
    cols = pg.locator(".compare-col")
    assert cols.count() == 2
    assert "<b>growth</b> slowed" in cols.first.inner_text()  # stored text shown as text
    assert "mice" in cols.first.inner_text()
    assert "No evidence recorded" in cols.nth(1).inner_text()
    assert ids[4] in pg.locator(".notice.warn").inner_text()
    _schemes(pg, tmp_path, "compare", problems)

    pg.goto(running.base + "/search?q=shared+seeds&provider=openalex")
    _ready(pg)
    boxes = pg.locator('input[name="paper_ids"]')
    boxes.nth(0).check()
    pg.keyboard.press("f")  # one selected: the page says why and stays
    pg.locator("#sel-count").filter(has_text="need 2 to 5").wait_for()
    boxes.nth(1).check()
    boxes.nth(2).check()
    pg.keyboard.press("f")
    pg.locator("h1", has_text="Shared references").wait_for()
    rows = pg.locator("ol.rows > li.row")
    assert rows.count() == 2
    assert rows.first.locator(".shared").inner_text() == "referenced by 2 of 2"
    assert "OAX-W300" in pg.locator(".notice.warn").inner_text()
    assert pg.evaluate("() => window.__pwned === undefined")
    _schemes(pg, tmp_path, "shared", problems)
    assert pg.dialogs == [] and pg.console_errors == []
    assert problems == {}, problems


def test_citation_browser_saves_chosen_works_after_a_keyboard_confirmation(
    open_page: Any, running: Running, tmp_path: Path
) -> None:
    problems: dict[str, list[str]] = {}
    pg = open_page()
    pg.goto(running.base + "/citations?ids=W100")
    _ready(pg)
    _axe(pg, "citations-choose", problems)
    boxes = pg.locator('#cite-save input[name="paper_ids"]')
    assert boxes.count() == 20
    boxes.nth(0).check()
    boxes.nth(2).check()
    pg.locator("#cite-count").filter(has_text="2 chosen").wait_for()
    pg.locator('#cite-save input[name="new_study"]').fill("Refs <b>of</b> W100")
    save = pg.locator("#cite-save button[type=submit]")
    save.click()
    dialog = pg.locator("#confirm-dialog")
    dialog.wait_for(state="visible")
    assert "Create the new Study “Refs <b>of</b> W100”" in dialog.inner_text()
    assert pg.evaluate("() => document.activeElement.id") == "confirm-ok"
    _shot(pg, tmp_path, "citations-confirm")
    _axe(pg, "citations-confirm", problems)
    pg.keyboard.press("Escape")  # cancelled: nothing saved, focus back on the button
    dialog.wait_for(state="hidden")
    assert "/citations?" in pg.url
    assert pg.evaluate("() => document.activeElement.textContent").startswith("Save chosen")
    pg.keyboard.press("a")  # the page's key for the same button: asks again
    dialog.wait_for(state="visible")
    pg.keyboard.press("Enter")
    pg.locator(".notice.ok").filter(has_text="Saved 2 papers").wait_for()
    assert "Refs <b>of</b> W100" in pg.locator(".notice.ok").inner_text()
    assert pg.locator("ul.saved li").count() == 2
    _shot(pg, tmp_path, "citations-saved")
    pg.get_by_role("link", name="Back to the citations").click()
    pg.wait_for_url("**/citations?ids=W100")
    assert pg.dialogs == [] and pg.console_errors == []
    assert problems == {}, problems


def test_search_for_more_keeps_the_study_to_add_to_it(open_page: Any, running: Running) -> None:
    """From a Study's page: "Search for more", a live search, then "Add to this Study"."""
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Tumour review"}).json()["id"]
    pg = open_page()
    pg.goto(f"{running.base}/study/{sid}")
    pg.get_by_role("link", name="Search for more").click()
    pg.wait_for_url(f"**/search?study={sid}")
    _ready(pg)
    assert "Tumour review" in pg.locator("#for-study").inner_text()
    pg.locator("#q").fill("tumour growth")
    pg.locator("#search-form button[type=submit]").click()
    pg.wait_for_url("**live=**")  # the live search's result view keeps the Study
    assert f"study={sid}" in pg.url
    _ready(pg)
    pg.locator('li.card input[name="paper_ids"]').nth(0).check()
    pg.locator("#add-this-study").click()
    pg.wait_for_url("**/selection")
    with running.client() as c:
        assert c.get(f"/api/v1/studies/{sid}").json()["papers_total"] == 1
    assert pg.console_errors == []
