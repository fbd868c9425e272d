"""A PostgreSQL schema given back to the template's pool (``tests/_pg_reuse.py``) comes back
as the schema the migrations make, holding nothing a test wrote; one whose structure a test
changed, or that a connection still holds, is never handed out again; a connection a test
left open loses the schema it had."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from tests._pg_reuse import fingerprint, statistics
from tests._store_template import PgTemplate, pg_schema_url
from tests.adapters.store._pg_shape import pg_shape

from litdesk.adapters.store import open_store

_COLUMNS = """
SELECT a.attname, format_type(a.atttypid, a.atttypmod),
       a.attgenerated <> '' OR a.attidentity <> ''
       OR coalesce(pg_get_expr(d.adbin, d.adrelid) LIKE 'nextval(%', false)
  FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE a.attrelid = CAST(:t AS regclass) AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY a.attnum
"""


def _value(kind: str) -> str:
    """A literal of the column type ``kind`` (the same for every column of one type, so a
    foreign key finds the row its parent table got)."""
    if kind.endswith("[]"):
        return "'{}'"
    plain = {"integer": "1", "bigint": "1", "smallint": "1", "double precision": "1"}
    plain |= {"real": "1", "boolean": "true", "bytea": "'\\x01'", "json": "'{}'"}
    plain |= {"jsonb": "'{}'", "tsvector": "'x'", "date": "current_date"}
    if kind in plain:
        return plain[kind]
    if kind.startswith(("character", "text")):
        return "'1'"
    if kind.startswith("numeric"):
        return "1"
    if kind.startswith("timestamp"):
        return "now()"
    raise AssertionError(f"no literal for the column type {kind}: teach _value")


def _write_everywhere(engine: sa.Engine, schema: str, tables: tuple[str, ...]) -> None:
    """A row in every table (parents first; sequences and generated columns by their
    defaults, so every sequence moves), the template's own row gone."""
    with engine.begin() as conn:
        conn.execute(sa.text(f'SET LOCAL search_path = "{schema}"'))
        for table in reversed(tables):
            columns = conn.execute(sa.text(_COLUMNS), {"t": table}).all()
            names = ", ".join(f'"{name}"' for name, _, _ in columns)
            values = ", ".join("DEFAULT" if own else _value(kind) for _, kind, own in columns)
            conn.execute(sa.text(f'INSERT INTO "{table}" ({names}) VALUES ({values})'))
        conn.execute(sa.text("DELETE FROM alembic_version WHERE version_num <> '1'"))


def _rows_and_sequences(engine: sa.Engine, schema: str) -> tuple[set[str], set[str]]:
    """The tables of ``schema`` holding a row, and its sequences that were used."""
    shape = pg_shape(engine, schema)
    rows = {table for table, held in shape["rows"].items() if held}
    used = {name for name, (_, called) in shape["sequence values"].items() if called}
    return rows, used


def test_a_reset_schema_is_the_schema_the_migrations_make_after_rows_in_every_table(
    pg_template: PgTemplate, migrated_from_zero: tuple[sa.Engine, str]
) -> None:
    engine, fresh = migrated_from_zero
    expected = pg_shape(engine, fresh)
    schema = pg_template.take()
    _write_everywhere(engine, schema, pg_template.plan.tables)
    rows, used = _rows_and_sequences(engine, schema)
    assert rows == set(expected["rows"]) and len(rows) > 50  # every table holds a row
    assert used == set(expected["sequence values"]) and used  # every sequence moved
    reset = pg_template.reset(schema)
    assert reset is not None and reset != schema
    try:
        assert pg_shape(engine, reset) == expected
        assert pg_template.fingerprint(reset) == pg_template.plan.fingerprint
        with engine.begin() as conn:
            assert statistics(conn, reset) == pg_template.fresh_statistics is not None
    finally:
        pg_template.give_back(reset)


def test_the_pool_hands_a_schema_given_back_out_again_reset(
    pg_template: PgTemplate, migrated_from_zero: tuple[sa.Engine, str]
) -> None:
    engine, fresh = migrated_from_zero
    schema = pg_template.take()
    _write_everywhere(engine, schema, pg_template.plan.tables)
    pg_template.settle()
    reused = pg_template.counts["reused"]
    pg_template.give_back(schema)
    pg_template.settle()
    assert pg_template.counts["reused"] == reused + 1
    again = pg_template.take()  # the last reset first
    try:
        assert pg_template.reset_from[again] == schema
        assert pg_shape(engine, again) == pg_shape(engine, fresh)
    finally:
        pg_template.give_back(again)


