"""Playwright (chromium): a Study's owner sets the PICO form on the form page, then records
one value with its supporting passage from the reader's evidence form (rendered from the
Study's form); the evidence table shows the form's columns. Screenshots of each page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._server import Running
from tests.faces.web.test_browser import _shot, page  # noqa: F401  (the page fixture)

from litdesk.adapters.store import open_store
from litdesk.core.records import make_paper
from litdesk.services.workspace import Workspace

pytestmark = pytest.mark.slow

ABSTRACT = "In 1,204 adults over 60, aspirin lowered stroke risk (OR 0.82, 95% CI 0.70 to 0.96)."


def test_set_pico_and_record_a_value_with_its_passage(
    page: Any,  # noqa: F811
    running: Running,
    tmp_path: Path,
    tmp_settings: Any,
) -> None:
    store = open_store(tmp_settings)
    try:
        ws = Workspace(store)
        study = ws.create_study("Aspirin and stroke")
        paper = ws.save_paper(
            make_paper(pmid="41000077", title="Aspirin in older adults", abstract=ABSTRACT),
            study=study.id,
        ).paper
    finally:
        store.dispose()
    pg = page
    pg.goto(f"{running.base}/study/{study.id}")
    pg.locator("#form-link").click()
    pg.locator("html[data-ready]").wait_for(state="attached")
    assert "the default: no form chosen yet" in pg.locator("main").inner_text()
    _shot(pg, tmp_path, "form-default")
    pg.locator("#tpl").select_option("pico")
    pg.locator("#template-form button[type=submit]").click()
    pg.locator("#field-effect_measure").wait_for()
    text = pg.locator("main").inner_text()
    assert "PICO/PECO (health questions)" in text and "revision 1" in text
    assert "Odds ratio" in text
    _shot(pg, tmp_path, "form-pico")
    pg.goto(f"{running.base}/paper/{paper.id}?study={study.id}")
    pg.locator("html[data-ready]").wait_for(state="attached")
    pg.locator("#evidence summary", has_text="Record evidence").click()
    assert "Aspirin and stroke" in pg.locator("#ev-study-choice").inner_text()
    assert pg.locator("#ev-study").input_value() == study.id  # the form's Study field
    pg.locator("#ev-population").fill("adults over 60")
    pg.locator("#ev-outcome").fill("stroke")
    pg.locator("#ev-study_design").select_option("Randomised controlled trial")
    pg.locator("#ev-sample_size").fill("1204")
    pg.locator("#ev-effect_measure").select_option("Odds ratio")
    pg.locator("#ev-effect_value").fill("0.82")
    pg.locator("#ev-passage").fill("aspirin lowered stroke risk")
    pg.locator("#evidence-form button[type=submit]").click()
    card = pg.locator("#evidence .card").first
    card.wait_for()
    shown = card.inner_text()
    assert "Sample size" in shown and "1204" in shown and "Odds ratio" in shown
    assert "aspirin lowered stroke risk" in shown and "check: ok" in shown
    assert f"study={study.id}" in pg.url  # still recording for the Study
    _shot(pg, tmp_path, "reader-pico")
    # a refused value says which field
    pg.locator("#evidence summary", has_text="Record evidence").click()
    pg.locator("#ev-population").fill("x")
    pg.locator("#ev-outcome").fill("y")
    pg.locator("#ev-sample_size").fill("a dozen")
    pg.locator("#ev-passage").fill("aspirin lowered stroke risk")
    pg.locator("#evidence-form button[type=submit]").click()
    message = pg.locator("#ev-message")
    message.wait_for()
    said = message.inner_text()  # the field by its label, as the form shows it (not its key)
    assert "Sample size: a number expected" in said and "sample_size" not in said
    pg.goto(f"{running.base}/evidence?study={study.id}")
    pg.locator("html[data-ready]").wait_for(state="attached")
    head = pg.locator("table.evidence thead").inner_text()
    assert "Population" in head and "95% CI upper" in head and "Finding" not in head
    assert "1204" in pg.locator("table.evidence tbody").inner_text()
    _shot(pg, tmp_path, "evidence-pico")
    # the Study field: choosing "no Study" shows the default form for paper-level evidence
    pg.goto(f"{running.base}/paper/{paper.id}?study={study.id}")
    pg.locator("html[data-ready]").wait_for(state="attached")
    pg.locator("#evidence summary", has_text="Record evidence").click()
    pg.locator("#ev-study").select_option("")
    pg.wait_for_url(lambda url: "study=" not in url)
    pg.locator("html[data-ready]").wait_for(state="attached")
    assert pg.locator("#ev-finding").count() == 1 and pg.locator("#ev-outcome").count() == 0
    assert pg.locator("#ev-study").input_value() == ""
    # the one refused value (its 400 answer) is the only error the browser logged
    assert len(pg.console_errors) == 1 and "400" in pg.console_errors[0]
