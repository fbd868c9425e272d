"""Records a Zotero library brought into a Study are counted under that library in PRISMA
2020 (other methods, named as the Study names imports), not as papers added by hand — in
the flow's data, its table, the SVG and the Study's identification; a paper added by hand
stays one, and a paper added by hand that a Zotero import then brings is counted under the
library (its record renamed in place: its group and decisions stay)."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from tests._zotero_lib import LibraryBuilder
from tests.services.conftest import pg_schema

from litdesk import Settings
from litdesk.adapters.store._engine import _alembic_config, make_engine
from litdesk.core.records import make_paper
from litdesk.services.app import open_app_sync
from litdesk.services.dedup import ADDED_BY_HAND
from litdesk.services.screening import PrismaFlowRequest
from litdesk.services.studies import CreateStudyRequest
from litdesk.services.zotero import ZoteroImportRequest

pytestmark = pytest.mark.fixtures

ZOTERO = "Import: Zotero library (personal)"
FILE = "Import: refs.ris (ris)"

__all__ = ["pg_schema"]


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


@pytest.fixture(params=["sqlite", "postgres"])
def any_settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    if request.param == "postgres":
        return tmp_settings.model_copy(
            update={"database_url": request.getfixturevalue("pg_schema")}
        )
    return tmp_settings


def test_a_paper_is_counted_by_how_it_entered_each_study(
    fixtures_dir: Path, tmp_path: Path, any_settings: Settings
) -> None:
    """A paper added by hand to Study A and imported from Zotero into Study B is "added by
    hand" in A's flow and the Zotero library's in B's (before: the library's in both, the
    label read from the account's Zotero links, not from how it entered the Study)."""
    b = LibraryBuilder(fixtures_dir / "zotero" / "schema-sql", tmp_path / "Zotero")
    b.item(fields={"title": "A shared trial", "DOI": "10.1000/shared", "date": "2020"})
    b.item(fields={"title": "Only in B", "DOI": "10.1000/only-b", "date": "2021"})
    b.close()
    with open_app_sync(any_settings) as app:
        app.studies.create_study(CreateStudyRequest("A"), owner=app.owner)
        ws = app.workspace()
        shared = make_paper(title="A shared trial", doi="10.1000/shared", year=2020)
        ws.save_paper(shared, study="A")
        app.zotero.import_library(
            ZoteroImportRequest(data_dir=str(b.data_dir), study="B", pdfs=False),
            owner=app.owner,
        )
        flow_a = app.screening.prisma(PrismaFlowRequest("A"), owner=app.owner).to_dict()
        flow_b = app.screening.prisma(PrismaFlowRequest("B"), owner=app.owner).to_dict()
        assert _sources(flow_a) == {ADDED_BY_HAND: ("other", 1)}
        assert _sources(flow_b) == {ZOTERO: ("other", 2)}
        per = app.studies.prisma("A", owner=app.owner).to_dict()["identification"]
        assert per["records_per_source"] == {ADDED_BY_HAND: 1}  # type: ignore[index]
        # the same paper then imported into A too: counted under the library there as well
        app.zotero.import_library(
            ZoteroImportRequest(data_dir=str(b.data_dir), study="A", pdfs=False),
            owner=app.owner,
        )
        flow_a = app.screening.prisma(PrismaFlowRequest("A"), owner=app.owner).to_dict()
        assert _sources(flow_a) == {ZOTERO: ("other", 2)}


def test_the_migration_keeps_the_counts_made_before_it(
    fixtures_dir: Path, tmp_path: Path, any_settings: Settings
) -> None:
    """Rows made before migration 0029 cannot say which Study an import brought a paper
    into: the upgrade fills them as the count was made until then (the account's Zotero
    items among each Study's papers), so no flow changes by it; down and up again."""
    b = LibraryBuilder(fixtures_dir / "zotero" / "schema-sql", tmp_path / "Zotero")
    b.item(fields={"title": "A shared trial", "DOI": "10.1000/shared", "date": "2020"})
    b.close()
    with open_app_sync(any_settings) as app:
        app.studies.create_study(CreateStudyRequest("A"), owner=app.owner)
        shared = make_paper(title="A shared trial", doi="10.1000/shared", year=2020)
        app.workspace().save_paper(shared, study="A")
        app.zotero.import_library(
            ZoteroImportRequest(data_dir=str(b.data_dir), study="B", pdfs=False),
            owner=app.owner,
        )
        url = any_settings.resolved_database_url()
    engine = make_engine(url)
    cfg = _alembic_config()
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "0028_screening_vectors")
            assert "study_zotero_items" not in sa.inspect(conn).get_table_names()
            command.upgrade(cfg, "0029_zipreview_study_zotero")
            rows = conn.execute(
                sa.text(
                    "SELECT s.name, z.library FROM study_zotero_items z "
                    "JOIN studies s ON s.id = z.study_id ORDER BY s.name"
                )
            ).all()
    finally:
        engine.dispose()
    assert [tuple(r) for r in rows] == [("A", "user"), ("B", "user")]  # as counted before
