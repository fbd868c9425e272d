"""Per-account caps on queued work on a team server (issue 29), on both databases: past
``jobs_max_active_per_account`` a new job of any kind is refused with 429 and a typed
code, while another account queues as before; and the imports' memory budget refuses an
import that finds no room (429) and lets it through once the room is back."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.faces.web._team import TeamServer, add_accounts, team_server
from tests.faces.web.test_team_auth import team_settings

from litdesk import Settings

__all__ = ["team_settings"]


@pytest.fixture
def capped(team_settings: Settings, cassette: Path) -> Iterator[TeamServer]:
    settings = team_settings.model_copy(
        update={
            "jobs_max_active_per_account": 2,
            "jobs_worker_slots": 0,  # nothing runs: the queue only fills
            "import_memory_budget_mb": 16,
            "import_wait_seconds": 0.2,
        }
    )
    add_accounts(settings, "ana", "bob")
    with team_server(settings, cassette) as running:
        yield running


def _study(c: object, name: str) -> str:
    import httpx

    assert isinstance(c, httpx.Client)
    r = c.post("/api/v1/studies", json={"name": name})
    assert r.status_code in (200, 201), r.text
    return str(r.json()["id"])


def test_a_full_queue_is_refused_with_429_for_that_account_only(capped: TeamServer) -> None:
    with capped.signed_in("ana") as ana, capped.signed_in("bob") as bob:
        ids = [_study(ana, f"S{i}") for i in range(3)]
        for sid in ids[:2]:
            r = ana.post(f"/api/v1/studies/{sid}/fulltext/check")
            assert r.status_code == 202, r.text
        r = ana.post(f"/api/v1/studies/{ids[2]}/fulltext/check")
        assert r.status_code == 429, r.text
        assert r.json()["code"] == "too_many_jobs" and "at most 2" in r.json()["message"]
        page = ana.post(f"/study/{ids[2]}/fulltext/check", follow_redirects=False)
        assert page.status_code == 429 and "at most 2" in page.text
        mine = _study(bob, "B")
        assert bob.post(f"/api/v1/studies/{mine}/fulltext/check").status_code == 202


def test_screening_retrains_count_against_the_study_owners_cap(capped: TeamServer) -> None:
    """Red team: a Study's retrain job is owned by the Study (one active per Study and
    stage) and was charged to it too, so every Study was an account of its own: bob's
    twelve Studies queued twelve retrains, uncapped, ahead of ana's (her model waited
    10.7 s instead of 0.5 s). Charged to the Study's owner, bob's third Study's decision
    is recorded but its retrain is not queued (the scores in force stay), bob's Studies
    hold at most his cap, and ana's retrain, in her own Study, still queues."""
    from tests.faces.web.test_screening_web import make_screening_study

    def decide(c: object, sid: str) -> dict[str, object]:
        import httpx

        assert isinstance(c, httpx.Client)
        api = f"/api/v1/studies/{sid}/screening"
        key = c.get(f"{api}/next").json()["record_key"]
        r = c.post(f"{api}/decisions", json={"record_key": key, "verdict": "include"})
        assert r.status_code == 200, r.text
        return dict(r.json())

    with capped.signed_in("ana") as ana, capped.signed_in("bob") as bob:
        bobs = [make_screening_study(bob, f"Bob {i}") for i in range(3)]
        queued = [decide(bob, sid)["retrain_queued"] for sid in bobs]
        assert queued == [True, True, False], queued
        listed = bob.get("/api/v1/jobs").json()["jobs"]  # his Studies' jobs are not his own
        assert all(j["kind"] != "screening.retrain" for j in listed), listed
        # bob's own kinds are refused too: the retrains count against his cap
        r = bob.post(f"/api/v1/studies/{bobs[0]}/fulltext/check")
        assert r.status_code == 429 and r.json()["code"] == "too_many_jobs", r.text
        assert decide(ana, make_screening_study(ana, "Ana"))["retrain_queued"] is True


def test_imports_wait_for_the_memory_budget_then_are_refused(capped: TeamServer) -> None:
    assert capped.app is not None
    budget = capped.app.state.app.studies.budget
    ris = b"TY  - JOUR\nTI  - A title\nDO  - 10.5555/q.1\nER  - \n"
    with capped.signed_in("ana") as ana:
        sid = _study(ana, "Imports")
        held = threading.Event()
        release = threading.Event()

        def hog() -> None:  # another import holding the whole budget
            with budget.hold(budget.total):
                held.set()
                release.wait(30)

        t = threading.Thread(target=hog)
        t.start()
        try:
            assert held.wait(10)
            r = ana.post(
                f"/api/v1/imports?study={sid}",
                files={"files": ("a.ris", ris, "application/x-research-info-systems")},
            )
            assert r.status_code == 429, r.text
            assert r.json()["code"] == "imports_busy"
            z = ana.post(
                "/api/v1/study-imports", files={"file": ("s.zip", b"PK", "application/zip")}
            )
            assert z.status_code == 429 and z.json()["code"] == "imports_busy"
        finally:
            release.set()
            t.join()
        assert budget.used == 0
        r = ana.post(
            f"/api/v1/imports?study={sid}",
            files={"files": ("a.ris", ris, "application/x-research-info-systems")},
        )
        assert r.status_code == 200, r.text
