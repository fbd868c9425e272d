"""The checks run in a browser page by the page tests (every page, the quick-start walk):
no table cell narrower than its longest word, no horizontal page scroll outside
``.table-wrap``, axe-core clean (serious/critical, WCAG 2 A/AA). Each returns plain
strings a person can read (what, where), empty when the page passes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = [
    "AXE",
    "COLOUR_RULES",
    "REPEATS",
    "axe_violations",
    "layout_problems",
    "view_checks",
    "narrow_cells",
    "sideways_scroll",
    "with_axe",
]

AXE = Path(__file__).resolve().parents[3] / "node_modules" / "axe-core" / "axe.min.js"

#: for each visible td/th: each whitespace-separated word as the browser drew it (a Range
#: over it; a word broken over lines is the sum of its pieces) against the cell's content
#: width, allowing 1 px; the worst word of each cell is told. Words a canvas measures well
#: inside the cell (in their text's font, 24 px to spare) are not drawn out (fast on long
#: tables)
_NARROW_JS = """
() => {
  const out = [];
  const visible = (el) => el.getClientRects().length > 0 &&
    getComputedStyle(el).visibility !== 'hidden';
  const tables = Array.from(document.querySelectorAll('table'));
  const label = (cell) => {
    const row = cell.closest('tr');
    const table = cell.closest('table');
    const col = cell.dataset.label ||
      (cell.tagName === 'TH' ? 'header' : 'column ' + (cell.cellIndex + 1));
    const cls = table.className ? '.' + table.className.trim().split(/\\s+/).join('.') : '';
    return `table ${tables.indexOf(table) + 1}${cls} row ${row ? row.rowIndex : '?'} "${col}"`;
  };
  // text for screen readers only (a visually hidden thead or span: 1 px, clipped)
  const forReaders = (el) => {
    for (let e = el; e && e.tagName !== 'TABLE'; e = e.parentElement) {
      const r = e.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) return true;
    }
    return false;
  };
  const range = document.createRange();
  const ctx = document.createElement('canvas').getContext('2d');
  const fonts = new Map();
  const fontOf = (el) => {
    if (!fonts.has(el)) {
      const ps = getComputedStyle(el);
      fonts.set(el, {
        font: `${ps.fontStyle} ${ps.fontWeight} ${ps.fontSize} ${ps.fontFamily}`,
        upper: ps.textTransform === 'uppercase',
        spacing: parseFloat(ps.letterSpacing) || 0,
      });
    }
    return fonts.get(el);
  };
  for (const cell of document.querySelectorAll('td, th')) {
    const box = cell.getBoundingClientRect();
    if (!visible(cell) || forReaders(cell)) continue;
    const cs = getComputedStyle(cell);
    const avail = box.width
      - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight)
      - parseFloat(cs.borderLeftWidth) - parseFloat(cs.borderRightWidth);
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    let worst = null;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || !visible(parent) || forReaders(parent)) continue;
      const f = fontOf(parent);
      ctx.font = f.font;
      for (const m of node.nodeValue.matchAll(/\\S+/g)) {
        const guess = ctx.measureText(f.upper ? m[0].toUpperCase() : m[0]).width
          + f.spacing * m[0].length;
        if (guess * 1.15 + 24 < avail) continue;  // well inside: not drawn out
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const rects = Array.from(range.getClientRects()).filter(r => r.width > 0);
        const width = rects.reduce((sum, r) => sum + r.width, 0);
        const lines = new Set(rects.map(r => Math.round(r.top))).size;
        if (width > avail + 1 && (!worst || width - avail > worst.over)) {
          worst = {word: m[0], over: width - avail, width, lines};
        }
      }
    }
    if (worst) {
      out.push(`${label(cell)}: "${worst.word.slice(0, 50)}" needs ${Math.round(worst.width)} px,` +
        ` the cell has ${Math.round(avail)} px` + (worst.lines > 1 ? ` (broken over ${worst.lines} lines)` : ''));
    }
  }
  return out;
}
"""

#: the page may not scroll sideways: elements sticking out of the viewport, outside the
#: scrolling ``.table-wrap`` (and outside anything else that clips or scrolls)
_SIDEWAYS_JS = """
() => {
  const doc = document.documentElement;
  const width = doc.clientWidth;
  if (doc.scrollWidth <= width + 1) return [];
  const clipped = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (p.classList.contains('table-wrap')) return true;
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden' || o === 'clip') return true;
    }
    return false;
  };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (el.classList.length ? '.' + Array.from(el.classList).join('.') : '');
  const out = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.right > width + 1 && r.width > 0 && !clipped(el)) {
      const parent = el.parentElement;
      // the outermost element that sticks out (not each of its children)
      if (parent && parent !== document.body && parent.getBoundingClientRect().right > width + 1
          && !clipped(parent)) continue;
      out.push(`${name(el)} reaches ${Math.round(r.right)} px`);
    }
  }
  return [`the page scrolls sideways (${doc.scrollWidth} px in ${width} px)`, ...out.slice(0, 4)];
}
"""


def narrow_cells(pg: Any) -> list[str]:
    """Table cells narrower than their longest word (or with a word broken over lines)."""
    found: list[str] = pg.evaluate(_NARROW_JS)
    return found


def sideways_scroll(pg: Any) -> list[str]:
    """What makes the page scroll sideways (outside ``.table-wrap``), if it does."""
    found: list[str] = pg.evaluate(_SIDEWAYS_JS)
    return found


#: the rows of long lists past the first 20, which repeat the first ones' markup: removed
#: from the page before axe runs (axe reads the whole DOM even where told to exclude parts:
#: a Study's 283 papers took it 4–8 s a page; the page is not used after axe)
REPEATS = ("tbody > tr:nth-child(n+21)", "ul > li:nth-child(n+21)", "ol > li:nth-child(n+21)")


def with_axe(context: Any, axe: Path = AXE) -> Any:
    """``context`` (a Playwright browser context) with axe-core loaded into each of its
    documents as an init script, before the page's own scripts (through the debugging
    protocol: the page's CSP stays as it is). The browser compiles axe once and reuses the
    code in every page; evaluated after each load instead, its 650 kB went over the protocol
    and were compiled again every time (about 0.1 s of chromium's CPU a page checked)."""
    context.add_init_script(path=str(axe))
    return context


#: axe's rules that read the page's colours (of the WCAG 2 A/AA tags run here): the only ones
#: a colour scheme can change, when the scheme changes colours only (see
#: ``test_every_page_browser.test_dark_scheme_changes_colours_only``)
COLOUR_RULES = ("color-contrast", "link-in-text-block")

#: axe's run: the WCAG 2 A/AA rules, or those of them named (``rules``); violations in full,
#: the other result types by rule only, and only what the test reads sent back
_AXE_RUN_JS = """
async (rules) => {
  const tags = ['wcag2a', 'wcag2aa', 'wcag21aa'];
  const inTags = axe.getRules(tags).map(r => r.ruleId);
  const missing = (rules || []).filter(id => !inTags.includes(id));
  if (missing.length) throw new Error('no such axe rule in ' + tags + ': ' + missing);
  const r = await axe.run(document, {
    runOnly: rules ? {type: 'rule', values: rules} : {type: 'tag', values: tags},
    resultTypes: ['violations']});
  return {
    passes: r.passes.length + r.inapplicable.length,
    ran: [...r.passes, ...r.inapplicable, ...r.incomplete, ...r.violations].map(x => x.id),
    violations: r.violations.map(v => ({id: v.id, impact: v.impact,
      targets: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))};
}
"""


#: the rows of long lists past the 20th removed (:data:`REPEATS`), then axe's run
#: (:data:`_AXE_RUN_JS`), or null where the page has no axe yet: one call instead of three
_TRIM_AND_RUN_JS = f"""
async ([repeats, rules]) => {{
  repeats.forEach(s => document.querySelectorAll(s).forEach(e => e.remove()));
  if (typeof window.axe === 'undefined') return null;
  return ({_AXE_RUN_JS})(rules);
}}
"""


def axe_violations(pg: Any, axe: Path, rules: tuple[str, ...] | None = None) -> list[str]:
    """axe-core's serious and critical violations of WCAG 2 A/AA (2.1 AA) rules (or of those
    of them in ``rules``: e.g. :data:`COLOUR_RULES`), after the rows of long lists past the
    20th are removed from the page (check and shoot it first). axe is evaluated through the
    debugging protocol, so the page's CSP stays as it is, unless the page's context loads it
    already (:func:`with_axe`)."""
    wanted = list(rules) if rules is not None else None
    result = pg.evaluate(_TRIM_AND_RUN_JS, [list(REPEATS), wanted])
    if result is None:  # no axe in the page: evaluated into it, then run
        pg.evaluate(axe.read_text(encoding="utf-8") + "\n;undefined")
        result = pg.evaluate(_AXE_RUN_JS, wanted)
    return _serious(result, rules)


#: both layout checks in one call: :data:`_NARROW_JS`'s findings, then :data:`_SIDEWAYS_JS`'s
_LAYOUT_JS = f"() => [...({_NARROW_JS})(), ...({_SIDEWAYS_JS})()]"


def layout_problems(pg: Any) -> list[str]:
    """The layout checks on the page as it is now (it stays as it is): what
    :func:`narrow_cells` and then :func:`sideways_scroll` find, in one call to the page."""
    found: list[str] = pg.evaluate(_LAYOUT_JS)
    return found


#: one view's checks in one call (:func:`view_checks`): the view the page is in (dark
#: scheme?, viewport width), :data:`_LAYOUT_JS`'s findings, then, where asked, axe's run
#: (:data:`_AXE_RUN_JS`) with the rows of long lists past the 20th (:data:`REPEATS`) taken
#: out of the page for the run and put back after it, in their places (the same nodes:
#: the page is as it was for the views after it; chromium keeps the offsets of what
#: scrolls, though a box shorter for the run could not scroll as far); axe null where
#: not asked
_VIEW_CHECKS_JS = f"""
async ([repeats, runAxe, rules]) => {{
  const view = [matchMedia('(prefers-color-scheme: dark)').matches, innerWidth];
  const layout = ({_LAYOUT_JS})();
  if (!runAxe) return {{view, layout, axe: null}};
  if (typeof window.axe === 'undefined') throw new Error('no axe in the page (with_axe)');
  const out = [];
  repeats.forEach(s => document.querySelectorAll(s).forEach(
    e => out.push([e, e.parentNode, e.nextSibling])));
  out.forEach(([e]) => e.remove());
  try {{
    return {{view, layout, axe: await ({_AXE_RUN_JS})(rules)}};
  }} finally {{
    // (where the page's own scripts changed that list meanwhile, the list is theirs now)
    out.reverse().forEach(([e, parent, next]) => {{
      if (!next || next.parentNode === parent) parent.insertBefore(e, next);
    }});
  }}
}}
"""


def _serious(result: dict[str, Any], rules: tuple[str, ...] | None) -> list[str]:
    """axe's run (:data:`_AXE_RUN_JS`): its serious and critical violations, after the
    check that it ran every WCAG 2 A/AA rule (more than 10 passed or inapplicable), or
    each of ``rules`` and only those."""
    if rules is None:
        assert result["passes"] > 10  # axe really ran its rules on this page
    else:  # axe really ran each of the rules named, and only those
        assert set(result["ran"]) == set(rules), result["ran"]
    return [
        f"axe {v['id']} ({v['impact']}): {', '.join(v['targets'])}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def view_checks(
    pg: Any, view: tuple[bool, int], axe: bool, rules: tuple[str, ...] | None = None
) -> list[str]:
    """The page's checks in the view it is in, in one call to the page: asserted to be in
    ``view`` (dark scheme?, viewport width), then :func:`layout_problems`' findings, then,
    with ``axe``, those of :func:`axe_violations` (every WCAG 2 A/AA rule, or ``rules``).
    Unlike :func:`axe_violations` the page stays as it was: the rows of long lists are taken
    out for axe's run only and put back in their places (scroll offsets as they were), so
    the next view's layout checks see the whole page. The page's context loads axe (:func:`with_axe`)."""
    got = pg.evaluate(
        _VIEW_CHECKS_JS, [list(REPEATS), axe, list(rules) if rules is not None else None]
    )
    assert got["view"] == list(view), f"the page is in {got['view']}, not {list(view)}"
    found: list[str] = got["layout"]
    if axe:
        found += _serious(got["axe"], rules)
    return found
