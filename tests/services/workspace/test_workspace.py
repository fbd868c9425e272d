"""Saved papers, Studies, notes, evidence, imports and exports over a real store."""

from __future__ import annotations

import csv
import io

import pytest

from litdesk._errors import InputError, IntegrityError, NotFoundError, RefusedError
from litdesk.adapters.store import repo, save_search_run
from litdesk.core.evidence import FullTextContext
from litdesk.core.imports import ImportTrace, ParserInfo, RecordTrace, SourceInfo, digest_bytes
from litdesk.core.records import PaperError, make_paper
from litdesk.services.workspace import (
    IdentityConflict,
    Workspace,
    context_from_fulltext,
    evidence_csv,
    notebook_markdown,
)

ABSTRACT = "Aims: test the drug. Results: the drug reduced tumour growth by 40% in mice."
CTX_TEXT = "In treated mice, tumour volume fell by 40% (p < 0.01) over 21 days."


def _ctx(pmcid="PMC777"):
    return FullTextContext(
        pmcid=pmcid,
        url=f"https://europepmc.org/articles/{pmcid}",
        block_id="p7",
        section="Results",
        text=CTX_TEXT,
        licence="CC BY 4.0",
        licence_url="https://creativecommons.org/licenses/by/4.0/",
        retrieved_at="2026-11-30T09:00:00+00:00",
    )


def _paper(**kw):
    fields = {
        "pmid": "31",
        "doi": "10.1234/drug.1",
        "pmcid": "PMC777",
        "title": "A drug in mice",
        "abstract": ABSTRACT,
        "year": 2024,
        "retrieved_at": "2026-11-29T08:00:00+00:00",
    }
    fields.update(kw)
    return make_paper(**fields)


def test_resave_under_another_identifier_never_duplicates(ws: Workspace):
    first = ws.save_paper(make_paper(doi="10.1234/drug.1", title="A drug in mice"))
    assert first.created
    second = ws.save_paper(make_paper(pmid="31", doi="10.1234/DRUG.1", journal="J Test"))
    assert not second.created and second.changed
    assert second.paper.id == first.paper.id  # stored id is stable
    assert second.paper.pmid == "31" and second.paper.journal == "J Test"
    assert second.paper.title == "A drug in mice"  # stored values win
    third = ws.save_paper(make_paper(pmid="31", pmcid="PMC777", cited_by=3))
    assert third.paper.id == first.paper.id and third.paper.pmcid == "PMC777"
    assert not ws.save_paper(make_paper(pmcid="PMC777")).changed
    assert len(ws.papers()) == 1
    for ref in ("10.1234/drug.1", "PMID:31", "PMC777", first.paper.id):
        assert ws.paper(ref).paper.id == first.paper.id


def test_identity_conflicts_are_refused_and_change_nothing(ws: Workspace):
    a = ws.save_paper(make_paper(doi="10.1234/a", title="A")).paper
    b = ws.save_paper(make_paper(pmid="5", doi="10.1234/b", title="B")).paper
    # matches two saved papers (by DOI and by PMID): refused, not merged
    with pytest.raises(IdentityConflict):
        ws.save_paper(make_paper(doi="10.1234/a", pmid="5"))
    # same PMID, different DOI: refused
    with pytest.raises(IdentityConflict):
        ws.save_paper(make_paper(pmid="5", doi="10.1234/other"))
    assert ws.paper(a.id).paper == a and ws.paper(b.id).paper == b
    assert len(ws.papers()) == 2


def test_status_and_studies(ws: Workspace):
    p = ws.save_paper(_paper()).paper
    assert ws.set_status("PMC777", "reading") is not None
    assert ws.paper(p.id).status == "reading"
    with pytest.raises(InputError):
        ws.set_status(p.id, "skimmed")
    with pytest.raises(NotFoundError):
        ws.set_status("MED-999", "read")
    s = ws.create_study("Drug review", "mice only")
    with pytest.raises(InputError):
        ws.create_study("Drug review")
    assert ws.add_to_study("Drug review", "10.1234/drug.1") is True
    assert ws.add_to_study(s.id, p.id) is False
    assert [(st.name, n) for st, n in ws.studies()] == [("Drug review", 1)]
    assert [r.paper.id for r in ws.papers(study=s.id, status="reading")] == [p.id]
    with pytest.raises(NotFoundError):
        ws.add_to_study("No such", p.id)


