"""Evidence from a paper's PDF through the web (brief pdfev), against the app with a real
library PDF ($LITDESK_FIXTURES/pdf): the JSON API and the reader's form call the one
service method; a passage is checked on the page given (an altered quote refused with
the nearest text, one on another page refused naming it); the reader's form opens on
the page the PDF viewer showed; the evidence page and CSV say "From the PDF, page N
(checked)"; a write without the exact Origin is refused."""

from __future__ import annotations

import csv
import io
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._hosting import Hosting
from tests.faces.web._server import Running

from litdesk.faces.web import create_app
from litdesk.services.app import open_app_sync

pytestmark = pytest.mark.fixtures

HINDAWI_PDF = "hindawi_rrp_2010_157939.pdf"
ACROSS_LINES = "description of the patient's perspective on rehabilitation programmes"
REAL = "Fifteen participants took part, seven from the rural hospital and eight from the urban hospital."
ALTERED = REAL.replace("eight", "nine")
PAGE_ONE = "Structured rehabilitation programmes are effective in enabling patients"
LABEL = "From the PDF, page 2 (checked)"


@pytest.fixture
def running(
    tmp_settings: Any, cassette: Path, tmp_path: Path, hosting: Hosting, fixtures_dir: Path
) -> Iterator[Running]:
    library = tmp_path / "pdfs"
    library.mkdir()
    shutil.copyfile(fixtures_dir / "pdf" / HINDAWI_PDF, library / HINDAWI_PDF)
    settings = tmp_settings.model_copy(update={"library_dirs": [library], "llm_backend": "none"})
    app = create_app(settings, host=hosting.host, port=hosting.port, replay=cassette)
    with hosting.serve(app) as transport:
        yield Running(
            hosting.base, hosting.host, hosting.port, cassette, tmp_path / "data", transport
        )


def _paper(c: Any) -> tuple[str, str, str]:
    """A Study and the paper made from the Hindawi PDF (so the PDF is attached)."""
    files = c.get("/api/v1/library").json()["files"]
    sha = next(f["sha256"] for f in files if f["file"] == HINDAWI_PDF)
    sid = c.post("/api/v1/studies", json={"name": "Heart failure"}).json()["id"]
    made = c.post(f"/api/v1/library/pdf/{sha}/paper", json={"study": sid})
    assert made.status_code == 200, made.text
    return sid, made.json()["paper"]["id"], sha


def test_pdf_evidence_over_the_api_and_the_reader_form(running: Running) -> None:
    with running.writer() as c:
        sid, pid, sha = _paper(c)
        body = {"finding": "Perspective missing", "source": "pdf", "page": 2, "pdf": sha,
                "study": sid, "passage": ACROSS_LINES}  # fmt: skip
        ok = c.post(f"/api/v1/papers/{pid}/evidence", json=body)
        assert ok.status_code == 200, ok.text
        [rec] = ok.json()["evidence"]
        assert (rec["source"], rec["verification"], rec["recheck"]) == ("pdf", "checked", "ok")
        assert rec["pdf"] == {"sha256": sha, "file": HINDAWI_PDF, "page": 2}
        assert rec["source_label"] == LABEL

        altered = c.post(f"/api/v1/papers/{pid}/evidence", json=body | {"passage": ALTERED})
        assert altered.status_code == 403, altered.text
        said = altered.json()
        assert said["code"] == "quote_not_found" and "page 2 of" in said["message"]
        assert "eight from the urban hospital" in said["message"]  # the nearest text
        other = c.post(f"/api/v1/papers/{pid}/evidence", json=body | {"passage": PAGE_ONE})
        assert other.status_code == 403 and other.json()["code"] == "other_page"
        assert "it is on page 1" in other.json()["message"]
        no_page = c.post(f"/api/v1/papers/{pid}/evidence", json=body | {"page": None})
        assert no_page.status_code == 400 and no_page.json()["code"] == "no_page"
        assert len(c.get(f"/api/v1/papers/{pid}").json()["evidence"]) == 1  # nothing else

        # the PDF viewer offers the page it shows to the reader's form, which opens on it
        viewer = c.get(f"/library/pdf/{sha}", params={"page": 2, "paper": pid})
        assert "Record evidence from page 2" in viewer.text
        reader = c.get(f"/paper/{pid}", params={"pdf_page": 2, "passage": REAL})
        assert reader.status_code == 200
        assert 'id="ev-src-pdf" checked' in reader.text
        assert (
            'id="ev-page" name="page" type="number" min="1" max="2000" inputmode="numeric" value="2"'
            in reader.text
        )
        assert f">{REAL}</textarea>" in reader.text

        # opened from a Study, the reader's "Read the PDF" keeps the Study through the
        # viewer's pages, and its "Record evidence from page N" records for that Study
        in_study = c.get(f"/paper/{pid}", params={"study": sid}).text
        assert f'href="/library/pdf/{sha}?paper={pid}&amp;study={sid}"' in in_study
        viewer = c.get(f"/library/pdf/{sha}", params={"page": 2, "paper": pid, "study": sid})
        assert f'href="/paper/{pid}?pdf_page=2&amp;study={sid}#evidence"' in viewer.text
        assert f"page=3&amp;zoom=100&amp;paper={pid}&amp;study={sid}" in viewer.text  # next
        assert f'name="study" value="{sid}"' in viewer.text  # the zoom form keeps it
        from_viewer = c.get(f"/paper/{pid}", params={"pdf_page": 2, "study": sid}).text
        assert "Record for the Study <strong>Heart failure</strong>" in from_viewer
        assert f'<option value="{sid}" selected>Heart failure</option>' in from_viewer
        form = {"csrf_token": c.headers["x-csrf-token"], "source": "pdf", "page": "2",
                "pdf": sha, "study": sid, "passage": REAL, "field.finding": "15 people",
                "block": "", "snapshot": "", "location": ""}  # fmt: skip
        posted = c.post(f"/paper/{pid}/evidence", data=form)
        assert posted.status_code == 303, posted.text
        refused = c.post(f"/paper/{pid}/evidence", data=form | {"passage": ALTERED})
        assert refused.status_code == 403 and "nearest text" in refused.text

        table = c.get("/evidence", params={"study": sid})
        assert table.text.count(LABEL) == 2
        rows = list(
            csv.DictReader(
                io.StringIO(c.get("/api/v1/evidence/export", params={"study": sid}).text)
            )
        )
        assert [r["location"] for r in rows] == [LABEL, LABEL]
        assert {r["pdf_sha256"] for r in rows} == {sha} and {r["pdf_page"] for r in rows} == {"2"}

    with running.client() as plain:  # no Origin: refused before anything is read
        body = {"finding": "f", "source": "pdf", "page": 2, "passage": REAL}
        assert plain.post(f"/api/v1/papers/{pid}/evidence", json=body).status_code == 403


