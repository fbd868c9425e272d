"""What the team half of the screening area (``_team_area``) uses of the area it is the base
class of: a structural type, so that the two modules do not import each other."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from sqlalchemy.engine import Connection

from litdesk.adapters.store import Store, repo, screening
from litdesk.adapters.store import accounts as access
from litdesk.core.screening import Stage

from ._cards import Ctx
from ._config import ScreeningConfig
from ._items import StudyCache
from ._requests import ConfigureRequest
from ._views import DecisionView, ScreeningSettingsView

__all__ = ["AreaParts"]


class AreaParts(Protocol):
    """The screening area as its team methods see it (:class:`~._area.ScreeningArea`)."""

    store: Store
    cache: StudyCache

    def _now(self) -> str: ...

    def _study(
        self, conn: Connection, ref: str, owner: str, need: access.Need
    ) -> tuple[repo.StudyRow, str]: ...

    @staticmethod
    def _config(
        conn: Connection, study_id: str
    ) -> tuple[ScreeningConfig, screening.SettingsRow | None]: ...

    def _ctx(
        self, ref: str, owner: str, need: access.Need = "read", *, reconcile: bool = False
    ) -> Ctx: ...

    def _reviewer_names(self, account_ids: Iterable[str]) -> dict[str, str]: ...

    def _after_decision(
        self, study_id: str, stage: Stage, reviewers: Iterable[str] = ()
    ) -> bool: ...

    def _decision_view(
        self, study_id: str, stage: Stage, row: screening.DecisionRow, owner: str, queued: bool
    ) -> DecisionView: ...

    def configure(self, request: ConfigureRequest, *, owner: str) -> ScreeningSettingsView: ...
