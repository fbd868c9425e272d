"""The conflicts page in Debian's chromium (issue 28), on the 40-conflict Study of
``test_conflicts_paging_web``: resolving a conflict far down the page swaps the queue in
place — the page does not move (it jumped to the top before: the first region swapped was
the count line, which took the focus), the card that took the resolved one's place is under
the pointer, the address keeps the filter and page — and Next opens page 2. axe-core finds
nothing serious there, wide and narrow (no sideways scrolling on a phone). With
``$SHOTS_DIR`` set, screenshots of both pages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.faces.web._server import Running
from tests.faces.web.test_accessibility import _violations, axe_path  # noqa: F401 - fixture
from tests.faces.web.test_conflicts_paging_web import queue  # noqa: F401 - fixture
from tests.faces.web.test_screening_browser import _shoot, _shots

from litdesk.services.screening import CONFLICTS_PAGE

pytestmark = pytest.mark.slow


def test_resolve_in_place_then_the_next_page(
    browser: Any,
    running: Running,
    queue: tuple[httpx.Client, str, list[str]],  # noqa: F811
    axe_path: Path,  # noqa: F811
) -> None:
    _, sid, conflicting = queue
    shots = _shots()
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    errors: list[str] = []
    pg.on("console", lambda m: m.type == "error" and errors.append(m.text))
    url = f"{running.base}/study/{sid}/screen/conflicts"
    pg.goto(url)
    pg.locator("html[data-ready]").wait_for(state="attached")
    _shoot(pg, shots, "scr-web-conflicts-paged.png")
    assert pg.locator("#conflict-list article").count() == CONFLICTS_PAGE
    far = 20
    card = pg.locator(f"#conflict-{far}")
    assert card.get_attribute("data-record") == conflicting[far - 1]
    card.scroll_into_view_if_needed()
    pg.evaluate("window.scrollBy(0, 120)")
    y = pg.evaluate("window.scrollY")
    assert y > 1000  # far down the page
    card.locator("button.v-exclude").click()
    pg.locator("#conflicts-state", has_text="· 1 resolved").wait_for()
    waiting = len(conflicting) - 1
    assert f"{waiting} conflicts waiting" in pg.locator("#conflicts-state").inner_text()
    assert pg.evaluate("window.scrollY") == y  # the page stayed where it was
    assert pg.locator(f"#conflict-{far}").get_attribute("data-record") == conflicting[far]
    assert pg.locator("#conflict-list article").count() == CONFLICTS_PAGE  # one moved up
    assert pg.url == f"{url}?stage=title_abstract&status=unresolved&page=1"
    assert pg.evaluate("document.activeElement.closest('#conflict-list') !== null")
    assert f"of {waiting} · page 1 of 2" in pg.locator("#conflicts-shown").inner_text()
    pg.locator('#conflicts-paging a[rel="next"]').click()
    pg.wait_for_url(f"{url}?stage=title_abstract&status=unresolved&page=2")
    records = pg.locator("#conflict-list article").evaluate_all(
        "cards => cards.map(c => c.dataset.record)"
    )
    assert records == [k for k in conflicting if k != conflicting[far - 1]][CONFLICTS_PAGE:]
    _shoot(pg, shots, "scr-web-conflicts-page2.png")
    for width in (1280, 420):
        pg.set_viewport_size({"width": width, "height": 900})
        pg.goto(url)
        overflow = pg.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, (width, overflow)
        found = _violations(pg, axe_path)
        assert found == [], (width, found)
    assert errors == []
    context.close()
