"""A Study built from real exports, for the screening tests."""

from __future__ import annotations

from pathlib import Path

from litdesk.services.app import App
from litdesk.services.studies import CreateStudyRequest, ImportRequest

__all__ = ["make_study"]


def make_study(app: App, name: str, paths: list[Path], owner: str | None = None) -> str:
    owner = owner or app.owner
    sid = app.studies.create_study(CreateStudyRequest(name, None), owner=owner).id
    app.studies.import_files(
        ImportRequest(study=sid, paths=tuple(str(p) for p in paths)), owner=owner
    )
    return sid
