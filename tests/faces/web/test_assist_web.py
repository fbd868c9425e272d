"""The reader's "Suggest evidence" through the web app (in-process; on the session server
for the browser), with a scripted model server (both wire protocols for the API; chromium
for the consent and review steps): consent bound to the exact text (lapses when it
changes), the draft opens in the editor, evidence is saved only after "I reviewed", and
provenance is shown with quotes re-checked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from tests._model_servers import (
    SECRET_ANTHROPIC_KEY,
    SECRET_OPENAI_KEY,
    Scripted,
    ScriptedModelServer,
    assist_settings,
    model_server,
)
from tests.faces.web._assist_jobs import settle
from tests.faces.web._hosting import Hosting
from tests.faces.web._page_checks import COLOUR_RULES
from tests.faces.web._server import Running
from tests.faces.web.test_accessibility import _DARK_JS, _violations
from tests.services.assist._extract_kit import answer, the_paper

from litdesk.adapters.store import open_store
from litdesk.faces.web import create_app
from litdesk.services.workspace import Workspace

PAPER = "MED-424242"
GOOD = {
    "population": ("Malian children", "120 children aged 2-10 years in Mali", "abstract"),
    "finding": ("faster clearance", "parasite clearance was faster with artesunate", "abstract"),
    "method": ("invented", "a double-blind trial of 5,000 adults", "abstract"),
}


def _serve(
    server: ScriptedModelServer, tmp_path: Path, hosting: Hosting, **extra: Any
) -> Iterator[Running]:
    settings = assist_settings(server, tmp_path / "data", **extra)
    store = open_store(settings)
    Workspace(store).save_paper(the_paper())
    Workspace(store).create_study("Malaria")
    # the reader offers the Studies that hold the paper (s27): Malaria holds it
    Workspace(store).add_to_study("Malaria", PAPER)
    store.dispose()
    app = create_app(settings, host=hosting.host, port=hosting.port)
    with hosting.serve(app) as served:
        yield Running(hosting.base, hosting.host, hosting.port, tmp_path, tmp_path / "data", served)


@pytest.fixture(params=["openai", "anthropic"])
def both(request, tmp_settings, tmp_path, hosting) -> Iterator[tuple[ScriptedModelServer, Running]]:
    with model_server(request.param) as server:
        for running in _serve(server, tmp_path, hosting):
            yield server, running


@pytest.fixture
def one(tmp_settings, tmp_path, hosting) -> Iterator[tuple[ScriptedModelServer, Running]]:
    with model_server("openai") as server:
        for running in _serve(server, tmp_path, hosting):
            yield server, running


def _no_secret(text: str) -> None:
    assert SECRET_ANTHROPIC_KEY not in text and SECRET_OPENAI_KEY not in text


def test_api_preview_suggest_save_provenance(both):
    server, running = both
    server.script(Scripted(answer(GOOD)))
    with running.writer() as c:
        prev = c.post("/api/v1/assist/extract/preview", json={"paper_id": PAPER})
        assert prev.status_code == 200, prev.text
        p = prev.json()
        assert p["consent"]["host"] == server.host and p["consent"]["local"] is True
        assert p["bounded"]["blocks"][0]["id"] == "abstract"
        no = c.post(
            "/api/v1/assist/extract", json={"paper_id": PAPER, "consent": "sha256:" + "0" * 64}
        )
        assert no.status_code == 409 and no.json()["code"] == "consent_stale"
        assert server.requests == []
        submitted = c.post(
            "/api/v1/assist/extract", json={"paper_id": PAPER, "consent": p["consent"]["token"]}
        )
        assert submitted.status_code == 202, submitted.text
        job = submitted.json()["job"]
        assert job["kind"] == "assist.extract" and job["active"] and "params" not in job
        r = settle(c, submitted)
        assert r.status == 200, r.body
        d = r.body
        assert set(d["fields"]) == {"population", "finding"} and d["dropped"] == ["method"]
        unreviewed = c.post(f"/api/v1/assist/drafts/{d['draft_id']}/save", json={})
        assert unreviewed.status_code == 403 and unreviewed.json()["code"] == "review_required"
        saved = c.post(
            f"/api/v1/assist/drafts/{d['draft_id']}/save",
            json={
                "reviewed": True,
                "values": {"finding": "Faster clearance (24 h vs 36 h)"},
                "study": "Malaria",
            },
        )
        assert saved.status_code == 200, saved.text
        s = saved.json()
        assert s["evidence"]["finding"] == "Faster clearance (24 h vs 36 h)"
        assert s["evidence"]["population"] == "Malian children"  # not sent: the suggestion
        prov = c.get(f"/api/v1/assist/evidence/{s['evidence_id']}/provenance").json()
        assert prov["ok"] and prov["fields"]["finding"]["edited"] is True
        listed = c.get(f"/api/v1/assist/papers/{PAPER}/provenance").json()["records"]
        assert [x["evidence_id"] for x in listed] == [s["evidence_id"]]
        reader = c.get(f"/paper/{PAPER}").text
        assert 'id="suggest-evidence"' in reader and "<script" not in reader.split("<main")[1]
        watched = c.get(r.job["status_url"] if r.job else "").text
        for text in (prev.text, submitted.text, watched, saved.text, reader):
            _no_secret(text)


def test_api_refusals_and_allowance(one):
    server, running = one
    server.script(Scripted("", thinking="thinking only"), Scripted(answer(GOOD)))
    with running.writer() as c:
        token = c.post("/api/v1/assist/extract/preview", json={"paper_id": PAPER}).json()[
            "consent"
        ]["token"]
        r = settle(c, c.post("/api/v1/assist/extract", json={"paper_id": PAPER, "consent": token}))
        assert r.status == 403 and r.body["code"] == "hidden_reasoning_only"
        assert "only hidden reasoning" in r.body["message"]
        assert r.job is not None and r.job["status"] == "failed"
        with running.client() as foreign:  # no Origin, no CSRF: refused before anything runs
            bad = foreign.post("/api/v1/assist/extract", json={"paper_id": PAPER, "consent": token})
            assert bad.status_code == 403
        assert len(server.requests) == 1


def test_api_allowance_refusal_is_429(tmp_settings, tmp_path):
    with model_server("openai") as server:
        server.script(Scripted(answer(GOOD)))
        in_process = Hosting.in_process()
        for running in _serve(server, tmp_path, in_process, assist_owner_daily_requests=1):
            with running.writer() as c:
                token = c.post("/api/v1/assist/extract/preview", json={"paper_id": PAPER}).json()[
                    "consent"
                ]["token"]
                first = c.post("/api/v1/assist/extract", json={"paper_id": PAPER, "consent": token})
                assert settle(c, first).status == 200
                second = c.post(
                    "/api/v1/assist/extract", json={"paper_id": PAPER, "consent": token}
                )
                assert second.status_code == 429 and second.json()["code"] == "owner_daily_limit"
                assert int(second.headers["retry-after"]) > 0
            assert len(server.requests) == 1


# --- the browser -------------------------------------------------------------------------

AXE = Path(__file__).resolve().parents[3] / "node_modules" / "axe-core" / "axe.min.js"


def _axe(pg: Any, rules: tuple[str, ...] | None = None) -> list[str]:
    """Serious or critical axe-core violations (WCAG 2 A/AA, or of the ``rules`` named);
    skipped without axe-core. Only what is read comes back over the protocol
    (``test_accessibility._violations``)."""
    if not AXE.is_file():
        return []
    return _violations(pg, AXE, rules)


def axe_after_consent(browser: Any, url: str, shown: str) -> dict[str, list[str]]:
    """axe (:func:`axe_light_and_dark`) on the reader at ``url`` once the suggestion has been
    previewed, consented to and sent, and ``shown`` (a selector) is on the page."""
    # bypass_csp only lets the test inject axe; the page's CSP is kept in the tests of it
    context = browser.new_context(bypass_csp=True, color_scheme="light")
    try:
        pg = context.new_page()
        pg.goto(url)
        pg.wait_for_selector("#suggest-evidence[data-ready='1']")
        pg.click("#se-preview")
        pg.wait_for_selector("#se-consent:not([hidden])")
        pg.check("#se-agree")
        pg.click("#se-send")
        pg.wait_for_selector(shown)
        return axe_light_and_dark(pg)
    finally:
        context.close()


def axe_light_and_dark(pg: Any) -> dict[str, list[str]]:
    """axe on the page as it is, light then dark by switching the emulated scheme (the dark
    colours are CSS media rules, applied to the page as it is): every rule in the light, the
    colour rules in the dark (the dark scheme changes colours only: test_every_page_browser).
    The schemes with violations, and them."""
    found: dict[str, list[str]] = {}
    for scheme in ("light", "dark"):
        pg.emulate_media(color_scheme=scheme)
        assert pg.evaluate(_DARK_JS) == (scheme == "dark"), f"not in {scheme}"
        seen = _axe(pg, COLOUR_RULES if scheme == "dark" else None)
        if seen:
            found[scheme] = seen
    return found


@pytest.fixture
def page(browser: Any, one):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))  # type: ignore[attr-defined]
    yield pg
    context.close()


@pytest.mark.slow
def test_browser_consent_review_and_save(page, one):
    server, running = one
    server.script(Scripted(answer(GOOD)))
    page.goto(f"{running.base}/paper/{PAPER}")
    page.wait_for_selector("#suggest-evidence[data-ready='1']")
    page.click("#se-preview")
    page.wait_for_selector("#se-consent:not([hidden])")
    assert server.host in page.text_content("#se-headline")
    assert "parasite clearance was faster" in page.text_content("#se-text")
    assert page.is_disabled("#se-send")  # no consent yet
    page.check("#se-agree")
    # changing the text to send withdraws the consent
    page.check("input[name='se-source'][value='fulltext']")
    assert page.is_hidden("#se-consent") and not page.is_checked("#se-agree")
    page.check("input[name='se-source'][value='abstract']")
    page.click("#se-preview")
    page.wait_for_selector("#se-consent:not([hidden])")
    # the stored abstract changes after the preview: the server refuses, consent lapses
    store = open_store(f"sqlite:///{running.data_dir / 'litdesk.sqlite3'}")
    with store.write() as conn:
        conn.execute(
            sa.text("UPDATE papers SET data = replace(data, 'in Mali', 'in Mali and Niger')")
        )
    store.dispose()
    page.check("#se-agree")
    page.click("#se-send")
    page.wait_for_selector("#se-status:has-text('changed')")
    assert not page.is_checked("#se-agree") and page.is_disabled("#se-send")
    assert server.requests == []
    assert "Mali and Niger" in page.text_content("#se-text")  # the new text is shown
    page.check("#se-agree")
    page.click("#se-send")
    page.wait_for_selector("#se-review:not([hidden])")
    assert page.input_value("#se-f-finding") == "faster clearance"
    assert "120 children aged 2-10 years in Mali" in page.text_content("#se-fields")
    assert "method dropped" in page.text_content("#se-warnings")
    assert page.is_disabled("#se-save")
    page.check("#se-reviewed")
    page.fill("#se-f-finding", "Faster parasite clearance")
    assert not page.is_checked("#se-reviewed") and page.is_disabled(
        "#se-save"
    )  # edit → review again
    page.check("#se-reviewed")
    page.select_option("#se-study", label="Malaria")
    page.click("#se-save")
    page.wait_for_selector("#se-status:has-text('Saved as evidence')")
    page.wait_for_selector("#se-provenance .notice.ok")
    assert "all 2 found" in page.text_content("#se-provenance")
    page.reload()
    page.wait_for_selector("#suggest-evidence[data-ready='1']")
    assert "Faster parasite clearance" in page.text_content("#evidence")
    errors = [e for e in page.console_errors if "409 (Conflict)" not in e]  # type: ignore[attr-defined]
    assert errors == []  # (the 409 is the server refusing the lapsed consent, by design)


@pytest.mark.slow
def test_browser_panel_accessible(browser: Any, one):
    """axe-core on the reader with the consent and review steps open (light and dark)."""
    if not AXE.is_file():
        pytest.skip("axe-core is not installed (make node)")
    server, running = one
    server.script(Scripted(answer(GOOD)))
    found = axe_after_consent(browser, f"{running.base}/paper/{PAPER}", "#se-review:not([hidden])")
    assert found == {}, found


@pytest.mark.slow
def test_browser_cancel_says_the_backend_may_have_processed_it(page, one):
    import threading
    import time

    server, running = one
    gate = threading.Event()
    server.script(Scripted(answer(GOOD), gate=gate))
    try:
        page.goto(f"{running.base}/paper/{PAPER}")
        page.wait_for_selector("#suggest-evidence[data-ready='1']")
        page.click("#se-preview")
        page.wait_for_selector("#se-consent:not([hidden])")
        page.check("#se-agree")
        page.click("#se-send")
        page.wait_for_selector("#se-cancel:not([hidden])")
        deadline = time.monotonic() + 30
        while not server.requests and time.monotonic() < deadline:
            time.sleep(0.05)  # the call has reached the model server (held at the gate)
        page.click("#se-cancel")
        page.wait_for_selector("#se-status:has-text('may already have processed')")
        assert not page.is_checked("#se-agree") and page.is_hidden("#se-review")
    finally:
        gate.set()
    assert len(server.requests) == 1  # the request had reached the backend
