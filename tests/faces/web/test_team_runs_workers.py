"""``litdesk serve --team --workers 2`` on PostgreSQL: a search answered by one worker can be
acted on (selection saved, RIS, run kept in a Study) through the other, because recent runs
live in the store (issue 17); another account's run id is not found on either worker."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture re-export
from tests.faces.web._server import epmc_body, epmc_record, free_port, write_cassette
from tests.faces.web._team import PASSWORD, add_accounts
from tests.faces.web.test_team_workers import _wait

from litdesk import Settings

PAIRS = 30


def _login(base: str, name: str) -> tuple[str, str]:
    with httpx.Client(base_url=base, headers={"origin": base}, timeout=60) as c:
        c.get("/login")
        r = c.post(
            "/api/v1/auth/login",
            json={"username": name, "password": PASSWORD},
            headers={"x-csrf-token": c.cookies.get("ld_csrf") or ""},
        )
        assert r.status_code == 200, r.text
        return c.cookies.get("ld_session") or "", r.json()["csrf_token"]


def _fresh(base: str, session: tuple[str, str]) -> httpx.Client:
    """A new connection each time: the kernel hands it to either worker."""
    return httpx.Client(
        base_url=base,
        cookies={"ld_session": session[0], "ld_csrf": session[1]},
        headers={"origin": base, "x-csrf-token": session[1]},
        timeout=60,
    )


def test_a_search_on_one_worker_is_usable_from_the_other(
    pg_schema: str,  # noqa: F811
    tmp_settings: Settings,
    tmp_path: Path,
) -> None:
    settings = tmp_settings.model_copy(update={"database_url": pg_schema})
    add_accounts(settings, "ana", "bob")
    cassette = tmp_path / "cassette"
    write_cassette(cassette, "tumour growth", epmc_body([epmc_record(i) for i in range(1, 6)]))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    env |= {"LITDESK_DATA_DIR": str(tmp_path / "data"), "LITDESK_DATABASE_URL": pg_schema}
    log = tmp_path / "server.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-c", "from litdesk.faces.cli import main; main()", "serve",
             "--team", "--workers", "2", "--port", str(port), "--replay", str(cassette)],
            env=env,
            stderr=sink,
        )  # fmt: skip
        try:
            _wait(base, proc, log)
            ana, bob = _login(base, "ana"), _login(base, "bob")
            with _fresh(base, ana) as c:
                study = c.post("/api/v1/studies", json={"name": "Across workers"}).json()
            answers = []
            for _ in range(PAIRS):
                with _fresh(base, ana) as c:
                    found = c.get("/api/v1/search", params={"q": "tumour growth"})
                assert found.status_code == 200, found.text
                run_id = found.json()["run"]["id"]
                ids = [card["paper"]["id"] for card in found.json()["cards"][:2]]
                with _fresh(base, ana) as c:
                    ris = c.post("/api/v1/selection/ris", json={"run_id": run_id, "paper_ids": ids})
                answers.append((ris.status_code, ris.text.count("ER  -")))
            with _fresh(base, ana) as c:
                saved = c.post(
                    "/api/v1/selection/save",
                    json={"run_id": run_id, "paper_ids": ids, "study": study["id"]},
                )
                assert saved.status_code == 200 and saved.json()["saved"] == ids, saved.text
            with _fresh(base, ana) as c:
                kept = c.post(f"/api/v1/runs/{run_id}/save", json={"study": study["id"]})
                assert kept.status_code == 200, kept.text
            strangers = []
            for _ in range(6):  # bob, on whichever worker, never finds ana's run
                with _fresh(base, bob) as c:
                    r = c.post("/api/v1/selection/ris", json={"run_id": run_id, "paper_ids": ids})
                strangers.append((r.status_code, r.json()["code"]))
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
    assert answers == [(200, 2)] * PAIRS
    assert strangers == [(404, "run_not_open")] * 6
    lines = [json.loads(x) for x in log.read_text().splitlines() if x.startswith("{")]
    searches = [x["pid"] for x in lines if x["path"] == "/api/v1/search"]
    exports = [x["pid"] for x in lines if x["path"] == "/api/v1/selection/ris"][:PAIRS]
    assert len(searches) == len(exports) == PAIRS
    crossed = sum(s != e for s, e in zip(searches, exports, strict=True))
    assert crossed >= 1, "no selection was answered by the other worker than its search"
