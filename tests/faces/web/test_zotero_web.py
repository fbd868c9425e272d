"""The Zotero page and its JSON twin: the form imports the real Zotero 6 directory (the
page shows the result), the API imports again (nothing duplicated); a write without its
Origin or CSRF token is refused; errors are shown beside the form."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.faces.web._server import Running

pytestmark = pytest.mark.fixtures


def test_zotero_page_form_and_api(running: Running, fixtures_dir: Path) -> None:
    data = str(fixtures_dir / "zotero" / "zotero-6-papis")
    with running.writer() as c:
        page = c.get("/zotero")
        assert page.status_code == 200 and 'id="zotero-form"' in page.text
        token = c.cookies.get("ld_csrf")
        form = {"csrf_token": token, "data_dir": data, "study": "Papis", "pdfs": "true"}
        done = c.post("/zotero/import", data=form)
        assert done.status_code == 200, done.text
        assert 'id="count-added">5<' in done.text and 'id="count-pdfs">4<' in done.text
        again = c.post("/api/v1/zotero/imports", json={"data_dir": data, "study": "Papis"})
        assert again.status_code == 200, again.text
        body = again.json()
        assert (body["added"], body["unchanged"], body["schema_version"]) == (0, 5, 121)
        missing = c.post("/zotero/import", data={**form, "data_dir": "/no/such/zotero"})
        assert missing.status_code == 404 and 'id="zotero-error"' in missing.text
        bad = c.post("/api/v1/zotero/imports", json={"data_dir": data, "study": " "})
        assert bad.status_code == 422 or bad.status_code == 400
    with running.client() as plain:  # no Origin, no CSRF token: refused before the route
        refused = plain.post("/api/v1/zotero/imports", json={"data_dir": data})
        assert refused.status_code == 403
