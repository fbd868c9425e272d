"""Paper-chat model calls from several processes at once never over-spend the day's total
(issue 17), on SQLite and PostgreSQL (fresh schema): 3 spawned processes, each with 3
accounts asking in the one shared library (the same 3 accounts in every process, so calls
of one account meet across processes and wait for each other), against one scripted
OpenAI-compatible model server on loopback. The total (13 calls, odd, so a question is
refused between its two calls) is spent exactly: the server received 13 requests and the
store counts 13."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from tests import _fork
from tests._model_servers import Scripted, assist_settings, model_server
from tests._ready import wait_ready

from litdesk._settings import Settings
from litdesk.adapters.store import open_store
from litdesk.adapters.store._assist import assist_calls
from litdesk.services.app import app_library

PROCESSES = 3
ACCOUNTS = 3
TOTAL = 13
QUESTION = "How was the water level measured?"

CHILD = r"""
import json, sys, threading, time
from pathlib import Path
from litdesk import Settings
from litdesk.services.assist import AllowanceRefused
from litdesk.services.library import ChatQuestionRequest, ChatService
from litdesk.services.app import open_app_sync

settings = Settings.model_validate_json(Path(sys.argv[1]).read_text())
go, index, accounts = Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
lib = open_app_sync(settings).__enter__().make_library(workers=1)  # closed with the process
lib.embedder()  # loaded before the go
chat = ChatService(lib)
barrier = threading.Barrier(accounts)
results = []
lock = threading.Lock()

def ask(n):
    owner = f"acct-{n}"
    token = f"p{index}t{n}".ljust(40, "x")
    seen = {"answered": 0}
    barrier.wait()
    for _ in range(20):
        try:
            question = ChatQuestionRequest(token, "How was the water level measured?")
            chat.ask(question, owner=owner, top_k=3)
        except AllowanceRefused as exc:
            seen[exc.code] = seen.get(exc.code, 0) + 1
            if exc.code == "daily_limit":
                break
            continue
        seen["answered"] += 1
    with lock:
        results.append([owner, seen])

Path(str(go) + ".ready-" + str(index)).touch()
while not go.exists():
    time.sleep(0.01)
workers = [threading.Thread(target=ask, args=(n,)) for n in range(accounts)]
for w in workers:
    w.start()
for w in workers:
    w.join()
lib.close()
print(json.dumps(results))
"""


def _env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[3] / "src")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    return {**env, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}


def test_chat_calls_of_several_processes_never_over_spend_the_total(
    tmp_settings: Settings,
    tmp_path: Path,
    library_db: str | None,
    make_pdf: Callable[[Path, list[str]], Path],
) -> None:
    folder = tmp_path / "pdfs"
    make_pdf(
        folder / "cameras.pdf",
        ["Water level was measured with time-lapse cameras mounted on two bridges. " * 12],
    )

    def respond(body: dict[str, Any]) -> Scripted:
        if "Translate the user's question" in json.dumps(body):
            return Scripted(QUESTION, delay=0.02)
        return Scripted("Time-lapse cameras measured the water level [1].", delay=0.02)

    with model_server("openai") as server:
        server.respond_with(respond)
        settings: Settings = assist_settings(
            server, tmp_settings.data_dir, library_dirs=[folder], database_url=library_db,
            embedder="wordllama", chat_daily_requests=TOTAL, chat_owner_daily_requests=100,
            assist_timeout_seconds=60,
        )  # fmt: skip
        with app_library(settings, workers=1) as lib:
            assert lib.index().indexed == ["cameras.pdf"]
        doc = tmp_path / "settings.json"
        doc.write_text(
            json.dumps(
                settings.model_dump(mode="json")
                | {"openai_api_key": settings.openai_api_key.get_secret_value()}  # type: ignore[union-attr]
            )
        )
        go = tmp_path / "go"
        procs = [
            _fork.popen(
                [sys.executable, "-c", CHILD, str(doc), str(go), str(n), str(ACCOUNTS)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=_env(),
            )
            for n in range(PROCESSES)
        ]
        # every process has loaded litdesk and its embedder
        wait_ready(go, [str(n) for n in range(PROCESSES)], procs, timeout=240)
        rows: list[list[Any]] = []
        for p in procs:
            try:
                out, err = p.communicate(timeout=240)
            except subprocess.TimeoutExpired:
                for q in procs:
                    q.kill()
                raise AssertionError("a chat process did not finish within 240 s") from None
            assert p.returncode == 0, err[-3000:]
            rows.extend(json.loads(out))
        sent = len(server.requests)
    tally: Counter[str] = Counter()
    for _, seen in rows:
        tally.update(seen)
    print(f"\nchat processes ({library_db and 'postgres' or 'sqlite'}): {dict(tally)}")
    assert len(rows) == PROCESSES * ACCOUNTS
    assert tally["daily_limit"] == PROCESSES * ACCOUNTS  # every asker stopped at the total
    assert set(tally) <= {"answered", "daily_limit"}, tally
    assert sent == TOTAL  # never over-spent, and the refused calls never went out
    assert tally["answered"] <= TOTAL // 2  # two calls per answered question
    store = open_store(settings)
    try:
        c = assist_calls.c
        with store.read() as conn:
            counted = conn.execute(
                sa.select(c.status, sa.func.count()).where(c.feature == "chat").group_by(c.status)
            ).all()
    finally:
        store.dispose()
    assert dict((str(s), int(n)) for s, n in counted) == {"ok": TOTAL}
