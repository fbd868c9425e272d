"""``Store.snapshot()``: the reads of a view composed of several reads share one read
transaction (one ``BEGIN``/``COMMIT`` on PostgreSQL instead of one per read) and see one
state of the store; a write inside it ends the sharing; other threads are not joined."""

from __future__ import annotations

import threading
from typing import Any

import sqlalchemy as sa

from litdesk.adapters.store import Store, repo
from litdesk.core.records import make_paper

NOW = "2026-11-30T12:00:00+00:00"


def _save(store: Store, i: int) -> None:
    paper = make_paper(pmid=str(40_000_000 + i), title=f"Paper {i}", year=2020)
    with store.write() as conn:
        repo.insert_paper(conn, paper, NOW, status="to-read")


def _count(store: Store) -> int:
    with store.read() as conn:
        return repo.count_papers(conn)


def _begins(store: Store) -> list[int]:
    seen = [0]

    def began(_conn: Any) -> None:
        seen[0] += 1

    sa.event.listen(store.engine, "begin", began)
    return seen


def test_reads_in_a_snapshot_share_one_transaction_and_one_state(store: Store):
    _save(store, 0)
    begins = _begins(store)
    with store.snapshot():
        assert _count(store) == 1
        other = threading.Thread(target=_save, args=(store, 1))  # commits meanwhile
        other.start()
        other.join()
        assert _count(store) == 1  # the snapshot's state, not the newer one
        with store.snapshot():  # nested: the same one
            assert _count(store) == 1
        seen_elsewhere: list[int] = []
        reader = threading.Thread(target=lambda: seen_elsewhere.append(_count(store)))
        reader.start()
        reader.join()
        assert seen_elsewhere == [2]  # another thread reads on its own
    assert _count(store) == 2
    # the snapshot, the other thread's write and read, the last read: four transactions
    assert begins[0] == 4


def test_a_write_inside_a_snapshot_ends_the_sharing(store: Store):
    begins = _begins(store)
    with store.snapshot():
        assert _count(store) == 0
        _save(store, 2)
        assert _count(store) == 1  # its own transaction: it sees the write
    assert begins[0] == 3


def test_reads_without_a_snapshot_each_open_a_transaction(store: Store):
    begins = _begins(store)
    assert _count(store) == 0
    assert _count(store) == 0
    assert begins[0] == 2


def test_read_one_runs_its_statement_without_a_transaction_on_postgres(store: Store):
    _save(store, 3)
    with store.read_one() as conn:
        assert repo.count_papers(conn) == 1
        raw = conn.connection.dbapi_connection
        if store.is_postgres:  # no BEGIN/COMMIT round trips: the statement is its own
            import psycopg

            assert isinstance(raw, psycopg.Connection)
            assert raw.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    with store.read() as conn:  # the pooled connection is back to REPEATABLE READ reads
        assert repo.count_papers(conn) == 1
        if store.is_postgres:
            level = conn.exec_driver_sql("SHOW transaction_isolation").scalar()
            assert level == "repeatable read"
    with store.snapshot(), store.read_one() as conn:  # inside a snapshot: the snapshot's
        assert repo.count_papers(conn) == 1


def test_the_snapshot_memo_lives_as_long_as_the_snapshot_and_no_write(store: Store):
    assert store.snapshot_memo() is None
    with store.snapshot():
        memo = store.snapshot_memo()
        assert memo == {}
        memo["k"] = 1
        assert store.snapshot_memo() == {"k": 1}
        _save(store, 4)  # a write: what was read may have changed
        assert store.snapshot_memo() is None
    with store.snapshot():
        assert store.snapshot_memo() == {}
    assert store.snapshot_memo() is None
