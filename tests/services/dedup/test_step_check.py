"""The Study page's in-step check (a diagnostic of a few statements that only warns) runs
at most once a minute per Study and app, by the app's clock, not on every read of the
Study's numbers (nor of its PRISMA report); without an app's checks it runs every time."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests._store_template import ensure_sqlite_at_head
from tests.adapters.store.conftest import pg_schema  # noqa: F401 - fixture re-export

from litdesk import ManualClock, Settings
from litdesk.adapters.store import Store, open_store
from litdesk.core.records import make_paper
from litdesk.services.app import open_app_sync
from litdesk.services.dedup import StepChecks, _working_set, identification
from litdesk.services.workspace import Workspace


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'one.sqlite3'}"
        ensure_sqlite_at_head(url)  # a copy of the migrated template
        return url
    return str(request.getfixturevalue("pg_schema"))


@pytest.fixture
def store(url: str, tmp_path: Path) -> Iterator[Store]:
    s = open_store(Settings(data_dir=tmp_path, database_url=url))
    try:
        yield s
    finally:
        s.dispose()


def _out_of_step(store: Store) -> str:
    ws = Workspace(store)  # no keep_working_sets: the saved paper gets no record
    study = ws.create_study("Left out of step").id
    ws.save_paper(make_paper(pmid="123", title="A paper"), study=study)
    return study


def _warnings(caplog: pytest.LogCaptureFixture) -> int:
    return sum("out of step" in r.getMessage() for r in caplog.records)


def test_an_out_of_step_study_is_warned_once_a_minute_by_the_clock_given(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    study = _out_of_step(store)
    clock = ManualClock(monotonic_start=1000.0)
    checks = StepChecks(clock)
    with caplog.at_level(logging.WARNING, logger=_working_set.log.name):
        identification(store, study, checks=checks)
        assert _warnings(caplog) == 1
        clock.advance(30)
        identification(store, study, checks=checks)
        assert _warnings(caplog) == 1  # checked 30 s ago: not again
        clock.advance(31)
        identification(store, study, checks=checks)
        assert _warnings(caplog) == 2
        identification(store, study, checks=StepChecks(clock))  # another app: its own
        assert _warnings(caplog) == 3
        identification(store, study)  # no app's checks: every time
        identification(store, study)
        assert _warnings(caplog) == 5


def test_the_study_page_checks_by_the_apps_clock(
    url: str, tmp_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    clock = ManualClock(monotonic_start=50.0)
    settings = tmp_settings.model_copy(update={"database_url": url})
    plain = open_store(settings)  # no app: nothing keeps the Study's records in step
    try:
        study = _out_of_step(plain)
    finally:
        plain.dispose()
    with (
        open_app_sync(settings, clock=clock) as app,
        caplog.at_level(logging.WARNING, logger=_working_set.log.name),
    ):
        app.studies.study(study, owner=app.owner)
        app.studies.study(study, owner=app.owner)
        assert _warnings(caplog) == 1
        clock.advance(61)
        app.studies.study(study, owner=app.owner)
        assert _warnings(caplog) == 2
