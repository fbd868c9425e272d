"""The web's "Keep this search" (issue 28): the kept run's hits are the Study's papers at
once — the Study page, its API and the working set count the same papers as the records to
screen — and keeping it again (the JSON twin) adds nothing."""

from __future__ import annotations

import html
import re

from tests.faces.web._server import Running


def _value(page: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]+)"', page)
    assert found, f"no {name}"
    return html.unescape(found.group(1))


def test_keep_this_search_makes_its_hits_the_studys_papers(running: Running) -> None:
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Tumour growth"}).json()["id"]
        found = c.get("/search", params={"q": "tumour growth", "study": sid}).text
        run_id = _value(found, "run_id")
        kept = c.post(f"/runs/{run_id}/save", data={"study": sid}, follow_redirects=False)
        hits = c.get(f"/api/v1/runs/{run_id}/export", params={"format": "json"}).json()
        hits = hits["run"]["hits"]
        page = c.get(f"/study/{sid}").text
        first = c.get(f"/api/v1/studies/{sid}").json()
        again = c.post(f"/api/v1/runs/{run_id}/save", json={"study": sid})
        after = c.get(f"/api/v1/studies/{sid}").json()
    assert kept.status_code == 303 and kept.headers["location"] == f"/study/{sid}#runs"
    unique = {h["paper"]["id"] for h in hits}
    assert len(unique) > 1
    assert first["papers_total"] == len(unique)  # before: 0 papers beside the kept run
    assert first["working_set"]["records_identified"] >= len(unique)
    assert first["working_set"]["studies"] == first["papers_total"]
    assert {p["id"] for p in first["papers"]} == unique
    assert f"{len(unique)} papers" in page
    assert again.status_code == 200 and again.json()["papers_total"] == len(unique)
    assert after["papers_total"] == len(unique) and after["search_runs"] == [run_id]
