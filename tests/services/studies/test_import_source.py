"""An import names the source PRISMA 2020 counts its records under (issue 28): a database
read from the file (RIS DB tag, a Scopus RIS in two parts added up on one line), a register
and "citation searching" as stated at import time, one left unnamed as before ("Import:
<file> (<format>)"), and a source changed later — on SQLite and PostgreSQL, with real
export files: the flow's data, table, Markdown, CSV and SVG, PRISMA-S, the Study ZIP."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from tests.services.conftest import pg_schema

from litdesk import Settings
from litdesk._errors import InputError, NotFoundError
from litdesk.adapters import formats
from litdesk.services.app import App, open_app_sync
from litdesk.services.screening import ImportDecisionsRequest, PrismaFlowRequest
from litdesk.services.studies import (
    CreateStudyRequest,
    ImportRequest,
    ImportSourceRequest,
    PrismaExportRequest,
    RecoverRequest,
    StudyRequest,
)

pytestmark = pytest.mark.fixtures

__all__ = ["pg_schema"]

UNNAMED = "Import: litstudy__example.ris (ris)"


@pytest.fixture(params=["sqlite", "postgres"])
def any_settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    if request.param == "postgres":
        return tmp_settings.model_copy(
            update={"database_url": request.getfixturevalue("pg_schema")}
        )
    return tmp_settings


def _import(app: App, study: str, *paths: Path, name: str | None = None, kind: str | None = None):
    request = ImportRequest(
        study,
        paths=tuple(str(p) for p in paths),
        create=True,
        refuse_all=True,
        source_name=name,
        source_kind=kind,
    )
    outcome = app.studies.import_files(request, owner=app.owner)
    assert outcome.result is not None and outcome.result.done is not None
    return outcome.result.done


def _sources(app: App, study: str) -> dict[str, tuple[str, int]]:
    flow = app.screening.prisma(PrismaFlowRequest(study), owner=app.owner).to_dict()
    identified = flow["rounds"][0]["identified"]  # type: ignore[index]
    return {s["name"]: (s["kind"], s["records"]) for s in identified["sources"]}


def test_imports_are_counted_by_their_named_sources(
    fixtures_dir: Path, any_settings: Settings
) -> None:
    ris = fixtures_dir / "bib" / "ris"
    with open_app_sync(any_settings) as app:
        done = _import(app, "Knee", ris / "asreview__embase.ris")
        (embase,) = done.files
        assert embase.source is not None
        assert embase.source.to_dict() == {"name": "Embase", "kind": "database", "origin": "file"}
        # a Scopus export in two parts: one line, the records added up
        _import(app, "Knee", ris / "asreview__scopus.ris", ris / "revtools__restoration_scopus.ris")
        _import(app, "Knee", ris / "asreview___baseline.ris", name=" ClinicalTrials.gov ")
        _import(
            app, "Knee", ris / "rispy__example_full.ris", name="Citation searching", kind="other"
        )
        unnamed = _import(app, "Knee", ris / "litstudy__example.ris")
        assert unnamed.files[0].source is None  # the file names no database: as before
        assert _sources(app, "Knee") == {
            "Embase": ("database", 6),
            "Scopus": ("database", 6 + 286),
            UNNAMED: ("database", 25),
            "ClinicalTrials.gov": ("register", 100),
            "Citation searching": ("other", 2),
        }
        flow = app.screening.prisma(PrismaFlowRequest("Knee"), owner=app.owner)
        r = flow.to_dict()["rounds"][0]  # type: ignore[index]
        assert r["identified"]["databases"] == 6 + 292 + 25
        assert (r["identified"]["registers"], r["identified"]["other"]) == (100, 2)
        md = flow.markdown
        assert "| Scopus | 292 | 292 |" in md.replace("\u00a0", "")
        assert "Citation searching" in md and "from other methods" in md
        table = list(csv.reader(io.StringIO(app.screening.export_prisma(
            PrismaFlowRequest("Knee", format="csv"), owner=app.owner
        ).text)))  # fmt: skip
        rows = {row[0]: row[1:] for row in table}  # box, level, round…, total
        assert rows["Embase"] == ["2", "6", "6"] and rows["Scopus"] == ["2", "292", "292"]
        assert rows["Citation searching"] == ["2", "2", "2"]
        svg = app.screening.export_prisma(PrismaFlowRequest("Knee", "svg"), owner=app.owner).text
        assert "Embase (n = 6)" in svg and "ClinicalTrials.gov (n = 100)" in svg
        assert "Citation searching (n = 2)" in svg
        # PRISMA-S: the imports say what they are counted as; the sources add up
        report = app.studies.prisma("Knee", owner=app.owner).to_dict()
        per = report["identification"]["records_per_source"]  # type: ignore[index]
        assert per["Scopus"] == 292 and per["ClinicalTrials.gov"] == 100 and per[UNNAMED] == 25
        kinds = report["identification"]["source_kinds"]  # type: ignore[index]
        assert kinds["ClinicalTrials.gov"] == "register" and kinds["Scopus"] == "database"
        assert kinds["Citation searching"] == "other"
        md = app.studies.export_prisma(PrismaExportRequest("Knee", "md"), owner=app.owner).text
        assert "- ClinicalTrials.gov (register): 100" in md and "- Scopus: 292" in md
        assert "- Citation searching (other method): 2" in md
        labels = [i["label"] for i in report["imports"]]  # type: ignore[union-attr]
        assert "Embase: asreview__embase.ris (ris)" in labels
        assert "litstudy__example.ris (ris)" in labels


def test_a_source_changed_later_keeps_decisions_and_travels_in_the_zip(
    fixtures_dir: Path, any_settings: Settings
) -> None:
    ris = fixtures_dir / "bib" / "ris"
    embase = formats.load(ris / "asreview__embase.ris")
    dois = [r.paper.doi for r in embase.records]
    with open_app_sync(any_settings) as app:
        _import(app, "Hip", ris / "asreview__embase.ris")
        unnamed = _import(app, "Hip", ris / "litstudy__example.ris").files[0]
        rows = "doi,decision,reason\n" + "".join(f"{d},exclude,\n" for d in dois[:2])
        app.screening.import_decisions(
            ImportDecisionsRequest("Hip", rows.encode(), "d.csv", "title_abstract"),
            owner=app.owner,
        )
        before = app.screening.prisma(PrismaFlowRequest("Hip"), owner=app.owner).to_dict()
        view = app.studies.set_import_source(
            ImportSourceRequest("Hip", unnamed.import_id, "Hand searching", "other"),
            owner=app.owner,
        )
        assert (view.name, view.kind, view.records) == ("Hand searching", "other", 25)
        assert _sources(app, "Hip") == {
            "Embase": ("database", 6),
            "Hand searching": ("other", 25),
        }
        after = app.screening.prisma(PrismaFlowRequest("Hip"), owner=app.owner).to_dict()
        r0, r1 = before["rounds"][0], after["rounds"][0]  # type: ignore[index]
        assert (r1["screened"], r1["excluded_screening"]) == (r0["screened"], 2)
        # the kind alone keeps the name; the Study page lists the import so
        app.studies.set_import_source(
            ImportSourceRequest("Hip", unnamed.import_id, kind="database"), owner=app.owner
        )
        assert _sources(app, "Hip")["Hand searching"] == ("database", 25)
        page = app.studies.study(StudyRequest("Hip"), owner=app.owner)
        counted = {r["source"]: (r["counted_as"], r["prisma_kind"]) for r in page.import_rows}
        assert counted["litstudy__example.ris"] == ("Hand searching", "database")
        assert counted["asreview__embase.ris"] == ("Embase", "database")
        history = app.studies.history("Hip", owner=app.owner).to_dict()
        assert "litstudy__example.ris: Hand searching (database)" in str(history)
        # export → recover keeps the names and kinds
        data = app.studies.export_zip("Hip", owner=app.owner).body
        back = app.studies.recover_zip(RecoverRequest(data, name="Hip again"), owner=app.owner)
        assert _sources(app, back.study.study_id) == _sources(app, "Hip")


def test_bad_sources_are_refused(fixtures_dir: Path, tmp_settings: Settings) -> None:
    ris = fixtures_dir / "bib" / "ris"
    with open_app_sync(tmp_settings) as app:
        imp = _import(app, "S", ris / "asreview__scopus.ris").files[0]
        for name, kind, words in (
            ("Embase", "bogus", "not one of database, register, other"),
            ("a\nb", None, "control characters"),
            ("x" * 201, None, "at most 200 characters"),
        ):
            with pytest.raises(InputError, match=words):
                ImportSourceRequest("S", imp.import_id, name, kind)
        # neither a name nor a kind: refused once the Study is known to be the caller's
        # (a stranger gets the Study's 404 whatever the body says)
        with pytest.raises(InputError, match="name the source"):
            app.studies.set_import_source(
                ImportSourceRequest("S", imp.import_id, "   ", None), owner=app.owner
            )
        with pytest.raises(NotFoundError):
            app.studies.set_import_source(
                ImportSourceRequest("no such Study", imp.import_id, None, None), owner=app.owner
            )
        with pytest.raises(InputError, match="not one of"):
            ImportRequest("S", paths=("x.ris",), source_kind="website")
        with pytest.raises(NotFoundError):
            app.studies.set_import_source(
                ImportSourceRequest("S", "imp-nope", "Embase"), owner=app.owner
            )
        assert _sources(app, "S") == {"Scopus": ("database", 6)}


def test_a_large_upload_imported_by_a_job_keeps_its_stated_source(
    fixtures_dir: Path, tmp_settings: Settings
) -> None:
    """An upload over ``web_import_job_bytes`` is a job of the store's queue: the source
    stated with it travels in the job's parameters and names the import."""
    data = (fixtures_dir / "bib" / "ris" / "asreview___baseline.ris").read_bytes()
    settings = tmp_settings.model_copy(update={"web_import_job_bytes": 1_000})
    with open_app_sync(settings) as app:
        app.studies.create_study(CreateStudyRequest("Big"), owner=app.owner)
        request = ImportRequest(
            "Big", uploads=(("trials.ris", data),), source_name="WHO ICTRP", source_kind=None
        )
        outcome = app.studies.import_files(request, owner=app.owner)
        assert outcome.job is not None and outcome.result is None
        view = app.studies.work_imports(outcome.job.id, owner=app.owner)
        assert view.status == "done", view.message
        assert _sources(app, "Big") == {"WHO ICTRP": ("register", 100)}
