"""The header's live counts over HTTP in team mode (issue 33): ``/api/v1/counts`` answers the
signed-in account's own saved papers and review notes (another account's never), a
signed-out page asks for none (no count in its header, the API refuses), a signed-in page
carries the places the counts go."""

from __future__ import annotations

from tests.faces.web._team import TeamServer
from tests.faces.web.test_team_auth import server, team_settings

__all__ = ["server", "team_settings"]


def test_counts_are_each_accounts_own(server: TeamServer) -> None:
    with server.anonymous() as c:
        login = c.get("/login")
        refused = c.get("/api/v1/counts")
    assert login.status_code == 200 and "nav-count" not in login.text
    assert refused.status_code == 401
    with server.signed_in("ana") as ana, server.signed_in("bob") as bob:
        assert ana.get("/api/v1/counts").json() == {"saved": 0, "notes": 0}
        page = ana.get("/search").text
        assert 'data-count="saved"' in page and 'data-count="notes"' in page
        run = ana.get("/api/v1/search", params={"q": "tumour growth"}).json()
        ids = [card["paper"]["id"] for card in run["cards"][:3]]
        saved = ana.post(
            "/api/v1/selection/save", json={"run_id": run["run"]["id"], "paper_ids": ids}
        )
        assert saved.status_code == 200 and len(saved.json()["saved"]) == 3
        ana.post(f"/api/v1/papers/{ids[0]}/comments", json={"comment": "Check the dose"})
        assert ana.get("/api/v1/counts").json() == {"saved": 3, "notes": 1}
        assert bob.get("/api/v1/counts").json() == {"saved": 0, "notes": 0}
