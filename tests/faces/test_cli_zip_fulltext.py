"""`litdesk study export` / `study import` carry a report recorded not retrieved (walk 12:
the ZIP's full_text.csv listed every record as "undecided" and left it out, and a
recovered Study counted it awaiting): the file lists the reports sought with their
retrieval, and recovery says the retrieval it recorded."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli import app as cli
from litdesk.services.app import open_app_sync
from litdesk.services.screening import (
    DecideRequest,
    ItemsRequest,
    PrismaFlowRequest,
    RetrievalRequest,
)
from litdesk.services.studies import CreateStudyRequest, ImportRequest

EXPORT = "bib/ris/citesource__20221207_gambling-harms_lens_49.ris"


def test_export_and_import_carry_the_reports_not_retrieved(
    tmp_settings, fixtures_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_app_sync(tmp_settings) as a:
        sid = a.studies.create_study(CreateStudyRequest("Sought", None), owner=a.owner).id
        paths = (str(fixtures_dir / EXPORT),)
        a.studies.import_files(ImportRequest(study=sid, paths=paths), owner=a.owner)
        rows = a.screening.items(ItemsRequest(sid, page_size=5), owner=a.owner).rows
        keys = [r["record_key"] for r in rows]
        for key in keys[:2]:
            a.screening.decide(DecideRequest(sid, "title_abstract", key, "include"), owner=a.owner)
        a.screening.retrieval(RetrievalRequest(sid, keys[1], False), owner=a.owner)
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    get_settings.cache_clear()
    try:
        runner = CliRunner()
        target = tmp_path / "sought.zip"
        done = runner.invoke(cli, ["study", "export", "Sought", "-o", str(target)])
        assert done.exit_code == 0, done.output
        with zipfile.ZipFile(target) as zf:
            text = zf.read("screening/full_text.csv").decode("utf-8")
        listed = [(r["record_id"], r["retrieval"]) for r in csv.DictReader(io.StringIO(text))]
        assert listed == [(keys[0], ""), (keys[1], "not retrieved")]
        back = runner.invoke(cli, ["study", "import", str(target)])
        assert back.exit_code == 0, back.output
        assert "retrieval recorded for 1 report as yours" in back.output
    finally:
        get_settings.cache_clear()
    with open_app_sync(tmp_settings) as a:
        listed_now = a.studies.studies(owner=a.owner).to_dict()["studies"]
        studies = {s["name"]: s["id"] for s in listed_now}
        flow = a.screening.prisma(
            PrismaFlowRequest(studies["Sought (recovered 1)"]), owner=a.owner
        ).to_dict()
        assert [(r["sought"], r["not_retrieved"]) for r in flow["rounds"]] == [(2, 1)]
