"""The reader's full text in Debian's chromium against a real server on loopback (replay
cassette written here): loading it on request, the licence and source, markup and
javascript: links of the JATS inert and shown as text, a highlight made by selecting text
in a paragraph and one made without selecting (find occurrences, choose one), the section
filter, evidence from a selected paragraph passage and the service's message for a bad
one, the refusal for another licence, the truncation notice; axe-core finds no serious
violation; screenshots under the test's tmp dir."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._fulltext import P1, P2_SHOWN, P3, ReaderServer, reader_server
from tests.faces.web._hosting import Hosting
from tests.faces.web.test_accessibility import AXE, _violations

from litdesk.core.evidence import text_digest

pytestmark = pytest.mark.slow

#: where screenshots for the record go (none taken without it; nothing reads them)
SHOTS = os.environ.get("SHOTS_DIR", "")

SELECT_IN = """([id, needle]) => {
  const el = document.getElementById(id);
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
def srv(tmp_settings: Any, tmp_path: Path, hosting: Hosting) -> Iterator[ReaderServer]:
    with reader_server(tmp_settings, tmp_path, hosting) as server:
        yield server


@pytest.fixture
def page(browser: Any, srv: ReaderServer) -> Iterator[Any]:
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


def _ready(pg: Any) -> None:
    pg.locator("html[data-ready]").wait_for(state="attached")


def _inert(pg: Any) -> None:
    assert pg.dialogs == []
    assert pg.evaluate("() => window.__pwned === undefined")
    assert pg.locator("main script, main img, main iframe").count() == 0
    assert pg.locator("main a[href^='javascript']").count() == 0


def test_fulltext_highlights_and_evidence(page: Any, srv: ReaderServer, tmp_path: Path) -> None:
    pg = page
    pid = srv.papers["ccby"].id
    pg.goto(f"{srv.running.base}/paper/{pid}")
    _ready(pg)
    assert srv.replay.urls == []  # the reader of a saved paper asked no provider
    pg.locator("#ft-load").click()
    pg.locator("#ft-p1").wait_for()
    _ready(pg)
    assert len(srv.replay.urls) == 1 and srv.replay.urls[0].endswith("/fullTextXML")
    licence = pg.locator("#ft-licence")
    assert "Licence:" in licence.inner_text()
    assert (
        licence.locator("a", has_text="licence text").get_attribute("href")
        == "https://creativecommons.org/licenses/by/4.0/"
    )
    assert pg.locator("#ft-source").get_attribute("href") == (
        "https://europepmc.org/articles/PMC7000001"
    )
    # the JATS's escaped markup is text; its <script> element and javascript: link are gone
    assert pg.locator("#ft-p2").inner_text() == P2_SHOWN
    _inert(pg)
    _shot(pg, tmp_path, "reader-fulltext")

    # select text in a paragraph: block id, offsets and the shown snapshot are sent
    assert pg.evaluate(SELECT_IN, ["ft-p3", "twice a week"])
    pg.locator("#hl-where").filter(has_text="full-text paragraph p3").wait_for()
    assert pg.locator("#hl-block").input_value() == "p3"
    assert pg.locator("#hl-start").input_value() == str(P3.index("twice a week"))
    assert pg.locator("#hl-snapshot").input_value() == text_digest(P3)
    pg.locator("#hl-comment").fill("<b>weighed</b>")
    pg.locator("#highlight-form button[type=submit]").click()
    pg.locator("#ft-p3 mark").wait_for()
    _ready(pg)
    assert "fulltext=1" in pg.url
    assert pg.locator("#ft-p3 mark").inner_text() == "twice a week"
    assert "paragraph p3" in pg.locator("#notes").inner_text()
    assert "<b>weighed</b>" in pg.locator("#notes").inner_text()

    # highlight without selecting: find the occurrences in the full text, choose the second
    pg.locator("#hl-text").fill("growth")
    assert pg.locator("#hl-scope").input_value() == "fulltext"
    pg.locator("#hl-find").click()
    found = pg.locator("#hl-found button")
    found.first.wait_for()
    assert found.count() == 3
    assert found.nth(1).inner_text().startswith("p1: ")
    found.nth(1).click()
    pg.locator("#hl-where").filter(has_text="Occurrence 2 in paragraph p1 chosen").wait_for()
    pg.locator("#highlight-form button[type=submit]").click()
    pg.locator("#ft-p1 mark").wait_for()
    _ready(pg)
    marked_at = pg.evaluate(
        """() => { const p = document.getElementById('ft-p1'); const m = p.querySelector('mark');
        const r = document.createRange(); r.setStart(p, 0); r.setEndBefore(m);
        return r.toString().length; }"""
    )
    assert marked_at == P1.rindex("growth")

    # evidence from a selected paragraph passage
    pg.locator("#evidence summary", has_text="Record evidence").click()
    assert pg.evaluate(SELECT_IN, ["ft-p3", "measured with calipers"])
    pg.locator("#hl-where").filter(has_text="paragraph p3").wait_for()
    pg.locator("#ev-finding").fill("<i>Calipers</i> measure growth")
    pg.locator("#ev-use-selection").click()
    assert pg.locator("#ev-passage").input_value() == "measured with calipers"
    assert pg.locator("#ev-src-fulltext").is_checked()
    assert pg.locator("#ev-block").input_value() == "p3"
    pg.locator("#evidence-form button[type=submit]").click()
    card = pg.locator("#evidence .card").first
    card.wait_for()
    _ready(pg)
    assert "PMC7000001 paragraph p3" in card.inner_text()
    assert "check: ok" in card.inner_text()
    assert "<i>Calipers</i> measure growth" in card.inner_text()
    # the service's validation message is shown beside the form
    pg.locator("#evidence summary", has_text="Record evidence").click()
    pg.locator("#ev-finding").fill("A finding")
    pg.locator("#ev-passage").fill("seen on a poster")
    pg.locator("#ev-src-external").check()
    pg.locator("#evidence-form button[type=submit]").click()
    message = pg.locator("#ev-message")
    message.wait_for(state="visible")
    assert "location" in message.inner_text()
    pg.locator("#ev-src-fulltext").check()
    pg.locator("#ev-block").fill("p1")
    pg.locator("#evidence-form button[type=submit]").click()
    message.filter(has_text="passage").wait_for()
    assert pg.locator("#evidence .card").count() == 1  # nothing recorded by the refusals
    _shot(pg, tmp_path, "reader-fulltext-evidence")
    # "Record passage" beside a paragraph: the whole paragraph, checked against it
    pg.locator("#evidence-form").evaluate("f => f.closest('details').open = false")
    pg.locator(".ft-block-wrap", has=pg.locator("#ft-p3")).locator("button.ft-record").click()
    assert pg.locator("#evidence-form").is_visible()  # the form opened
    assert pg.locator("#ev-passage").input_value() == pg.locator("#ft-p3").text_content()
    assert pg.locator("#ev-block").input_value() == "p3"
    assert pg.locator("#ev-src-fulltext").is_checked()
    assert pg.locator("#ev-message").is_hidden()
    pg.locator("#ev-finding").fill("The whole paragraph")
    pg.locator("#evidence-form button[type=submit]").click()
    pg.locator("#evidence .card").nth(1).wait_for()
    _ready(pg)
    assert "The whole paragraph" in pg.locator("#evidence-list").inner_text()
    assert (
        pg.locator("#evidence .card", has_text="The whole paragraph")
        .filter(has_text="check: ok")
        .count()
        == 1
    )

    # the section filter
    pg.locator("#ft-section").select_option("Methods")
    pg.locator("#ft-filter button").click()
    pg.locator("#ft-shown").wait_for()
    _ready(pg)
    assert pg.locator(".ft-block").count() == 1
    assert pg.locator("#ft-p3").is_visible()
    assert len([u for u in srv.replay.urls if u.endswith("/fullTextXML")]) == 1  # cached
    _inert(pg)
    # the only console lines: chromium's notes on the two refused evidence posts
    assert len(pg.console_errors) == 2, pg.console_errors
    assert all("Failed to load resource" in e for e in pg.console_errors)


def test_refusal_truncation_and_accessibility(
    page: Any, browser: Any, srv: ReaderServer, tmp_path: Path
) -> None:
    pg = page
    pg.goto(f"{srv.running.base}/paper/{srv.papers['nc'].id}?fulltext=1")
    _ready(pg)
    refusal = pg.locator("#ft-refusal")
    assert "is not CC BY, CC BY-SA, CC0 or public domain" in refusal.inner_text()
    assert pg.locator("#ft-source").get_attribute("href") == (
        "https://europepmc.org/articles/PMC7000002"
    )
    assert pg.locator(".ft-block").count() == 0
    _shot(pg, tmp_path, "reader-fulltext-refused")
    pg.goto(f"{srv.running.base}/paper/{srv.papers['long'].id}?fulltext=1")
    _ready(pg)
    assert pg.locator("#ft-truncated").is_visible()
    assert pg.locator(".ft-block").count() == 600
    _shot(pg, tmp_path, "reader-fulltext-truncated")
    assert pg.console_errors == []
    if not AXE.is_file():
        pytest.skip("axe-core is not installed (make node)")
    # bypass_csp only lets the test inject axe; the pages' own CSP is tested elsewhere
    context = browser.new_context(bypass_csp=True)
    pg = context.new_page()
    for path in (
        f"/paper/{srv.papers['ccby'].id}?fulltext=1",
        f"/paper/{srv.papers['nc'].id}?fulltext=1",
        f"/paper/{srv.papers['nopmc'].id}?fulltext=1",
    ):
        pg.goto(srv.running.base + path)
        _ready(pg)
        # axe added to the page, its WCAG 2 A/AA rules run (asserted to have passed > 10),
        # only what is read sent back (the whole result, every passing node's HTML in it,
        # went over the protocol before)
        serious = _violations(pg, AXE)
        assert serious == [], (path, serious)
    context.close()
