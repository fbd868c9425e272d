"""The process's one cache of compiled statements (``_compiled``): a statement compiled
by one store's engine runs, compiled once, on another store's engine of the same kind —
with that store's data and types — on both backends; PostgreSQL and SQLite never share an
entry, nor do servers of different versions, a dialect with a setting not understood, or
a statement run with a schema translate map; the cache is bounded."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import CursorResult
from sqlalchemy.engine.default import DefaultDialect
from sqlalchemy.sql.compiler import Compiled
from sqlalchemy.util import LRUCache
from tests._store_template import PgTemplate, pg_schema_url, sqlite_url_at_head

from litdesk.adapters.store import Store, make_engine, open_store
from litdesk.adapters.store import _compiled as compiled_module
from litdesk.adapters.store._schema import accounts

HIT, MISS = DefaultDialect.CACHE_HIT, DefaultDialect.CACHE_MISS


@pytest.fixture(params=["sqlite", "postgres"])
def two_stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Store, Store]]:
    """Two stores at head on one backend: two SQLite files, or two PostgreSQL schemas
    (their connections' default schemas differ)."""
    with ExitStack() as stack:
        if request.param == "sqlite":
            template: Path = request.getfixturevalue("sqlite_template")
            urls = [sqlite_url_at_head(template, tmp_path / name / "db.sqlite3") for name in "ab"]
        else:
            pg: PgTemplate = request.getfixturevalue("pg_template")
            urls = [
                pg_schema_url(pg.base_url, stack.enter_context(pg.schema_at_head())) for _ in "ab"
            ]
        stores = [open_store(url) for url in urls]
        for store in stores:
            stack.callback(store.dispose)
        yield stores[0], stores[1]


def _compiled(result: CursorResult[Any]) -> Compiled:
    """The compiled statement a result's execution ran."""
    compiled = result.context.compiled
    assert compiled is not None
    return compiled


def _rows(result: CursorResult[Any]) -> list[tuple[object, ...]]:
    return [tuple(row) for row in result.all()]


def _unique() -> str:
    """A label no other test compiled (the cache is the process's: a new statement misses)."""
    return f"n_{uuid.uuid4().hex}"


def test_a_statement_compiled_by_one_engine_runs_on_another_with_its_own_data(
    two_stores: tuple[Store, Store],
) -> None:
    first, second = two_stores
    label = _unique()

    # one statement object each, built anew (as each call of the product's code builds it):
    # equal cache keys, a Boolean (bind and result processors) and a bound parameter
    def select() -> sa.Select[tuple[str, bool]]:
        return (
            sa.select(accounts.c.username.label(label), accounts.c.disabled)
            .where(accounts.c.username.like(sa.bindparam("pattern")))
            .order_by(accounts.c.username)
        )

    def insert(store: Store, rows: list[tuple[str, bool]]) -> list[object]:
        hits: list[object] = []
        with store.write() as conn:
            for name, disabled in rows:
                values: dict[str, object] = {"id": name, "username": name, "disabled": disabled}
                values |= {"password_hash": "x", "created_at": "t", "password_changed_at": "t"}
                hits.append(conn.execute(sa.insert(accounts).values(**values)).context.cache_hit)
        return hits

    assert insert(first, [("ann", True), ("abe", False)])[1:] == [HIT]
    # the insert compiled by the first engine writes into the second's store
    assert insert(second, [("amy", False), ("al", True), ("bob", True)]) == [HIT] * 3
    with first.read() as conn:
        result = conn.execute(select(), {"pattern": "a%"})
        assert result.context.cache_hit == MISS
        assert _rows(result) == [("abe", False), ("ann", True)]
    with second.read() as conn:
        result = conn.execute(select(), {"pattern": "a%"})
        # compiled once, by the first engine: the second runs that very statement ...
        assert result.context.cache_hit == HIT
        assert _compiled(result).dialect is first.engine.dialect
        assert second.engine.dialect is not first.engine.dialect
        # ... on its own connection, with its own data, its Booleans read as Booleans
        assert _rows(result) == [("al", True), ("amy", False)]
        disabled = [row[1] for row in _rows(conn.execute(select(), {"pattern": "%"}))]
        assert disabled == [True, False, True] and all(type(d) is bool for d in disabled)
    with first.read() as conn:  # and the first's rows stayed its own
        assert _rows(conn.execute(select(), {"pattern": "%"})) == [("abe", False), ("ann", True)]


def test_postgresql_and_sqlite_never_share_an_entry(
    tmp_path: Path, sqlite_template: Path, pg_schema: str
) -> None:
    sqlite = open_store(sqlite_url_at_head(sqlite_template, tmp_path / "db.sqlite3"))
    postgres = open_store(pg_schema)
    try:
        kinds = {compiled_module.dialect_kind(store.engine.dialect) for store in (sqlite, postgres)}
        assert len(kinds) == 2 and None not in kinds
        statement = sa.select(sa.literal(1).label(_unique()))
        seen = []
        texts = []
        for store in (sqlite, postgres, sqlite, postgres):
            with store.read() as conn:
                result = conn.execute(statement)
                seen.append((result.context.cache_hit, _compiled(result).dialect))
                texts.append(_compiled(result).string)
                assert result.scalar_one() == 1
        # each backend compiles it once, with its own dialect, and then finds its own
        assert [hit for hit, _ in seen] == [MISS, MISS, HIT, HIT]
        assert [dialect for _, dialect in seen] == [
            sqlite.engine.dialect,
            postgres.engine.dialect,
            sqlite.engine.dialect,
            postgres.engine.dialect,
        ]
        # in each backend's own parameter style
        assert texts[0].startswith("SELECT ? ") and texts[1].startswith("SELECT %(param_1)s")
        assert texts[2:] == texts[:2]
    finally:
        sqlite.dispose()
        postgres.dispose()


def test_other_settings_another_server_version_or_a_schema_map_share_nothing(
    tmp_path: Path, sqlite_template: Path
) -> None:
    url = sqlite_url_at_head(sqlite_template, tmp_path / "db.sqlite3")
    engines = [make_engine(url) for _ in range(4)]
    try:
        for engine in engines:  # initialised (their first connection) before any statement
            engine.connect().close()
        same, plain, newer, odd = (Store(engine) for engine in engines)
        # an engine whose server is of another version (as another server would report)
        newer.engine.dialect.server_version_info = (99, 0, 0)
        # a dialect setting this module does not know: that dialect is a kind of its own
        odd.engine.dialect.some_future_setting = object()  # type: ignore[attr-defined]
        kinds = [compiled_module.dialect_kind(engine.dialect) for engine in engines]
        assert kinds[0] == kinds[1] and kinds[2] not in (kinds[0], None) and kinds[3] is None
        statement = sa.select(sa.literal(7).label(_unique()))

        def hit(store: Store, **options: object) -> object:
            with store.read() as conn:
                result = conn.execution_options(**options).execute(statement)
                assert result.scalar_one() == 7
                return result.context.cache_hit

        assert hit(same) == MISS
        assert hit(plain) == HIT  # same kind
        assert hit(newer) == MISS  # another version
        assert hit(newer) == HIT
        assert hit(odd) == MISS  # its own entries only
        assert hit(odd) == HIT
        # a schema translate map is rendered with the engine's own default schema: its
        # statements stay the engine's own
        mapped = {"schema_translate_map": {None: None}}
        assert hit(same, **mapped) == MISS
        assert hit(plain, **mapped) == MISS
        assert hit(plain, **mapped) == HIT
    finally:
        for engine in engines:
            engine.dispose()


def test_the_cache_is_bounded_and_keeps_the_most_recent(
    tmp_path: Path, sqlite_template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = compiled_module._shared
    assert isinstance(shared, LRUCache) and shared.capacity == compiled_module.COMPILED_CACHE_SIZE
    small: LRUCache[tuple[object, ...], object] = LRUCache(10)
    monkeypatch.setattr(compiled_module, "_shared", small)
    store = open_store(sqlite_url_at_head(sqlite_template, tmp_path / "db.sqlite3"))
    try:
        statements = [sa.select(sa.literal(n).label(_unique())) for n in range(40)]
        with store.read() as conn:
            sizes = []
            for statement in statements:
                conn.execute(statement)
                sizes.append(compiled_module.shared_entries())
            assert max(sizes) <= small.size_threshold  # 15: pruned back to 10 past it
            assert conn.execute(statements[-1]).context.cache_hit == HIT
            assert conn.execute(statements[0]).context.cache_hit == MISS  # dropped
    finally:
        store.dispose()
