"""A Study's deduplication review across two separate ``litdesk serve --team`` processes on
one PostgreSQL schema (issue 17): ana starts the run on server 1, bob (an editor of the
Study) watches its progress, sees the review queue and decides a pair on server 2, and ana
sees that decision on server 1; cy (a viewer) reads but cannot decide, start or cancel;
dan (no member) finds nothing on either server. Then the process running a Study's run is
SIGKILLed mid-run: the other process claims the job once its lease has run out and
finishes it, with exactly one run summary in the Study's history.

The runs are slowed by the test-only setting ``LITDESK_DEDUP_TEST_STEP_SECONDS`` (a wait
after each import read), so that they are watched and killed mid-way deterministically."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from tests._dedup_data import REGISTRY_RIS, haematology_subset
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture re-export
from tests.faces.web._server import epmc_body, epmc_record, free_port, write_cassette
from tests.faces.web._team import (
    PASSWORD,
    SRC,
    WEB,
    add_accounts,
    fresh,
    job_holder,
    login,
    start_team_process,
    team_env,
    wait_ready,
)
from tests.faces.web.test_dedup import XSS_RIS

from litdesk import Settings
from litdesk.adapters.store import open_store
from litdesk.services.dedup import study_history


@dataclass
class Server:
    base: str
    proc: subprocess.Popen[bytes]
    log: Path


@contextmanager
def two_servers(
    tmp_path: Path,
    url: str,
    step_s: float,
    env_extra: dict[str, str] | None = None,
    first_extra: dict[str, str] | None = None,
    warm: Sequence[str] = WEB,
) -> Iterator[tuple[Server, Server]]:
    """Two separate team server processes (one worker each) over the schema ``url``
    (``env_extra``: more settings of both; ``first_extra``: of the first only; ``warm``:
    the fork server's warm-ups, see :func:`~tests.faces.web._team.start_team_process`)."""
    cassette = tmp_path / "cassette"
    write_cassette(cassette, "tumour growth", epmc_body([epmc_record(1)]))
    env = team_env(
        tmp_path,
        url,
        PYTHONPATH=str(SRC),
        LITDESK_JOBS_LEASE_SECONDS="2",
        # the runners poll at the product's default (1 s): a dead worker's job is taken over
        # when its lease ends (the idle runners wake then), one queued elsewhere within a poll
        LITDESK_DEDUP_TEST_STEP_SECONDS=str(step_s),
    ) | (env_extra or {})
    servers: list[Server] = []
    try:
        # both start at once (the schema is at head; a store that is not migrates under
        # an advisory lock): the test waits for one start-up, not two in turn
        for n in (1, 2):
            port = free_port()
            while any(s.base.endswith(f":{port}") for s in servers):  # the first not bound yet
                port = free_port()
            log = tmp_path / f"server{n}.log"
            proc = start_team_process(
                port, cassette, env | (first_extra or {} if n == 1 else {}), log, warm=warm
            )
            servers.append(Server(f"http://127.0.0.1:{port}", proc, log))
        for server in servers:
            wait_ready(server.base, server.proc, server.log)
        yield servers[0], servers[1]
    finally:
        for s in servers:
            if s.proc.poll() is None:
                s.proc.send_signal(signal.SIGINT)
        for s in servers:
            try:
                s.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                s.proc.kill()
                s.proc.wait(timeout=30)
    for s in servers:
        assert PASSWORD not in s.log.read_text()


def make_study(c: httpx.Client, files: list[tuple[str, bytes]]) -> str:
    sid = str(c.post("/api/v1/studies", json={"name": "Across servers"}).json()["id"])
    for name, data in files:  # one import each: each is a step of the run
        r = c.post("/api/v1/imports", params={"study": sid}, files=[("files", (name, data))])
        assert r.status_code == 200 and not r.json()["refused"], r.text
    return sid


def _runs_in_history(url: str, sid: str) -> list[dict[str, Any]]:
    store = open_store(url)
    try:
        return [e.data for e in study_history(store, sid) if e.kind == "run"]
    finally:
        store.dispose()


def _watch(c: httpx.Client, job_id: str, until: Any, seconds: float = 180) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        job = c.get(f"/api/v1/dedup-jobs/{job_id}")
        assert job.status_code == 200, job.text
        if until(job.json()):
            return dict(job.json())
        assert time.monotonic() < deadline, job.json()
        time.sleep(0.1)


BASE_FILES = [("haematology.csv", haematology_subset()), ("registry.ris", REGISTRY_RIS.encode())]


def test_a_run_started_on_one_server_is_watched_reviewed_and_decided_on_the_other(
    pg_schema: str,  # noqa: F811
    tmp_settings: Settings,
    tmp_path: Path,
) -> None:
    settings = tmp_settings.model_copy(update={"database_url": pg_schema})
    ids = add_accounts(settings, "ana", "bob", "cy", "dan")
    with two_servers(tmp_path, pg_schema, step_s=2.0) as (one, two):
        ana, bob = login(one.base, "ana"), login(two.base, "bob")
        cy, dan = login(two.base, "cy"), login(one.base, "dan")
        with fresh(one.base, ana) as c:
            sid = make_study(c, [*BASE_FILES, ("again.ris", REGISTRY_RIS.encode())])
            members = f"/api/v1/studies/{sid}/members"
            assert c.post(members, json={"username": "bob", "role": "editor"}).is_success
            assert c.post(members, json={"username": "cy", "role": "viewer"}).is_success
            job = c.post(f"/api/v1/studies/{sid}/dedup/runs").json()
        assert job["state"] == "running" and job["study_id"] == sid, job
        with fresh(two.base, bob) as b:
            # progress from the other server while it runs (each import read takes 2 s)
            seen = _watch(b, job["id"], lambda j: j["state"] != "running" or j["done"] >= 1)
            assert seen["state"] == "running" and seen["total"] == 3, seen
            assert seen["stage"] == "reading", seen
            # bob's page on server 2 shows the Study's running job (ana started it)
            page = b.get(f"/api/v1/studies/{sid}/dedup").json()
            assert page["job"] is not None and page["job"]["id"] == job["id"], page["job"]
            # one run per Study across processes and accounts: bob's start is ana's run
            again = b.post(f"/api/v1/studies/{sid}/dedup/runs").json()
            assert again["id"] == job["id"], again
            done = _watch(b, job["id"], lambda j: j["state"] != "running")
            assert done["state"] == "done" and done["counts"]["uncertain"] == 5, done
            view = b.get(f"/api/v1/studies/{sid}/dedup").json()
            assert view["run"]["id"] == job["id"] and len(view["pairs"]) == 5, view["run"]
            assert view["job"] is None
            pair = next(p for p in view["pairs"] if p["mergeable"])
            decided = b.post(
                f"/api/v1/studies/{sid}/dedup/decisions",
                json={"run_id": job["id"], "pair": pair["no"], "decision": "distinct"},
            )
            assert decided.status_code == 200 and decided.json()["new"], decided.text
            html = b.get(f"/study/{sid}/dedup")
            assert html.status_code == 200 and 'id="count-uncertain">5<' in html.text
        with fresh(one.base, ana) as c:  # bob's decision, seen on server 1
            mine = c.get(f"/api/v1/studies/{sid}/dedup").json()
            states = {p["no"]: p["state"] for p in mine["pairs"]}
            assert states[pair["no"]] == "distinct" and mine["run"]["id"] == job["id"]
            top = mine["history"][0]
            assert top["seq"] == decided.json()["seq"] and top["by"] == ids["bob"], top
            assert [h["by"] for h in mine["history"] if h["kind"] == "run"] == [ids["ana"]]
        with fresh(two.base, cy) as v:  # a viewer reads, on either server, and writes nothing
            seen_by_viewer = v.get(f"/api/v1/studies/{sid}/dedup")
            assert seen_by_viewer.status_code == 200
            assert len(seen_by_viewer.json()["pairs"]) == 5
            assert v.get(f"/api/v1/dedup-jobs/{job['id']}").json()["state"] == "done"
            refused = [
                v.post(
                    f"/api/v1/studies/{sid}/dedup/decisions",
                    json={"run_id": job["id"], "pair": pair["no"], "decision": "merge"},
                ),
                v.post(f"/api/v1/studies/{sid}/dedup/runs"),
                v.post(f"/api/v1/dedup-jobs/{job['id']}/cancel"),
                v.post(f"/api/v1/studies/{sid}/dedup/undo", json={"seq": decided.json()["seq"]}),
            ]
            assert [r.status_code for r in refused] == [403] * 4, [r.text for r in refused]
        for server in (one, two):  # a stranger finds neither the Study's run nor its job
            with fresh(server.base, dan) as d:
                answers = [
                    d.get(f"/api/v1/studies/{sid}/dedup"),
                    d.get(f"/api/v1/dedup-jobs/{job['id']}"),
                    d.get(f"/study/{sid}/dedup"),
                    d.post(f"/api/v1/dedup-jobs/{job['id']}/cancel"),
                    d.post(f"/api/v1/studies/{sid}/dedup/runs"),
                    d.post(
                        f"/api/v1/studies/{sid}/dedup/decisions",
                        json={"run_id": job["id"], "pair": 0, "decision": "merge"},
                    ),
                ]
                assert [r.status_code for r in answers] == [404] * 6, [r.text for r in answers]
        assert len(_runs_in_history(pg_schema, sid)) == 1


def test_a_run_whose_server_is_killed_is_finished_by_the_other_once(
    pg_schema: str,  # noqa: F811
    tmp_settings: Settings,
    tmp_path: Path,
) -> None:
    settings = tmp_settings.model_copy(update={"database_url": pg_schema})
    add_accounts(settings, "ana")
    files = [*BASE_FILES, ("hostile.ris", XSS_RIS.encode()), ("again.ris", REGISTRY_RIS.encode())]
    with two_servers(tmp_path, pg_schema, step_s=1.0) as (one, two):
        ana = login(one.base, "ana")
        with fresh(one.base, ana) as c:
            sid = make_study(c, files)
            job = c.post(f"/api/v1/studies/{sid}/dedup/runs").json()
        by_pid = {one.proc.pid: (one, two), two.proc.pid: (two, one)}
        # wait until it runs mid-way (an import read), on whichever server claimed it
        with fresh(two.base, ana) as c:
            seen = _watch(c, job["id"], lambda j: j["state"] != "running" or j["done"] >= 1)
        assert seen["state"] == "running" and seen["done"] < seen["total"] == 4, seen
        worker, attempts = job_holder(pg_schema, job["id"])
        assert worker is not None and attempts == 1, (worker, attempts)
        pid = int(worker.split(":")[1])
        victim, survivor = by_pid[pid]
        victim.proc.send_signal(signal.SIGKILL)
        victim.proc.wait(timeout=30)
        assert _runs_in_history(pg_schema, sid) == []  # it died before recording
        with fresh(survivor.base, ana) as c:
            done = _watch(c, job["id"], lambda j: j["state"] != "running", seconds=240)
            assert done["state"] == "done" and done["attempts"] == 2, done
            view = c.get(f"/api/v1/studies/{sid}/dedup").json()
        assert view["run"]["id"] == job["id"] and view["run"]["repeats_skipped"] == ["again.ris"]
        finisher, attempts = job_holder(pg_schema, job["id"])
        assert finisher is not None and int(finisher.split(":")[1]) == survivor.proc.pid
        runs = _runs_in_history(pg_schema, sid)
        assert len(runs) == 1 and runs[0]["run"] == job["id"], runs
        print(f"\nkilled pid {pid} at {seen['done']}/{seen['total']} imports read; finished by "
              f"pid {survivor.proc.pid} in attempt {attempts}")  # fmt: skip
