"""A citation's page view with the passage highlighted, in Firefox and through its address.

Firefox (Debian's firefox-esr) runs headless, driven through WebDriver BiDi, its built-in
remote protocol (``_bidi``; one browser for the file's two tests), two ways: the report
opened at ``#cite-<label>`` (a citation's address) in a new tab, and a real click on a label,
each then a screenshot. The test PDF carries a red square in
the top-left corner and a blue one in the bottom-right corner of each page, so the page's
position in the screenshot is found from the pixels alone; the highlight colour must then
cover the box where the passage was printed, and nowhere else. A plain address shows no
viewer (the negative control). In Chromium (Playwright) the same address opens the viewer,
and a click gives the page a shareable ``#cite-`` address that closing the viewer removes.
"""

from __future__ import annotations

import base64
import io
import re
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fpdf import FPDF
from PIL import Image
from playwright.sync_api import expect
from tests.adapters.report_html._bidi import Firefox, shared_firefox

from litdesk.core.report import ReportPaper, ReportUnit, UnitExcerpt, assign_labels
from litdesk.services.synthesis import SynthesisReport, write_report

GAUGE = "The staff gauge was read every ten minutes from the bridge camera."
WHEAT = "Grain yield fell by a third under post-anthesis heat stress."
A4 = (210.0, 297.0)
CORNER = 12.0  # mm, the registration squares
WINDOW = (700, 1300)

__all__ = ["shared_firefox"]  # the fixture (one Firefox for the file)


