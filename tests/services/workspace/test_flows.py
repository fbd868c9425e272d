"""Workspace use cases a face calls in one step, on SQLite and PostgreSQL: import files
into a Study (created when missing, traces kept, refusals beside successes, atomic),
save from fields, save many in one transaction, saving a run into a Study atomically,
notebook and evidence exports."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk import Settings
from litdesk._errors import InputError, NotFoundError
from litdesk.adapters.store import list_search_runs, repo
from litdesk.adapters.store._schema import imports, papers, search_runs, studies
from litdesk.core.fusion import Sighting, fuse
from litdesk.core.records import make_paper
from litdesk.core.runs import LaneResult, RunDefinition, build_run
from litdesk.services.jobs import Jobs
from litdesk.services.search import save_run
from litdesk.services.studies import (
    EvidenceExportRequest,
    EvidenceTable,
    ImportRequest,
    NotebookExport,
    NotebookExportRequest,
    StudiesArea,
)
from litdesk.services.workspace import (
    FieldsRefused,
    FilesNotFound,
    FilesRefused,
    IdentityConflict,
    PaperFields,
    StudyImport,
    Workspace,
)

pytestmark = pytest.mark.fixtures

FULL = "rispy__example_full.ris"  # 2 records (PROVENANCE)
EMBASE = "asreview__embase.ris"  # 6 records


def _count(ws: Workspace, table: sa.Table) -> int:
    with ws.store.read() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())


def _area(ws: Workspace) -> StudiesArea:
    return StudiesArea(ws.store, Jobs(ws.store), Settings())


def _import(ws: Workspace, study: str, **kw) -> StudyImport:
    """``litdesk import FILE… --study``: the studies area's import (Study created when
    missing, the refusal raised when every file is refused)."""
    if "paths" in kw:
        kw["paths"] = tuple(str(p) for p in kw["paths"])
    if "uploads" in kw:
        kw["uploads"] = tuple(kw["uploads"])
    request = ImportRequest(study, create=True, refuse_all=True, **kw)
    outcome = _area(ws).import_files(request, owner=ws.owner)
    assert outcome.result is not None and outcome.result.done is not None
    return outcome.result.done


def notebook_export(ws: Workspace, study: str | None = None) -> NotebookExport:
    return _area(ws).export_notebook(NotebookExportRequest(study), owner=ws.owner)


def evidence_export(ws: Workspace, study: str | None = None) -> EvidenceTable:
    return _area(ws).export_evidence(EvidenceExportRequest(study), owner=ws.owner)


def _ris(fixtures_dir, name):
    return fixtures_dir / "bib" / "ris" / name


def test_import_files_creates_the_study_and_keeps_each_trace(ws: Workspace, fixtures_dir):
    done = _import(ws, paths=[_ris(fixtures_dir, FULL), _ris(fixtures_dir, EMBASE)], study="Neck")
    assert done.study_created and done.study_name == "Neck"
    assert [f.saved for f in done.files] == [2, 6] and done.saved == 8 and not done.refused
    summary = ws.study_summary("Neck")
    assert len(summary.papers) == 8
    assert sorted(summary.imports) == sorted(f.import_id for f in done.files)
    stored = ws.imports(study="Neck")
    assert sorted(len(t.records) for _, t, _ in stored) == [2, 6]
    assert {t.source.path for _, t, _ in stored} == {f.path for f in done.files}
    # again into the same (now existing) Study: merged by identity, two more traces
    again = _import(ws, paths=[_ris(fixtures_dir, FULL)], study=summary.id)
    assert not again.study_created and again.created == 0 and again.saved == 2
    assert again.files[0].repeats == [done.files[0].import_id]  # the same bytes again
    assert len(ws.study_summary("Neck").imports) == 3
    assert len(ws.study_summary("Neck").papers) == 8


def test_refused_files_are_reported_beside_the_saved_ones(ws: Workspace, fixtures_dir, tmp_path):
    bad = tmp_path / "broken.ris"
    bad.write_bytes(b"\x00\x01 not a bibliography \xff" * 10)
    done = _import(
        ws, paths=[tmp_path / "missing.ris", _ris(fixtures_dir, FULL), bad], study="Partial"
    )
    assert done.saved == 2 and len(done.files) == 1
    assert [r.path for r in done.refused] == [str(tmp_path / "missing.ris"), str(bad)]
    assert done.to_dict()["refused"][0]["code"] == "file_not_found"
    assert len(ws.study_summary("Partial").imports) == 1


def test_when_every_file_is_refused_nothing_is_stored(ws: Workspace, tmp_path):
    with pytest.raises(FilesNotFound) as missing:
        _import(ws, paths=[tmp_path / "a.ris", tmp_path / "b.ris"], study="Never")
    assert missing.value.exit_code == 4 and len(missing.value.details["refused"]) == 2
    bad = tmp_path / "broken.ris"
    bad.write_bytes(b"\x00\x01 not a bibliography \xff" * 10)
    with pytest.raises(FilesRefused) as refused:
        _import(ws, paths=[bad, tmp_path / "a.ris"], study="Never")
    assert refused.value.exit_code == 2
    assert ws.studies() == [] and _count(ws, papers) == 0 and _count(ws, imports) == 0


def test_import_into_study_is_one_transaction(ws: Workspace, fixtures_dir, monkeypatch):
    from litdesk.services.imports import import_files as read

    traces = read([_ris(fixtures_dir, FULL), _ris(fixtures_dir, EMBASE)]).imports
    real = repo.insert_document
    calls = []

    def failing_second_trace(conn, kind, *args, **kwargs):
        calls.append(kind)
        if kind == "imports" and calls.count("imports") == 2:
            raise InputError("simulated failure while storing the second trace")
        return real(conn, kind, *args, **kwargs)

    monkeypatch.setattr(repo, "insert_document", failing_second_trace)
    with pytest.raises(InputError, match="simulated"):
        ws.import_into_study(traces, study="Atomic")
    monkeypatch.setattr(repo, "insert_document", real)
    assert calls.count("imports") == 2  # the first trace was written, then rolled back
    assert _count(ws, studies) == 0 and _count(ws, papers) == 0 and _count(ws, imports) == 0
    with pytest.raises(NotFoundError):
        ws.import_into_study(traces, study="Atomic", create=False)
    assert _count(ws, studies) == 0


def test_bad_status_refuses_before_reading(ws: Workspace, fixtures_dir):
    with pytest.raises(InputError) as caught:
        _import(ws, paths=[_ris(fixtures_dir, FULL)], study="S", status="skimmed")
    assert caught.value.code == "bad_status" and ws.studies() == []


def test_save_file_with_status_in_one_go(ws: Workspace, fixtures_dir, tmp_path):
    ws.create_study("Files")
    result = ws.save_file(_ris(fixtures_dir, FULL), study="Files", status="reading")
    assert result.saved == 2
    assert {r.status for r in ws.papers(study="Files")} == {"reading"}
    with pytest.raises(FilesNotFound) as caught:
        ws.save_file(tmp_path / "nope.ris")
    assert caught.value.code == "file_not_found"


def test_save_fields():
    p = PaperFields(identifier="PMID:4242", title="T", authors=("A B",)).to_paper()
    assert p.pmid == "4242" and p.authors == ("A B",)
    assert PaperFields(identifier="10.1234/x.1").to_paper().doi == "10.1234/x.1"
    with pytest.raises(FieldsRefused):
        PaperFields(title="only a title").to_paper()
    with pytest.raises(FieldsRefused):
        PaperFields(identifier="not an id at all").to_paper()


def test_save_papers_is_one_transaction(ws: Workspace):
    ws.create_study("Cites")
    ws.save_paper(make_paper(doi="10.1000/a", pmid="1", title="A"))
    good = make_paper(doi="10.1000/b", title="B")
    clash = make_paper(doi="10.1000/other", pmid="1", title="A again")  # PMID 1 has DOI 10.1000/a
    with pytest.raises(IdentityConflict):
        ws.save_papers([good, clash], study="Cites")
    assert ws.papers(study="Cites") == [] and len(ws.papers()) == 1
    saved = ws.save_papers([good, make_paper(pmid="1")], study="Cites")
    assert [s.created for s in saved] == [True, False]
    assert len(ws.papers(study="Cites")) == 2


def _run(run_id: str):
    paper = make_paper(pmid="77", title="Malaria vaccine")
    return build_run(
        run_id=run_id,
        definition=RunDefinition("malaria", "keyword", ("europepmc",)),
        lanes=[LaneResult("europepmc-keyword", "europepmc", "ok", "malaria", 1, 1)],
        hits=fuse([Sighting("europepmc-keyword", "europepmc", 1, paper)]),
        coverage="provider-order",
        candidate_limit=20,
        retrieved_at="2026-11-30T10:00:00+00:00",
    )


def test_saving_a_run_into_a_missing_study_stores_nothing(ws: Workspace):
    with pytest.raises(NotFoundError):
        save_run(ws.store, _run("run-lost"), study="No such Study")
    assert _count(ws, search_runs) == 0 and list_search_runs(ws.store, "local") == []
    ws.create_study("Malaria")
    save_run(ws.store, _run("run-kept"), study="Malaria")
    assert ws.study_summary("Malaria").search_runs == ("run-kept",)
    with pytest.raises(InputError) as again:
        save_run(ws.store, _run("run-kept"), study="Malaria")
    assert again.value.code == "run_exists"


def test_notebook_and_evidence_exports(ws: Workspace):
    ws.create_study("Aspirin")
    paper = make_paper(pmid="9", title="Aspirin trial", abstract="Aspirin reduced the risk.")
    ws.save_paper(paper, study="Aspirin")
    ws.add_evidence(
        "MED-9", finding="less risk", passage="reduced the risk", source="abstract", study="Aspirin"
    )
    ws.save_paper(make_paper(pmid="10", title="Elsewhere"))
    ws.add_evidence(
        "MED-10", finding="other", passage="Elsewhere", source="external", location="p. 2"
    )
    book = notebook_export(ws, "Aspirin")
    assert (book.title, book.papers, book.evidence) == ("Aspirin", 1, 1)
    assert "Aspirin trial" in book.text and "Elsewhere" not in book.text
    whole = notebook_export(ws)
    assert whole.title == "All saved papers" and whole.evidence == 2
    table = evidence_export(ws, "Aspirin")
    assert table.rows == 1 and "less risk" in table.text and "other" not in table.text
    assert evidence_export(ws).rows == 2
    with pytest.raises(NotFoundError):
        notebook_export(ws, "Missing")


def test_every_notice_kind_reads_back():
    """A stored trace with any notice core emits reads back (``duplicate_id`` did not)."""
    from typing import get_args

    from litdesk.adapters.formats import loads
    from litdesk.core.imports import NoticeKind
    from litdesk.services.workspace import read_import, trace_document

    trace = loads(b"TY  - JOUR\nTI  - One\nER  - \n", path="one.ris")
    for kind in get_args(NoticeKind):
        doc = trace_document(trace, [None])
        doc["trace"]["records"][0]["notices"] = [{"kind": kind, "message": "m", "line": 1}]
        back, ids = read_import(doc)
        assert back.records[0].notices[0].kind == kind and ids == [None]


def test_fill_study_adds_all_or_nothing(ws: Workspace):
    ws.create_study("Fill")
    ws.save_paper(make_paper(pmid="1", title="One"))
    ws.save_paper(make_paper(pmid="2", title="Two"))
    with pytest.raises(NotFoundError):
        ws.fill_study("Fill", ["MED-1", "PMID:404", "MED-2"])
    assert ws.papers(study="Fill") == []
    save_run(ws.store, _run("run-fill"))
    with pytest.raises(NotFoundError):
        ws.fill_study("Fill", ["MED-1"], ["run-none"])
    assert ws.papers(study="Fill") == []
    done = ws.fill_study("Fill", ["MED-1", "PMID:2", "MED-1"], ["run-fill"])
    assert [added for _, added in done.papers] == [True, True, False]
    summary = ws.study_summary("Fill")
    # the run's hit (MED-77) is the Study's paper too: a kept run's hits are its papers
    assert {p.id for p in summary.papers} == {"MED-1", "MED-2", "MED-77"}
    assert summary.search_runs == ("run-fill",)


_IDS = st.one_of(
    st.text(max_size=120),
    st.from_regex(r"10\.\d{1,9}/\S{0,30}", fullmatch=True),
    st.from_regex(r"(PMID:|PMC|W|arXiv:)?\d{0,14}(v\d)?", fullmatch=True),
)


@given(_IDS, st.text(max_size=40))
@settings(max_examples=300, deadline=None)
def test_paper_fields_never_crash(identifier, title):
    """Any typed-in identifier gives a paper or a clear refusal, never another error."""
    try:
        paper = PaperFields(identifier=identifier, title=title).to_paper()
    except InputError:
        return
    assert paper.id


def test_uploads_into_a_study(ws: Workspace, fixtures_dir):
    data = _ris(fixtures_dir, EMBASE).read_bytes()
    done = _import(
        ws,
        uploads=[("embase.ris", data), ("empty.ris", b""), ("junk.txt", b"not an export\n")],
        study="Uploads",
    )
    assert done.study_created and done.saved == 6 and done.files[0].path == "embase.ris"
    assert [(r.path, r.code) for r in done.refused] == [
        ("empty.ris", "empty"),
        ("junk.txt", "unsupported"),
    ]
    with pytest.raises(FilesRefused):
        _import(ws, "Other", uploads=[("empty.ris", b"")])
    assert [s.name for s, _ in ws.studies()] == ["Uploads"]


def test_snapshot_reads_one_moment(ws: Workspace, store_url: str):
    from litdesk.adapters.store import open_store

    other = Workspace(open_store(store_url), owns_store=True)
    try:
        ws.save_paper(make_paper(pmid="1", title="One"))
        with ws.snapshot():
            assert len(ws.papers()) == 1
            other.save_paper(make_paper(pmid="2", title="Two"))  # lands meanwhile
            assert len(ws.papers()) == 1 and ws.notes() == ([], [])
        assert len(ws.papers()) == 2
        exported = ws.snapshot()
        with exported, ws.snapshot():  # nested: the outer snapshot is kept
            assert len(ws.papers()) == 2
    finally:
        other.close()
