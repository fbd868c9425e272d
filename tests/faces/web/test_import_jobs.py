"""A large import over ``POST /api/v1/imports`` on a team server (issue 17), on SQLite and
PostgreSQL: answered 202 with its job, watched with ``GET /api/v1/jobs/{id}`` until done,
its records in the Study; the job is the importer's (another account does not find it),
and a small import still answers within the request."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.faces.web._team import TeamServer, add_accounts, team_server
from tests.faces.web.test_team_auth import team_settings  # noqa: F401 - fixture re-export

from litdesk import Settings

LENS = "bib/ris/citesource__20221207_gambling-harms_lens_49.ris"
ZOTERO = "bib/ris/asreview__pubmed_zotero.ris"


@pytest.fixture
def server(team_settings: Settings, cassette: Path) -> Iterator[TeamServer]:  # noqa: F811
    settings = team_settings.model_copy(update={"web_import_job_bytes": 50_000})
    add_accounts(settings, "ana", "bob")
    with team_server(settings, cassette) as running:
        yield running


def _watch(c: httpx.Client, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        r = c.get(f"/api/v1/jobs/{job_id}")
        assert r.status_code == 200, r.text
        if r.json()["status"] not in ("queued", "running"):
            return dict(r.json())
        time.sleep(0.2)
    raise AssertionError("the import job did not end")


def test_a_large_import_is_a_job_watched_to_its_end(server: TeamServer, fixtures_dir: Path) -> None:
    lens = (fixtures_dir / LENS).read_bytes()
    zotero = (fixtures_dir / ZOTERO).read_bytes()
    with server.signed_in("ana") as ana, server.signed_in("bob") as bob:
        sid = ana.post("/api/v1/studies", json={"name": "Gambling harms"}).json()["id"]
        files = [("files", ("lens.ris", lens)), ("files", ("zotero.ris", zotero))]
        r = ana.post("/api/v1/imports", params={"study": sid}, files=files)
        assert r.status_code == 202, r.text
        job = r.json()["job"]
        assert job["kind"] == "imports.study" and job["status"] in ("queued", "running")
        assert bob.get(f"/api/v1/jobs/{job['id']}").status_code == 404  # ana's job only
        done = _watch(ana, job["id"])
        assert done["status"] == "done", done
        result = done["result"]
        assert result["study_id"] == sid and result["refused"] == []
        assert [i["file"] for i in result["imported"]] == ["lens.ris", "zotero.ris"]
        saved = sum(i["records_saved"] for i in result["imported"])
        assert saved > 0
        summary = ana.get(f"/api/v1/studies/{sid}").json()
        assert len(summary["imports"]) == 2 and len(summary["papers"]) > 0
        assert bob.get(f"/api/v1/jobs/{job['id']}").status_code == 404
        # bob may not write into ana's Study: refused before anything is stored
        r = bob.post("/api/v1/imports", params={"study": sid}, files=files)
        assert r.status_code == 404, r.text
        assert bob.get("/api/v1/jobs", params={"kind": "imports.study"}).json()["jobs"] == []
        # a small import answers within the request, as before
        small = ana.post(
            "/api/v1/imports", params={"study": sid}, files=[("files", ("zotero.ris", zotero))]
        )
        assert small.status_code == 200, small.text
        assert small.json()["imported"][0]["repeats_imports"]  # the same file again
