"""``/api/v1/strategy/build`` over real HTTP: the built query and per-provider outcomes,
typed refusals, and the write rules (exact Origin, CSRF) on it."""

from __future__ import annotations

from tests.faces.web._server import Running

from litdesk.core.search import PROVIDERS


def test_build_api(running: Running) -> None:
    with running.writer() as c:
        r = c.post(
            "/api/v1/strategy/build",
            json={
                "groups": [
                    {"terms": ["malaria", "plasmodium"]},
                    {"terms": ["vaccine"], "label": "V"},
                ]
            },
        )
        assert r.status_code == 200, r.text
        data = r.json()
        assert data["query"] == '("malaria" OR "plasmodium") AND "vaccine"'
        assert list(data["providers"]) == list(PROVIDERS)
        assert "refused" in data["providers"]["crossref"]
        assert data["providers"]["europepmc"]["url"].startswith("https://www.ebi.ac.uk/")

        r = c.post("/api/v1/strategy/build", json={"groups": [{"terms": ["a"]}] * 7})
        assert r.status_code == 400
        assert r.json()["code"] == "groups"
        r = c.post("/api/v1/strategy/build", json={"groups": [{"terms": ["x" * 161]}]})
        assert r.status_code == 400 and r.json()["code"] == "length"
        r = c.post("/api/v1/strategy/build", json={"groups": [{"terms": ["x"] * 21}]})
        assert r.status_code == 422  # beyond the request model's bound


def test_build_api_needs_origin_and_csrf(running: Running) -> None:
    body = {"groups": [{"terms": ["malaria"]}]}
    with running.client() as c:
        assert c.post("/api/v1/strategy/build", json=body).status_code == 403
    with running.client(headers={"origin": running.base}) as c:
        r = c.post("/api/v1/strategy/build", json=body)
        assert r.status_code == 403 and r.json()["code"] == "csrf"
