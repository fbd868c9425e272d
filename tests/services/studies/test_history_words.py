"""A Study's history speaks to researchers (issue 26): each change in words ("Added an
evidence record") on what it touched by title and text (a paper's title, a note's quote, an
evidence record's finding, a PDF's paper and file), never a raw id — also once the record is
gone; on SQLite and PostgreSQL."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.adapters.store.conftest import pg_schema, store_url

from litdesk import Settings
from litdesk.adapters.store import accounts as access
from litdesk.core.records import make_paper
from litdesk.services.app import App, open_app_sync
from litdesk.services.workspace import now_iso

__all__ = ["pg_schema", "store_url"]

RAW = re.compile(r"\b(ev|note|rep|imp|run)[-_][0-9a-f]{12,}|\bMED-\d+")


@pytest.fixture
def app(store_url: str, tmp_path: Path) -> Iterator[App]:
    settings = Settings(data_dir=tmp_path / "data", database_url=store_url)
    with open_app_sync(settings) as a:
        yield a


def test_history_says_what_happened_to_which_record(app: App) -> None:
    ws = app.workspace()
    study = ws.create_study("Aspirin review")
    paper = ws.save_paper(
        make_paper(pmid="101", title="Aspirin trial", abstract="Aspirin lowered the risk."),
        study=study.id,
    ).paper
    ws.add_note(paper.id, highlight="lowered the risk", study=study.id)
    ws.add_note(paper.id, comment="Check the dose", study=study.id)
    kept = ws.add_evidence(
        paper.id, finding="Fewer strokes", passage="lowered", source="abstract", study=study.id
    )
    gone = ws.add_evidence(
        paper.id, finding="Less bleeding", passage="risk", source="abstract", study=study.id
    )
    app.studies.delete_evidence(gone.id, owner="local")
    with app.store.write() as conn:  # as the PDF and report use cases record theirs
        access.add_history(conn, study.id, "local", "pdf_attached", f"{paper.id}: a.pdf", now_iso())
        access.add_history(conn, study.id, "local", "report_saved", "rep_" + "ab" * 10, now_iso())
    entries = app.studies.history(study.id, owner="local").to_dict()["entries"]
    said = {(e["what"], e["label"]) for e in entries}  # type: ignore[index]
    assert ("Added a paper", "Aspirin trial") in said
    assert ("Added a note", "Highlight on Aspirin trial: “lowered the risk”") in said
    assert ("Added a note", "Comment on Aspirin trial: “Check the dose”") in said
    assert ("Added an evidence record", "Evidence on Aspirin trial: “Fewer strokes”") in said
    assert ("Added an evidence record", "a record no longer here (deleted)") in said
    assert ("Deleted an evidence record", "Evidence on Aspirin trial: “Less bleeding”") in said
    assert ("Attached a PDF", "Aspirin trial (a.pdf)") in said
    assert ("Saved a report", "a Study report") in said
    assert ("Created the Study", "Aspirin review") in said
    shown = " ".join(f"{e['what']} {e['label']}" for e in entries)  # type: ignore[index]
    assert not RAW.search(shown), shown
    assert kept.id in {e["target"] for e in entries}  # type: ignore[index]  # JSON keeps it
