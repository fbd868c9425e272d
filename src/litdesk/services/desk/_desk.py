"""The desk: what is left of the web workspace's use cases (the reader), over services
opened once.

Built by :func:`litdesk.services.app.open_app` over the app's providers and its search
area (whose recent runs the reader reads); the searches, live searches, selections of a
run and saved runs are the search area's (:class:`litdesk.services.search.SearchArea`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import InputError
from litdesk._settings import Settings
from litdesk.adapters.store import Store
from litdesk.services.providers import Providers
from litdesk.services.search import SearchArea
from litdesk.services.studies import study_rows
from litdesk.services.workspace import Workspace

from ._listings import Listings
from ._reader import ReaderDesk

__all__ = ["Desk", "DeskInputError", "study_dicts"]


def study_dicts(ws: Workspace) -> list[dict[str, Any]]:
    """The Studies ``ws``'s owner may read, for the views that offer "add to a Study"."""
    return [dict(row) for row in study_rows(ws)]


class DeskInputError(InputError):
    """A request to the desk does not fit (selection size, unknown run, bad choice)."""

    default_code = "desk_input"


@dataclass(slots=True)
class Desk:
    """The web workspace's remaining use cases for one owner: ``local`` (single-user), or
    a team account whose rights the workspace checks on every record."""

    providers: Providers
    # the search area (its recent runs: what the reader and the selection tools read)
    search: SearchArea
    # citation listings shown for saving (in the store; one per app, shared by the desks)
    listings: Listings
    owner: str = "local"
    #: what listings read (tests: a ManualClock)
    clock: Clock = SYSTEM_CLOCK

    @property
    def settings(self) -> Settings:
        return self.providers.settings

    @property
    def store(self) -> Store:
        return self.providers.store

    @property
    def workspace(self) -> Workspace:
        return Workspace(self.store, owner=self.owner)

    def for_owner(self, owner: str) -> Desk:
        """A desk over the same app acting as ``owner`` (whose recent runs it reads)."""
        return Desk(self.providers, self.search, self.listings, owner, self.clock)

    # --- reader and evidence (services/desk/_reader.py) -----------------------------------

    @property
    def reading(self) -> ReaderDesk:
        """The reader's use cases (abstract, full text, highlights, evidence)."""
        owner = self.owner
        return ReaderDesk(
            self.providers,
            owner,
            lambda paper_id: self.search.paper_in_runs(paper_id, owner=owner),
            lambda run: self.search.remember(run, owner=owner),
            lambda: study_dicts(self.workspace),
        )
