"""A Study's stored deduplication runs (migration 0011_dedup_runs), on SQLite and
PostgreSQL: the newest is the latest, its queue is read whole or by pair, the newest
``KEEP_RUNS`` are kept (their pairs with them) and a Study's removal takes its runs."""

from __future__ import annotations

import sqlalchemy as sa

from litdesk.adapters.store import (
    KEEP_RUNS,
    DedupPairRow,
    Store,
    add_dedup_run,
    dedup_run_exists,
    dedup_run_pair,
    dedup_run_pair_no,
    get_dedup_run,
    latest_dedup_run,
    list_dedup_run_pairs,
)
from litdesk.adapters.store._schema import dedup_run_pairs, dedup_runs, studies
from litdesk.services.workspace import Workspace


def _pairs(tag: str, n: int) -> list[DedupPairRow]:
    return [DedupPairRow(i, (f"a{tag}{i}", f"b{tag}{i}"), {"body": {"no": i}}) for i in range(n)]


def test_runs_latest_pairs_and_bound(store: Store) -> None:
    study = Workspace(store).create_study("Runs").id
    other = Workspace(store).create_study("Other").id
    with store.read() as conn:
        assert latest_dedup_run(conn, study) is None
    ids = [f"{n:032x}" for n in range(KEEP_RUNS + 2)]
    for n, run_id in enumerate(ids):
        with store.write() as conn:
            add_dedup_run(conn, run_id, study, "acct_a", {"n": n}, _pairs(str(n), 3))
    with store.write() as conn:
        add_dedup_run(conn, "f" * 32, other, "acct_b", {"n": 99}, _pairs("x", 2))
    with store.read() as conn:
        latest = latest_dedup_run(conn, study)
        assert latest is not None and latest.id == ids[-1] and latest.data == {"n": len(ids) - 1}
        assert [p.no for p in list_dedup_run_pairs(conn, latest.id)] == [0, 1, 2]
        pair = dedup_run_pair(conn, latest.id, 1)
        assert pair is not None and pair.data == {"body": {"no": 1}}
        assert dedup_run_pair(conn, latest.id, 3) is None
        assert dedup_run_pair_no(conn, latest.id, (f"a{len(ids) - 1}2", f"b{len(ids) - 1}2")) == 2
        assert dedup_run_pair_no(conn, latest.id, ("a02", "b02")) is None  # another run's
        # only the newest KEEP_RUNS of the Study are kept, their pairs with them
        kept = [r for r in ids if dedup_run_exists(conn, r)]
        assert kept == ids[-KEEP_RUNS:]
        assert get_dedup_run(conn, ids[0]) is None and list_dedup_run_pairs(conn, ids[0]) == []
        count = conn.execute(sa.select(sa.func.count()).select_from(dedup_run_pairs)).scalar()
        assert count == 3 * KEEP_RUNS + 2
    # a Study removed takes its runs and their pairs
    with store.write() as conn:
        conn.execute(sa.delete(studies).where(studies.c.id == other))
    with store.read() as conn:
        assert (
            conn.execute(sa.select(dedup_runs.c.id).where(dedup_runs.c.study_id == other)).first()
            is None
        )
