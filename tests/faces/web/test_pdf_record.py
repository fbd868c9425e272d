"""A library PDF as a paper through the web (issue 32): the PDF's record page and its JSON
twins against the app with real library PDFs ($LITDESK_FIXTURES/pdf) — the description
read from the PDF with how sure, a correction kept and shown as "confirmed by you" (a bad
value shows the form again with what was entered), writes refused without the Origin,
a PDF attached to a saved paper from the page, then read from the saved list and the
Study's page; the report wizard's Study scope. One browser flow."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._hosting import Hosting
from tests.faces.web._page_checks import AXE, axe_violations, sideways_scroll
from tests.faces.web._server import Running

from litdesk.faces.web import create_app

pytestmark = pytest.mark.fixtures

SPECTER = "SPECTER: Document-level Representation Learning using Citation-informed Transformers"
SPECTER_PDF = "acl_2020_main_207_specter.pdf"
HINDAWI_PDF = "hindawi_rrp_2010_157939.pdf"
RIS = (
    "TY  - CONF\nTI  - " + SPECTER + "\nAU  - Cohan, Arman\nAU  - Feldman, Sergey\n"
    "PY  - 2020\nER  - \n"
)


@pytest.fixture
def running(
    tmp_settings: Any, cassette: Path, tmp_path: Path, hosting: Hosting, fixtures_dir: Path
) -> Iterator[Running]:
    library = tmp_path / "pdfs"
    library.mkdir()
    for name in (HINDAWI_PDF, SPECTER_PDF):
        shutil.copyfile(fixtures_dir / "pdf" / name, library / name)
    settings = tmp_settings.model_copy(update={"library_dirs": [library], "llm_backend": "none"})
    app = create_app(settings, host=hosting.host, port=hosting.port, replay=cassette)
    with hosting.serve(app) as transport:
        yield Running(
            hosting.base, hosting.host, hosting.port, cassette, tmp_path / "data", transport
        )


def _study(c: Any) -> tuple[str, str]:
    """A Study holding the SPECTER paper (imported from RIS: no identifier)."""
    sid = c.post("/api/v1/studies", json={"name": "Citation embeddings"}).json()["id"]
    files = [("files", ("refs.ris", RIS.encode(), "application/x-research-info-systems"))]
    assert c.post("/api/v1/imports", params={"study": sid}, files=files).status_code == 200
    [paper] = c.get(f"/api/v1/studies/{sid}").json()["papers"]
    return sid, paper["id"]


def _sha(c: Any, name: str) -> str:
    files = c.get("/api/v1/library").json()["files"]
    return next(f["sha256"] for f in files if f["file"] == name)


def test_record_api_and_form(running: Running) -> None:
    with running.client() as plain:
        paths = plain.get("/api/v1/openapi.json").json()["paths"]
        for path in ("record", "attach", "paper"):
            assert f"/api/v1/library/pdf/{{sha}}/{path}" in paths, path
        sha = "0" * 64
        assert (
            plain.post(f"/api/v1/library/pdf/{sha}/record", json={"title": "x"}).status_code == 403
        )
    with running.writer() as c:
        assert c.get(f"/api/v1/library/pdf/{'0' * 64}/record").status_code == 404
        sha = _sha(c, HINDAWI_PDF)
        got = c.get(f"/api/v1/library/pdf/{sha}/record").json()
        title = next(f for f in got["fields"] if f["name"] == "title")
        assert title["source"] == "read from the PDF" and title["confidence"] > 0

        # the form: a bad DOI shows the form again (400) with what was entered, nothing kept
        form = {"csrf_token": c.headers["x-csrf-token"], "title": "My <b>title</b>",
                "authors": "Tully, Nuala\nMorgan, Karen", "year": "2010", "doi": "nonsense"}  # fmt: skip
        bad = c.post(f"/library/pdf/{sha}/record", data=form)
        assert bad.status_code == 400 and "is not a DOI" in bad.text
        assert 'value="My &lt;b&gt;title&lt;/b&gt;"' in bad.text  # kept, escaped
        assert c.get(f"/api/v1/library/pdf/{sha}/record").json()["confirmed"] is None
        good = c.post(f"/library/pdf/{sha}/record", data=form | {"doi": "10.1155/2010/157939"})
        assert good.status_code == 200 and "confirmed by you" in good.text
        kept = c.get(f"/api/v1/library/pdf/{sha}/record").json()
        assert kept["confirmed"]["title"] == "My <b>title</b>"
        assert kept["confirmed"]["authors"] == ["Tully, Nuala", "Morgan, Karen"]

        # saved as a paper, in a Study: the Study is then a report scope
        sid = c.post("/api/v1/studies", json={"name": "Heart"}).json()["id"]
        made = c.post(f"/api/v1/library/pdf/{sha}/paper", json={"study": sid}).json()
        assert made["paper"]["title"] == "My <b>title</b>" and made["linked_in"] == [sid]
        plan = c.post(
            "/api/v1/reports/plan", json={"study": sid, "questions": ["What was found?"]}
        ).json()
        assert plan["papers"] == 1
        both = c.post(
            "/api/v1/reports/plan",
            json={"study": sid, "whole_library": True, "questions": ["q?"]},
        )
        assert both.status_code == 400


@pytest.fixture
def page(browser: Any):
    context = browser.new_context(viewport={"width": 375, "height": 800})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))  # type: ignore[attr-defined]
    yield pg
    context.close()


@pytest.mark.slow
def test_browser_confirm_attach_and_read_from_the_saved_list(page: Any, running: Running) -> None:
    with running.writer() as c:
        sid, paper_id = _study(c)
    pg = page
    pg.goto(f"{running.base}/library")
    pg.get_by_role("link", name=SPECTER_PDF).click()
    pg.locator("#record-fields").wait_for()
    fields = pg.locator("#record-fields").inner_text()
    assert "read from the PDF" in fields and "% sure" in fields
    assert sideways_scroll(pg) == []
    assert axe_violations(pg, AXE) == []  # trims long lists: the page is reloaded below
    pg.reload()

    # correct the year and confirm: the page says it is the person's now
    pg.get_by_label("Year").fill("2020")
    pg.get_by_label("Venue (journal or conference)").fill("ACL 2020")
    pg.get_by_role("button", name="Confirm this description").click()
    pg.locator("#record-changed").wait_for()
    assert "confirmed by you" in pg.locator("#record-fields").inner_text()
    assert "ACL 2020" in pg.locator("[data-field=venue]").inner_text()

    # the Study's paper is offered by its title; attach it
    pg.get_by_role("button", name=f"Attach this PDF to {SPECTER}").click()
    pg.locator("#paper-link").wait_for()
    assert "Citation embeddings" in pg.locator("#record-studies").inner_text()

    # one object: the paper's page, the saved list and the Study page read the PDF
    pg.goto(f"{running.base}/paper/{paper_id}")
    assert (
        pg.locator("#reader-pdf").get_attribute("href", timeout=5_000).startswith("/library/pdf/")
    )
    pg.goto(f"{running.base}/saved")
    pg.get_by_role("link", name=f"Read the PDF of {SPECTER}").click()
    pg.locator("#pdf-page").wait_for()
    assert SPECTER_PDF in pg.locator("h1").inner_text()
    pg.goto(f"{running.base}/study/{sid}")
    assert pg.get_by_role("link", name=f"Read the PDF of {SPECTER} ({SPECTER_PDF})").count() == 1
    assert pg.console_errors == []
