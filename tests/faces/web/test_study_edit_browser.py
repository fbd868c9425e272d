"""One Playwright pass (Debian chromium) through work in a Study (issue 27): from the Study's
page into the reader, a highlight made by selecting text lands in the Study, is deleted from
the reader, restored with Undo on the trash page; the Study's delete asks first. Screenshots
of every page touched under the test's tmp dir."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._server import Running
from tests.faces.web.test_browser import SELECT_IN_ABSTRACT, _shot, page

from litdesk.adapters.store import open_store
from litdesk.core.records import make_paper
from litdesk.services.workspace import Workspace

__all__ = ["page"]

pytestmark = pytest.mark.slow

ABSTRACT = "Aspirin lowered the risk of stroke in older adults over five years of follow-up."


def test_highlight_in_a_study_deleted_and_restored(
    page: Any, running: Running, tmp_path: Path, tmp_settings: Any
) -> None:
    store = open_store(tmp_settings)
    try:
        ws = Workspace(store)
        study = ws.create_study("Aspirin review")
        paper = ws.save_paper(make_paper(pmid="41000077", title="Aspirin trial", abstract=ABSTRACT))
        ws.add_to_study(study.id, paper.paper.id)
    finally:
        store.dispose()
    pg = page
    pg.goto(f"{running.base}/study/{study.id}")
    pg.locator("html[data-ready]").wait_for(state="attached")
    assert pg.locator("#count-notes").inner_text() == "0"
    _shot(pg, tmp_path, "study")
    pg.get_by_role("link", name="Aspirin trial").click()
    pg.locator("html[data-ready]").wait_for(state="attached")
    assert "the Study “Aspirin review”" in pg.locator("#ctx-name").inner_text()
    assert pg.evaluate(SELECT_IN_ABSTRACT, "risk of stroke")
    pg.locator("#hl-where").filter(has_text="Selected characters").wait_for()
    pg.locator("#highlight-form button[type=submit]").click()
    pg.locator("#abstract mark").wait_for()
    pg.locator("html[data-ready]").wait_for(state="attached")
    assert f"study={study.id}" in pg.url
    assert "in Aspirin review" in pg.locator("#notes").inner_text()
    _shot(pg, tmp_path, "reader-in-study")
    pg.goto(f"{running.base}/study/{study.id}")
    assert pg.locator("#count-notes").inner_text() == "1"

    pg.goto(f"{running.base}/paper/{paper.paper.id}?study={study.id}")
    pg.locator("#notes .note-delete").click()
    pg.locator("#undo").wait_for()
    assert "Highlight on Aspirin trial" in pg.locator("#undo").inner_text()
    _shot(pg, tmp_path, "trash-after-delete")
    pg.goto(f"{running.base}/study/{study.id}")
    assert pg.locator("#count-notes").inner_text() == "0"
    pg.goto(f"{running.base}/study/{study.id}/trash")
    pg.locator("html[data-ready]").wait_for(state="attached")
    assert pg.locator("#trash-count").inner_text() == "1 item in the trash"
    pg.evaluate("() => { window.notReloaded = true; }")  # gone if the page were loaded again
    pg.get_by_role("button", name="Restore Highlight on Aspirin trial: “risk of stroke”").click()
    # the trash stays: the restored item leaves the list in place and the page says what came back
    pg.locator("#trash-notice .notice.ok").filter(
        has_text="Restored Highlight on Aspirin trial"
    ).wait_for()
    assert f"/study/{study.id}/trash?restored=" in pg.url
    assert pg.locator("#trash-items").inner_text().strip() == "The trash is empty."
    assert pg.locator("#trash-count").inner_text() == ""  # said once, by the list
    assert pg.evaluate("() => window.notReloaded === true")  # swapped in place (swap.js)
    pg.locator("#live").filter(has_text="Restored Highlight on Aspirin trial").wait_for(
        state="attached"
    )
    pg.locator("#trash-notice a", has_text="Open the Study").click()
    pg.locator("html[data-ready]").wait_for(state="attached")
    assert pg.locator("#count-notes").inner_text() == "1"

    pg.goto(f"{running.base}/study/{study.id}/history")
    history = pg.locator("main").inner_text()
    assert "Deleted a highlight" in history and "Restored a highlight" in history
    _shot(pg, tmp_path, "history")
    pg.goto(f"{running.base}/study/{study.id}")
    pg.get_by_role("link", name="Delete this Study…").click()
    assert "Delete the Study “Aspirin review”?" in pg.locator("#confirm-question").inner_text()
    _shot(pg, tmp_path, "confirm-delete")
    pg.get_by_role("link", name="Cancel").click()
    assert pg.url.endswith(f"/study/{study.id}")
    assert pg.console_errors == []
