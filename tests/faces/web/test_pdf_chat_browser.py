"""The paper chat, the PDF viewer and the report wizard in real browsers (Debian's chromium
through Playwright, firefox-esr through WebDriver BiDi) against a real server on loopback,
answering through a scripted OpenAI-compatible model server on loopback.

The test PDFs carry a red square top-left and a blue one bottom-right on every page, so
the page's place in a screenshot is found from the pixels alone; the highlight colour must
then cover the box where the cited passage was printed (as the report tests check)."""

from __future__ import annotations

import base64
import io
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import expect
from tests.adapters.report_html._bidi import Firefox, shared_firefox
from tests.faces.web._page_checks import COLOUR_RULES, with_axe
from tests.faces.web._pdfchat import (
    GAUGE,
    GAUGE_AT,
    MODEL,
    Site,
    check_highlight,
    colours,
    serve_site,
    sha,
)
from tests.faces.web.test_accessibility import AXE, _violations

pytestmark = pytest.mark.slow
__all__ = ["shared_firefox"]  # the fixture: one firefox-esr for the file, a tab per test

QUESTION = "How was the staff gauge read?"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path) -> Iterator[Site]:
    yield from serve_site(tmp_path_factory, fixtures_dir)


def _watch(page: Any) -> list[str]:
    problems: list[str] = []
    page.on(
        "console", lambda m: problems.append(m.text) if m.type in {"error", "warning"} else None
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    return problems


def _pixels(png: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as img:
        return np.asarray(img.convert("RGB")).astype(np.int16)


def _with_axe(context: Any) -> Any:
    """``context`` with axe loaded in its pages (:func:`with_axe`), where axe is installed
    (``test_accessibility`` fails in CI where it is not)."""
    return with_axe(context) if AXE.is_file() else context


def _axe(pg: Any, where: str, found: dict[str, list[str]]) -> None:
    """axe on the page as it is now (its context loads axe: :func:`with_axe`, the page's CSP
    in force), light with every WCAG 2 A/AA rule, then dark with the colour rules (the dark
    scheme changes colours only: the other rules find there what they found in the light);
    the page left light. Serious and critical violations go into ``found``."""
    if not AXE.is_file():
        return
    for scheme in ("light", "dark"):
        pg.emulate_media(color_scheme=scheme)
        dark = pg.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches")
        assert dark == (scheme == "dark"), f"{where}: not in {scheme}"
        seen = _violations(pg, AXE, COLOUR_RULES if scheme == "dark" else None)
        if seen:
            found[f"{scheme} {where}"] = seen
    pg.emulate_media(color_scheme="light")


def test_chat_card_citation_opens_the_viewer_with_the_passage_highlighted(
    browser: Any, site: Site
) -> None:
    """…and axe finds nothing serious on the chat with its answers, the viewer with the
    passage highlighted and an earlier round's page (:func:`_axe`, as they come)."""
    context = _with_axe(browser.new_context(viewport={"width": 1000, "height": 1200}))
    page = context.new_page()
    problems = _watch(page)
    axe: dict[str, list[str]] = {}
    page.goto(site.base + "/chat")
    expect(page.locator("html[data-ready='1']")).to_have_count(1)
    page.check("#scope-form input[name=scope][value=papers]")
    page.check("#scope-form input[name=papers][value='gauge.pdf']")
    page.check("#scope-form input[name=papers][value='wheat.pdf']")
    page.click("#scope-form button[type=submit]")
    expect(page.locator("#current-scope")).to_have_text("Now asking: gauge.pdf, wheat.pdf")
    page.fill("#question", QUESTION)
    page.press("#question", "Enter")  # chat mode: a plain line asks
    card = page.locator("article.answer-card").last
    expect(card.locator(".question")).to_have_text(QUESTION, timeout=120_000)
    expect(card.locator(".model-name")).to_have_text(MODEL)
    expect(card.locator(".warnings")).to_contain_text("removed 2 invalid citation markers")
    expect(card.locator(".answer")).not_to_contain_text("[99]")
    label = card.locator(".answer a.cite")
    expect(label).to_have_count(1)
    # the next plain line asks in the same scope (on the page the answer loaded, once its
    # script runs: what a person types before that is posted by the form, tested apart)
    expect(page.locator("html[data-ready='1']")).to_have_count(1)
    page.fill("#question", "What fell under heat stress?")
    page.press("#question", "Enter")
    try:
        expect(page.locator("article.answer-card")).to_have_count(2, timeout=120_000)
    except AssertionError as exc:  # say what the page said about the question
        said = page.evaluate(
            "() => [location.href, document.getElementById('ask-status')?.textContent,"
            " document.getElementById('ask-refused')?.textContent,"
            " document.getElementById('question')?.value]"
        )
        raise AssertionError(
            f"no second answer card; the page (url, status, refusal, box): {said}"
        ) from exc
    expect(page.locator("article.answer-card").last.locator(".scope-line")).to_have_text(
        "Scope: gauge.pdf, wheat.pdf"
    )
    expect(page.locator(".rounds-list li")).to_have_count(2)
    _axe(page, "/chat (two answers)", axe)
    page.locator("article.answer-card").first.locator(".answer a.cite").click()
    expect(page).to_have_url(re.compile(r"/library/pdf/[0-9a-f]{64}\?page=2"))
    expect(page.locator("#pdf-marks .pdf-mark.placed").first).to_be_visible()
    expect(page.locator("#page-image")).to_have_js_property("complete", True)
    check_highlight(_pixels(page.locator("#pdf-page").screenshot()), GAUGE_AT)
    _axe(page, "the viewer, the passage highlighted", axe)
    # previous page: no highlight there; zoom changes the page image
    page.click("#page-prev")
    expect(page).to_have_url(re.compile(r"page=1"))
    assert page.locator("#pdf-marks .pdf-mark").count() == 0
    small = page.locator("#page-image").evaluate("i => i.naturalWidth")
    page.select_option("#zoom", "150")
    page.click(".viewer-tools button[type=submit]")
    expect(page).to_have_url(re.compile(r"zoom=150"))
    expect(page.locator("#page-image")).to_have_js_property("complete", True)
    assert page.locator("#page-image").evaluate("i => i.naturalWidth") > 1.4 * small
    page.wait_for_selector("html[data-ready='1']")  # the key handlers of the new page are in
    page.keyboard.press("ArrowRight")  # the arrow keys turn the page
    expect(page).to_have_url(re.compile(r"page=2&zoom=150"))
    # an earlier round reopens
    page.goto(site.base + "/chat")
    page.click("details.earlier summary")
    page.locator(".rounds-list a").first.click()
    expect(page.locator("h1")).to_have_text("Paper chat — round 1")
    expect(page.locator(".question")).to_have_text(QUESTION)
    _axe(page, "/chat/round/1", axe)
    assert problems == []
    context.close()
    assert axe == {}


def test_ticking_papers_chooses_them_as_the_scope(browser: Any, site: Site) -> None:
    """Ticking a paper (or "Select all") chooses "the papers checked below": with "the
    whole library" still chosen, the ticked papers were silently ignored and the chat
    kept asking the whole library. The report wizard's scope follows the same way."""
    context = browser.new_context(viewport={"width": 1000, "height": 1000})
    page = context.new_page()
    problems = _watch(page)
    page.goto(site.base + "/chat")
    expect(page.locator("html[data-ready='1']")).to_have_count(1)
    page.check("#scope-form input[name=scope][value=library]")
    page.click("#scope-form button[type=submit]")
    expect(page.locator("#current-scope")).to_have_text("Now asking: the whole library")
    # the form posted and the page came again: its script must be running before the tick
    # (a loaded machine ticked before it was, and the radio stayed as it was)
    expect(page.locator("html[data-ready='1']")).to_have_count(1)
    page.check("#scope-form input[name=papers][value='wheat.pdf']")  # the radio untouched
    expect(page.locator("#scope-form input[name=scope][value=papers]")).to_be_checked()
    page.click("#scope-form button[type=submit]")
    expect(page.locator("#current-scope")).to_have_text("Now asking: wheat.pdf")
    page.goto(site.base + "/reports/new")
    expect(page.locator("html[data-ready='1']")).to_have_count(1)
    page.check("#report-wizard input[name=scope][value=library]")
    page.check("#report-wizard input[name=papers][value='gauge.pdf']")
    expect(page.locator("#report-wizard input[name=scope][value=papers]")).to_be_checked()
    assert problems == []
    context.close()


def test_injected_pdf_text_is_shown_as_text(browser: Any, site: Site) -> None:
    context = browser.new_context()
    page = context.new_page()
    problems = _watch(page)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(site.base + "/chat")
    page.check("#scope-form input[name=scope][value=papers]")
    page.check("#scope-form input[name=papers][value='injected.pdf']")
    page.click("#scope-form button[type=submit]")
    page.fill("#question", "How often was the weir gauge read by the field team during the flood?")
    page.press("#question", "Enter")
    card = page.locator("article.answer-card").last
    expect(card.locator(".ungrounded")).to_contain_text(
        "Not grounded: this answer cites no excerpt", timeout=120_000
    )
    expect(card.locator(".answer")).to_contain_text("<script>window.__pwned = 1</script>")
    assert card.locator(".answer img, .answer script").count() == 0
    assert page.evaluate("window.__pwned === undefined") and dialogs == []
    assert problems == []
    context.close()


def test_wizard_builds_the_report_as_a_job_and_opens_it(browser: Any, site: Site) -> None:
    """…and axe finds nothing serious on the wizard (from the chat), the reports list and a
    cancelled build's job page (:func:`_axe`)."""
    context = _with_axe(browser.new_context(viewport={"width": 1100, "height": 1000}))
    page = context.new_page()
    problems = _watch(page)
    axe: dict[str, list[str]] = {}
    page.goto(site.base + "/chat")
    page.check("#scope-form input[name=scope][value=papers]")
    for name in ("gauge.pdf", "wheat.pdf"):
        page.check(f"#scope-form input[name=papers][value='{name}']")
    page.click("#scope-form button[type=submit]")
    page.fill("#question", QUESTION)
    page.press("#question", "Enter")
    expect(page.locator("article.answer-card")).not_to_have_count(0, timeout=120_000)
    page.click("text=Build a report from this chat")
    expect(page.locator("#wizard-tabs")).to_be_visible()
    expect(page.locator("#panel-questions")).to_be_hidden()  # tabs: one panel at a time
    _axe(page, "/reports/new (from the chat)", axe)
    page.click("#tab-questions")
    expect(page.locator("#questions")).to_have_value(re.compile(re.escape(QUESTION)))
    page.click("#tab-synthesis")
    page.check("input[name=synthesis]")
    expect(page.locator("#plan-model")).to_have_text(MODEL)
    page.click("#tab-layout")
    page.check("input[name=layout][value=compare]")
    page.click("#build")
    expect(page).to_have_url(re.compile(r"/reports/view/[0-9a-f]{32}$"), timeout=240_000)
    assert page.evaluate("document.body.dataset.layout") == "compare"  # the wizard's choice
    first = page.locator("a.cite").first
    first.click()
    expect(page.locator("dialog#viewer")).to_be_visible()
    assert page.locator("#viewer-marks .mark").count() >= 1
    assert problems == []  # no CSP violation: the report runs under its own CSP
    with site.writer() as c:  # a build job cancelled at once
        job = c.post(
            "/api/v1/reports/build", json={"papers": ["wheat.pdf"], "questions": ["What fell?"]}
        ).json()
        c.post(f"/api/v1/reports/jobs/{job['id']}/cancel")
        deadline = time.monotonic() + 120  # ended (cancelled, or done first): a still page
        while c.get(f"/api/v1/reports/jobs/{job['id']}").json()["status"] in ("queued", "running"):
            assert time.monotonic() < deadline
            time.sleep(0.2)
    for path in ("/reports", f"/reports/job/{job['id']}"):
        page.goto(site.base + path)
        _axe(page, path, axe)
    context.close()
    assert axe == {}


@pytest.mark.timeout(900)
def test_firefox_viewer_highlights_the_passage(
    site: Site, shared_firefox: Firefox, tmp_path: Path
) -> None:
    gauge = sha(site.folder / "gauge.pdf")
    url = f"{site.base}/library/pdf/{gauge}?page=2&zoom=75&passage={GAUGE.replace(' ', '+')}"
    ff = shared_firefox
    with ff.tab((900, 1400)) as ctx:
        ff.command("browsingContext.navigate", context=ctx, url=url, wait="complete")
        deadline = time.monotonic() + 60
        state: dict[str, Any] = {}
        while time.monotonic() < deadline:
            state = ff.evaluate(
                ctx,
                "({placed: document.querySelectorAll('#pdf-marks .pdf-mark.placed').length,"
                " loaded: document.getElementById('page-image').complete})",
            )
            if state["placed"] and state["loaded"]:
                break
            time.sleep(0.2)
        assert state.get("placed", 0) >= 1 and state["loaded"], state
        shot = ff.command("browsingContext.captureScreenshot", context=ctx, origin="document")
        (tmp_path / "ff.png").write_bytes(base64.b64decode(shot["data"]))
        px = _pixels(base64.b64decode(shot["data"]))
        check_highlight(px, GAUGE_AT)
        ff.command(
            "browsingContext.navigate", context=ctx, url=url.replace("page=2", "page=1"),
            wait="complete",
        )  # fmt: skip
        plain = colours(_pixels(base64.b64decode(
            ff.command("browsingContext.captureScreenshot", context=ctx, origin="document")["data"]
        )))  # fmt: skip
        assert plain["red"].any() and not plain["mark"].any()  # a page, no highlight on it
        assert ff.problems(ctx) == []


@pytest.mark.timeout(900)
def test_firefox_chat_asks_as_a_job_and_shows_the_answer_card(
    site: Site, shared_firefox: Firefox
) -> None:
    ff = shared_firefox
    with ff.tab() as ctx:
        ff.command(
            "browsingContext.navigate", context=ctx, url=site.base + "/chat", wait="complete"
        )
        deadline = time.monotonic() + 60
        while not ff.evaluate(ctx, "document.documentElement.dataset.ready === '1'"):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        before = ff.evaluate(ctx, "document.querySelectorAll('article.answer-card').length")
        question = "What fell under heat stress in Firefox?"
        ff.evaluate(
            ctx,
            "(() => { document.getElementById('question').value = "
            f"{question!r}; document.getElementById('ask-form').requestSubmit(); return 1; }})()",
        )
        deadline = time.monotonic() + 120
        state: dict[str, Any] = {}
        while time.monotonic() < deadline:  # the job followed, then the page at its round
            state = ff.evaluate(
                ctx,
                "({cards: document.querySelectorAll('article.answer-card').length,"
                " hash: location.hash, last: (Array.from(document.querySelectorAll("
                "'article.answer-card .question')).pop() || {}).textContent || ''})",
            )
            if state["cards"] > before and state["hash"].startswith("#round-"):
                break
            time.sleep(0.2)
        assert state["cards"] == before + 1 and state["last"] == question, state
        assert ff.problems(ctx) == []
