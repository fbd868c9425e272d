"""The one meter for transport tests: the store's allowance on the test's own SQLite
file (``tmp_settings``' data dir), opened on the first reservation."""

from __future__ import annotations

from typing import Any

from litdesk._settings import Settings
from litdesk.adapters.http import StoreMeter


def store_meter(settings: Settings, *, owner: str = "local", **limits: Any) -> StoreMeter:
    """A store meter for ``settings``; ``limits`` override the daily limits
    (``owner_daily_requests``, ``openalex_daily_requests``)."""
    if limits:
        settings = settings.model_copy(update=limits)
    return StoreMeter.from_settings(settings, owner=owner)
