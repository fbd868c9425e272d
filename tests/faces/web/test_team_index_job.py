"""The shared library's index job on a team server, on SQLite and PostgreSQL (issue 17):
ana's upload starts it; bob, who did not start it, gets the same job from his own start
or upload, watches its progress on the library page and through ``/api/v1/jobs/<id>``
(state and counts, not its owner, parameters, message or result) and cannot cancel it.
No job worker runs here (``jobs_worker_slots=0``), so the job stays queued throughout."""

from __future__ import annotations

from pathlib import Path

from tests.faces.web._library import make_pdfs
from tests.faces.web._team import add_accounts, team_server
from tests.faces.web.test_team_auth import team_settings  # noqa: F401 - fixture re-export

from litdesk import Settings


def _upload(client, pdf: Path):  # type: ignore[no-untyped-def]
    files = [("files", (pdf.name, pdf.read_bytes(), "application/pdf"))]
    return client.post("/api/v1/library/uploads", files=files)


def test_one_index_job_for_every_account_and_its_progress_only_for_the_others(
    team_settings: Settings,  # noqa: F811
    cassette: Path,
    tmp_path: Path,
) -> None:
    settings = team_settings.model_copy(update={"jobs_worker_slots": 0})
    add_accounts(settings, "ana", "bob")
    first, second = make_pdfs(tmp_path / "pdfs", 2, pages=1, stem="shared")
    with (
        team_server(settings, cassette) as running,
        running.signed_in("ana") as ana,
        running.signed_in("bob") as bob,
    ):
        r = _upload(ana, first)
        assert r.status_code == 200, r.text
        job = r.json()["job"]
        assert job["status"] == "queued" and job["owner"]  # ana's own view
        r = _upload(bob, second)  # bob's upload: the running job picks his file up
        assert r.status_code == 200, r.text
        seen = r.json()["job"]
        assert seen["id"] == job["id"]
        assert (seen["owner"], seen["params"], seen["result"]) == ("", {}, None)
        again = bob.post("/api/v1/library/index")
        assert again.status_code == 200 and again.json()["id"] == job["id"]
        polled = bob.get(f"/api/v1/jobs/{job['id']}")
        assert polled.status_code == 200 and polled.json()["status"] == "queued"
        assert polled.json()["owner"] == ""
        assert bob.get("/api/v1/library").json()["job"]["id"] == job["id"]
        page = bob.get("/library").text
        assert "(started by another account)" in page
        assert 'id="job-cancel" hidden' in page
        refused = bob.post(f"/api/v1/jobs/{job['id']}/cancel")
        assert refused.status_code == 404
        assert bob.get("/api/v1/jobs").json()["jobs"] == []  # his list stays his
        mine = ana.get(f"/api/v1/jobs/{job['id']}").json()
        assert mine["owner"] and mine["cancel_requested"] is False
        assert "(started by another account)" not in ana.get("/library").text
        assert ana.post(f"/api/v1/jobs/{job['id']}/cancel").json()["status"] == "cancelled"
        fresh = bob.post("/api/v1/library/index").json()
        assert fresh["id"] != job["id"] and fresh["owner"]  # now bob's own
