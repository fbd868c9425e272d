"""A jobs store on each backend: SQLite in a temp dir, PostgreSQL in a fresh schema."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.adapters.store.conftest import pg_schema, store_url

from litdesk.adapters.store import Store, open_store
from litdesk.services.jobs import Jobs

__all__ = ["pg_schema", "store_url"]


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = open_store(store_url)
    try:
        yield s
    finally:
        s.dispose()


@pytest.fixture
def jobs(store: Store) -> Jobs:
    return Jobs(store)