def test_notes_highlights_and_stale_notice(ws: Workspace):
    p = ws.save_paper(_paper()).paper
    comment = ws.add_note(p.id, comment="Check dosing")
    assert comment.annotation.kind == "comment" and comment.annotation.anchor is None
    hl = ws.add_note(p.id, highlight="reduced tumour growth", comment="key")
    a = hl.annotation.anchor
    assert a is not None and ABSTRACT[a.start : a.end] == "reduced tumour growth"
    with pytest.raises(RefusedError):
        ws.add_note(p.id, highlight="reduced tumour growth", start=3)
    with pytest.raises(RefusedError):
        ws.add_note(p.id, highlight="not in the abstract")
    ft = ws.add_note(p.id, highlight="fell by 40%", context=_ctx())
    assert ft.annotation.anchor is not None and ft.annotation.anchor.block_id == "p7"
    with pytest.raises(RefusedError) as info:
        ws.add_note(p.id, highlight="fell by 40%", context=_ctx("PMC1"))
    assert info.value.code == "identity_mismatch"
    notes, problems = ws.notes(paper_ref=p.id)
    assert problems == [] and [n.notice for n in notes] == [None, None, None]
    # the abstract changes: the note stays, with a notice, and is not re-anchored
    with ws.store.write() as conn:
        repo.update_paper(
            conn,
            _paper(abstract="A rewritten abstract."),
            "2026-12-01T00:00:00+00:00",
            owner="local",
        )
    notes, _ = ws.notes(paper_ref=p.id)
    assert len(notes) == 3
    assert notes[1].notice and "changed" in notes[1].notice
    assert notes[1].annotation.anchor == a
    assert notes[0].notice is None and notes[2].notice is None


def test_evidence_recheck_csv_and_notebook(ws: Workspace):
    p = ws.save_paper(_paper()).paper
    ws.create_study("S")
    ws.add_evidence(
        p.id,
        finding="=cmd|' /C calc'!A0",
        passage="reduced tumour   growth",
        source="abstract",
        study="S",
        population="mice",
        method="xenograft",
    )
    ws.add_evidence(
        p.id,
        finding="Volume fell",
        passage="tumour volume fell by 40%",
        source="fulltext",
        context=_ctx(),
        study="S",
    )
    ws.add_evidence(
        p.id,
        finding="+Dose matters",
        passage="Figure 3 shows",
        source="external",
        location="Fig. 3",
        study="S",
    )
    with pytest.raises(RefusedError):
        ws.add_evidence(p.id, finding="x", passage="not there", source="abstract")
    with pytest.raises(RefusedError):
        ws.add_evidence(p.id, finding="x", passage="fell", source="fulltext", context=_ctx("PMC2"))
    views, problems = ws.evidence(study="S")
    assert problems == [] and [v.recheck for v in views] == ["ok", "ok", "needs_verification"]
    text = evidence_csv(views)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 3
    assert rows[0]["finding"] == "'=cmd|' /C calc'!A0"
    assert rows[2]["finding"] == "'+Dose matters" and rows[2]["location"] == "Fig. 3"
    assert rows[1]["source_url"] == "https://europepmc.org/articles/PMC777"
    assert rows[1]["licence"] == "CC BY 4.0" and rows[0]["population"] == "mice"
    # recorded by hand: the assisted columns are there and empty
    assert all(r["model"] == "" and r["suggested_finding"] == "" for r in rows)
    notes, _ = ws.notes(study="S")
    md = notebook_markdown("S", [p], notes, views)
    assert "> tumour volume fell by 40%" in md
    assert "Licence: CC BY 4.0" in md and "Retrieved: 2026-11-30T09:00:00+00:00" in md
    assert "Location: Fig. 3" in md and "external passage (to verify)" in md
    # a changed abstract makes the stored abstract evidence fail its re-check, visibly
    with ws.store.write() as conn:
        repo.update_paper(
            conn, _paper(abstract="Different."), "2026-12-01T00:00:00+00:00", owner="local"
        )
    views, _ = ws.evidence(study="S")
    assert views[0].recheck != "ok" and views[1].recheck == "ok"


def _trace(papers, path="refs.ris"):
    records = tuple(
        RecordTrace(
            digest=digest_bytes(f"raw {i}".encode()),
            first_line=i * 3 + 1,
            last_line=i * 3 + 2,
            paper=p,
            raw=f"raw {i}",
            source_id=f"R{i}",
        )
        for i, p in enumerate(papers)
    )
    src = SourceInfo(
        path=path,
        sha256=digest_bytes(b"file"),
        bytes=4,
        format="ris",
        encoding="utf-8",
        parser=ParserInfo("ris", "1"),
    )
    return ImportTrace(source=src, records=records)


