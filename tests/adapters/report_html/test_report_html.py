"""The report HTML: self-contained, CSP by hashes, escaped, size-limited; in a browser:
layouts, hover text, and a label opening the cited page with the passage highlighted."""

from __future__ import annotations

import base64
import hashlib
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fpdf import FPDF
from lxml import html as lxml_html

from litdesk import InputError
from litdesk.adapters.report_html import ReportTooLarge
from litdesk.core.report import ReportPaper, ReportUnit, UnitExcerpt, assign_labels
from litdesk.services.synthesis import SynthesisReport, report_html, write_report

EVIL = '"><img src=x onerror=alert(1)><script>alert(2)</script>'
GAUGE = "The staff gauge was read every ten minutes from the bridge camera."
WHEAT = "Grain yield fell by a third under post-anthesis heat stress."


def _pdf(path: Path, pages: list[tuple[str, float]]) -> Path:
    pdf = FPDF(format="A4")
    pdf.set_font("Helvetica", size=12)
    for text, y in pages:
        pdf.add_page()
        pdf.set_xy(30, y)
        pdf.multi_cell(80, 7, text)
    pdf.output(str(path))
    return path


def make_report(tmp_path: Path, *, questions: list[str] | None = None) -> SynthesisReport:
    gauge = _pdf(tmp_path / "gauge.pdf", [("Cover page.", 30), (GAUGE, 150)])
    wheat = _pdf(tmp_path / "wheat.pdf", [(WHEAT + " " + EVIL, 60)])
    papers = [
        ReportPaper("gauge.pdf", "Gauges " + EVIL, ("Li, X.",), link=gauge.as_uri()),
        ReportPaper("wheat.pdf", None, (), link=wheat.as_uri()),
    ]
    e_g = UnitExcerpt(1, "gauge.pdf", 2, GAUGE, 1)
    e_w = UnitExcerpt(2, "wheat.pdf", 1, WHEAT + " " + EVIL, 2)
    qs = questions or ["How was water level measured? " + EVIL]
    units = [
        ReportUnit("question", qs[0], "Gauges were read [1][2]. " + EVIL, (e_g, e_w), None, 0),
        ReportUnit(
            "summary", "results", "- one [1]\n- two [1]\n- three [1]",
            (UnitExcerpt(1, "gauge.pdf", 2, GAUGE, 1),), "gauge.pdf", None, True, True,
        ),
        ReportUnit(
            "summary", "results", "- heat [1]", (UnitExcerpt(1, "wheat.pdf", 1, WHEAT, 1),),
            "wheat.pdf", None, True, True,
        ),
    ]  # fmt: skip
    labelled = assign_labels(papers, units)
    return SynthesisReport(
        labelled, qs, "bullets", "cross-paper", None, "none (extractive)", "none (extractive)",
        datetime(2026, 12, 1, tzinfo=UTC), {"gauge.pdf": gauge, "wheat.pdf": wheat},
        "synthesis needs a model", ["a warning " + EVIL],
    )  # fmt: skip


