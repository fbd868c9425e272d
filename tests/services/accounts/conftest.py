"""Team accounts over a store on each backend (SQLite file; PostgreSQL in a fresh schema)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture re-export

from litdesk import Settings
from litdesk.adapters.store import Store, open_store


@pytest.fixture(params=["sqlite", "postgres"])
def team_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'team' / 'litdesk.sqlite3'}"
    return str(request.getfixturevalue("pg_schema"))


@pytest.fixture
def team_store(team_url: str) -> Iterator[Store]:
    store = open_store(team_url)
    try:
        yield store
    finally:
        store.dispose()


@pytest.fixture
def team_settings(tmp_settings: Settings, team_url: str) -> Settings:
    return tmp_settings.model_copy(
        update={
            "database_url": team_url,
            "login_max_failures_account": 3,
            "login_max_failures_address": 5,
        }
    )