def test_a_page_with_another_source_is_refused_by_the_api_and_ignored_by_the_form(
    running: Running,
) -> None:
    """The API refuses a ``page`` (or ``pdf``) sent with a source other than the PDF: a
    client that sent one meant a PDF passage, and dropping it would record the passage
    unchecked. The reader's form ignores them (its page field stays filled with the page the
    viewer showed when the person switches to another source)."""
    with running.writer() as c:
        sid, pid, sha = _paper(c)
        body = {"finding": "External", "source": "external", "location": "Table 2",
                "study": sid, "passage": REAL}  # fmt: skip
        for extra in ({"page": 2}, {"pdf": sha}):
            refused = c.post(f"/api/v1/papers/{pid}/evidence", json=body | extra)
            assert refused.status_code == 422, refused.text
            said = refused.json()
            assert said["code"] == "validation", said
            assert 'go with source "pdf"' in said["message"]
            assert 'not with source "external"' in said["message"]
            # the hint keeps the message's own words (before: lowercased, "a pdf")
            assert 'Page: a page and a PDF go with source "pdf"' in said["hint"] or (
                'Pdf: a page and a PDF go with source "pdf"' in said["hint"]
            ), said["hint"]
        assert c.get(f"/api/v1/papers/{pid}").json()["evidence"] == []  # nothing recorded
        form = {"csrf_token": c.headers["x-csrf-token"], "source": "external", "page": "2",
                "pdf": sha, "location": "Table 2", "study": sid, "passage": REAL,
                "field.finding": "External", "block": "", "snapshot": ""}  # fmt: skip
        posted = c.post(f"/paper/{pid}/evidence", data=form)
        assert posted.status_code == 303, posted.text
        [rec] = c.get(f"/api/v1/papers/{pid}").json()["evidence"]
        assert rec["source"] == "external" and "pdf" not in rec, rec


@pytest.mark.slow
def test_browser_reader_form_with_the_viewers_page_and_another_source(
    browser: Any, running: Running, tmp_settings: Any
) -> None:
    """The reader opened from the PDF viewer has its page (and the PDF) filled; the person
    picks "External" instead: the form (which the reader's script posts to the API) leaves
    the page and the PDF out, and the evidence is recorded, not refused."""
    with running.writer() as c:
        sid, pid, _ = _paper(c)

    def with_an_abstract() -> None:  # the reader's script runs where there is text to read
        with open_app_sync(tmp_settings) as app:  # the same store as the server's
            ws = app.workspace()
            with ws.transaction() as conn:
                ws.update_paper_in(conn, ws.paper(pid).paper.model_copy(update={"abstract": REAL}))

    with ThreadPoolExecutor(1) as pool:  # outside the browser's event loop
        pool.submit(with_an_abstract).result()
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    try:
        pg = context.new_page()
        pg.goto(f"{running.base}/paper/{pid}?pdf_page=2&study={sid}")
        pg.locator("#ev-src-external").wait_for(state="attached")
        assert pg.locator("#highlight-form").count() == 1  # the script posts the form
        assert pg.locator("#ev-page").input_value() == "2"
        if not pg.locator("#ev-passage").is_visible():  # the form folded in its details
            pg.locator("#evidence-form").locator("xpath=ancestor::details/summary").click()
        pg.fill("#ev-passage", REAL)
        pg.fill("#ev-finding", "15 people")
        pg.check("#ev-src-external")
        pg.fill("#ev-location", "Table 1")
        with pg.expect_response(lambda r: r.url.endswith(f"/api/v1/papers/{pid}/evidence")) as r:
            pg.click("#evidence-form button[type=submit]")
        assert r.value.status == 200, r.value.text()
        # the page then loads itself again at its evidence to show the new card (the viewer's
        # page is not in its address): closed only once it has (CI twice waited in
        # context.close() with that navigation under way)
        pg.wait_for_url("**#evidence")
        pg.locator("#evidence-list", has_text="15 people").wait_for()
        pg.locator("html[data-ready]").wait_for(state="attached")
    finally:
        context.close()
    with running.writer() as c:
        [rec] = c.get(f"/api/v1/papers/{pid}").json()["evidence"]
        assert (rec["source"], rec["location"]) == ("external", "Table 1") and "pdf" not in rec
