"""A workspace over a store on each backend (SQLite file; PostgreSQL in a fresh schema)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from urllib.parse import quote

import pytest
import sqlalchemy as sa

from litdesk.adapters.store import open_store
from litdesk.services.workspace import Workspace


@pytest.fixture
def pg_url(postgres_url: str) -> Iterator[str]:
    schema = f"t_{uuid.uuid4().hex[:16]}"
    engine = sa.create_engine(postgres_url)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in postgres_url else "?"
    try:
        yield f"{postgres_url}{sep}options={quote(f'-csearch_path={schema}')}"
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ws' / 'litdesk.sqlite3'}"
    return request.getfixturevalue("pg_url")


@pytest.fixture
def ws(store_url: str) -> Iterator[Workspace]:
    store = open_store(store_url)
    try:
        yield Workspace(store)
    finally:
        store.dispose()


@pytest.fixture
def ws2(tmp_path) -> Iterator[Workspace]:
    """A second, empty workspace (SQLite) to recover exports into."""
    store = open_store(f"sqlite:///{tmp_path / 'other' / 'litdesk.sqlite3'}")
    try:
        yield Workspace(store)
    finally:
        store.dispose()
