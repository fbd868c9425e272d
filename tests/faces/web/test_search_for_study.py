""" "Search for more" from a Study carries the Study (issue 34): the search page names it,
keeps it through new searches and pages, preselects it and offers "Add to this Study",
which adds the selected papers to that Study; a Study the account cannot add to is not
offered."""

from __future__ import annotations

import html
import re

from tests.faces.web._server import Running


def _value(page: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]+)"', page)
    assert found, f"no {name}"
    return html.unescape(found.group(1))


def test_search_for_more_adds_to_that_study(running: Running) -> None:
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Tumour <i>growth</i>"}).json()["id"]
        c.post("/api/v1/studies", json={"name": "Another review"}).raise_for_status()
        study = c.get(f"/study/{sid}").text
        more = re.search(r'<a class="btn" href="([^"]+)">Search for more</a>', study)
        assert more and html.unescape(more.group(1)) == f"/search?study={sid}"
        empty = c.get(html.unescape(more.group(1))).text
        found = c.get("/search", params={"q": "tumour growth", "study": sid}).text
        unknown = c.get("/search", params={"q": "tumour growth", "study": "no-such-study"}).text
        run_id = _value(found, "run_id")
        pick = re.findall(r'name="paper_ids" value="([^"]+)"', found)[:2]
        added = c.post(
            "/selection",
            data={
                "run_id": run_id,
                "action": "this_study",
                "paper_ids": pick,
                "for_study": _value(found, "for_study"),
                "study": "",
                "back": f"/search?q=tumour+growth&study={sid}",
            },
        )
        refused = c.post(
            "/selection", data={"run_id": run_id, "action": "this_study", "paper_ids": pick}
        )
        after = c.get(f"/api/v1/studies/{sid}").json()
    for page in (empty, found):
        notice = re.search(r'<p class="notice info" id="for-study">(.*?)</p>', page, re.S)
        assert notice and "Tumour &lt;i&gt;growth&lt;/i&gt;" in notice.group(1)
        assert f'<input type="hidden" name="study" value="{sid}">' in page  # the search form
    assert 'id="add-this-study"' in found and _value(found, "for_study") == sid
    assert f'<option value="{sid}" selected>' in found  # keep the run / add all: preselected
    nxt = re.search(r'<a href="([^"]+)" rel="next">', found)
    assert nxt and f"study={sid}" in html.unescape(nxt.group(1))  # the Study stays on paging
    assert 'id="for-study"' not in unknown and 'id="add-this-study"' not in unknown
    assert added.status_code == 200 and len(pick) == 2
    assert refused.status_code == 400
    assert after["papers_total"] == 2
