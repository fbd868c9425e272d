"""Study ZIP export and recovery: members, digests, validation, limits and remapping."""

from __future__ import annotations

import hashlib
import io
import json
import stat
import zipfile

import pytest

from litdesk.adapters.store import get_search_run, repo, save_search_run
from litdesk.core.evidence import FullTextContext
from litdesk.core.imports import ImportTrace, ParserInfo, RecordTrace, SourceInfo, digest_bytes
from litdesk.core.records import make_paper
from litdesk.services.workspace import StudyImportRefused, Workspace, export_study, import_study

ABSTRACT = "We show that compound Q lowers blood pressure by 12 mmHg in adults."


def _fill(ws: Workspace) -> None:
    ws.create_study("Hypertension", "adults")
    p = ws.save_paper(
        make_paper(
            pmid="11", pmcid="PMC11", doi="10.5555/bp.1", title="Q and BP", abstract=ABSTRACT
        ),
        study="Hypertension",
        status="read",
    ).paper
    ws.save_paper(make_paper(doi="10.5555/bp.2", title="=Other"), study="Hypertension")
    ws.add_note(p.id, highlight="lowers blood pressure", comment="main claim", study="Hypertension")
    ws.add_note(p.id, comment="paper-level", study="Hypertension")
    ctx = FullTextContext(
        pmcid="PMC11",
        url="https://europepmc.org/articles/PMC11",
        block_id="p3",
        section="Results",
        text="Systolic pressure fell by 12 mmHg.",
        licence="CC0",
        retrieved_at="2026-11-30T00:00:00+00:00",
    )
    ws.add_evidence(
        p.id,
        finding="BP falls",
        passage="fell by 12 mmHg",
        source="fulltext",
        context=ctx,
        study="Hypertension",
    )
    ws.add_evidence(
        p.id,
        finding="-12 mmHg",
        passage="lowers blood pressure",
        source="abstract",
        study="Hypertension",
    )
    save_search_run(
        ws.store,
        "run-bp",
        "local",
        {"query": "compound Q"},
        {
            "version": 2,
            "hits": [
                {"paper": make_paper(pmid="11", title="Q and BP").to_dict(), "conflicts": []},
                {
                    "paper": make_paper(pmid="13", title="Conflicted").to_dict(),
                    "conflicts": ["doi"],
                },
            ],
        },
        executed_at="2026-11-30T01:00:00+00:00",
    )
    with ws.store.write() as conn:  # linked as stored: the ZIP carries the document as is
        # (keeping it reads its hits as the Study's papers; this document is no whole run)
        study_id = repo.get_study(conn, "Hypertension", account=ws.owner).id
        repo.add_study_search_run(conn, study_id, "run-bp", papers_at="2026-11-30T01:00:00")
    rec = RecordTrace(
        digest=digest_bytes(b"r"),
        first_line=1,
        last_line=3,
        paper=make_paper(pmid="12", title="Imported"),
        raw="TY  - JOUR",
        source_id="1",
    )
    src = SourceInfo(
        path="x.ris",
        sha256=digest_bytes(b"x"),
        bytes=1,
        format="ris",
        encoding="utf-8",
        parser=ParserInfo("ris", "1"),
    )
    ws.attach_import(ImportTrace(source=src, records=(rec,)), study="Hypertension")


def test_export_members_and_manifest(ws: Workspace):
    _fill(ws)
    data = export_study(ws, "Hypertension")
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = set(zf.namelist())
        manifest = json.loads(zf.read("manifest.json"))
        for m in manifest["members"]:
            body = zf.read(m["path"])
            assert m["sha256"] == "sha256:" + hashlib.sha256(body).hexdigest()
            assert m["bytes"] == len(body)
        csv_text = zf.read("evidence.csv").decode()
        ris = zf.read("references.ris").decode()
        md = zf.read("notebook.md").decode()
        run_ris = zf.read("search-runs/run-bp.ris").decode()
    imp = [n for n in names if n.startswith("imports/")]
    assert {
        "references.ris",
        "evidence.csv",
        "notebook.md",
        "study.json",
        "manifest.json",
        "search-runs/run-bp.json",
        "search-runs/run-bp.ris",
    } <= names and len(imp) == 1
    assert manifest["kind"] == "litdesk-study" and manifest["schemas"]["evidence"] == 1
    assert "'-12 mmHg" in csv_text
    assert ris.count("TY  - ") == 3  # the Study's three papers
    assert "> lowers blood pressure" in md and "Licence: CC0" in md
    assert run_ris.count("TY  - ") == 1


