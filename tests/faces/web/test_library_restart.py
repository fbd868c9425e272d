"""Indexing survives the server: ``litdesk serve`` is killed (SIGKILL) in the middle of an
index job; a new server on the same data directory takes the job over once its lease has
run out and finishes it without reading the files indexed before the kill again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa
from tests import _fork
from tests.faces.web._hosting import LOOPBACK_TLS
from tests.faces.web._library import make_pdfs
from tests.faces.web._server import free_port

from litdesk.adapters.store import open_store
from litdesk.adapters.store._library import library_entries

SRC = Path(__file__).resolve().parents[3] / "src"


def _env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    env.update(
        {
            "PYTHONPATH": str(SRC),
            "LITDESK_DATA_DIR": str(data_dir),
            "LITDESK_JOBS_LEASE_SECONDS": "2",
            "LITDESK_JOBS_POLL_SECONDS": "0.2",
            # the light embedder: what is tested is the job's resume, not the vectors
            "LITDESK_EMBEDDER": "wordllama",
        }
    )
    return env


@contextmanager
def _server(data_dir: Path, log: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with log.open("ab") as out:
        proc = _fork.popen(
            [sys.executable, "-m", "litdesk", "serve", "--port", str(port)],
            env=_env(data_dir),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base + "/library", timeout=5, verify=LOOPBACK_TLS).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"server did not start: {log.read_text()[-2000:]}")
            time.sleep(0.2)
        yield proc, base
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(30)


@contextmanager
def _writer(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=base, timeout=60, headers={"origin": base}, verify=LOOPBACK_TLS
    ) as c:
        c.get("/library")
        c.headers["x-csrf-token"] = c.cookies["ld_csrf"]
        yield c


def _entries(data_dir: Path) -> dict[str, str]:
    store = open_store(f"sqlite:///{data_dir / 'litdesk.sqlite3'}")
    try:
        with store.read() as conn:
            rows = conn.execute(sa.select(library_entries.c.sha256, library_entries.c.created_at))
            return {r[0]: r[1] for r in rows}
    finally:
        store.dispose()


def test_a_killed_server_s_index_job_resumes_on_the_next_server(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    log = tmp_path / "server.log"
    pdfs = make_pdfs(tmp_path / "gen", 40, pages=6)
    parts = [("files", (p.name, p.read_bytes(), "application/pdf")) for p in pdfs]
    with _server(data_dir, log) as (first, base):
        with _writer(base) as c:
            report = c.post("/api/v1/library/uploads", files=parts).json()
            assert len(report["stored"]) == 40, report
            job_id = report["job"]["id"]
            deadline = time.monotonic() + 180
            seen: dict[str, Any] = {}
            while time.monotonic() < deadline:
                seen = c.get(f"/api/v1/jobs/{job_id}").json()
                if seen["status"] == "running" and seen["done"] >= 3:
                    break
                assert seen["active"], seen  # it must not finish before the kill
                time.sleep(0.05)
        os.killpg(first.pid, signal.SIGKILL)  # the server and its PDF reader processes
        first.wait(30)
    before = _entries(data_dir)
    assert 3 <= len(before) < 40, (len(before), seen)
    with (
        _server(data_dir, log) as (_, base),
        httpx.Client(base_url=base, timeout=60, verify=LOOPBACK_TLS) as c,
    ):
        deadline = time.monotonic() + 240
        job: dict[str, Any] = {}
        while time.monotonic() < deadline:
            job = c.get(f"/api/v1/jobs/{job_id}").json()  # watched from the new server
            if not job["active"]:
                break
            time.sleep(0.2)
    assert job["status"] == "done", job
    assert job["attempts"] == 2 and job["done"] == job["total"] == 40
    result = job["result"]
    assert result["indexed"] == 40 and result["files"] == 40
    resumed = set(result["indexed_this_attempt"])
    assert len(resumed) == 40 - len(before)
    after = _entries(data_dir)
    assert len(after) == 40
    # the entries written before the kill were not written again
    assert {k: after[k] for k in before} == before
