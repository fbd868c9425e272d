"""axe-core (from the npm registry, `make node`) in Debian's chromium: the checks the page
tests run (``_violations``, ``_page_checks``) find planted violations and leave the page as it
was. That every page has no serious or critical violation (WCAG 2 A/AA rules), light and
dark, at 1280 and 420 px, is ``test_every_page_browser``'s check (among its pages: a filtered
saved list, a paper with a highlight and its comment, the notebook showing it)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._page_checks import COLOUR_RULES, view_checks, with_axe
from tests.faces.web._server import Running

pytestmark = pytest.mark.slow

AXE = Path(__file__).resolve().parents[3] / "node_modules" / "axe-core" / "axe.min.js"
#: whether the page is in the dark scheme now (the media rule its dark colours are under)
_DARK_JS = "() => matchMedia('(prefers-color-scheme: dark)').matches"


@pytest.fixture(scope="module")
def axe_path() -> Path:
    if not AXE.is_file():
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail("axe-core is not installed (make node)")
        pytest.skip("axe-core is not installed (make node)")
    return AXE


#: axe's run: the WCAG 2 A/AA rules, or those of them named; violations in full, the other
#: result types by rule only (``resultTypes``), and only what the test reads sent back over
#: the protocol (the whole result, every passing node's HTML included, cost the test ~0.15 s
#: of CPU a page)
_AXE_RUN_JS = (
    "async (rules) => { const r = await axe.run(document,"
    " {runOnly: rules ? {type: 'rule', values: rules}"
    " : {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa']},"
    " resultTypes: ['violations']});"
    " return {passes: r.passes.length,"
    " ran: [...r.passes, ...r.inapplicable, ...r.incomplete, ...r.violations].map(x => x.id),"
    " violations: r.violations.map(v =>"
    " ({id: v.id, impact: v.impact, target: v.nodes[0].target}))}; }"
)


def _violations(pg: Any, axe: Path, rules: tuple[str, ...] | None = None) -> list[str]:
    """axe's serious and critical violations on the page (of the rules named, else of every
    WCAG 2 A/AA rule); axe is added to the page unless its context loads it already
    (``tests.faces.web._page_checks.with_axe``)."""
    if not pg.evaluate("() => typeof window.axe !== 'undefined'"):
        pg.add_script_tag(path=str(axe))
    result = pg.evaluate(_AXE_RUN_JS, list(rules) if rules is not None else None)
    if rules is None:
        assert result["passes"] > 10  # axe really ran its rules on this page
    else:  # axe really ran each of the rules named, and only those
        assert set(result["ran"]) == set(rules), result["ran"]
    return [
        f"{v['id']} ({v['impact']}): {v['target']}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def test_axe_finds_a_planted_violation(browser: Any, running: Running, axe_path: Path) -> None:
    context = browser.new_context(bypass_csp=True)
    pg = context.new_page()
    pg.goto(running.base + "/studies")
    pg.evaluate(
        "() => { document.querySelector('#s-name').removeAttribute('id'); }"
    )  # label loses its input
    found = _violations(pg, axe_path)
    context.close()
    assert any(v.startswith("label") for v in found), found


#: a list of 40 items (past the 20th: trimmed for axe's run) in a scroller of 200 px,
#: scrolled to its end (where the trimmed list would leave it no room to scroll)
_PLANT_LIST_JS = """
() => {
  const box = document.createElement('div');
  box.id = 'planted';
  box.style.cssText = 'height: 200px; overflow: auto';
  const list = document.createElement('ul');
  for (let i = 0; i < 40; i++) {
    const li = document.createElement('li');
    li.textContent = 'item ' + i;
    list.append(li, document.createTextNode(i % 2 ? ' ' : ''));
  }
  box.append(list);
  document.querySelector('main').prepend(box);
  box.scrollTop = box.scrollHeight;
  return box.scrollTop;
}
"""


def test_axe_in_the_context_and_view_checks_find_planted_violations(
    browser: Any, running: Running, axe_path: Path
) -> None:
    """axe loaded as the context's init script (``with_axe``: the page tests' way, the page's
    CSP in force) is the one the checks run, and it finds what it should. The every-page
    test's one call a view (``view_checks``): the view asserted, axe's rules run on the page
    (a planted violation found, every rule or the colour ones), and the rows of long lists it
    trims for axe put back in their places, scroll offsets kept: the page (its whole HTML) is
    as it was before the call, for the next view's checks. Then ``_violations`` and
    ``axe_violations`` (which trims for good) find the same on the same page."""
    from tests.faces.web._page_checks import axe_violations

    context = with_axe(browser.new_context(viewport={"width": 1000, "height": 900}), axe_path)
    pg = context.new_page()
    pg.goto(running.base + "/studies")
    assert pg.evaluate("() => typeof window.axe.run") == "function"  # before any check
    # the page's own scripts are done with it: the header's counts are read and shown
    pg.wait_for_function(
        "() => document.querySelectorAll('.top nav .nav-count:not([hidden])').length === 2",
        polling=100,
    )
    top = pg.evaluate(_PLANT_LIST_JS)
    assert top > 300  # scrolled past what 20 items leave
    pg.evaluate("() => { document.querySelector('#s-name').removeAttribute('id'); }")
    before = pg.evaluate("() => document.documentElement.outerHTML")
    found = view_checks(pg, (False, 1000), True)
    assert any(v.startswith("axe label") for v in found), found
    assert pg.evaluate("() => document.documentElement.outerHTML") == before
    assert pg.evaluate("() => document.querySelector('#planted').scrollTop") == top
    assert pg.evaluate("() => document.querySelectorAll('#planted li').length") == 40
    assert view_checks(pg, (False, 1000), False) == []  # the layout checks alone: no axe
    # the page tests' other two ways to run axe, on the same page
    labels = _violations(pg, axe_path)
    every_page = axe_violations(pg, axe_path)
    assert any(v.startswith("label") for v in labels), labels
    assert any(v.startswith("axe label") for v in every_page), every_page
    # the colour rules alone (the dark views' run) find a colour planted too low in contrast
    pg.evaluate(
        "() => { const h = document.querySelector('h1').style;"
        " h.color = '#c8c8c8'; h.background = '#fff'; }"
    )
    colours = _violations(pg, axe_path, COLOUR_RULES) + axe_violations(pg, axe_path, COLOUR_RULES)
    assert [v.split(" ", 1)[0] for v in colours] == ["color-contrast", "axe"], colours
    assert colours[1].startswith("axe color-contrast"), colours
    pg.emulate_media(color_scheme="dark")
    colours = view_checks(pg, (True, 1000), True, COLOUR_RULES)
    assert [v.split(" ", 2)[1] for v in colours] == ["color-contrast"], colours
    with pytest.raises(AssertionError, match="not"):  # the view is asserted
        view_checks(pg, (False, 1000), False)
    context.close()