def _pdf(path: Path, pages: list[tuple[str, float, float]]) -> Path:
    """Pages with ``text`` at (x, y) mm and the two corner squares."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_font("Helvetica", size=12)
    for text, x, y in pages:
        pdf.add_page()
        pdf.set_fill_color(255, 0, 0)
        pdf.rect(0, 0, CORNER, CORNER, style="F")
        pdf.set_fill_color(0, 0, 255)
        pdf.rect(A4[0] - CORNER, A4[1] - CORNER, CORNER, CORNER, style="F")
        pdf.set_xy(x, y)
        pdf.multi_cell(80, 7, text)
    pdf.output(str(path))
    return path


@pytest.fixture(scope="module")
def report_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("report")
    gauge = _pdf(tmp / "gauge.pdf", [("Cover page.", 30, 30), (GAUGE, 30, 150)])
    wheat = _pdf(tmp / "wheat.pdf", [(WHEAT, 100, 60)])
    papers = [
        ReportPaper("gauge.pdf", "Gauges", ("Li, X.",), link=gauge.as_uri()),
        ReportPaper("wheat.pdf", "Wheat", ("Ko, Y.",), link=wheat.as_uri()),
    ]
    excerpts = (UnitExcerpt(1, "gauge.pdf", 2, GAUGE, 1), UnitExcerpt(2, "wheat.pdf", 1, WHEAT, 2))
    units = [ReportUnit("question", "How?", "Gauges [1]; wheat [2].", excerpts, None, 0)]
    report = SynthesisReport(
        assign_labels(papers, units), ["How?"], "none", "cross-paper", None,
        "none (extractive)", "none (extractive)", datetime(2026, 12, 1, tzinfo=UTC),
        {"gauge.pdf": gauge, "wheat.pdf": wheat},
    )  # fmt: skip
    return write_report(report, tmp / "report.html", default_dir=tmp, dpi=60)


#: the page's images (the viewer's page images among them) all decoded
_IMAGES_DECODED = "Array.from(document.images).every((i) => i.complete)"


def _firefox_shot(ff: Firefox, url: str) -> np.ndarray:
    """A screenshot of ``url`` loaded in a new tab (a document of its own, as when the
    address is opened) at :data:`WINDOW`, as an (h, w, 3) array."""
    with ff.tab(WINDOW) as tab:
        ff.command("browsingContext.navigate", context=tab, url=url, wait="complete")
        deadline = time.monotonic() + 30
        while not ff.evaluate(tab, _IMAGES_DECODED) and time.monotonic() < deadline:
            time.sleep(0.05)
        shot = ff.command("browsingContext.captureScreenshot", context=tab)["data"]
    with Image.open(io.BytesIO(base64.b64decode(shot))) as img:
        return np.asarray(img.convert("RGB")).astype(np.int16)


def _box(mask: np.ndarray) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero(mask)
    assert xs.size, "colour not found in the screenshot"
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def _colours(px: np.ndarray) -> dict[str, np.ndarray]:
    r, g, b = px[..., 0], px[..., 1], px[..., 2]
    return {
        "red": (r > 180) & (g < 90) & (b < 90),
        "blue": (b > 180) & (r < 90) & (g < 110),
        # the mark, rgba(255, 200, 0, .42) multiplied onto the white page: about (255, 232, 148)
        "mark": (r > 235) & (g >= 212) & (g <= 248) & (b >= 115) & (b <= 185),
        "dark": (r < 110) & (g < 110) & (b < 110),
    }


def _check_highlight(px: np.ndarray, at_mm: tuple[float, float]) -> None:
    """The page found by its corner squares; the mark colour exactly over the passage."""
    c = _colours(px)
    rx0, ry0, _, _ = _box(c["red"])
    _, _, bx1, by1 = _box(c["blue"])
    sx, sy = (bx1 - rx0) / A4[0], (by1 - ry0) / A4[1]
    assert sx > 2 and abs(sx / sy - 1) < 0.03  # the page is shown whole, undistorted
    mx0, my0, mx1, my1 = _box(c["mark"])
    left, top = (mx0 - rx0) / sx, (my0 - ry0) / sy
    right, bottom = (mx1 - rx0) / sx, (my1 - ry0) / sy
    x, y = at_mm
    assert abs(left - x) < 3 and abs(top - y) < 4, (left, top)
    assert right < x + 82 and right - left > 40, (left, right)  # a multi_cell 80 mm wide
    assert bottom < y + 16, (top, bottom)  # two lines of 7 mm
    # the colour covers most of its box (text stays dark under it) and is nowhere else
    box = (slice(my0, my1), slice(mx0, mx1))
    area = (mx1 - mx0) * (my1 - my0)
    assert c["mark"][box].sum() > 0.2 * area
    assert c["dark"][box].sum() > 0.02 * area  # the passage's glyphs are under the highlight


@pytest.mark.timeout(900)  # a cold Firefox start: minutes on a busy machine
def test_firefox_opens_a_citation_address_with_the_passage_highlighted(
    report_file: Path, shared_firefox: Firefox
) -> None:
    ff, url = shared_firefox, report_file.as_uri()
    _check_highlight(_firefox_shot(ff, url + "#cite-A1"), (30, 150))
    _check_highlight(_firefox_shot(ff, url + "#cite-B1"), (100, 60))
    plain = _colours(_firefox_shot(ff, url))
    assert not plain["mark"].any() and not plain["red"].any()  # no viewer without an address
    unknown = _colours(_firefox_shot(ff, url + "#cite-Z9"))
    assert not unknown["mark"].any() and not unknown["red"].any()


@pytest.mark.timeout(900)
def test_firefox_click_opens_the_page_with_the_passage_highlighted(
    report_file: Path, shared_firefox: Firefox
) -> None:
    with shared_firefox.tab(WINDOW) as ctx:
        _click_and_check(shared_firefox, ctx, report_file)


def _click_and_check(ff: Firefox, ctx: str, report_file: Path) -> None:
    ff.command(
        "script.addPreloadScript",
        functionDeclaration="() => { window.__csp = []; document.addEventListener("
        "'securitypolicyviolation', e => window.__csp.push(e.violatedDirective)); }",
        contexts=[ctx],
    )
    ff.command("browsingContext.navigate", context=ctx, url=report_file.as_uri(), wait="complete")
    assert ff.evaluate(ctx, "document.getElementById('viewer').open") is False
    box = ff.evaluate(
        ctx,
        "(() => { const a = document.querySelector('#questions a.cite[data-label=A1]');"
        " a.scrollIntoView({block: 'center'}); const r = a.getBoundingClientRect();"
        " return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()",
    )
    ff.command(
        "input.performActions",
        context=ctx,
        actions=[
            {
                "type": "pointer",
                "id": "mouse",
                "parameters": {"pointerType": "mouse"},
                "actions": [
                    {"type": "pointerMove", "x": round(box["x"]), "y": round(box["y"])},
                    {"type": "pointerDown", "button": 0},
                    {"type": "pointerUp", "button": 0},
                ],
            }
        ],
    )
    state = ff.evaluate(
        ctx,
        "({open: document.getElementById('viewer').open, hash: location.hash,"
        " title: document.getElementById('viewer-title').textContent,"
        " marks: document.querySelectorAll('#viewer-marks .mark').length,"
        " pdf: document.getElementById('viewer-pdf').getAttribute('href'),"
        " csp: window.__csp})",
    )
    assert state["open"] is True and state["hash"] == "#cite-A1"
    assert state["title"].startswith("A1") and "page 2" in state["title"]
    assert state["marks"] >= 2 and state["pdf"].endswith("gauge.pdf#page=2")
    assert state["csp"] == []
    shot = ff.command("browsingContext.captureScreenshot", context=ctx)["data"]
    with Image.open(io.BytesIO(base64.b64decode(shot))) as img:
        _check_highlight(np.asarray(img.convert("RGB")).astype(np.int16), (30, 150))
    assert ff.problems(ctx) == []


def test_chromium_citation_address_and_shareable_click(report_file: Path, browser: Any) -> None:
    page = browser.new_page(viewport={"width": WINDOW[0], "height": WINDOW[1]})
    problems: list[str] = []
    page.on(
        "console", lambda m: problems.append(m.text) if m.type in {"error", "warning"} else None
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(report_file.as_uri() + "#cite-B1")
    assert page.locator("dialog#viewer").is_visible()
    assert page.inner_text("#viewer-title").startswith("B1")
    page.click("#viewer-close")
    # Waits poll from Playwright's side (locators, the page URL): a string predicate for
    # wait_for_function is eval'd in the page once it has to poll, which the report's CSP
    # (no 'unsafe-eval') forbids — the test then failed whenever the machine was busy.
    no_hash = re.compile(r"^[^#]*$")
    expect(page).to_have_url(no_hash, timeout=10_000)  # the close event is queued
    page.locator("#questions a.cite[data-label=A1]").click()
    assert page.evaluate("location.hash") == "#cite-A1"
    assert page.inner_text("#viewer-title").startswith("A1")
    # another address while the viewer is open shows that citation
    page.evaluate("location.hash = '#cite-B1'")
    expect(page.locator("#viewer-title")).to_have_text(re.compile(r"^B1"), timeout=10_000)
    page.keyboard.press("Escape")
    expect(page.locator("dialog#viewer")).to_be_hidden(timeout=10_000)
    expect(page).to_have_url(no_hash, timeout=10_000)
    assert problems == []
    page.close()
