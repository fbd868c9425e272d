"""Load (issue 29): one account flooding its own queue to the cap does not starve another's
reads. A ``litdesk serve --team`` process on PostgreSQL (real HTTP on loopback, its job
worker running): bob's ``GET /api/v1/saved`` p95 is measured alone, then while ana keeps
her queue full of deduplication runs (one per Study of hers, each made slow by the test
setting ``dedup_test_step_seconds``; a submit every 20 ms, refused past the cap with 429)
while the server's job worker works them; the p95 may grow only a little. The figures are printed (``-s``) for bench/RESULTS.md."""

from __future__ import annotations

import statistics
import threading
import time
from pathlib import Path

import httpx
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture re-export
from tests.faces.web._server import free_port
from tests.faces.web._team import (
    SRC,
    add_accounts,
    fresh,
    login,
    start_team_process,
    team_env,
    wait_ready,
)

from litdesk import Settings

CAP = 10
READS = 150


def _ris(n: int) -> bytes:
    return "".join(
        f"TY  - JOUR\nTI  - Paper {i} on sleep\nDO  - 10.5555/load.{i}\nPY  - 2020\nER  - \n"
        for i in range(n)
    ).encode()


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def _reads(c: httpx.Client, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        r = c.get("/api/v1/saved")
        out.append(time.perf_counter() - t)
        assert r.status_code == 200
    return out


def test_one_accounts_full_queue_does_not_starve_anothers_reads(
    pg_schema: str,  # noqa: F811
    tmp_settings: Settings,
    tmp_path: Path,
) -> None:
    settings = tmp_settings.model_copy(update={"database_url": pg_schema})
    add_accounts(settings, "ana", "bob")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = team_env(
        tmp_path,
        pg_schema,
        PYTHONPATH=str(SRC),
        LITDESK_JOBS_MAX_ACTIVE_PER_ACCOUNT=str(CAP),
        LITDESK_JOBS_POLL_SECONDS="0.2",
        LITDESK_DEDUP_TEST_STEP_SECONDS="0.5",
    )
    log = tmp_path / "server.log"
    proc = start_team_process(port, None, env, log, workers=1)
    try:
        wait_ready(base, proc, log)
        ana, bob = login(base, "ana"), login(base, "bob")
        with fresh(base, bob) as b, fresh(base, ana) as a:
            sid = b.post("/api/v1/studies", json={"name": "Sleep"}).json()["id"]
            r = b.post(f"/api/v1/imports?study={sid}", files={"files": ("s.ris", _ris(50))})
            assert r.status_code == 200, r.text
            studies = [
                a.post("/api/v1/studies", json={"name": f"F{i}"}).json()["id"]
                for i in range(CAP + 5)
            ]
            for s in studies:
                r = a.post(f"/api/v1/imports?study={s}", files={"files": ("f.ris", _ris(2))})
                assert r.status_code == 200, r.text
            _reads(b, 20)  # warm
            alone = _reads(b, READS)
            stop = threading.Event()
            codes: dict[int, int] = {}
            lock = threading.Lock()

            def flood(k: int) -> None:
                with fresh(base, ana) as c:
                    i = k
                    while not stop.is_set():
                        code = c.post(
                            f"/api/v1/studies/{studies[i % len(studies)]}/dedup/runs"
                        ).status_code
                        with lock:
                            codes[code] = codes.get(code, 0) + 1
                        i += 1
                        time.sleep(0.02)

            threads = [threading.Thread(target=flood, args=(k,)) for k in range(1)]
            for t in threads:
                t.start()
            try:
                time.sleep(1.0)
                flooded = _reads(b, READS)
            finally:
                stop.set()
                for t in threads:
                    t.join(30)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    p_alone, p_flood = _p95(alone), _p95(flooded)
    print(
        f"\nbob GET /api/v1/saved p95 alone {p_alone * 1000:.1f} ms, while ana floods "
        f"{p_flood * 1000:.1f} ms (median {statistics.median(alone) * 1000:.1f} -> "
        f"{statistics.median(flooded) * 1000:.1f} ms); ana's submits {codes}"
    )
    assert codes.get(429, 0) > 0  # the cap held: ana's queue was full and refused more
    assert set(codes) <= {200, 429}
    assert p_flood <= max(3 * p_alone, p_alone + 0.100), (p_alone, p_flood)