def test_recovery_into_a_fresh_store_remaps_and_validates(ws: Workspace, ws2: Workspace):
    _fill(ws)
    data = export_study(ws, "Hypertension")
    # the other store already knows paper 11 under another id (by DOI only)
    known = ws2.save_paper(make_paper(doi="10.5555/bp.1", title="Known")).paper
    out = import_study(ws2, data)
    assert (out.papers, out.notes, out.evidence, out.search_runs, out.imports) == (
        3,
        2,
        2,
        1,
        1,
    )
    assert out.remapped == {"MED-11": known.id}
    summary = ws2.study_summary("Hypertension")
    (run_id,) = summary.search_runs  # re-created under a fresh id, never linked by id
    assert len(summary.papers) == 3 and run_id != "run-bp"
    run = get_search_run(ws2.store, run_id)
    assert run.owner == ws2.owner and run.definition == {"query": "compound Q"}
    assert run.run["id"] == run_id and run.run["hits"][0]["paper"]["title"] == "Q and BP"
    notes, problems = ws2.notes(study="Hypertension")
    assert problems == [] and {n.annotation.paper_id for n in notes} == {known.id}
    evidence, problems = ws2.evidence(study="Hypertension")
    assert problems == [] and len(evidence) == 2
    assert ws2.paper(known.id).status == "read"
    # recovering again: a new Study name, no duplicated papers
    again = import_study(ws2, data)
    assert again.name == "Hypertension (recovered 1)"
    assert len(ws2.papers()) == 3


def _rezip(data: bytes, edit) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    members = edit(members)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n, b in members.items():
            if isinstance(b, zipfile.ZipInfo):
                zf.writestr(b, b"target")
            else:
                zf.writestr(n, b)
    return buf.getvalue()


def _refix_manifest(members):
    manifest = json.loads(members["manifest.json"])
    for m in manifest["members"]:
        m["sha256"] = "sha256:" + hashlib.sha256(members[m["path"]]).hexdigest()
    members["manifest.json"] = json.dumps(manifest).encode()
    return members


def _forge_note(members):
    bundle = json.loads(members["study.json"])
    anchor = bundle["notes"][0]["annotation"]["anchor"]
    anchor["start"] += 1
    anchor["end"] += 1
    members["study.json"] = json.dumps(bundle).encode()
    return _refix_manifest(members)


def _forge_evidence_pmcid(members):
    bundle = json.loads(members["study.json"])
    ctx = bundle["evidence"][0]["evidence"]["context"]
    ctx["pmcid"], ctx["url"] = "PMC99", "https://europepmc.org/articles/PMC99"
    members["study.json"] = json.dumps(bundle).encode()
    return _refix_manifest(members)


def _traversal(members):
    members["../evil.txt"] = b"x"
    return members


def _symlink(members):
    info = zipfile.ZipInfo("notebook2.md")
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    members["imports/link.json"] = info
    return members


def _tamper(members):
    members["evidence.csv"] = members["evidence.csv"] + b"x"
    return members


def _unlisted(members):
    members["search-runs/extra.json"] = b"{}"
    return members


