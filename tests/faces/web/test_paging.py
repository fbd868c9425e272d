"""Provider-order paging on the search page: Next carries a cursor bound to its run and the
cursor history, Previous goes back through it; a provider's raw cursor is not accepted, and
a bound cursor replayed in another search is refused (issue 33)."""

from __future__ import annotations

import html
import re

from tests.faces.web._server import Running


def _link(page: str, rel: str) -> str:
    found = re.search(rf'<a href="([^"]+)" rel="{rel}">', page)
    assert found, f"no {rel} link"
    return html.unescape(found.group(1))


def test_next_then_previous(running: Running) -> None:
    with running.client() as c:
        first = c.get("/search", params={"q": "tumour growth"}).text
        nxt = _link(first, "next")
        assert "cursor=run." in nxt and "history=" in nxt and 'rel="prev"' not in first
        second = c.get(nxt)
        assert second.status_code == 200 and "study number 20" in second.text
        back = _link(second.text, "prev")
        assert "cursor=" not in back  # the page before is the first page
        again = c.get(back).text
        assert again.count('<li class="card') == 7
        raw = c.get("/search", params={"q": "tumour growth", "cursor": "AoE/next=="})
        api_raw = c.get("/api/v1/search", params={"q": "tumour growth", "cursor": "AoE/next=="})
        token = re.search(r"cursor=(run\.[A-Za-z0-9_-]+)", nxt)
        assert token
        other = c.get("/api/v1/search", params={"q": "other topic", "cursor": token.group(1)})
    assert raw.status_code in (400, 422) and api_raw.status_code in (400, 422)
    assert other.status_code == 403 and other.json()["code"] == "cursor_refused"


def test_export_this_page_leaves_conflicts_out(running: Running) -> None:
    with running.writer() as c:
        data = c.get("/api/v1/search", params={"q": "tumour growth"}).json()
        run_id = data["run"]["id"]
        form = c.post("/selection", data={"run_id": run_id, "action": "page_ris", "page": "1"})
        api = c.get("/api/v1/selection/page-ris", params={"run_id": run_id})
        other = c.get("/api/v1/selection/page-ris", params={"run_id": "not-a-run"})
    clean = [card for card in data["cards"] if not card["conflicts"]]
    assert form.status_code == 200 and form.text.count("ER  -") == len(clean) > 0
    assert api.text == form.text
    assert "page.ris" in form.headers["content-disposition"]
    assert other.status_code == 404
