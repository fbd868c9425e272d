"""Two workers (two processes, each with its own application object over one store, as
``litdesk serve --team --workers 2`` runs) where two reviewers decide the same records at
the same moment lose nothing (issue 28), on SQLite and PostgreSQL: the workers' write loops
overlap in time (each starts before the other ends; their rows may interleave or, when
one writer keeps winning the lock, come in runs), every decision of both is
stored once, in the order the store gave them ids, and each reviewer's progress counts all
of theirs; a reviewer who changes a decision in one worker while the other worker records
the other reviewer's keeps both, the change superseding their own earlier decision only."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests import _fork
from tests._ready import reaped, wait_ready
from tests.services.screening._study import make_study

from litdesk import Settings
from litdesk.adapters.store import accounts as access
from litdesk.adapters.store import screening as store_screening
from litdesk.services.app import App, open_app_sync
from litdesk.services.screening import HistoryRequest, ItemsRequest, ProgressRequest
from litdesk.services.workspace import now_iso

OWNER, BOB, CY = "acct_ana", "acct_bob", "acct_cy"
RECORDS = 8

#: one worker: opens its app, says it is ready, waits for the go, then decides every record
#: given as ``reviewer`` (include, or exclude for CY), then changes its first to maybe
CHILD = r"""
import sys, time
from pathlib import Path
from litdesk import Settings
from litdesk.services.app import open_app_sync
from litdesk.services.screening import DecideRequest

settings = Settings.model_validate_json(Path(sys.argv[1]).read_text())
go, name, sid, who, verdict = Path(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
keys = sys.argv[7:]
with open_app_sync(settings) as app:
    Path(str(go) + ".ready-" + name).touch()
    while not go.exists():
        time.sleep(0.005)
    start = time.time()
    for key in keys:
        app.screening.decide(DecideRequest(sid, "title_abstract", key, verdict), owner=who)
    app.screening.decide(DecideRequest(sid, "title_abstract", keys[0], "maybe"), owner=who)
    print(start, time.time())
"""


@pytest.fixture
def team(any_settings: Settings, export: Path) -> Iterator[tuple[App, str]]:
    with open_app_sync(any_settings) as app:
        sid = make_study(app, "Gambling workers", [export], owner=OWNER)
        with app.store.write() as conn:
            for who in (BOB, CY):
                access.set_member(conn, sid, who, "editor", OWNER, now_iso())
        yield app, sid


def _env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[3] / "src")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITDESK_")}
    return {**env, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}


def test_two_workers_deciding_the_same_records_at_once_lose_nothing(
    team: tuple[App, str], any_settings: Settings, tmp_path: Path
) -> None:
    app, sid = team
    keys = [r["record_key"] for r in app.screening.items(ItemsRequest(sid), owner=OWNER).rows]
    keys = keys[:RECORDS]
    assert len(keys) == RECORDS
    doc = tmp_path / "settings.json"
    doc.write_text(any_settings.model_dump_json())
    go = tmp_path / "go"
    work = {BOB: "include", CY: "exclude"}
    procs = [
        _fork.popen(
            [sys.executable, "-c", CHILD, str(doc), str(go), who, sid, who, verdict, *keys],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for who, verdict in work.items()
    ]
    spans: list[tuple[float, float]] = []
    with reaped(procs):
        wait_ready(go, list(work), procs, timeout=180)
        for p in procs:
            try:
                out, err = p.communicate(timeout=180)
            except subprocess.TimeoutExpired:
                raise AssertionError("a worker did not finish within 180 s") from None
            assert p.returncode == 0, err[-3000:]
            start, end = map(float, out.split())
            spans.append((start, end))
    # the two workers wrote at the same time: each began before the other had finished
    (a0, a1), (b0, b1) = spans
    assert a0 < b1 and b0 < a1, spans
    with app.store.read() as conn:
        rows = store_screening.list_decisions(conn, sid)
    # every decision once: RECORDS each, and each one's change of its first record
    assert len(rows) == 2 * (RECORDS + 1), [(r.reviewer, r.record_key, r.verdict) for r in rows]
    mine = {w: [(r.record_key, r.verdict) for r in rows if r.reviewer == w] for w in work}
    for who, verdict in work.items():
        assert mine[who] == [(k, verdict) for k in keys] + [(keys[0], "maybe")]
    assert [r.id for r in rows] == sorted({r.id for r in rows})
    order = [r.reviewer for r in rows]
    print(f"\nthe writers' order: {order}")  # interleaved, or runs of one
    for who, verdict in work.items():
        p = app.screening.progress(ProgressRequest(sid), owner=who).mine
        assert p["screened"] == RECORDS
        assert p["maybe"] == 1
        assert p["included" if verdict == "include" else "excluded"] == RECORDS - 1
    # the change superseded the reviewer's own earlier decision only
    entries = app.screening.history(HistoryRequest(sid, keys[0]), owner=OWNER).entries
    assert len(entries) == 4, entries
    by = {(e["reviewer"], e["verdict"]): e["status"] for e in entries}
    for who, verdict in work.items():
        assert by[(who, "maybe")] == "current"
        assert by[(who, verdict)] == "superseded"
