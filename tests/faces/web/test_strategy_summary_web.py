"""The strategy assistant and the Study summary panel over real HTTP (API) and in Debian's
chromium (consent and review steps), with a scripted model server on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._model_servers import SECRET_OPENAI_KEY, Scripted, user_payload
from tests.faces.web._assist_app import (
    INJECTED,
    SUGGESTION,
    AssistRunning,
    assist_app,
    summary_answer,
)
from tests.faces.web._assist_jobs import settle
from tests.faces.web._hosting import Hosting


@pytest.fixture
def live(tmp_path: Path, hosting: Hosting) -> Iterator[AssistRunning]:
    with assist_app(tmp_path, hosting) as running:
        yield running


def test_strategy_api_consent_then_suggest(live: AssistRunning) -> None:
    with live.web.writer() as c:
        q = "Does R21 protect children?"
        notice = c.post("/api/v1/strategy/notice", json={"question": q}).json()
        assert notice["host"] == live.model.host and notice["local"] is True
        assert json.loads(notice["text"]) == {"researchQuestion": q}
        r = c.post(
            "/api/v1/strategy/suggest", json={"question": q + "!", "consent": notice["token"]}
        )
        assert r.status_code == 403 and r.json()["code"] == "consent_stale"
        assert live.model.requests == []
        live.model.script(Scripted(json.dumps(SUGGESTION)))
        submitted = c.post(
            "/api/v1/strategy/suggest", json={"question": q, "consent": notice["token"]}
        )
        assert submitted.status_code == 202, submitted.text
        r = settle(c, submitted)
        assert r.status == 200, r.body
        body = r.body
        assert [g["terms"] for g in body["groups"]] == [
            ["R21", "malaria vaccine"],
            ["children", "infants"],
        ]
        assert SECRET_OPENAI_KEY not in submitted.text + json.dumps(r.job)


def test_summary_api_flow(live: AssistRunning) -> None:
    base = f"/api/v1/studies/{live.study_id}"
    with live.web.writer() as c:
        sources = c.get(f"{base}/summary/sources").json()
        assert sources["available"] is True
        assert [s["kind"] for s in sources["sources"]] == ["study", "paper", "note"]
        notice = c.post(
            f"{base}/summary/notice", json={"focus": "overview", "deselected": ["S1"]}
        ).json()
        assert '"id": "S1"' not in notice["text"] and INJECTED in notice["text"]
        live.model.respond_with(summary_answer)
        a = settle(
            c,
            c.post(
                f"{base}/summary",
                json={"focus": "overview", "deselected": ["S1"], "consent": notice["token"]},
            ),
        )
        assert a.status == 200, a.body
        draft = a.body
        assert [p["text"] for p in draft["sections"]["overview"]] == [
            "R21 cut clinical malaria by 75%.",
            "A note holds an instruction.",
        ]
        assert draft["citations_rejected"] == 1
        r = c.post(f"{base}/reports", json={"draft_id": draft["draft_id"], "drop": ["overview:1"]})
        assert r.status_code == 403 and r.json()["code"] == "not_reviewed"
        r = c.post(
            f"{base}/reports",
            json={"draft_id": draft["draft_id"], "drop": ["overview:1"], "reviewed": True},
        )
        assert r.status_code == 200, r.text
        rid = r.json()["id"]
        listing = c.get(f"{base}/reports").json()
        assert [x["id"] for x in listing["reports"]] == [rid] and listing["reports"][0][
            "points"
        ] == 1
        html = c.get(f"/study/{live.study_id}/reports/{rid}.html")
        assert html.status_code == 200
        assert html.headers["content-disposition"].startswith("attachment;")
        assert "default-src &#x27;none&#x27;" in html.text


# --- browser: the consent and review steps ---------------------------------------------


@pytest.fixture
def page(browser: Any, live: AssistRunning):
    context = browser.new_context(viewport={"width": 1200, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))  # type: ignore[attr-defined]
    yield pg
    context.close()


@pytest.mark.slow
def test_browser_strategy_consent_and_review(page: Any, live: AssistRunning) -> None:
    pg = page
    pg.goto(live.web.base + "/search")
    pg.wait_for_selector("html[data-ready='1']")
    pg.click("#strategy > summary")
    pg.fill("#assist-question", "Does R21 protect children?")
    pg.click("#assist-prepare")
    pg.wait_for_selector("#assist-consent:not([hidden])")
    assert live.model.host in pg.text_content("#assist-headline")
    assert "Does R21 protect children?" in pg.text_content("#assist-text")
    assert pg.is_disabled("#assist-send")
    pg.check("#assist-consent-box")
    assert pg.is_enabled("#assist-send")
    pg.fill("#assist-question", "Does R21 protect infants?")  # the consent lapses
    assert pg.is_hidden("#assist-consent") and not pg.is_checked("#assist-consent-box")
    pg.click("#assist-prepare")
    pg.wait_for_selector("#assist-consent:not([hidden])")
    pg.check("#assist-consent-box")
    live.model.script(Scripted(json.dumps(SUGGESTION)))
    pg.click("#assist-send")
    pg.wait_for_selector("#strategy-ai-note:not([hidden])")
    assert user_payload(live.model.requests[0].body) == {
        "researchQuestion": "Does R21 protect infants?"
    }
    groups = pg.locator("#strategy-form fieldset.concept")
    assert groups.nth(0).locator("textarea").input_value() == "R21\nmalaria vaccine"
    assert not pg.is_checked("#strategy-reviewed")
    pg.click("#strategy-form button[type=submit]")
    pg.wait_for_selector("#strategy-use")
    assert pg.is_disabled("#strategy-use")  # not reviewed yet
    pg.check("#strategy-reviewed")
    assert pg.is_enabled("#strategy-use")
    groups.nth(1).locator("textarea").fill("children")  # an edit clears the review
    assert not pg.is_checked("#strategy-reviewed")
    assert pg.locator("#strategy-use").count() == 0
    pg.click("#strategy-form button[type=submit]")
    pg.wait_for_selector("#strategy-use")
    assert pg.is_disabled("#strategy-use")
    pg.check("#strategy-reviewed")
    pg.click("#strategy-use")
    assert pg.input_value("#q") == '("R21" OR "malaria vaccine") AND "children"'
    assert len(live.model.requests) == 1
    assert pg.console_errors == []


@pytest.mark.slow
def test_browser_summary_consent_review_and_save(page: Any, live: AssistRunning) -> None:
    pg = page
    pg.goto(f"{live.web.base}/study/{live.study_id}")
    pg.wait_for_selector("html[data-ready='1']")
    pg.click("#summary-load")
    pg.wait_for_selector("#summary-consent:not([hidden])")
    assert pg.locator("#summary-sources input.src").count() == 3
    assert live.model.host in pg.text_content("#summary-headline")
    first_token_text = pg.text_content("#summary-text")
    assert '"id": "S1"' in first_token_text
    pg.check("#summary-consent-box")
    assert pg.is_enabled("#summary-send")
    pg.uncheck("#summary-sources input.src[value='S1']")  # the consent lapses
    pg.wait_for_function(
        "() => !document.getElementById('summary-text').textContent.includes('\"id\": \"S1\"')"
    )
    assert not pg.is_checked("#summary-consent-box") and pg.is_disabled("#summary-send")
    pg.check("#summary-consent-box")
    live.model.respond_with(summary_answer)
    pg.click("#summary-send")
    pg.wait_for_selector("#summary-save")
    assert pg.locator("#summary-draft li.point").count() == 2
    assert "not a supplied source" in pg.text_content("#summary-draft")
    assert [s["id"] for s in user_payload(live.model.requests[0].body)["sources"]] == ["S2", "S3"]
    assert pg.is_disabled("#summary-save")
    pg.check("#summary-reviewed")
    assert pg.is_enabled("#summary-save")
    pg.uncheck("#summary-draft input.keep >> nth=1")  # an edit clears the review
    assert not pg.is_checked("#summary-reviewed") and pg.is_disabled("#summary-save")
    pg.check("#summary-reviewed")
    pg.click("#summary-save")
    pg.wait_for_selector("#summary-draft .notice.ok")
    assert "Saved as Study report rep_" in pg.text_content("#summary-draft")
    pg.wait_for_selector("#summary-reports li")
    assert "1 point (" in pg.text_content("#summary-reports")
    assert pg.console_errors == []


@pytest.mark.slow
def test_report_html_works_offline_under_its_own_policy(
    browser: Any, live: AssistRunning, tmp_path: Path
) -> None:
    base = f"/api/v1/studies/{live.study_id}"
    live.model.respond_with(summary_answer)
    with live.web.writer() as c:
        notice = c.post(f"{base}/summary/notice", json={"focus": "handover"}).json()
        draft = settle(
            c, c.post(f"{base}/summary", json={"focus": "handover", "consent": notice["token"]})
        ).body
        rid = c.post(
            f"{base}/reports", json={"draft_id": draft["draft_id"], "reviewed": True}
        ).json()["id"]
        html = c.get(f"/study/{live.study_id}/reports/{rid}.html").text
    path = tmp_path / "report.html"
    path.write_text(html, encoding="utf-8")
    context = browser.new_context()
    pg = context.new_page()
    messages: list[str] = []
    pg.on("console", lambda m: messages.append(m.text))
    pg.goto(path.as_uri())
    # the style is allowed by its hash (a wrong hash would leave the default layout)
    assert pg.evaluate("() => getComputedStyle(document.body).maxWidth") == "736px"
    assert pg.locator("script, img, iframe, link").count() == 0
    assert "A note holds an instruction." in pg.text_content("body")
    assert not [m for m in messages if "Content Security Policy" in m]
    context.close()


@pytest.mark.slow
def test_no_serious_axe_violations_in_the_open_panels(browser: Any, live: AssistRunning) -> None:
    from tests.faces.web.test_accessibility import AXE, _violations

    if not AXE.is_file():
        pytest.skip("axe-core is not installed (make node)")
    context = browser.new_context(bypass_csp=True)  # to inject axe itself
    pg = context.new_page()
    pg.goto(live.web.base + "/search")
    pg.wait_for_selector("html[data-ready='1']")
    pg.click("#strategy > summary")
    pg.fill("#assist-question", "Does R21 protect children?")
    pg.click("#assist-prepare")
    pg.wait_for_selector("#assist-consent:not([hidden])")
    pg.locator("#strategy-form fieldset.concept").nth(0).locator("textarea").fill("malaria")
    pg.click("#strategy-form button[type=submit]")
    pg.wait_for_selector("#strategy-use")
    found = _violations(pg, AXE)
    pg.goto(f"{live.web.base}/study/{live.study_id}")
    pg.wait_for_selector("html[data-ready='1']")
    pg.click("#summary-load")
    pg.wait_for_selector("#summary-consent:not([hidden])")
    found += _violations(pg, AXE)
    context.close()
    assert found == []