def _sha(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def test_self_contained_with_hashed_csp_and_escaped_text(tmp_path: Path) -> None:
    report = make_report(tmp_path)
    html = report_html(report, dpi=50)
    doc = lxml_html.fromstring(html)
    csp = doc.xpath("//meta[@http-equiv='Content-Security-Policy']/@content")[0]
    scripts = doc.xpath("//script")
    styles = doc.xpath("//style")
    assert len(scripts) == 1 and len(styles) == 1
    assert f"script-src '{_sha(scripts[0].text)}'" in csp
    assert f"style-src '{_sha(styles[0].text)}'" in csp
    assert "default-src 'none'" in csp and "img-src data:" in csp and "unsafe" not in csp
    # nothing external: every src is a data: URI, no inline handlers or style attributes
    assert all(s.startswith("data:image/jpeg;base64,") for s in doc.xpath("//img/@src"))
    assert not re.search(r"\son\w+=", html.replace("onerror=alert", ""))
    assert not doc.xpath("//*[@style]") and not doc.xpath("//link")
    # injection attempts stay text
    assert "<script>alert(2)" not in html and "<img src=x" not in html
    assert html.count("&lt;script&gt;alert(2)&lt;/script&gt;") >= 3
    # pages deduplicated: two cited pages, three labels
    assert len(doc.xpath("//div[@id='pages']/img")) == 2
    labels = {a.get("data-label") for a in doc.xpath("//a[@class='cite']")}
    assert labels == {"A1", "B1", "B2"}  # B2: another passage on the same page
    a1 = doc.xpath("//a[@class='cite' and @data-label='A1']")[0]
    assert a1.get("href").endswith("gauge.pdf#page=2")
    assert "page 2" in a1.get("title") and GAUGE in a1.get("title")
    assert len(a1.get("data-rects").split(";")) >= 2
    # side by side, sorted
    spot = doc.xpath("//section[@id='questions']//span[@class='spot']")[0]
    assert [a.text for a in spot.xpath("a")] == ["A1", "B1"]
    # the compare table: two points per cell and "+ n more"
    cells = doc.xpath("//section[@id='compare']//tr[th='Results']/td")
    assert len(cells) == 2 and "+ 1 more" in cells[0].text_content()
    assert "extracts" in doc.xpath("//article[@id='paper-A']")[0].text_content()
    # a cross-paper question adds the reference table (letter, title, pages)
    refs = doc.xpath("//section[@id='questions']//table[@class='refs']//tr/td/text()")
    assert refs[:3] == ["A", "Gauges " + EVIL, "2"]
    assert "synthesis needs a model" in doc.xpath("//section[@id='synthesis']")[0].text_content()


def test_byte_limit_and_no_silent_overwrite(tmp_path: Path) -> None:
    report = make_report(tmp_path)
    with pytest.raises(ReportTooLarge) as info:
        report_html(report, dpi=50, max_bytes=20_000)
    assert info.value.code == "too_large"
    with pytest.raises(InputError, match="does not exist"):  # no folder made on the user's behalf
        write_report(report, tmp_path / "out", default_dir=tmp_path)
    (tmp_path / "out").mkdir()
    out = write_report(report, tmp_path / "out", default_dir=tmp_path)
    assert out.name == "2026-12-01_synthesis_report_Li.html" and out.parent.name == "out"
    with pytest.raises(Exception, match="exists"):
        write_report(report, out, default_dir=tmp_path)
    again = write_report(report, out, default_dir=tmp_path, force=True)
    assert again == out and not list(out.parent.glob("*.part"))


def test_browser_layouts_hover_and_highlighted_citation(tmp_path: Path, browser: Any) -> None:
    report = make_report(tmp_path)
    path = write_report(report, tmp_path / "r.html", default_dir=tmp_path, dpi=60)
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    problems: list[str] = []
    page.on(
        "console", lambda m: problems.append(m.text) if m.type in {"error", "warning"} else None
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on(
        "request",
        lambda r: None if r.url.startswith(("file:", "data:")) else problems.append(r.url),
    )
    page.add_init_script(
        "window.__csp = []; document.addEventListener('securitypolicyviolation',"
        " e => window.__csp.push(e.violatedDirective))"
    )
    page.goto(path.as_uri())
    assert page.evaluate("document.body.dataset.layout") == "column"
    assert not page.locator("nav#toc").is_visible()
    page.click("button[data-set-layout=contents]")
    assert page.evaluate("document.body.dataset.layout") == "contents"
    assert page.locator("nav#toc").is_visible()
    assert not page.locator("#compare").is_visible()
    page.click("button[data-set-layout=compare]")
    assert page.locator("#compare").is_visible()
    assert page.get_attribute("button[data-set-layout=compare]", "aria-pressed") == "true"
    # the layout is kept per browser
    page.reload()
    assert page.evaluate("document.body.dataset.layout") == "compare"
    page.click("button[data-set-layout=column]")
    # hover text
    cite = page.locator("#questions a.cite[data-label=A1]")
    assert "page 2" in cite.get_attribute("title")
    cite.click()
    dialog = page.locator("dialog#viewer")
    assert dialog.is_visible()
    assert "A1" in page.inner_text("#viewer-title") and "page 2" in page.inner_text("#viewer-title")
    shown = page.get_attribute("#viewer-img", "data-shown")
    expected = page.get_attribute("#questions a.cite[data-label=A1]", "data-page-img")
    assert shown == expected
    assert page.get_attribute("#viewer-img", "src") == page.get_attribute(f"#{shown}", "src")
    assert page.get_attribute("#viewer-pdf", "href").endswith("gauge.pdf#page=2")
    marks = page.locator("#viewer-marks .mark")
    assert marks.count() >= 2
    img = page.locator("#viewer-img").bounding_box()
    first = marks.nth(0).bounding_box()
    assert img and first
    # the passage sits 30 mm from the left and 150 mm from the top of an A4 page
    assert abs((first["x"] - img["x"]) / img["width"] - 30 / 210) < 0.02
    assert abs((first["y"] - img["y"]) / img["height"] - 150 / 297) < 0.02
    assert not page.locator("#viewer-note").is_visible()
    page.click("#viewer-close")
    assert not dialog.is_visible()
    # the other paper's label shows its own page
    page.locator("#questions a.cite[data-label=B1]").click()
    assert page.get_attribute("#viewer-img", "data-shown") != shown
    assert "page 1" in page.inner_text("#viewer-title")
    assert page.evaluate("window.__csp") == []
    assert problems == []
    page.close()
