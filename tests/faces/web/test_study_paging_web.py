"""The Study page and its API list the papers a page at a time (issue 34): the header
counts the whole Study, the pager says which papers these are and links Previous/Next, the
API keeps its fields and gains page/per_page; and ``litdesk study show --page``."""

from __future__ import annotations

import html
import re
from typing import Any

from tests.faces.web._server import Running
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.core.records import make_paper
from litdesk.faces.cli import app as cli
from litdesk.services.app import open_app_sync

N = 53  # one more page than the 50 a page shows, and a short last page


def _seed(tmp_settings: Any) -> str:
    with open_app_sync(tmp_settings) as app:  # the same store as the server's
        ws = app.workspace()
        sid = ws.create_study("Paged review").id
        papers = [make_paper(pmid=str(5000 + i), title=f"Trial number {i}") for i in range(N)]
        ws.save_papers(papers, study=sid)
    return sid


def _titles(page: str) -> set[str]:
    return set(re.findall(r"Trial number \d+", page))


def test_study_page_api_and_cli_page_the_papers(
    running: Running, tmp_settings: Any, monkeypatch: Any
) -> None:
    sid = _seed(tmp_settings)
    with running.client() as c:
        first = c.get(f"/study/{sid}").text
        second = c.get(f"/study/{sid}", params={"page": 2}).text
        bad = c.get(f"/study/{sid}", params={"page": 0})
        api = c.get(f"/api/v1/studies/{sid}").json()
        api2 = c.get(f"/api/v1/studies/{sid}", params={"page": 3, "per_page": 20}).json()
        too_many = c.get(f"/api/v1/studies/{sid}", params={"per_page": 10_000})
    assert re.search(r'id="count-papers">53<', first) and "53 papers" in first
    assert len(_titles(first)) == 50 and len(_titles(second)) == 3
    assert not _titles(first) & _titles(second)
    assert "papers 1–50 of 53" in first and "papers 51–53 of 53" in second
    nxt = re.search(r'<a href="([^"]+)" rel="next" id="papers-next">', first)
    assert nxt and html.unescape(nxt.group(1)) == f"/study/{sid}?page=2#papers-h"
    assert 'rel="prev"' not in first.split('id="papers-pager"')[1].split("</nav>")[0]
    assert 'id="papers-prev"' in second and 'id="papers-next"' not in second
    assert bad.status_code in (400, 422)
    assert (api["papers_total"], api["page"], api["pages"], len(api["papers"])) == (53, 1, 2, 50)
    assert {"id", "title", "year", "status"} <= set(api["papers"][0])  # the fields kept
    assert (api2["page"], api2["pages"], len(api2["papers"])) == (3, 3, 13)
    assert too_many.status_code in (400, 422)

    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    get_settings.cache_clear()  # the CLI builds its settings once per process
    try:
        out = CliRunner().invoke(cli, ["study", "show", "Paged review", "--page", "2"])
    finally:
        get_settings.cache_clear()
    assert out.exit_code == 0, out.output
    assert "53 papers" in out.output and len(_titles(out.output)) == 3
    assert "papers 51–53 of 53 (page 2 of 2)" in out.output
