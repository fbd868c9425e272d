"""A Study screened blind in pairs by two named reviewers, for the tests of the Study ZIP's
screening history (its recovery page and command)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from litdesk import Settings
from litdesk.services.app import open_app_sync
from litdesk.services.screening import (
    ConfigureRequest,
    ConflictsRequest,
    ImportDecisionsRequest,
    ItemsRequest,
    ResolveRequest,
    StudyStageRequest,
)
from litdesk.services.studies import CreateStudyRequest, ImportRequest

__all__ = ["pairs_zip"]

EXPORT = "bib/ris/citesource__20221207_gambling-harms_lens_49.ris"
TA = "title_abstract"


def pairs_zip(fixtures: Path, folder: Path) -> bytes:
    """A Study screened blind in pairs by two named reviewers, revealed, one conflict
    resolved by the workspace's user: its ZIP."""
    with open_app_sync(Settings(data_dir=folder)) as app:
        me = app.owner
        sid = app.studies.create_study(CreateStudyRequest("Pairs", None), owner=me).id
        app.studies.import_files(
            ImportRequest(study=sid, paths=(str(fixtures / EXPORT),)), owner=me
        )
        app.screening.configure(
            ConfigureRequest(sid, dual_review={TA: True}, maybe_is_conflict=True), owner=me
        )
        rows = app.screening.items(ItemsRequest(sid, page_size=12), owner=me).rows
        words = {"i": "include", "e": "exclude", "m": "maybe"}
        for who, pattern in (("Ana Lima", "iieeimeieeii"), ("Bo Chen", "ieeeiiemeeii")):
            buf = io.StringIO()
            writer = csv.writer(buf)
            writer.writerow(["record_id", "decision"])
            writer.writerows(
                [r["record_key"], words[p]] for r, p in zip(rows, pattern, strict=True)
            )
            request = ImportDecisionsRequest(sid, buf.getvalue().encode(), "d.csv", reviewer=who)
            app.screening.import_decisions(request, owner=me)
        app.screening.reveal(StudyStageRequest(sid, TA), owner=me)
        queue = app.screening.conflicts(ConflictsRequest(sid, TA), owner=me).conflicts
        app.screening.resolve(ResolveRequest(sid, TA, queue[0].record_key, "include"), owner=me)
        return app.studies.export_zip(sid, owner=me).body
