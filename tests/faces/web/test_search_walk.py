"""What a new user meets on the search page (the walk of issue walk9): a Boolean search over
several databases where one of them refuses the query (Crossref has no Boolean search) is
not told that databases "did not answer" — that one was never asked; and with no Study yet,
"Keep this search" says how to get one instead of offering an empty list to choose from;
"Add all results" of several databases does not promise the fused shortlist's count."""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr
from tests.faces.web._hosting import Hosting, client_for
from tests.faces.web._server import epmc_body, epmc_record, write_cassette

from litdesk import Settings
from litdesk.faces.web import create_app
from litdesk.services.app import open_app_sync

QUERY = "tumour AND growth"
PARAMS = {"q": QUERY, "provider": ["europepmc", "crossref"]}


def _serve(settings: Settings, folder: Path) -> tuple[dict[str, object], str]:
    hosting = Hosting.in_process()
    app = create_app(settings, host=hosting.host, port=hosting.port, replay=folder)
    with hosting.serve(app) as served, client_for(hosting.base, served, 30) as c:
        data = c.get("/api/v1/search", params=PARAMS).json()
        html = c.get("/search", params=PARAMS).text
    return data, html


def test_a_refused_lane_is_not_a_database_that_did_not_answer(
    tmp_settings: Settings, tmp_path: Path
) -> None:
    settings = tmp_settings.model_copy(update={"openalex_api_key": SecretStr("k-test-123456")})
    folder = tmp_path / "cassette"
    write_cassette(
        folder, QUERY, epmc_body([epmc_record(i) for i in range(1, 4)]), providers=["europepmc"]
    )
    data, html = _serve(settings, folder)
    statuses = {lane["lane"]: lane["status"] for lane in data["run"]["lanes"]}  # type: ignore[index]
    assert statuses == {"europepmc-keyword": "ok", "crossref-keyword": "unsupported"}
    assert data["partial_failure"] is True and data["only_refused"] is True
    assert "Some databases did not answer" not in html
    # the databases' legend is advice, not a state: with six ticked it said "none chosen"
    assert "none chosen" not in html and "leave all unticked for the mode" in html
    assert "Some databases cannot run this query" in html
    assert "Crossref has no Boolean search" in html  # the lane's own reason, in its box
    # no Study yet: no empty list to choose from, but the way to one
    assert 'id="keep-no-study"' in html and 'href="/studies"' in html
    assert 'action="/runs/' not in html
    with open_app_sync(settings) as app:
        app.workspace().create_study("Tumour growth review")
    _, html = _serve(settings, folder)
    assert 'id="keep-no-study"' not in html
    assert 'action="/runs/' in html and "Tumour growth review" in html
    # "all" of a search over several databases is each one's total (up to the cap), not
    # the run's fused shortlist (the walk's six databases: "Add all 139 results")
    assert "Add all results (each database" in html and "Add all 3 results" not in html