def test_attach_import_reports_conflicts_beside_successes(ws: Workspace):
    ws.save_paper(make_paper(doi="10.1234/a"))
    ws.save_paper(make_paper(pmid="5"))
    ws.create_study("Imp")
    trace = _trace(
        [
            make_paper(pmid="1", title="one"),
            make_paper(doi="10.1234/a", pmid="5", title="conflicted"),
            make_paper(pmid="2", title="two"),
            make_paper(pmid="1", doi="10.1234/one", title="one again"),
        ]
    )
    result = ws.attach_import(trace, study="Imp")
    assert (result.saved, result.created, len(result.refused)) == (3, 2, 1)
    assert result.refused[0]["lines"] == [4, 5]
    stored = ws.imports(study="Imp")
    assert len(stored) == 1
    _, back, ids = stored[0]
    assert back == trace
    assert ids == ["MED-1", None, "MED-2", "MED-1"]
    assert sorted(r.paper.id for r in ws.papers(study="Imp")) == ["MED-1", "MED-2"]


def test_real_fulltext_and_ris_fixture(ws: Workspace, fixtures_dir):
    from litdesk.adapters.formats import load
    from litdesk.core.fulltext import parse_fulltext

    xml = fixtures_dir / "jats" / "epmc_pmc13179431_ccby_mathml.xml"
    ft = parse_fulltext(xml.read_bytes(), expected_pmcid="PMC13179431")
    block = next(b for b in ft.blocks if len(b.text) > 80)
    p = ws.save_paper(make_paper(pmcid="PMC13179431", title=ft.title)).paper
    ctx = context_from_fulltext(ft, block.id)
    note = ws.add_note(p.id, highlight=block.text[10:60], context=ctx)
    assert note.annotation.anchor is not None and note.annotation.anchor.context == ctx
    ev = ws.add_evidence(p.id, finding="f", passage=block.text[:50], source="fulltext", context=ctx)
    assert ev.recheck == "ok"
    ris = sorted((fixtures_dir / "bib" / "ris").glob("*.ris"))[0]
    trace = load(ris)
    result = ws.attach_import(trace)
    assert result.saved + len(result.refused) == len(trace.records)
    assert ws.imports()[0][1] == trace


def test_search_run_attached_to_study(ws: Workspace):
    """Attaching a stored run keeps it once and its hit becomes the Study's paper (the
    paper the account saved before, linked, not duplicated); attaching it again adds nothing."""
    from litdesk.core.fusion import Sighting, fuse
    from litdesk.core.runs import LaneResult, RunDefinition, build_run

    ws.create_study("Runs")
    mine = ws.save_paper(make_paper(pmid="77", title="Malaria vaccine (my copy)")).paper
    run = build_run(
        run_id="run-a",
        definition=RunDefinition("malaria", "keyword", ("europepmc",)),
        lanes=[LaneResult("europepmc-keyword", "europepmc", "ok", "malaria", 2, 2)],
        hits=fuse(
            [
                Sighting("europepmc-keyword", "europepmc", 1, make_paper(pmid="77", title="M")),
                Sighting("europepmc-keyword", "europepmc", 2, make_paper(pmid="78", title="N")),
            ]
        ),
        coverage="provider-order",
        candidate_limit=20,
        retrieved_at="2026-11-30T10:00:00+00:00",
    )
    doc = run.to_dict()
    save_search_run(ws.store, "run-a", "local", doc["definition"], doc, executed_at=run.executed_at)
    ws.attach_search_run("Runs", "run-a")
    ws.attach_search_run("Runs", "run-a")
    summary = ws.study_summary("Runs")
    assert summary.search_runs == ("run-a",)
    assert sorted(p.id for p in summary.papers) == sorted([mine.id, "MED-78"])
    assert len(ws.papers()) == 2
    # a stored run that cannot be read is refused by name, and nothing of the keep is stored
    save_search_run(
        ws.store, "run-bad", "local", {"query": "q"}, {"version": 2, "hits": []}, executed_at="x"
    )
    with pytest.raises(IntegrityError) as bad:
        ws.attach_search_run("Runs", "run-bad")
    assert bad.value.code == "run_unreadable" and "run-bad" in bad.value.message
    assert ws.study_summary("Runs").search_runs == ("run-a",)
    with pytest.raises(NotFoundError):
        ws.attach_search_run("Runs", "run-missing")


def test_invalid_stored_records_are_reported_not_hidden(ws: Workspace):
    import sqlalchemy as sa

    from litdesk.adapters.store._schema import evidence, notes

    p = ws.save_paper(_paper()).paper
    good = ws.add_note(p.id, comment="fine")
    bad = ws.add_note(p.id, comment="to be corrupted")
    ev = ws.add_evidence(p.id, finding="F", passage="reduced tumour growth", source="abstract")
    with ws.store.write() as conn:
        conn.execute(sa.update(notes).where(notes.c.id == bad.id).values(data='{"version": 9}'))
        conn.execute(sa.update(evidence).where(evidence.c.id == ev.id).values(data="[1"))
    views, problems = ws.notes(paper_ref=p.id)
    assert [v.id for v in views] == [good.id]
    assert len(problems) == 1 and bad.id in problems[0] and "version" in problems[0]
    evs, problems = ws.evidence()
    assert evs == [] and len(problems) == 1 and ev.id in problems[0]


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from litdesk.services.workspace import merge_papers  # noqa: E402


