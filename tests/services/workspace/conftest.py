"""A workspace over a store on each backend (SQLite file; PostgreSQL in a fresh schema), at
the newest migration (copies of the session's template, ``tests/_store_template.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests._store_template import sqlite_url_at_head
from tests.adapters.store.conftest import pg_schema

from litdesk.adapters.store import open_store
from litdesk.services.workspace import Workspace

__all__ = ["pg_schema", "store_url", "ws", "ws2"]


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        template = request.getfixturevalue("sqlite_template")
        return sqlite_url_at_head(template, tmp_path / "ws" / "litdesk.sqlite3")
    return str(request.getfixturevalue("pg_schema"))


@pytest.fixture
def ws(store_url: str) -> Iterator[Workspace]:
    store = open_store(store_url)
    try:
        yield Workspace(store)
    finally:
        store.dispose()


@pytest.fixture
def ws2(tmp_path: Path, sqlite_template: Path) -> Iterator[Workspace]:
    """A second, empty workspace (SQLite) to recover exports into."""
    store = open_store(sqlite_url_at_head(sqlite_template, tmp_path / "other" / "litdesk.sqlite3"))
    try:
        yield Workspace(store)
    finally:
        store.dispose()
