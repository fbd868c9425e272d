"""Playwright on Debian's chromium: from a saved paper's reader, the "Citations" link opens
its references (20 per page, next page), then shared references of two papers with
"referenced by n of m"; provider markup stays text; a screenshot for the record
(``tests/_shots.py``); axe-core finds no serious or critical violation on the page (light and dark)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests._shots import shoot
from tests.faces.web._oa_citations import SHOWN_REF_TITLE, write_openalex
from tests.faces.web._page_checks import COLOUR_RULES
from tests.faces.web._server import Running
from tests.faces.web.test_accessibility import _DARK_JS, AXE, _violations

from litdesk.adapters.store import open_store
from litdesk.core.records import make_paper
from litdesk.services.workspace import Workspace

pytestmark = pytest.mark.slow


@pytest.fixture
def cassette(cassette: Path) -> Path:
    write_openalex(cassette)
    return cassette


def test_reader_citations_link_references_pages_and_shared(
    browser: Any, running: Running, tmp_settings: Any
) -> None:
    store = open_store(tmp_settings)
    try:
        saved = Workspace(store).save_paper(make_paper(openalex_id="W100", title="Seed W100"))
    finally:
        store.dispose()
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    dialogs: list[str] = []
    pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        pg.goto(f"{running.base}/paper/{saved.paper.id}")
        pg.locator("main a.citations-link", has_text="Citations").click()
        pg.wait_for_url("**/citations?**")
        rows = pg.locator("ol.rows > li.row")
        assert rows.count() == 20
        assert "25 works, page 1 (more pages)" in pg.locator("p.counts").inner_text()
        assert "can be incomplete" in pg.locator("main").inner_text()
        pg.get_by_role("link", name="Next page").click()
        pg.locator("p.counts", has_text="page 2").wait_for()
        assert rows.count() == 4
        assert "were not returned by OpenAlex" in pg.locator("main").inner_text()

        pg.select_option("select[name=mode]", "shared")
        pg.locator("input[name=ids]").nth(1).fill("W200")
        pg.get_by_role("button", name="Show").click()
        pg.locator("p.counts", has_text="shared of").wait_for()
        assert rows.count() == 2
        assert rows.first.locator(".title").inner_text() == SHOWN_REF_TITLE
        assert rows.first.locator(".shared").inner_text() == "referenced by 2 of 2"
        assert dialogs == [] and pg.evaluate("() => window.__pwned === undefined")
        assert pg.locator("main script").count() == 0
        shoot(pg, "citations.png", full_page=True)
    finally:
        context.close()


def test_citations_page_has_no_serious_axe_violations(browser: Any, running: Running) -> None:
    if not AXE.is_file():
        pytest.skip("axe-core is not installed (make node)")
    problems: dict[str, list[str]] = {}
    context = browser.new_context(bypass_csp=True, color_scheme="light")  # to inject axe
    pg = context.new_page()
    for path in ("/citations", "/citations?mode=shared&ids=W100&ids=W200"):
        pg.emulate_media(color_scheme="light")
        pg.goto(running.base + path)
        # each page seen light, then dark by switching the emulated scheme (its dark colours
        # are CSS media rules, applied to the page as it is); the dark scheme changes colours
        # only (test_every_page_browser), so the colour rules can find more there
        for scheme in ("light", "dark"):
            pg.emulate_media(color_scheme=scheme)
            assert pg.evaluate(_DARK_JS) == (scheme == "dark"), f"{path}: not in {scheme}"
            found = _violations(pg, AXE, COLOUR_RULES if scheme == "dark" else None)
            if found:
                problems[f"{scheme} {path}"] = found
    context.close()
    assert problems == {}
