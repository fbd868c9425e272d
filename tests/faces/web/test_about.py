"""The About page and its JSON twin: every provider's terms (URL, data licence, date read)
and the offline vocabularies' terms; PRISMA-S lists the terms of each database searched."""

from __future__ import annotations

from tests.faces.web._server import Running

from litdesk.core.providers import PROVIDER_SPECS, PROVIDERS


def test_every_provider_declares_its_terms() -> None:
    for spec in PROVIDER_SPECS.values():
        assert spec.terms is not None, spec.name
        assert spec.terms.url.startswith("https://") and spec.terms.data_licence
        assert len(spec.terms.read) == 10 and spec.terms.read[4] == "-"


def test_about_page_and_api(running: Running) -> None:
    with running.client() as c:
        data = c.get("/api/v1/about").json()
        page = c.get("/about")
        search = c.get("/api/v1/search", params={"q": "tumour growth"}).json()
        prisma = None
        with running.writer() as w:
            study = w.post("/api/v1/studies", json={"name": "Terms"}).json()
            w.post(f"/api/v1/runs/{search['run']['id']}/save", json={"study": study["id"]})
            prisma = w.get(
                f"/api/v1/runs/{search['run']['id']}/export", params={"format": "prisma-md"}
            ).text
    names = [p["name"] for p in data["providers"]]
    assert names == list(PROVIDERS)  # the demo sample is listed in the demo workspace only
    epmc = data["providers"][0]
    assert epmc["terms"]["url"] == "https://europepmc.org/Copyright"
    assert data["vocabularies"][0]["terms_url"].endswith("terms_and_conditions_mesh.html")
    assert page.status_code == 200 and "https://info.arxiv.org/help/api/tou.html" in page.text
    assert "Europe PMC: terms https://europepmc.org/Copyright (read 5 Dec 2026)" in prisma
    assert "OpenAlex: terms" not in prisma  # only the databases the search used
