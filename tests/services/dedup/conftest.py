"""The deduplication tests' CLI runs open the app (``app.dedup``), files-only ones too: each
test's store is a fresh copy of the migrated template in its own data directory, never
the platform's user data directory."""

from __future__ import annotations

import pytest

from litdesk import Settings


@pytest.fixture(autouse=True)
def _own_data_dir(tmp_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
