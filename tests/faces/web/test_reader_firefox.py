"""The reader's text selection in Debian's firefox-esr (WebDriver BiDi, no driver): a real
double-click selects a word of the abstract, or of a full-text paragraph; the page fills the
passage, its offset (and the paragraph with its shown snapshot), the server verifies them
and the highlight is marked."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from tests.adapters.report_html._bidi import Firefox, shared_firefox
from tests.faces.web._fulltext import P3, reader_server
from tests.faces.web._hosting import Hosting
from tests.faces.web._server import Running

from litdesk.adapters.store import open_store
from litdesk.core.evidence import text_digest
from litdesk.core.records import make_paper
from litdesk.services.workspace import Workspace

pytestmark = pytest.mark.slow
__all__ = ["shared_firefox"]  # the fixture: one firefox-esr for the file, a tab per test

ABSTRACT = (
    "Mice were observed for twelve weeks; the treated group showed slower tumour growth overall."
)

WORD_BOX = """(() => {
  const el = document.getElementById('%s');
  const node = el.firstChild;
  const at = node.data.indexOf('%s');
  const r = document.createRange();
  r.setStart(node, at); r.setEnd(node, at + %d);
  el.scrollIntoView({block: 'center'});
  const b = r.getBoundingClientRect();
  return {x: b.x + b.width / 2, y: b.y + b.height / 2};
})()"""


def _wait(ff: Any, ctx: str, expression: str, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = ff.evaluate(ctx, expression)
        except Exception:  # noqa: BLE001 - the page may be navigating
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        time.sleep(0.2)


def _double_click_word(ff: Any, ctx: str, element: str, word: str) -> None:
    box = ff.evaluate(ctx, WORD_BOX % (element, word, len(word)))
    x, y = round(box["x"]), round(box["y"])
    click = [{"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]
    ff.command(
        "input.performActions",
        context=ctx,
        actions=[
            {
                "type": "pointer",
                "id": "mouse",
                "parameters": {"pointerType": "mouse"},
                "actions": [{"type": "pointerMove", "x": x, "y": y}, *click, *click],
            }
        ],
    )


def _open(ff: Firefox, ctx: str, url: str) -> None:
    ff.command("browsingContext.navigate", context=ctx, url=url, wait="complete")
    _wait(ff, ctx, "document.documentElement.dataset.ready === '1'")


_FORM_STATE = """({text: document.getElementById('hl-text').value,
  start: document.getElementById('hl-start').value,
  block: document.getElementById('hl-block').value,
  snapshot: document.getElementById('hl-snapshot').value})"""


def test_firefox_selection_makes_a_verified_highlight(
    running: Running, shared_firefox: Firefox, tmp_settings: Any
) -> None:
    store = open_store(tmp_settings)
    try:
        paper = (
            Workspace(store)
            .save_paper(make_paper(pmid="42000001", title="Mice", abstract=ABSTRACT))
            .paper
        )
    finally:
        store.dispose()
    ff = shared_firefox
    with ff.tab((1000, 800)) as ctx:
        _open(ff, ctx, f"{running.base}/paper/{paper.id}")
        _double_click_word(ff, ctx, "abstract", "slower")
        _wait(ff, ctx, "document.getElementById('hl-start').value !== ''")
        state = ff.evaluate(ctx, _FORM_STATE)
        assert state["text"].strip() == "slower"
        assert int(state["start"]) == ABSTRACT.index(state["text"])
        assert state["block"] == "" and state["snapshot"] == ""
        ff.evaluate(ctx, "document.getElementById('highlight-form').requestSubmit() || true")
        mark = _wait(
            ff,
            ctx,
            "document.querySelector('#abstract mark') && document.querySelector('#abstract mark').textContent",
        )
        assert mark == state["text"]


def test_firefox_selection_in_a_fulltext_paragraph(
    shared_firefox: Firefox, tmp_path: Path, tmp_settings: Any, hosting: Hosting
) -> None:
    ff = shared_firefox
    with reader_server(tmp_settings, tmp_path, hosting) as srv, ff.tab((1000, 800)) as ctx:
        _open(ff, ctx, f"{srv.running.base}/paper/{srv.papers['ccby'].id}?fulltext=1")
        _double_click_word(ff, ctx, "ft-p3", "calipers")
        _wait(ff, ctx, "document.getElementById('hl-block').value !== ''")
        state = ff.evaluate(ctx, _FORM_STATE)
        assert state["text"].strip() == "calipers"
        assert state["block"] == "p3"
        assert state["snapshot"] == text_digest(P3)
        assert int(state["start"]) == P3.index(state["text"])
        ff.evaluate(ctx, "document.getElementById('highlight-form').requestSubmit() || true")
        mark = _wait(
            ff,
            ctx,
            "document.querySelector('#ft-p3 mark') && document.querySelector('#ft-p3 mark').textContent",
        )
        assert mark == state["text"]
        assert ff.evaluate(ctx, "location.search") == "?fulltext=1"