_CHANGES = {
    "a column": "ALTER TABLE login_failures ADD COLUMN extra text",
    "a column's default": "ALTER TABLE login_failures ALTER COLUMN scope SET DEFAULT 'x'",
    "a column's type": "ALTER TABLE login_failures ALTER COLUMN scope TYPE text",
    "an index": "CREATE INDEX extra_ix ON login_failures (at)",
    "a constraint": "ALTER TABLE login_failures ADD CONSTRAINT extra_ck CHECK (at >= 0)",
    "a dropped constraint": "ALTER TABLE study_papers DROP CONSTRAINT fk_study_papers_paper",
    "a table": "CREATE TABLE extra (id integer)",
    "a dropped table": "DROP TABLE login_failures",
    "a view": "CREATE VIEW extra AS SELECT 1 AS one",
    "a function": "CREATE FUNCTION extra() RETURNS int LANGUAGE sql AS 'SELECT 1'",
    "a type": "CREATE TYPE extra AS ENUM ('a')",
    "a trigger": "CREATE TRIGGER extra BEFORE UPDATE ON login_failures FOR EACH ROW"
    " EXECUTE FUNCTION suppress_redundant_updates_trigger()",  # a built-in function
    "a sequence's step": "ALTER SEQUENCE login_failures_seq_seq INCREMENT 2",
    "a grant": "GRANT SELECT ON login_failures TO PUBLIC",
    "a comment": "COMMENT ON TABLE login_failures IS 'extra'",
    "a renamed column": "ALTER TABLE alembic_version RENAME COLUMN version_num TO version",
}


def test_every_change_of_structure_changes_the_fingerprint(pg_template: PgTemplate) -> None:
    with (
        pg_template.schema_at_head() as schema,
        pg_template.engine.connect() as conn,
        conn.begin(),
    ):
        assert fingerprint(conn, schema) == pg_template.plan.fingerprint
        for change, statement in _CHANGES.items():
            savepoint = conn.begin_nested()
            conn.exec_driver_sql(statement)
            changed = fingerprint(conn, schema)
            savepoint.rollback()  # undone for the next change
            assert changed != pg_template.plan.fingerprint, change
        assert fingerprint(conn, schema) == pg_template.plan.fingerprint


def test_a_schema_whose_structure_a_test_changed_is_not_reused(pg_template: PgTemplate) -> None:
    schema = pg_template.take()
    with pg_template.engine.begin() as conn:
        conn.execute(sa.text(f'SET LOCAL search_path = "{schema}"'))
        conn.exec_driver_sql(_CHANGES["a column"])
    assert pg_template.reset(schema) is None  # left as it was: nothing renamed
    pg_template.settle()  # what tests before gave back is dealt with
    counts = dict(pg_template.counts)
    pg_template.give_back(schema)
    pg_template.settle()
    assert pg_template.counts["reused"] == counts["reused"]
    assert pg_template.counts["dropped"] == counts["dropped"] + 1
    assert schema not in pg_template.reset_from.values()
    with pg_template.engine.connect() as conn:
        left = conn.execute(
            sa.text("SELECT count(*) FROM pg_namespace WHERE nspname = :s"), {"s": schema}
        ).scalar_one()
    assert left == 0


@pytest.mark.parametrize("maintenance", ["ANALYZE", "VACUUM"])
def test_a_schema_whose_statistics_a_test_changed_is_not_reused(
    pg_template: PgTemplate, maintenance: str
) -> None:
    """The store reads a table's ``reltuples`` (it analyses after a bulk load): a schema
    given back with its statistics moved would not be the one a fresh clone is."""
    schema = pg_template.take()
    with pg_template.engine.connect() as conn:
        conn.execute(sa.text(f'SET search_path = "{schema}"'))
        conn.execute(sa.text("INSERT INTO login_failures (scope, at) VALUES ('s', 1)"))
        conn.commit()
        conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql(
            f"{maintenance} login_failures"
        )
    assert pg_template.fingerprint(schema) == pg_template.plan.fingerprint  # same structure
    assert pg_template.reset(schema) is None
    pg_template.give_back(schema)  # dropped


