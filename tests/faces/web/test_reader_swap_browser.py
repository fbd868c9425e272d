"""The reader updates in place: a highlight, a comment edit and an evidence record change their
lists and counts without loading the page again (the page's own marker survives), and #live
says what changed."""

from __future__ import annotations

from typing import Any

import pytest
from tests._shots import shoot
from tests.faces.web._server import Running
from tests.faces.web.test_browser import SELECT_IN_ABSTRACT

from litdesk.adapters.store import open_store
from litdesk.core.records import make_paper
from litdesk.services.workspace import Workspace

pytestmark = pytest.mark.slow

ABSTRACT = (
    "Mice given the drug grew faster than controls. Growth was measured weekly with calipers."
)


def test_reader_lists_and_counts_follow_saves_in_place(
    browser: Any, running: Running, tmp_settings: Any
) -> None:
    store = open_store(tmp_settings)
    try:
        paper = (
            Workspace(store)
            .save_paper(make_paper(pmid="41000077", title="Drug and growth", abstract=ABSTRACT))
            .paper
        )
    finally:
        store.dispose()
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    errors: list[str] = []
    pg.on("console", lambda m: m.type == "error" and errors.append(m.text))
    pg.goto(f"{running.base}/paper/{paper.id}")
    pg.locator("html[data-ready]").wait_for(state="attached")
    pg.evaluate("() => { window.__stay = 1; }")  # gone if the page loads again
    assert pg.locator("#evidence-count").inner_text() == "0"

    # a highlight: the abstract gets its mark, the notes list its entry, no reload
    assert pg.evaluate(SELECT_IN_ABSTRACT, "grew faster")
    pg.locator("#hl-where").filter(has_text="Selected characters").wait_for()
    pg.locator("#hl-comment").fill("the main effect")
    pg.locator("#highlight-form button[type=submit]").click()
    pg.locator("#abstract mark", has_text="grew faster").wait_for()
    pg.locator("#notes li", has_text="the main effect").wait_for()
    pg.locator("#live", has_text="Highlight added.").wait_for(state="attached")
    assert pg.locator("#hl-text").input_value() == ""  # the form is ready for the next one

    # an evidence record: its card and the count beside "Evidence", no reload
    pg.locator("#evidence summary", has_text="Record evidence").click()
    pg.locator("#ev-finding").fill("Growth is faster with the drug")
    pg.locator("#ev-passage").fill("grew faster than controls")
    pg.locator("#evidence-form button[type=submit]").click()
    pg.locator("#evidence-count", has_text="1").wait_for()
    card = pg.locator("#evidence-list .card").first
    assert "Growth is faster with the drug" in card.inner_text()
    assert "check: ok" in card.inner_text()
    pg.locator("#live", has_text="Evidence recorded.").wait_for(state="attached")

    # a comment edited in the notes list: swapped in place as well
    pg.locator("#notes details.edit summary").first.click()
    pg.locator("#notes textarea[name=comment]").first.fill("the main effect, weekly")
    pg.locator("#notes details.edit button[type=submit]").first.click()
    pg.locator("#notes li", has_text="the main effect, weekly").wait_for()

    assert pg.evaluate("() => window.__stay") == 1  # never reloaded
    assert errors == []
    shoot(pg, "reader-swapped.png", full_page=True)
    context.close()
