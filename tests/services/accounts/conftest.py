"""Team accounts over a store on each backend (SQLite file; PostgreSQL in a fresh schema),
at the newest migration (copies of the session's template, ``tests/_store_template.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests._store_template import sqlite_url_at_head
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture re-export

from litdesk import Settings
from litdesk.adapters.store import Store, open_store


@pytest.fixture(params=["sqlite", "postgres"])
def team_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        template = request.getfixturevalue("sqlite_template")
        return sqlite_url_at_head(template, tmp_path / "team" / "litdesk.sqlite3")
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
            "login_max_failures_user_address": 3,
            "login_max_failures_account": 6,
            "login_max_failures_address": 5,
        }
    )
