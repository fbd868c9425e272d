"""Readiness of a team server: the database answers and its schema is at the newest
migration (a worker started before an upgrade finished is not ready)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litdesk._errors import ConfigError, LitdeskError
from litdesk._settings import Settings
from litdesk.adapters.store import Store, open_store
from litdesk.adapters.store import accounts as acc

from ._sso import check_sso_settings

__all__ = ["Readiness", "prepare_team_store", "readiness"]


@dataclass(frozen=True, slots=True)
class Readiness:
    ready: bool
    database: str
    revision: str | None
    head: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ready": self.ready,
            "database": self.database,
            "revision": self.revision,
            "head": self.head,
        }


def readiness(store: Store) -> Readiness:
    try:
        applied, head = acc.schema_state(store)
    except LitdeskError as exc:
        return Readiness(False, f"unreachable ({exc.code})", None, None)
    return Readiness(applied == head, "ok", applied, head)


def prepare_team_store(settings: Settings) -> Readiness:
    """Before the workers of a team server start: PostgreSQL is required, and its schema is
    brought to the newest migration once (the workers then find it at head); the single
    sign-on settings, when given, are usable."""
    check_sso_settings(settings)
    url = settings.resolved_database_url()
    if not url.startswith("postgresql"):
        raise ConfigError(
            "team mode needs PostgreSQL: set LITDESK_DATABASE_URL=postgresql://user@host/db",
            code="team_needs_postgres",
        )
    store = open_store(settings)
    try:
        return readiness(store)
    finally:
        store.dispose()
