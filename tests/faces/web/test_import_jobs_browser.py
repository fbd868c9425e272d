"""The Study page follows a large import's job (issue 17) in a real browser: the files are
answered 202 with the job, the page polls it to the end and shows the same report as a
synchronous import, without a script error or a CSP violation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._hosting import Hosting

from litdesk import Settings
from litdesk.faces.web import create_app

LENS = "bib/ris/citesource__20221207_gambling-harms_lens_49.ris"
ZOTERO = "bib/ris/asreview__pubmed_zotero.ris"


@pytest.fixture
def base(tmp_settings: Settings, cassette: Path, hosting: Hosting) -> Iterator[str]:
    settings = tmp_settings.model_copy(update={"web_import_job_bytes": 50_000})
    app = create_app(settings, host=hosting.host, port=hosting.port, replay=cassette)
    with hosting.serve(app):
        yield hosting.base


def test_the_study_page_follows_a_large_import_to_its_end(
    browser: Any, base: str, fixtures_dir: Path
) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    errors: list[str] = []
    pg.on("console", lambda m: m.type == "error" and errors.append(m.text))
    posted: list[int] = []
    pg.on(
        "response",
        lambda r: r.url.split("?")[0].endswith("/api/v1/imports") and posted.append(r.status),
    )
    try:
        pg.goto(base + "/studies")
        pg.locator("#s-name").fill("Gambling harms")
        pg.locator("form.create button").click()
        pg.locator("main h1").filter(has_text="Gambling harms").wait_for()
        pg.locator("html[data-ready]").wait_for(state="attached")
        pg.locator("#import-files").set_input_files(
            [
                {"name": "lens.ris", "mimeType": "text/plain", "buffer": (fixtures_dir / LENS).read_bytes()},
                {"name": "zotero.ris", "mimeType": "text/plain", "buffer": (fixtures_dir / ZOTERO).read_bytes()},
                {"name": "junk.txt", "mimeType": "text/plain", "buffer": b"nothing here"},
            ]
        )  # fmt: skip
        pg.locator("#import-report .notice.ok").first.wait_for()
        report = pg.locator("#import-report").inner_text()
        assert posted == [202]  # a job, followed to its end
        assert "lens.ris: ris" in report and "zotero.ris: ris" in report
        assert "junk.txt refused" in report
        # the Study's figures and papers follow the job's end without a reload (swap.js)
        pg.locator("#live").filter(has_text="Imported:").wait_for(state="attached")
        assert int(pg.locator("#count-papers").inner_text().replace(",", "")) > 0
        assert errors == []
    finally:
        context.close()
