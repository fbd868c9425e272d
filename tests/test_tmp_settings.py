"""``tmp_settings`` copies settings read once per environment (``tests/conftest.py``'s
``_settings_in``): check the copy is what ``Settings(data_dir=...)`` makes there, and that
a test changing its copy changes no other test's."""

from __future__ import annotations

from pathlib import Path

import pytest

from litdesk import Settings
from tests.conftest import _settings_in


def _same(made: Settings, read: Settings) -> None:
    assert type(made) is type(read)
    assert made.model_dump() == read.model_dump()
    assert made.model_fields_set == read.model_fields_set
    assert made.demo == read.demo


def test_tmp_settings_are_the_settings_read_for_their_data_dir(
    tmp_settings: Settings, tmp_path: Path
) -> None:
    _same(tmp_settings, Settings(data_dir=tmp_path / "data"))
    assert tmp_settings.resolved_database_url().endswith(f"{tmp_path}/data/litdesk.sqlite3")


def test_a_copy_follows_the_environment_and_shares_nothing(
    tmp_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp_settings.library_dirs.append(tmp_path)
    tmp_settings.provider_daily_requests["openalex"] = 1
    again = _settings_in(tmp_path / "other")
    _same(again, Settings(data_dir=tmp_path / "other"))
    assert tmp_path not in again.library_dirs
    monkeypatch.setenv("LITDESK_JOBS_POLL_SECONDS", "0.25")
    changed = _settings_in(tmp_path / "data")
    assert changed.jobs_poll_seconds == 0.25
    _same(changed, Settings(data_dir=tmp_path / "data"))


def test_a_dotenv_file_is_read(tmp_settings: Settings, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("LITDESK_JOBS_POLL_SECONDS=0.5\n", encoding="utf-8")
    made = _settings_in(tmp_path / "data")
    assert made.jobs_poll_seconds == 0.5
    _same(made, Settings(data_dir=tmp_path / "data"))
