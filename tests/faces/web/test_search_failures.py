"""A search whose every lane failed is not a 200: 429 when a lane was rate limited (or its
allowance spent), 503 when the providers were unavailable, 422 when every lane refused the
query — with ``Retry-After`` from the first lane that gave one; partial failures stay 200."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.faces.web._server import Running, epmc_body, epmc_record, write_cassette


def _record(folder: Path, query: str, status: int, headers: dict[str, str]) -> None:
    """Every lane of ``query`` answers ``status`` with ``headers``."""
    write_cassette(folder, query, b'{"error": "no"}', status=status, headers=headers)


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    folder = tmp_path / "cassette"
    _record(folder, "busy topic", 429, {"retry-after": "30"})
    _record(folder, "down topic", 503, {})
    write_cassette(folder, "fine topic", epmc_body([epmc_record(1)]))
    return folder


def test_every_lane_failed_is_429_or_503_with_retry_after(running: Running) -> None:
    with running.client() as c:
        busy = c.get("/api/v1/search", params={"q": "busy topic"})
        busy_page = c.get("/search", params={"q": "busy topic"})
        down = c.get("/api/v1/search", params={"q": "down topic"})
        refused = c.get("/api/v1/search", params={"q": "AUTH_LAST:x", "provider": "openalex"})
        fine = c.get("/api/v1/search", params={"q": "fine topic"})
    assert busy.status_code == 429, busy.text
    assert 0 < int(busy.headers["retry-after"]) <= 30
    assert busy.json()["all_failed"] is True
    assert busy_page.status_code == 429 and "No database answered with results" in busy_page.text
    assert "retry-after" in busy_page.headers
    assert down.status_code == 503 and "retry-after" not in down.headers
    assert (
        refused.status_code == 422 and refused.json()["run"]["lanes"][0]["status"] == "unsupported"
    )
    assert fine.status_code == 200 and fine.json()["all_failed"] is False
