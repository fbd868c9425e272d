"""The zotero.org import's result page says which items it asked for again: those the
last import had a problem with (a file zotero.org did not serve a moment), although they
did not change in Zotero (branch idxrace)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.faces.web._server import Running

pytestmark = pytest.mark.fixtures


def test_the_result_names_the_items_asked_again(
    running: Running, fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from functools import partialmethod

    from tests._zotero_server import ToLoopback
    from tests._zotero_web import WebServer, WebState

    from litdesk.services.zotero import ZoteroArea

    state = WebState.from_library(fixtures_dir / "zotero" / "zotero-6-papis")
    flaky = sorted(state.files)[0]
    parent = state.items[flaky]["data"]["parentItem"]
    kept = state.files.pop(flaky)
    with WebServer(state) as server:
        loop = ToLoopback(server.port)
        monkeypatch.setattr(
            ZoteroArea, "__init__", partialmethod(ZoteroArea.__init__, http_transport=loop)
        )
        with running.writer() as c:
            c.get("/zotero")
            form = {"csrf_token": c.cookies.get("ld_csrf"), "library": "users/123",
                    "api_key": "K" * 24, "study": "Papis", "pdfs": "true"}  # fmt: skip
            first = c.post("/zotero/import-web", data=form)
            assert first.status_code == 200, first.text
            assert 'id="zotero-problems"' in first.text and parent in first.text
            assert 'id="zotero-asked-again"' not in first.text
            state.files[flaky] = kept
            second = c.post("/zotero/import-web", data=form)
            assert second.status_code == 200, second.text
            assert 'id="zotero-asked-again"' in second.text
            assert "Asked again: 1 item with a problem at the last import" in second.text
            assert parent in second.text and 'id="zotero-problems"' not in second.text
            assert 'id="count-pdfs-new">1<' in second.text
