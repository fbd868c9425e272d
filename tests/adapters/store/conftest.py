"""A store on each backend: SQLite in a temp dir, PostgreSQL in a fresh schema per test."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from urllib.parse import quote

import pytest
import sqlalchemy as sa

from litdesk.adapters.store import Store, open_store


def pg_schema_url(base: str, schema: str) -> str:
    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options={quote(f'-csearch_path={schema}')}"


@pytest.fixture
def pg_schema(postgres_url: str) -> Iterator[str]:
    schema = f"t_{uuid.uuid4().hex[:16]}"
    engine = sa.create_engine(postgres_url)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield pg_schema_url(postgres_url, schema)
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store' / 'litdesk.sqlite3'}"
    return request.getfixturevalue("pg_schema")


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = open_store(store_url)
    try:
        yield s
    finally:
        s.dispose()
