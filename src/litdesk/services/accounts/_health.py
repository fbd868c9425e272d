"""Readiness of a team server: the database answers and its schema is at the newest
migration (a worker started before an upgrade finished is not ready), and a shared object
store answers a listing."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from litdesk._errors import ConfigError, LitdeskError
from litdesk._settings import Settings
from litdesk.adapters.objects import ObjectStore, open_objects
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
    #: the shared object store's state ("ok", "unreachable (…)"); None: the data directory
    objects: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ready": self.ready,
            "database": self.database,
            "revision": self.revision,
            "head": self.head,
        }
        if self.objects is not None:
            out["objects"] = self.objects
        return out


def readiness(store: Store, objects: ObjectStore | None = None) -> Readiness:
    """The database's state; with ``objects`` (a shared object store) also whether it
    answers a listing (of an empty prefix: nothing is read)."""
    try:
        applied, head = acc.schema_state(store)
    except LitdeskError as exc:
        return Readiness(False, f"unreachable ({exc.code})", None, None)
    state = Readiness(applied == head, "ok", applied, head)
    if objects is None:
        return state
    try:
        objects.list("readyz/")
    except LitdeskError as exc:
        return replace(state, ready=False, objects=f"unreachable ({exc.code})")
    return replace(state, objects="ok")


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
    open_objects(settings).close()  # an s3:// store without its keys stops here (exit 6)
    store = open_store(settings)
    try:
        return readiness(store)
    finally:
        store.dispose()