@pytest.mark.parametrize(
    ("edit", "code"),
    [
        (_forge_note, "invalid_records"),
        (_forge_evidence_pmcid, "invalid_records"),
        (_traversal, "unsafe_member"),
        (_symlink, "unsafe_member"),
        (_tamper, "digest_mismatch"),
        (_unlisted, "study_import_refused"),
    ],
)
def test_refused_imports_store_nothing(ws: Workspace, ws2: Workspace, edit, code):
    _fill(ws)
    bad = _rezip(export_study(ws, "Hypertension"), edit)
    with pytest.raises(StudyImportRefused) as info:
        import_study(ws2, bad)
    assert info.value.code == code
    assert ws2.papers() == [] and ws2.studies() == []


def test_not_a_zip_and_too_many_members(ws2: Workspace, monkeypatch):
    with pytest.raises(StudyImportRefused) as info:
        import_study(ws2, b"PK\x03\x04 not really")
    assert info.value.code == "malformed"
    import litdesk.services.workspace._archive as ex

    monkeypatch.setattr(ex, "MAX_ZIP_MEMBERS", 2)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n in ("study.json", "manifest.json", "notebook.md"):
            zf.writestr(n, b"{}")
    with pytest.raises(StudyImportRefused) as info:
        import_study(ws2, buf.getvalue())
    assert info.value.code == "too_large"


from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.binary(max_size=400),
    st.dictionaries(
        st.sampled_from(["study.json", "manifest.json", "notebook.md", "imports/a.json", "x/../y"]),
        st.binary(max_size=200),
        max_size=4,
    ),
)
def test_garbage_is_refused_never_crashes(ws2: Workspace, raw, members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n, b in members.items():
            zf.writestr(n, b)
    for data in (raw, buf.getvalue()):
        with pytest.raises(StudyImportRefused):
            import_study(ws2, data)
    assert ws2.studies() == []


def test_recovered_name_rules(ws: Workspace):
    ws.create_study("N" * 200)
    data = export_study(ws, "N" * 200)
    out = import_study(ws, data)
    assert out.name.endswith("(recovered 1)") and len(out.name) <= 200
    assert import_study(ws, data, name="  Renamed \n study ").name == "Renamed study"
    with pytest.raises(StudyImportRefused):
        import_study(ws, data, name="   ")


def test_a_study_of_more_than_500_papers_exports_and_recovers_every_one(
    ws: Workspace, ws2: Workspace
):
    # the workspace's paper listing shows the newest 500; the ZIP is the recovery format
    ws.create_study("Large", None)
    papers = [make_paper(doi=f"10.5555/large.{i}", title=f"Paper {i}") for i in range(620)]
    ws.save_papers(papers, study="Large")
    data = export_study(ws, "Large")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        bundle = json.loads(z.read("study.json"))
        assert z.read("references.ris").decode().count("TY  - ") == 620
    assert len(bundle["papers"]) == 620
    assert import_study(ws2, data).papers == 620


def _collapsed(body: bytes) -> tuple[int, int, bytes]:
    """What the JSON shape check counts on ``body`` after its strings are collapsed."""
    from litdesk.services.workspace import _archive as archive

    out = archive._STRING.sub(b"0", body)
    brackets = out.translate(None, archive._NOT_BRACKETS)
    return out.count(b"[") + out.count(b"{"), out.count(b","), brackets


_JSONISH = st.lists(
    st.sampled_from([b'"', b"\\", b"[", b"}", b",", b"a"]) | st.binary(max_size=2), max_size=24
).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(_JSONISH)
@example(b'"\\""[')  # an escaped quote, then an empty string's end: the bracket is outside
@example(b'"\\\\a"[')  # an escaped backslash, then a letter: the string ends before the bracket
@example(b'\\"[\\\\"],"\\\\\\"[')  # backslashes outside a string; runs of two and three
def test_the_reduced_body_counts_as_the_whole(body: bytes) -> None:
    """The shape check's reduction (``_structure``) keeps every bracket and comma outside
    the strings, in order, and no other: escapes, backslashes outside strings, strings not
    closed, empty strings, bytes of every value."""
    from litdesk.services.workspace._archive import _structure

    assert _collapsed(_structure(body)) == _collapsed(body)
