"""The upload's source fields and the Study page's "Counted as" form in a real browser
(Debian chromium, issue 28): files dropped with a source name and kind are counted under
it, the fields clear for the next files, a file left unnamed is counted under the database
it names, and the Change form moves an import to another source — no script error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._server import Running

pytestmark = pytest.mark.fixtures

RIS = "bib/ris/"


def test_sources_named_in_the_browser(browser: Any, running: Running, fixtures_dir: Path) -> None:
    context = browser.new_context(viewport={"width": 420, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    errors: list[str] = []
    pg.on("console", lambda m: m.type == "error" and errors.append(m.text))
    pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        pg.goto(running.base + "/studies")
        pg.locator("#s-name").fill("Knee sources")
        pg.locator("form.create button").click()
        pg.locator("main h1").filter(has_text="Knee sources").wait_for()
        pg.locator("html[data-ready]").wait_for(state="attached")

        def upload(name: str) -> str:
            pg.locator("#import-report").evaluate("e => e.replaceChildren()")
            pg.locator("#import-files").set_input_files(str(fixtures_dir / RIS / name))
            pg.locator("#import-report .notice.ok").first.wait_for()
            return pg.locator("#import-report").inner_text()

        pg.locator("#import-source-name").fill("Citation searching")
        pg.locator("#import-source-kind").select_option("other")
        said = upload("rispy__example_full.ris")
        assert "counted as Citation searching (other)" in said
        assert pg.locator("#import-source-name").input_value() == ""  # cleared for the next
        assert "counted as Embase (database)" in upload("asreview__embase.ris")
        rows = pg.locator("#imports-list tbody tr")
        rows.filter(has_text="Citation searching").wait_for()
        embase = rows.filter(has_text="asreview__embase.ris")
        embase.locator("summary").click()
        embase.locator("input[name=name]").fill("Embase (Ovid)")
        embase.locator("button[type=submit]").filter(has_text="Save").click()
        pg.wait_for_url("**#imports")
        assert "Embase (Ovid)" in pg.locator("#imports-list").inner_text()
        pg.goto(pg.url.split("#")[0] + "/prisma")
        text = pg.locator("main").inner_text()
        assert "Embase (Ovid)" in text and "Citation searching" in text
        assert errors == []
    finally:
        context.close()