@st.composite
def _papers(draw):
    n = draw(st.integers(1, 50))
    fields = {
        "title": draw(st.text(max_size=20)),
        "pmid": str(n) if draw(st.booleans()) else None,
        "doi": f"10.1234/x{n}" if draw(st.booleans()) else None,
        "pmcid": f"PMC{n}" if draw(st.booleans()) else None,
        "keywords": tuple(draw(st.lists(st.sampled_from(["a", "b", "c"]), max_size=3))),
        "cited_by": draw(st.none() | st.integers(0, 100)),
        "retracted": draw(st.booleans()),
    }
    return make_paper(fallback_key=str(n), **fields)


@settings(max_examples=200)
@given(_papers(), _papers())
def test_merge_properties(old, new):
    assert merge_papers(old, old) == old
    try:
        merged = merge_papers(old, new)
    except IdentityConflict:
        assert any(
            getattr(old, f) and getattr(new, f) and getattr(old, f) != getattr(new, f)
            for f in ("doi", "pmid", "pmcid")
        )
        return
    assert merged.id == old.id
    for f in ("doi", "pmid", "pmcid", "title"):
        assert getattr(merged, f) == (getattr(old, f) or getattr(new, f) or getattr(merged, f))
    assert merged.retracted == (old.retracted or new.retracted)
    assert set(old.keywords) | set(new.keywords) == set(merged.keywords)
    assert merge_papers(merged, new) == merged  # idempotent


def test_update_evidence_revalidates(ws: Workspace):
    p = ws.save_paper(_paper()).paper
    ev = ws.add_evidence(
        p.id, finding="F", passage="reduced tumour growth", source="abstract", method="m"
    )
    up = ws.update_evidence(ev.id, finding="F2", method="", passage="tumour growth by 40%")
    assert up.evidence.finding == "F2" and up.evidence.method is None
    assert up.evidence.created_at == ev.evidence.created_at and up.evidence.updated_at
    with pytest.raises(RefusedError):
        ws.update_evidence(ev.id, passage="not in the abstract")
    with pytest.raises(InputError):
        ws.update_evidence(ev.id, source="external")
    with pytest.raises(NotFoundError):
        ws.update_evidence("ev-missing", finding="x")
    with pytest.raises(InputError, match="nothing to change") as empty:
        ws.update_evidence(ev.id)  # refused once the record is found and may be written
    assert empty.value.code == "arguments"
    with pytest.raises(NotFoundError):
        ws.update_evidence("ev-missing")  # an empty change names no record either
    views, _ = ws.evidence(paper_ref=p.id)
    assert [v.evidence.finding for v in views] == ["F2"] and views[0].recheck == "ok"


def test_notebook_cannot_be_injected_through_a_licence_url(ws: Workspace):
    p = ws.save_paper(_paper()).paper
    ctx = FullTextContext(
        pmcid="PMC777",
        url="https://europepmc.org/articles/PMC777",
        block_id="p1",
        text=CTX_TEXT,
        licence="[x](javascript:alert(1))",
        licence_url="https://example.org/a>[click](javascript:alert(1))",
    )
    ws.add_note(p.id, highlight="fell by 40%", context=ctx, comment="<script>alert(1)</script>")
    notes, _ = ws.notes()
    md = notebook_markdown("T", [p], notes, [])
    assert "<script>" not in md and "](javascript" not in md
    assert "<https://europepmc.org/articles/PMC777>" in md


def test_papers_without_an_identifier_are_never_merged_into_one(ws: Workspace):
    # before: two papers with no identifier and no fallback key both got the id
    # "REC-" + hash of "", and the second save merged into the first (one saved paper)
    with pytest.raises(PaperError) as info:
        ws.save_paper(make_paper(title="First study", authors=("A, B",)))
    assert info.value.code == "paper_unkeyed"
    a = ws.save_paper(make_paper(title="First study", fallback_key="import:1")).paper
    b = ws.save_paper(make_paper(title="Second study", fallback_key="import:2")).paper
    assert a.id != b.id
    with ws.store.read() as conn:
        assert {r.paper.id for r in repo.list_papers(conn)} == {a.id, b.id}
