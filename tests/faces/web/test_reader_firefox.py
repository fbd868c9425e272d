"""The reader's text selection in Debian's firefox-esr (WebDriver BiDi, no driver): a real
double-click selects a word of the abstract; the page fills the passage and its offset, the
server verifies them and the highlight is marked."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from tests.adapters.report_html._bidi import firefox
from tests.faces.web._server import Running

from litdesk.adapters.store import open_store
from litdesk.core.records import make_paper
from litdesk.services.workspace import Workspace

pytestmark = pytest.mark.slow

ABSTRACT = (
    "Mice were observed for twelve weeks; the treated group showed slower tumour growth overall."
)

WORD_BOX = """(() => {
  const el = document.getElementById('abstract');
  const node = el.firstChild;
  const at = node.data.indexOf('slower');
  const r = document.createRange();
  r.setStart(node, at); r.setEnd(node, at + 6);
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


def test_firefox_selection_makes_a_verified_highlight(
    running: Running, firefox_path: str, tmp_path: Path, tmp_settings: Any
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
    with firefox(firefox_path, tmp_path / "profile") as ff:
        ctx = ff.command("browsingContext.getTree")["contexts"][0]["context"]
        ff.command(
            "browsingContext.setViewport", context=ctx, viewport={"width": 1000, "height": 800}
        )
        ff.command(
            "browsingContext.navigate",
            context=ctx,
            url=f"{running.base}/paper/{paper.id}",
            wait="complete",
        )
        _wait(ff, ctx, "document.documentElement.dataset.ready === '1'")
        box = ff.evaluate(ctx, WORD_BOX)
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
        _wait(ff, ctx, "document.getElementById('hl-start').value !== ''")
        state = ff.evaluate(
            ctx,
            "({text: document.getElementById('hl-text').value, start: document.getElementById('hl-start').value})",
        )
        assert state["text"].strip() == "slower"
        assert int(state["start"]) == ABSTRACT.index(state["text"])
        ff.evaluate(ctx, "document.getElementById('highlight-form').requestSubmit() || true")
        mark = _wait(
            ff,
            ctx,
            "document.querySelector('#abstract mark') && document.querySelector('#abstract mark').textContent",
        )
        assert mark == state["text"]
