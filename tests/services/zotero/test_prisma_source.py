"""Records a Zotero library brought into a Study are counted under that library in PRISMA
2020 (other methods, named as the Study names imports), not as papers added by hand — in
the flow's data, its table, the SVG and the Study's identification; a paper added by hand
stays one, and a paper added by hand that a Zotero import then brings is counted under the
library (its record renamed in place: its group and decisions stay)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests._zotero_lib import LibraryBuilder

from litdesk.core.records import make_paper
from litdesk.services.app import open_app_sync
from litdesk.services.dedup import ADDED_BY_HAND
from litdesk.services.screening import PrismaFlowRequest
from litdesk.services.studies import CreateStudyRequest
from litdesk.services.zotero import ZoteroImportRequest

pytestmark = pytest.mark.fixtures

ZOTERO = "Import: Zotero library (personal)"
FILE = "Import: refs.ris (ris)"


def _sources(flow: dict[str, object]) -> dict[str, tuple[str, int]]:
    rounds = flow["rounds"]
    assert isinstance(rounds, list)
    identified = rounds[0]["identified"]
    return {s["name"]: (s["kind"], s["records"]) for s in identified["sources"]}


def test_zotero_records_are_their_own_prisma_source(
    fixtures_dir: Path, tmp_path: Path, tmp_settings
) -> None:
    b = LibraryBuilder(fixtures_dir / "zotero" / "schema-sql", tmp_path / "Zotero")
    for i in range(3):
        b.item(fields={"title": f"Zotero trial {i}", "DOI": f"10.1000/z.{i}", "date": "2020"})
    b.close()
    with open_app_sync(tmp_settings) as app:
        app.studies.create_study(CreateStudyRequest("Review"), owner=app.owner)
        ws = app.workspace()
        hand = make_paper(title="Typed in by hand", doi="10.1000/hand", year=2021)
        ws.save_paper(hand, study="Review")
        # the same paper as a Zotero item, added by hand first
        early = make_paper(title="Zotero trial 0", doi="10.1000/z.0", year=2020)
        ws.save_paper(early, study="Review")
        ris = tmp_path / "refs.ris"
        ris.write_text("TY  - JOUR\nTI  - From a file\nDO  - 10.1000/f\nPY  - 2019\nER  - \n")
        ws.save_file(ris, study="Review")
        before = app.screening.prisma(PrismaFlowRequest("Review"), owner=app.owner).to_dict()
        assert _sources(before) == {FILE: ("database", 1), ADDED_BY_HAND: ("other", 2)}
        app.zotero.import_library(
            ZoteroImportRequest(data_dir=str(b.data_dir), study="Review", pdfs=False),
            owner=app.owner,
        )
        view = app.screening.prisma(PrismaFlowRequest("Review"), owner=app.owner)
        assert _sources(view.flow) == {
            FILE: ("database", 1),
            ADDED_BY_HAND: ("other", 1),
            ZOTERO: ("other", 3),
        }
        assert ZOTERO in view.markdown and ADDED_BY_HAND in view.markdown
        svg = app.screening.export_prisma(
            PrismaFlowRequest("Review", format="svg"), owner=app.owner
        ).text
        assert "Zotero library (personal)" in svg and "n = 3" in svg
        report = app.studies.prisma("Review", owner=app.owner).to_dict()
        per = report["identification"]["records_per_source"]  # type: ignore[index]
        assert per == {FILE: 1, ADDED_BY_HAND: 1, ZOTERO: 3}


def test_a_study_of_zotero_records_only_has_its_prisma_report(
    fixtures_dir: Path, tmp_path: Path, tmp_settings
) -> None:
    """A Study whose records all came from a Zotero library has a PRISMA report (before:
    "has no saved search runs or imports", the web page a 404) with that library as its
    one source."""
    b = LibraryBuilder(fixtures_dir / "zotero" / "schema-sql", tmp_path / "Zotero")
    for i in range(2):
        b.item(fields={"title": f"Only Zotero {i}", "DOI": f"10.1000/oz.{i}", "date": "2020"})
    b.close()
    with open_app_sync(tmp_settings) as app:
        app.zotero.import_library(
            ZoteroImportRequest(data_dir=str(b.data_dir), study="Z only", pdfs=False),
            owner=app.owner,
        )
        report = app.studies.prisma("Z only", owner=app.owner).to_dict()
        idn = report["identification"]
        assert idn["records_per_source"] == {ZOTERO: 2}  # type: ignore[index]
        assert idn["records_identified"] == 2  # type: ignore[index]
