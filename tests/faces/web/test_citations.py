"""The citation browser's ``/api/v1/citations`` and ``/citations`` against a real server on
loopback answering OpenAlex from a cassette written here (tests/faces/web/_oa_citations.py),
and the key-needed refusal of a server with no OpenAlex key and no cassette."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._hosting import Hosting
from tests.faces.web._oa_citations import SHOWN_REF_TITLE, write_openalex
from tests.faces.web._server import Running

from litdesk.faces.web import create_app
from litdesk.services.citations import INCOMPLETE_NOTICE, OPENALEX_KEY_NEEDED


@pytest.fixture
def cassette(cassette: Path) -> Path:
    write_openalex(cassette)
    return cassette


def _ids(data: dict[str, Any]) -> list[str]:
    return [p["openalex_id"] for p in data["papers"]]


def test_references_paged_twenty_with_the_missing_noticed(running: Running) -> None:
    with running.client() as c:
        first = c.get("/api/v1/citations", params={"mode": "references", "ids": "OAX-W100"})
        assert first.status_code == 200, first.text
        data = first.json()
        assert data["total"] == 25 and data["per_page"] == 20 and data["has_more"] is True
        assert _ids(data) == [f"W{i}" for i in range(1, 21)]
        assert data["seeds"][0]["title"] == "Seed paper W100"
        assert INCOMPLETE_NOTICE in data["notices"] and data["truncated"] is False
        second = c.get(
            "/api/v1/citations", params={"mode": "references", "ids": "OAX-W100", "page": 2}
        ).json()
        assert _ids(second) == [f"W{i}" for i in range(21, 25)] and second["has_more"] is False
        assert any("1 of 5 works on this page were not returned" in n for n in second["notices"])


def test_citing_newest_first_and_truncated(running: Running) -> None:
    with running.client() as c:
        data = c.get("/api/v1/citations", params={"mode": "citing", "ids": "OAX-W100"}).json()
    assert _ids(data) == ["W51", "W50"]
    assert [p["year"] for p in data["papers"]] == [2025, 2023]
    assert data["total"] == 2_500 and data["truncated"] is True and data["has_more"] is True


def test_related_and_shared_referenced_by_n_of_m(running: Running) -> None:
    with running.client() as c:
        related = c.get("/api/v1/citations", params={"mode": "related", "ids": "W100"}).json()
        shared = c.get(
            "/api/v1/citations", params=[("mode", "shared"), ("ids", "W100"), ("ids", "W200")]
        ).json()
        one = c.get("/api/v1/citations", params={"mode": "shared", "ids": "W100"})
        six = c.get(
            "/api/v1/citations",
            params=[("mode", "shared")] + [("ids", f"W{i}") for i in range(1, 7)],
        )
    assert _ids(related) == ["W30", "W31"]
    assert _ids(shared) == ["W3", "W4"] and shared["seed_count"] == 2
    assert [p["shared_by"] for p in shared["papers"]] == [2, 2]
    assert one.status_code == 400 and one.json()["code"] == "citation_arguments"
    assert six.status_code == 422


def test_the_page_shows_counts_notices_and_provider_text_as_text(running: Running) -> None:
    with running.client() as c:
        html = c.get("/citations", params=[("mode", "shared"), ("ids", "W100"), ("ids", "W200")])
        truncated = c.get("/citations", params={"mode": "citing", "ids": "W100"}).text
        empty = c.get("/citations")
    assert html.status_code == 200
    assert "referenced by 2 of 2" in html.text
    assert "<script>window.__pwned" not in html.text
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;Reference W3" in html.text
    assert SHOWN_REF_TITLE not in html.text
    assert "can be incomplete" in html.text
    assert 'id="truncated"' in truncated and "Next page" in truncated
    assert empty.status_code == 200 and "Give one paper" in empty.text


@pytest.fixture
def keyless(tmp_settings: Any, tmp_path: Path, hosting: Hosting) -> Iterator[Running]:
    app = create_app(tmp_settings, host=hosting.host, port=hosting.port)  # no key, no cassette
    with hosting.serve(app) as served:
        yield Running(hosting.base, hosting.host, hosting.port, tmp_path, tmp_path / "data", served)


def test_no_openalex_key_is_a_clear_refusal_and_nothing_is_sent(keyless: Running) -> None:
    with keyless.client() as c:
        api = c.get("/api/v1/citations", params={"mode": "references", "ids": "W100"})
        html = c.get("/citations", params={"mode": "references", "ids": "W100"})
    assert api.status_code == 503
    assert api.json()["code"] == "openalex_key" and api.json()["message"] == OPENALEX_KEY_NEEDED
    assert html.status_code == 503 and "LITDESK_OPENALEX_API_KEY" in html.text
