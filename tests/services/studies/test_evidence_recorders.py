"""Who recorded each evidence record in a shared Study (walk12): with two reviewers
extracting, the evidence table, its CSV and the Study ZIP's evidence.csv name the account
that recorded each record; a single-user workspace's records name no one (no column)."""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.adapters.store.conftest import pg_schema, store_url

from litdesk import Settings
from litdesk.adapters.store import accounts as access
from litdesk.core.records import make_paper
from litdesk.services.app import App, open_app_sync
from litdesk.services.studies import EvidenceExportRequest
from litdesk.services.workspace import now_iso

__all__ = ["pg_schema", "store_url"]

ABSTRACT = "Aspirin lowered the risk of stroke in older adults over five years."


@pytest.fixture
def app(store_url: str, tmp_path: Path) -> Iterator[App]:
    settings = Settings(data_dir=tmp_path / "data", database_url=store_url)
    with open_app_sync(settings) as a:
        yield a


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_each_record_names_the_account_that_recorded_it(app: App) -> None:
    with app.store.write() as conn:
        access.insert_account(conn, "acct_ana", "ana", "x", now_iso())
        access.insert_account(conn, "acct_bo", "bo", "x", now_iso())
    ana = app.workspace("acct_ana")
    study = ana.create_study("Shared")
    paper = ana.save_paper(make_paper(pmid="7", title="Seven", abstract=ABSTRACT)).paper
    ana.add_to_study(study.id, paper.id)
    with app.store.write() as conn:
        access.set_member(conn, study.id, "acct_bo", "editor", "acct_ana", now_iso())
    mine = ana.add_evidence(
        paper.id,
        finding="Fewer strokes",
        passage="lowered the risk",
        source="abstract",
        study=study.id,
    )
    theirs = app.workspace("acct_bo").add_evidence(
        paper.id,
        finding="Older adults",
        passage="in older adults",
        source="abstract",
        study=study.id,
    )
    assert mine.recorded_by == "ana" and theirs.to_dict()["recorded_by"] == "bo"

    table = app.reader.evidence_table(study=study.id, owner="acct_bo").to_dict()
    by = {e["finding"] or e["values"].get("finding"): e["recorded_by"] for e in table["evidence"]}
    assert by == {"Fewer strokes": "ana", "Older adults": "bo"}

    exported = app.studies.export_evidence(EvidenceExportRequest(study.id), owner="acct_ana")
    assert {r["evidence_id"]: r["recorded_by"] for r in _rows(exported.text)} == {
        mine.id: "ana",
        theirs.id: "bo",
    }
    archive = app.studies.export_zip(study.id, owner="acct_ana")
    with zipfile.ZipFile(io.BytesIO(archive.body)) as zf:
        inside = _rows(zf.read("evidence.csv").decode("utf-8"))
    assert sorted(r["recorded_by"] for r in inside) == ["ana", "bo"]


def test_a_single_user_workspace_names_no_one(app: App) -> None:
    ws = app.workspace()
    study = ws.create_study("Mine")
    paper = ws.save_paper(make_paper(pmid="8", title="Eight", abstract=ABSTRACT)).paper
    ws.add_to_study(study.id, paper.id)
    ev = ws.add_evidence(
        paper.id,
        finding="Fewer strokes",
        passage="lowered the risk",
        source="abstract",
        study=study.id,
    )
    assert ev.recorded_by is None
    exported = app.studies.export_evidence(EvidenceExportRequest(study.id), owner="local")
    assert "recorded_by" not in exported.text.splitlines()[0]