def test_a_schema_reset_max_reuses_times_is_dropped(
    pg_template: PgTemplate, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dead rows stay behind a ``DELETE`` until a vacuum (autovacuum is off on the machine
    this was made on), so a clone's line of resets ends after ``max_reuses``."""
    pg_template.settle()
    first = pg_template.take()
    done = pg_template.reuses.get(first, 0)
    monkeypatch.setattr(pg_template, "max_reuses", done + 1)
    pg_template.give_back(first)
    pg_template.settle()
    second = pg_template.take()  # the last reset first
    assert pg_template.reset_from[second] == first
    assert pg_template.reuses[second] == done + 1
    dropped = pg_template.counts["dropped"]
    pg_template.give_back(second)
    pg_template.settle()
    assert pg_template.counts["dropped"] == dropped + 1
    assert second not in pg_template.reset_from.values()


def test_a_schema_a_transaction_still_holds_is_neither_reused_nor_waited_for(
    pg_template: PgTemplate,
) -> None:
    schema = pg_template.take()
    holder = sa.create_engine(pg_schema_url(pg_template.base_url, schema))
    try:
        with holder.connect() as conn:
            conn.execute(sa.text("SELECT count(*) FROM login_failures"))  # its lock held
            pg_template.settle()  # what tests before gave back is dealt with
            counts = dict(pg_template.counts)
            started = time.monotonic()
            pg_template.give_back(schema)
            pg_template.settle()
            waited = time.monotonic() - started
            assert pg_template.counts["reused"] == counts["reused"]
            assert pg_template.counts["kept aside"] == counts["kept aside"] + 1
            # a lock timeout for the reset and one for the drop, never the holder's time
            assert waited < 20 * PgTemplate.LOCK_TIMEOUT_MS / 1000
            with pg_template.schema_at_head() as fresh:  # the pool still hands out schemas
                assert fresh != schema and pg_template.reset_from.get(fresh) != schema
            conn.execute(sa.text("INSERT INTO login_failures (scope, at) VALUES ('late', 1)"))
            conn.commit()  # still its own schema: nobody else was given it
    finally:
        holder.dispose()


@pytest.fixture
def left_open(pg_template: PgTemplate) -> Iterator[tuple[sa.Connection, str]]:
    """A connection to a schema given back while it stays open (idle), a statement of it
    prepared on the server, and the schema's name."""
    schema = pg_template.take()
    engine = sa.create_engine(pg_schema_url(pg_template.base_url, schema))
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("PREPARE leftover AS SELECT count(*) FROM login_failures")
            assert conn.exec_driver_sql("EXECUTE leftover").scalar_one() == 0
            conn.commit()
            yield conn, schema
    finally:
        engine.dispose()


def test_a_connection_left_open_loses_the_schema_it_had(
    pg_template: PgTemplate, left_open: tuple[sa.Connection, str]
) -> None:
    conn, schema = left_open
    pg_template.settle()
    reused = pg_template.counts["reused"]
    pg_template.give_back(schema)
    pg_template.settle()
    assert pg_template.counts["reused"] == reused + 1
    for statement in (
        "EXECUTE leftover",
        "SELECT count(*) FROM login_failures",
        "INSERT INTO login_failures (scope, at) VALUES ('late', 1)",
    ):
        with pytest.raises(sa.exc.ProgrammingError, match="does not exist"):
            conn.exec_driver_sql(statement)
        conn.rollback()


#: the schema each test of the order below was given (by position)
_GIVEN: list[str] = []


@pytest.mark.parametrize("position", [0, 1, 2])
def test_what_one_test_wrote_the_next_given_its_schema_never_sees(
    pg_template: PgTemplate, position: int
) -> None:
    """Three tests in a row: each is given the schema the one before wrote to, and finds
    none of its rows (A then B, then B then C: either way round)."""
    pg_template.settle()  # the last test's schema is back in the pool
    schema = pg_template.take()
    try:
        if position > 0:
            assert pg_template.reset_from.get(schema) == _GIVEN[position - 1]
        _GIVEN.append(schema)
        store = open_store(pg_schema_url(pg_template.base_url, schema))
        try:
            with store.read() as conn:
                held = conn.execute(sa.text("SELECT scope FROM login_failures")).all()
            with store.write() as conn:
                seq = conn.execute(
                    sa.text("INSERT INTO login_failures (scope, at) VALUES (:s, 1) RETURNING seq"),
                    {"s": f"written by test {position}"},
                ).scalar_one()
        finally:
            store.dispose()
        assert held == [] and seq == 1
    finally:
        pg_template.give_back(schema)
