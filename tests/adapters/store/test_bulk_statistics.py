"""PostgreSQL statistics after a bulk load (issue 26): a write transaction that inserted
``ANALYZE_AFTER_ROWS`` rows or more into a table has it analysed once it committed, in a
statement of its own; a failing ``ANALYZE`` loses nothing; SQLite is left alone."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from tests._store_template import sqlite_url_at_head

from litdesk.adapters.store import Store, _engine, open_store, repo
from litdesk.adapters.store._engine import ANALYZE_AFTER_ROWS
from litdesk.core.records import make_paper

NOW = "2026-12-07T06:00:00+00:00"


@pytest.fixture
def pg_store(pg_schema: str) -> Iterator[Store]:
    s = open_store(pg_schema)
    try:
        yield s
    finally:
        s.dispose()


def _load(store: Store, count: int, *, first: int = 0) -> None:
    """``count`` new papers with one identity key each, in one write transaction."""
    papers = [make_paper(pmid=str(i + 1), title=f"Paper {i}") for i in range(first, first + count)]
    with store.write() as conn:
        repo.insert_papers(conn, papers, NOW, owner="local")
        repo.add_paper_keys(conn, {f"k:{p.id}": p.id for p in papers}, owner="local")


def _stats(store: Store, table: str) -> tuple[float, int]:
    """The table's ``pg_class.reltuples`` (-1: never analysed) and its ``pg_stats`` rows."""
    with store.read() as conn:
        tuples = conn.execute(
            sa.text("SELECT reltuples FROM pg_class WHERE oid = to_regclass(:t)"), {"t": table}
        ).scalar_one()
        columns = conn.execute(
            sa.text(
                "SELECT count(*) FROM pg_stats"
                " WHERE schemaname = current_schema() AND tablename = :t"
            ),
            {"t": table},
        ).scalar_one()
    return float(tuples), int(columns)


def _statements(store: Store) -> list[str]:
    seen: list[str] = []

    @sa.event.listens_for(store.engine, "before_cursor_execute")
    def _note(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    return seen


def test_a_bulk_load_leaves_statistics_and_a_small_write_does_not(pg_store: Store) -> None:
    _load(pg_store, ANALYZE_AFTER_ROWS - 1)
    assert _stats(pg_store, "paper_keys") == (-1.0, 0)  # below the threshold: autovacuum's
    _load(pg_store, ANALYZE_AFTER_ROWS, first=ANALYZE_AFTER_ROWS)
    for table in ("paper_keys", "papers"):
        tuples, columns = _stats(pg_store, table)
        assert tuples == 2 * ANALYZE_AFTER_ROWS - 1
        assert columns > 0
    # the lookup the statistics are for: no longer every one of the owner's keys read
    # through ix_paper_keys_paper (the plan of a table taken for tiny)
    keys = [f"k:MED-{i + 1}" for i in range(0, 2 * ANALYZE_AFTER_ROWS - 1, 2)]
    with pg_store.read() as conn:
        assert len(repo.find_paper_ids(conn, keys, owner="local")) == len(keys)
        plan = "\n".join(
            conn.execute(
                sa.text(
                    "EXPLAIN SELECT paper_id FROM paper_keys WHERE owner = :o AND key = ANY(:k)"
                ),
                {"o": "local", "k": keys},
            ).scalars()
        )
    assert "ix_paper_keys_paper" not in plan, plan


def test_analyze_runs_after_the_commit_in_a_statement_of_its_own(pg_store: Store) -> None:
    seen: list[str] = []

    @sa.event.listens_for(pg_store.engine, "before_cursor_execute")
    def _note(conn: sa.Connection, _cursor: Any, statement: str, *_args: Any) -> None:
        autocommit = conn.connection.dbapi_connection.autocommit  # type: ignore[union-attr]
        seen.append(f"{statement} (autocommit)" if autocommit else statement)

    @sa.event.listens_for(pg_store.engine, "commit")
    def _commit(_conn: sa.Connection) -> None:
        seen.append("COMMIT")

    _load(pg_store, ANALYZE_AFTER_ROWS)
    analyze = [i for i, s in enumerate(seen) if s.startswith("ANALYZE")]
    assert len(analyze) == 1
    assert seen[analyze[0]] == "ANALYZE (SKIP_LOCKED) paper_keys, papers (autocommit)"
    # after the write's transaction committed, no statement of it after, none in a transaction
    assert "COMMIT" in seen[: analyze[0]]
    assert "COMMIT" not in seen[analyze[0] :]
    assert not any(s.startswith("INSERT") for s in seen[analyze[0] :])
    # the write's connection, which ran it (the pool's only one), is transactional again
    assert pg_store.engine.pool.checkedin() == 1  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError), pg_store.write() as conn:
        assert conn.connection.dbapi_connection.autocommit is False  # type: ignore[union-attr]
        repo.insert_papers(conn, [make_paper(pmid="99999", title="Rolled back")], NOW)
        raise RuntimeError("the write fails")
    with pg_store.read() as conn:
        assert repo.find_paper_ids(conn, ["k:MED-1", "pmid:99999"], owner="local") == {
            "k:MED-1": "MED-1"
        }
        count = conn.execute(sa.text("SELECT count(*) FROM papers")).scalar_one()
        assert count == ANALYZE_AFTER_ROWS


def test_a_failing_analyze_loses_no_row_and_raises_nothing(
    pg_store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    @sa.event.listens_for(pg_store.engine, "before_cursor_execute")
    def _fail(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.startswith("ANALYZE"):
            raise sa.exc.OperationalError(statement, {}, Exception("the server went away"))

    with caplog.at_level(logging.DEBUG, logger="litdesk.store"):
        _load(pg_store, ANALYZE_AFTER_ROWS)
    with pg_store.read() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM paper_keys")).scalar_one() == (
            ANALYZE_AFTER_ROWS
        )
    assert _stats(pg_store, "paper_keys") == (-1.0, 0)
    assert any(
        r.levelno == logging.DEBUG and "OperationalError" in r.getMessage() for r in caplog.records
    )


def test_sqlite_is_not_analysed(sqlite_template: Path, tmp_path: Path) -> None:
    store = open_store(sqlite_url_at_head(sqlite_template, tmp_path / "litdesk.sqlite3"))
    try:
        seen = _statements(store)
        _load(store, ANALYZE_AFTER_ROWS)
        assert not any(s.upper().startswith("ANALYZE") for s in seen)
        with store.read() as conn:
            assert conn.execute(sa.text("SELECT count(*) FROM paper_keys")).scalar_one() == (
                ANALYZE_AFTER_ROWS
            )
    finally:
        store.dispose()


def test_a_load_small_beside_the_analysed_table_is_left_to_autovacuum(
    pg_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _load(pg_store, ANALYZE_AFTER_ROWS)
    assert _stats(pg_store, "paper_keys")[0] == ANALYZE_AFTER_ROWS
    # a share of the analysed rows the next load does not reach (autovacuum's is a tenth)
    monkeypatch.setattr(_engine, "ANALYZE_SHARE", 1.5)
    _load(pg_store, ANALYZE_AFTER_ROWS, first=ANALYZE_AFTER_ROWS)
    assert _stats(pg_store, "paper_keys")[0] == ANALYZE_AFTER_ROWS
    monkeypatch.setattr(_engine, "ANALYZE_SHARE", 0.5)
    _load(pg_store, ANALYZE_AFTER_ROWS, first=2 * ANALYZE_AFTER_ROWS)
    assert _stats(pg_store, "paper_keys")[0] == 3 * ANALYZE_AFTER_ROWS
