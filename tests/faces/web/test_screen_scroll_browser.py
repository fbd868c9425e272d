"""The screening page's record stays in view under the sticky progress bar (issue 28).

After a decision the page shows the next record from its title: it was scrolled to the top
of the window, under the progress bar that stays there (``position: sticky``), so the title
of every next record was hidden behind the bar (77 px of bar over a 60 px title at 1280 px;
136 px over a 72 px title at 420 px) and the decision panel's heading under it too. Checked
with records long enough to scroll, at a desktop and a phone width."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.faces.web._server import Running

pytestmark = pytest.mark.slow

_WORDS = (
    "Participants were randomised to a structured programme or usual care and followed for "
    "twelve months; the primary outcome was measured by blinded assessors at each visit. "
)


def _ris() -> bytes:
    out = []
    for i in range(1, 5):
        out.append(
            f"TY  - JOUR\nTI  - Record {i}: a randomised trial of a long intervention in adults "
            f"with chronic disease, with a title that wraps\nAU  - Author{i}, A.\n"
            f"PY  - 2020\nDO  - 10.5555/w33.{i}\nAB  - {_WORDS * 30}\nER  -\n\n"
        )
    return "".join(out).encode()


def _study(c: httpx.Client) -> str:
    sid = str(c.post("/api/v1/studies", json={"name": "Long records"}).json()["id"])
    files = [("files", ("long.ris", _ris(), "application/x-research-info-systems"))]
    r = c.post("/api/v1/imports", params={"study": sid}, files=files)
    assert r.status_code == 200 and not r.json()["refused"], r.text
    r = c.post(f"/api/v1/studies/{sid}/screening/settings", json={"default_order": "original"})
    assert r.status_code == 200, r.text
    return sid


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    yield ctx
    ctx.close()


_GEOMETRY = """() => {
  const box = (id) => document.getElementById(id).getBoundingClientRect();
  const side = document.querySelector('#decide-form h2');
  return {bar: box('screen-status').bottom, title: box('record-title').top,
          side: side ? side.getBoundingClientRect().top : null, scrollY: window.scrollY};
}"""


_FLASH = """() => { const f = document.getElementById('screen-flash');
  const r = f.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + 4, (r.top + r.bottom) / 2);
  return {text: f.textContent, top: r.top, bottom: r.bottom, seen: !!hit && f.contains(hit)}; }"""


_LONGER_BAR = """() => { document.getElementById('model-line').textContent =
  'Model litdesk-svm-2 v15, 17 decisions, retraining '.repeat(3); }"""
_TITLE_BELOW_BAR = """() => document.getElementById('record-title').getBoundingClientRect().top >=
  document.getElementById('screen-status').getBoundingClientRect().bottom"""


@pytest.mark.parametrize("width", [1280, 420])
def test_the_next_record_title_is_below_the_sticky_bar(
    context: Any, running: Running, width: int
) -> None:
    with running.writer() as c:
        sid = _study(c)
    pg = context.new_page()
    pg.set_viewport_size({"width": width, "height": 900})
    pg.goto(f"{running.base}/study/{sid}/screen?stage=title_abstract")
    pg.locator("html[data-screen-ready]").wait_for(state="attached")
    for n, key in enumerate(("i", "e")):
        swaps = int(pg.locator("#screen").get_attribute("data-swaps") or 0)
        pg.keyboard.press(key)
        pg.locator(f"#screen[data-swaps='{swaps + 1}']").wait_for(state="attached")
        pg.locator("#record-title", has_text=f"Record {n + 2}:").wait_for()
        g = pg.evaluate(_GEOMETRY)
        assert g["scrollY"] > 0, g  # the page did scroll to the new record
        assert g["title"] >= g["bar"], (width, g)  # and its title is not under the bar
        if width == 1280:  # the decision panel (sticky beside the record) below it too
            assert g["side"] >= g["bar"], g
        # the decision just made ("Included: Record 1: …") is in sight, in the bar
        pg.wait_for_function("() => document.getElementById('screen-flash').textContent")
        f = pg.evaluate(_FLASH)
        assert f["text"].startswith(("Included: Record", "Excluded: Record")), f
        assert f["top"] >= 0 and f["seen"], (width, f)  # in the window, nothing over it
        # the counts and the model's line come when the decision is saved, and a longer line
        # wraps the bar onto more lines: the title stays below the bar as it grows
        pg.evaluate(_LONGER_BAR)
        pg.wait_for_function(_TITLE_BELOW_BAR, timeout=5_000)
