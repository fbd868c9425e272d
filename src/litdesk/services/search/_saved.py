"""Saved search runs as one service a face calls: list, show, export, freeze, and the
PRISMA-S report of a Study. The store is a constructor parameter: the app's
(``app.runs()``)."""

from __future__ import annotations

import json

from litdesk._errors import InputError
from litdesk.adapters.store import Store
from litdesk.core.runs import PrismaReport, SearchRun, freeze_run

from ._fused import load_run, runs_of
from ._reports import EXPORTS, export_run, study_prisma

__all__ = ["ExportFormatRefused", "SavedRuns"]

MAX_LIST: int = 500


class ExportFormatRefused(InputError):
    """A run export format litdesk does not write."""

    default_code = "arguments"


class SavedRuns:
    """Saved runs of one owner (default ``local``) over one :class:`Store`."""

    def __init__(self, store: Store, *, owner: str = "local", owns_store: bool = False) -> None:
        self.store = store
        self.owner = owner
        self._owns_store = owns_store

    def close(self) -> None:
        if self._owns_store:
            self._owns_store = False
            self.store.dispose()

    def __enter__(self) -> SavedRuns:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def list(self, limit: int = 50) -> list[SearchRun]:
        """The newest runs first (``limit`` clamped to 1-500)."""
        return runs_of(self.store, self.owner, limit=max(1, min(limit, MAX_LIST)))

    def get(self, run_id: str) -> SearchRun:
        """One run, validated fully (:class:`NotFoundError` when it is not stored)."""
        return load_run(self.store, run_id)

    def export(self, run_id: str, to: str) -> str:
        """The run as ``json`` (manifest), ``ris``, ``prisma-md`` or ``prisma-html`` text."""
        if to not in EXPORTS:
            raise ExportFormatRefused(f"--to must be one of {', '.join(EXPORTS)}, not {to[:40]!r}")
        return export_run(self.get(run_id), to)

    def freeze(self, run_id: str, case: str | None = None) -> str:
        """The run as an evaluation fixture (JSON text) without its query text."""
        frozen = freeze_run(self.get(run_id), case=case).to_dict()
        return json.dumps({"runs": [frozen]}, indent=2, ensure_ascii=False) + "\n"

    def prisma(self, study: str) -> PrismaReport:
        """The PRISMA-S search report of a Study (its saved runs and imports)."""
        return study_prisma(self.store, study, owner=self.owner)
