"""The Study's history page says in words what happened to which record (issue 26): no
raw record ids (``ev-…``, ``note-…``) and no action codes on the page."""

from __future__ import annotations

import re
from typing import Any

from tests.faces.web._server import Running

from litdesk.core.records import make_paper
from litdesk.services.app import open_app_sync


def test_history_page_in_words(running: Running, tmp_settings: Any) -> None:
    with open_app_sync(tmp_settings) as app:  # the same store as the server's
        ws = app.workspace()
        sid = ws.create_study("Aspirin review").id
        paper = ws.save_paper(
            make_paper(pmid="101", title="Aspirin <b>trial</b>", abstract="It lowered the risk."),
            study=sid,
        ).paper
        ws.add_note(paper.id, highlight="lowered the risk", study=sid)
        ev = ws.add_evidence(
            paper.id, finding="Fewer strokes", passage="lowered", source="abstract", study=sid
        )
    with running.client() as c:
        page = c.get(f"/study/{sid}/history").text
    body = page.split('<table class="data history">')[1].split("</table>")[0]
    assert "Added an evidence record" in body and "Fewer strokes" in body
    assert "Highlight on Aspirin &lt;b&gt;trial&lt;/b&gt;: “lowered the risk”" in body
    assert ev.id not in page and not re.search(r"\b(ev|note)-[0-9a-f]{12,}", page)
    assert "evidence_added" not in body and "evidence added" not in body
