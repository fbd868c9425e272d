"""Fixtures of the screening service tests: an app on SQLite (and on PostgreSQL where
asked) with a Study built from a real export (49 records of the gambling-harms Lens set)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.services.conftest import pg_schema

from litdesk import Settings
from litdesk.services.app import App, open_app_sync

__all__ = ["pg_schema"]

EXPORT = "bib/ris/citesource__20221207_gambling-harms_lens_49.ris"


@pytest.fixture
def app(tmp_settings: Settings) -> Iterator[App]:
    with open_app_sync(tmp_settings) as opened:
        yield opened


@pytest.fixture(params=["sqlite", "postgres"])
def any_settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    if request.param == "postgres":
        return tmp_settings.model_copy(
            update={"database_url": request.getfixturevalue("pg_schema")}
        )
    return tmp_settings


@pytest.fixture
def export(fixtures_dir: Path) -> Path:
    return fixtures_dir / EXPORT
