"""The search page's concept-group builder in Debian's chromium against a real server:
build, per-provider refusals shown, "Use this query" fills the query box (no search);
terms carrying markup stay text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._server import Running

pytestmark = pytest.mark.slow


@pytest.fixture
def page(browser: Any, running: Running, tmp_path: Path):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))  # type: ignore[attr-defined]
    yield pg
    context.close()


def _open_builder(pg: Any, running: Running) -> None:
    pg.goto(running.base + "/search")
    pg.wait_for_selector("html[data-ready='1']")
    pg.click("#strategy > summary")


def test_build_then_use_fills_the_query_box(page: Any, running: Running) -> None:
    pg = page
    _open_builder(pg, running)
    groups = pg.locator("#strategy-form fieldset.concept")
    groups.nth(0).locator("textarea").fill("malaria\nPlasmodium infection\nMALARIA")
    groups.nth(1).locator("textarea").fill('vaccine\n<img src=x onerror="window.__pwned=1">')
    pg.click("#strategy-form button[type=submit]")
    built = pg.locator("#strategy-out pre.built-query")
    built.wait_for()
    query = '("malaria" OR "Plasmodium infection") AND ("vaccine" OR "<img src=x onerror=\\"window.__pwned=1\\">")'
    assert built.text_content() == query
    out = pg.locator("#strategy-out")
    assert "duplicate term removed: MALARIA" in out.text_content()
    assert "crossref: refused — Crossref has no Boolean search" in out.text_content()
    assert pg.locator("#strategy-out li").count() == 6
    assert pg.locator("#strategy-out img").count() == 0
    assert pg.evaluate("() => window.__pwned === undefined")
    pg.click("#strategy-use")
    assert pg.input_value("#q") == query
    assert pg.url.endswith("/search")  # filling searches nothing
    assert pg.is_checked('#search-form input[name="mode"][value="keyword"]')
    # an edit makes the built query stale: it disappears
    groups.nth(1).locator("textarea").fill("vaccine")
    assert pg.locator("#strategy-use").count() == 0
    assert pg.console_errors == []


def test_refusal_is_shown(page: Any, running: Running) -> None:
    pg = page
    _open_builder(pg, running)
    pg.locator("#strategy-form fieldset.concept").nth(0).locator("textarea").fill(
        "\n".join(f"term {i}" for i in range(9))
    )
    pg.click("#strategy-form button[type=submit]")
    pg.wait_for_selector("#strategy-out .notice.error")
    assert "group 1 has 9 terms (at most 8)" in pg.text_content("#strategy-out")
    for _ in range(4):
        pg.click("#strategy-add")
    assert pg.locator("#strategy-form fieldset.concept:not([hidden])").count() == 6
    assert pg.is_disabled("#strategy-add")
