"""A store on each backend: SQLite in a temp dir, PostgreSQL in a schema of its own per test.

``store_url`` and ``pg_schema`` are at the newest migration (from the session's
template, ``tests/_store_template.py``); ``empty_store_url`` and ``pg_empty`` are empty, for
the tests of the migrations themselves.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from tests._store_template import (
    PgTemplate,
    create_schema,
    drop_schema,
    keep_empty,
    pg_schema_url,
    sqlite_url_at_head,
)

from litdesk.adapters.store import Store, open_store

__all__ = [
    "empty_store_url",
    "migrated_from_zero",
    "pg_empty",
    "pg_schema",
    "pg_schema_url",
    "store",
    "store_url",
]


@pytest.fixture
def pg_empty(postgres_url: str) -> Iterator[str]:
    """The URL of a fresh, empty schema (other engineers use the same database)."""
    engine = sa.create_engine(postgres_url)
    schema = create_schema(engine)
    try:
        yield pg_schema_url(postgres_url, schema)
    finally:
        drop_schema(engine, schema)
        engine.dispose()


@pytest.fixture
def migrated_from_zero(postgres_url: str) -> Iterator[tuple[sa.Engine, str]]:
    """An engine and a schema in it that the migrations made from zero (no template)."""
    engine = sa.create_engine(postgres_url)
    schema = create_schema(engine)
    try:
        open_store(pg_schema_url(postgres_url, schema)).dispose()
        yield engine, schema
    finally:
        drop_schema(engine, schema)
        engine.dispose()


@pytest.fixture
def pg_schema(pg_template: PgTemplate) -> Iterator[str]:
    """The URL of a schema at the newest migration, nobody else's: a clone of the template
    or one a test before this one used, reset (``tests/_pg_reuse.py``)."""
    with pg_template.schema_at_head() as schema:
        yield pg_schema_url(pg_template.base_url, schema)


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store at the newest migration on each backend."""
    if request.param == "sqlite":
        template = request.getfixturevalue("sqlite_template")
        return sqlite_url_at_head(template, tmp_path / "store" / "litdesk.sqlite3")
    return str(request.getfixturevalue("pg_schema"))


@pytest.fixture(params=["sqlite", "postgres"])
def empty_store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty store (no migration applied) on each backend."""
    if request.param == "sqlite":  # opened, it migrates from zero (no template copy)
        return keep_empty(request.node, f"sqlite:///{tmp_path / 'store' / 'litdesk.sqlite3'}")
    return str(request.getfixturevalue("pg_empty"))


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = open_store(store_url)
    try:
        yield s
    finally:
        s.dispose()
