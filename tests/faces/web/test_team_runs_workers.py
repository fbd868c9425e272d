"""``litdesk serve --team --workers 2`` on PostgreSQL: a search answered by one worker can be
acted on (selection saved, RIS, run kept in a Study) through the other, because recent runs
live in the store (issue 17); another account's run id is not found on either worker."""

from __future__ import annotations

import json
import signal
from pathlib import Path

from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture re-export
from tests.faces.web._server import epmc_body, epmc_record, free_port, write_cassette
from tests.faces.web._team import (
    add_accounts,
    fresh,
    login,
    start_team_process,
    team_env,
    wait_ready,
)

from litdesk import Settings

PAIRS = 30


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
    log = tmp_path / "server.log"
    proc = start_team_process(port, cassette, team_env(tmp_path, pg_schema), log, workers=2)
    try:
        wait_ready(base, proc, log)
        ana, bob = login(base, "ana"), login(base, "bob")
        with fresh(base, ana) as c:
            study = c.post("/api/v1/studies", json={"name": "Across workers"}).json()
        answers = []
        for _ in range(PAIRS):
            with fresh(base, ana) as c:
                found = c.get("/api/v1/search", params={"q": "tumour growth"})
            assert found.status_code == 200, found.text
            run_id = found.json()["run"]["id"]
            ids = [card["paper"]["id"] for card in found.json()["cards"][:2]]
            with fresh(base, ana) as c:
                ris = c.post("/api/v1/selection/ris", json={"run_id": run_id, "paper_ids": ids})
            answers.append((ris.status_code, ris.text.count("ER  -")))
        with fresh(base, ana) as c:
            saved = c.post(
                "/api/v1/selection/save",
                json={"run_id": run_id, "paper_ids": ids, "study": study["id"]},
            )
            assert saved.status_code == 200 and saved.json()["saved"] == ids, saved.text
        with fresh(base, ana) as c:
            kept = c.post(f"/api/v1/runs/{run_id}/save", json={"study": study["id"]})
            assert kept.status_code == 200, kept.text
        strangers = []
        for _ in range(6):  # bob, on whichever worker, never finds ana's run
            with fresh(base, bob) as c:
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
