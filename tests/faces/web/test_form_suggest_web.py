"""The reader's "Suggest evidence" in a Study with its own extraction form, through the web
app (in-process for the API; on the session server for chromium) with a scripted model
server on loopback: the form's fields asked and checked, the values pre-filled with their
verified quotes, recorded only after review (checked again by the form), shown in the
evidence list."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._model_servers import Scripted, ScriptedModelServer, assist_settings, model_server
from tests.faces.web._assist_jobs import settle
from tests.faces.web._hosting import Hosting
from tests.faces.web._server import Running
from tests.faces.web.test_assist_web import AXE, axe_after_consent
from tests.services.assist._extract_kit import the_paper

from litdesk.adapters.store import open_store
from litdesk.core.forms import Form, FormField
from litdesk.services.studies import SetFormRequest
from litdesk.services.studies._forms import set_form
from litdesk.services.workspace import Workspace

PAPER = "MED-424242"
FORM = Form(
    (
        FormField("sample_size", "Sample size", "number"),
        FormField("design", "Design", "choice", options=("RCT", "cohort", "case-control")),
        FormField("blinded", "Blinded", "yesno"),
        FormField("setting", "Setting", max_length=60),
    ),
    name="Trial form",
)
ANSWER = {
    "finding": {
        "value": "Faster parasite clearance with artesunate",
        "quote": "parasite clearance was faster with artesunate",
        "block": "abstract",
    },
    "fields": {
        "sample_size": {"value": "120", "quote": "120 children", "block": "abstract"},
        "design": {"value": "rct", "quote": "than with quinine", "block": "abstract"},
        "blinded": {"value": "no", "quote": "a double-blind design", "block": "abstract"},
        "setting": {"value": "Mali", "quote": "years in Mali", "block": "abstract"},
    },
}


def _serve(server: ScriptedModelServer, tmp_path: Path, hosting: Hosting) -> Iterator[Any]:
    settings = assist_settings(server, tmp_path / "data")
    store = open_store(settings)
    ws = Workspace(store)
    study = ws.create_study("Malaria")
    ws.save_paper(the_paper(), study="Malaria")
    set_form(store, SetFormRequest(study.id, form=FORM), ws.owner)
    store.dispose()
    from litdesk.faces.web import create_app

    app = create_app(settings, host=hosting.host, port=hosting.port)
    with hosting.serve(app) as served:
        yield (
            Running(hosting.base, hosting.host, hosting.port, tmp_path, tmp_path / "data", served),
            study.id,
        )


@pytest.fixture
def one(tmp_settings, tmp_path, hosting) -> Iterator[tuple[ScriptedModelServer, Running, str]]:
    with model_server("openai") as server:
        for running, study_id in _serve(server, tmp_path, hosting):
            yield server, running, study_id


def test_api_form_suggestions_checked_reviewed_recorded(one):
    server, running, study_id = one
    server.script(Scripted(json.dumps(ANSWER)))
    with running.writer() as c:
        body = {"paper_id": PAPER, "study": study_id}
        prev = c.post("/api/v1/assist/extract/preview", json=body)
        assert prev.status_code == 200, prev.text
        p = prev.json()
        assert p["form"]["asked"] == list(FORM.keys) and p["study_id"] == study_id
        stale = c.post("/api/v1/assist/extract", json=body | {"consent": "sha256:" + "0" * 64})
        assert stale.status_code == 409 and server.requests == []  # no call without consent
        r = settle(
            c, c.post("/api/v1/assist/extract", json=body | {"consent": p["consent"]["token"]})
        )
        assert r.status == 200, r.body
        d = r.body
        assert {k: v["value"] for k, v in d["form_fields"].items()} == {
            "sample_size": 120,
            "design": "RCT",
            "setting": "Mali",
        }
        assert d["dropped"] == ["blinded"]
        assert d["warnings"] == [
            "Blinded (blinded) dropped: its quote does not occur in block abstract"
        ]
        accept = f"/api/v1/assist/drafts/{d['draft_id']}/accept"
        assert c.post(accept, json={"values": {}}).json()["code"] == "review_required"
        wrong = c.post(accept, json={"reviewed": True, "values": {"design": "crossover"}})
        assert wrong.status_code == 400 and wrong.json()["code"] == "value_option"
        assert wrong.json()["message"].startswith("Design: choose one of: RCT")
        assert wrong.json()["details"] == {"field": "design"}  # the key, for a script
        hostile = c.post(accept, json={"reviewed": True, "values": {"Design; drop": "x"}})
        assert hostile.status_code == 422
        saved = c.post(
            accept,
            json={"reviewed": True, "values": {"blinded": "yes", "setting": "Two villages, Mali"}},
        )
        assert saved.status_code == 200, saved.text
        s = saved.json()
        assert s["study_id"] == study_id and s["evidence"]["values"] == {
            "sample_size": 120,
            "design": "RCT",
            "blinded": True,
            "setting": "Two villages, Mali",
        }
        assert s["provenance"]["ok"] and s["provenance"]["fields"]["setting"]["edited"]
        reader = c.get(f"/paper/{PAPER}?study={study_id}").text
        assert "Two villages, Mali" in reader and 'data-form="1"' in reader
        assert "Trial form" in reader.split('id="suggest-evidence"')[1]
        standard = c.post(f"/api/v1/assist/drafts/{d['draft_id']}/save", json={"reviewed": True})
        assert standard.status_code in (400, 403)  # a form draft is not saved as the six fields
    assert len(server.requests) == 1


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
def test_browser_prefilled_form_recorded(page, one):
    server, running, study_id = one
    server.script(Scripted(json.dumps(ANSWER)))
    page.goto(f"{running.base}/paper/{PAPER}?study={study_id}")
    page.wait_for_selector("#suggest-evidence[data-ready='1']")
    assert "Trial form" in page.text_content("#se-mode")
    page.click("#se-preview")
    page.wait_for_selector("#se-consent:not([hidden])")
    shown = page.text_content("#se-text")
    assert "Design (choice: RCT / cohort / case-control)" in shown and "120 children" in shown
    page.check("#se-agree")
    page.click("#se-send")
    page.wait_for_selector("#se-review:not([hidden])")
    assert page.input_value("#se-f-sample_size") == "120"
    assert page.input_value("#se-f-design") == "RCT"
    assert page.input_value("#se-f-blinded") == ""  # dropped: its quote is not in the text
    assert page.input_value("#se-f-setting") == "Mali"
    assert "years in Mali [abstract]" in page.text_content("#se-fields")
    assert "blinded" in page.text_content("#se-warnings")
    assert page.is_hidden("#se-study-choice")
    page.select_option("#se-f-blinded", "no")
    page.check("#se-reviewed")
    page.click("#se-save")
    page.wait_for_selector("#se-status:has-text('Recorded as evidence')")
    page.reload()
    page.wait_for_selector("#suggest-evidence[data-ready='1']")
    listed = page.text_content("#evidence-list")
    assert "RCT" in listed and "Mali" in listed and "120" in listed
    assert page.console_errors == []  # type: ignore[attr-defined]


@pytest.mark.slow
def test_browser_prefilled_form_accessible(browser: Any, one):
    """axe-core (WCAG 2 A/AA) on the pre-filled form, light and dark."""
    if not AXE.is_file():
        pytest.skip("axe-core is not installed (make node)")
    server, running, study_id = one
    server.script(Scripted(json.dumps(ANSWER)))
    found = axe_after_consent(
        browser, f"{running.base}/paper/{PAPER}?study={study_id}", "#se-f-design"
    )
    assert found == {}, found
