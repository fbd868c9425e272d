from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk.faces.cli import app
from litdesk.services.dedup import dedup_files, load_decisions, save_decisions

DATA = Path(__file__).parent / "data"
FILES = [str(DATA / "dedup_scopus.ris"), str(DATA / "dedup_pubmed.ris")]


def _groups(report) -> list[list[tuple[str, str | None]]]:
    return [
        sorted((Path(report.refs[i].file).name, report.refs[i].source_id) for i in g)
        for g in report.result.groups
    ]


def test_groups_across_files_with_record_refs() -> None:
    report = dedup_files(FILES)
    groups = _groups(report)
    assert [("dedup_pubmed.ris", "P1"), ("dedup_scopus.ris", "S1")] in groups  # stage 2
    assert [("dedup_pubmed.ris", "P2"), ("dedup_scopus.ris", "S2")] in groups  # DOI
    assert [("dedup_pubmed.ris", "P4")] in groups
    # nothing lost: every record in exactly one group
    assert sorted(i for g in report.result.groups for i in g) == list(range(7))
    counts = report.result.counts
    assert counts["stage1_merged"] == 1 and counts["stage2_merge_pairs"] == 1
    assert counts["review_pairs"] == 1  # Koehl: same title, pages and journal differ


def test_reviewer_decisions_apply_persist_and_reverse(tmp_path: Path) -> None:
    asked = []

    def reviewer(pair, ra, pa, rb, pb):
        asked.append((ra.source_id, rb.source_id))
        return "merge"

    report = dedup_files(FILES, reviewer=reviewer)
    assert asked == [("S3", "P3")] or asked == [("P3", "S3")]
    assert [("dedup_pubmed.ris", "P3"), ("dedup_scopus.ris", "S3")] in _groups(report)
    path = tmp_path / "decisions.json"
    save_decisions(path, report.decisions)
    again = dedup_files(FILES, decisions=load_decisions(path))
    assert _groups(again) == _groups(report)
    # reversing: the decision edited to "distinct" splits them again
    doc = json.loads(path.read_text())
    doc["decisions"][0]["decision"] = "distinct"
    path.write_text(json.dumps(doc))
    reversed_ = dedup_files(FILES, decisions=load_decisions(path))
    assert [("dedup_pubmed.ris", "P3"), ("dedup_scopus.ris", "S3")] not in _groups(reversed_)
    assert (
        dedup_files(FILES, decisions=load_decisions(path), auto_only=True).result.counts[
            "review_pairs"
        ]
        == 1
    )


def test_cli_json_shape_and_refused_file(tmp_path: Path) -> None:
    bad = tmp_path / "junk.txt"
    bad.write_bytes(b"\x00\x01 not a bibliography")
    result = CliRunner().invoke(app, ["dedup", *FILES, str(bad), "--json"])
    assert result.exit_code == 2
    doc = json.loads(result.stdout)
    assert set(doc) >= {"groups", "pairs", "counts", "refused"}
    assert doc["refused"][0]["path"] == str(bad)
    ref = doc["groups"][0][0]
    assert set(ref) == {"file", "index", "source_id"}
    pair = next(p for p in doc["pairs"] if p["decision"] == "review")
    assert set(pair) >= {"a", "b", "score", "evidence", "decision"}
    assert pair["evidence"]["title"] == 1.0


def test_cli_review_prompt(tmp_path: Path) -> None:
    decisions = tmp_path / "d.json"
    result = CliRunner().invoke(
        app, ["dedup", *FILES, "--review", "--decisions", str(decisions)], input="m\n"
    )
    assert result.exit_code == 0, result.output
    assert "Same study?" in result.output
    saved = json.loads(decisions.read_text())
    assert saved["decisions"][0]["decision"] == "merge"


def test_cli_review_prompt_keeps_separate_with_k_and_asks_again_on_a_typo(
    tmp_path: Path,
) -> None:
    """``k`` (the web's key for Keep separate) keeps the pair apart, like ``d``; an answer
    that is none of them is said and asked again, never taken as a skip."""
    decisions = tmp_path / "d.json"
    result = CliRunner().invoke(
        app, ["dedup", *FILES, "--review", "--decisions", str(decisions)], input="x\nk\n"
    )
    assert result.exit_code == 0, result.output
    assert "'x' is not an answer" in result.output
    assert result.output.count("Same study?") >= 2
    saved = json.loads(decisions.read_text())
    assert saved["decisions"][0]["decision"] == "distinct"


def test_study_history_keeps_reverses_and_reuses_decisions(tmp_path: Path, monkeypatch) -> None:
    for key in ("LITDESK_DATABASE_URL",):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_path / "data"))
    runner = CliRunner()
    assert runner.invoke(app, ["study", "new", "aHUS"]).exit_code == 0
    first = runner.invoke(app, ["dedup", *FILES, "--study", "aHUS", "--review"], input="m\n")
    assert first.exit_code == 0, first.output
    # a later run reuses the Study's decision without asking
    second = runner.invoke(app, ["dedup", *FILES, "--study", "aHUS", "--review", "--json"])
    assert second.exit_code == 0, second.output
    doc = json.loads(second.stdout)
    koehl = next(
        p
        for p in doc["pairs"]
        if p["evidence"].get("title") == 1.0 and p["stage"] == 2 and "reviewer" in p["reason"]
    )
    assert koehl["decision"] == "merge"
    hist = json.loads(runner.invoke(app, ["dedup-history", "aHUS", "--json"]).stdout)["entries"]
    decisions = [e for e in hist if e["kind"] == "decision"]
    assert [d["decision"] for d in decisions] == ["merge"]
    assert [e["kind"] for e in hist].count("run") == 2
    # withdrawing the decision: kept in history, no longer applied
    undone = runner.invoke(
        app, ["dedup-history", "aHUS", "--undo", str(decisions[0]["seq"]), "--json"]
    )
    assert undone.exit_code == 0, undone.output
    entries = json.loads(undone.stdout)["entries"]
    assert [e["decision"] for e in entries if e["kind"] == "decision"] == ["merge", "undone"]
    third = json.loads(
        runner.invoke(app, ["dedup", *FILES, "--study", "aHUS", "--auto-only", "--json"]).stdout
    )
    assert third["counts"]["review_pairs"] == 1
    missing = runner.invoke(app, ["dedup-history", "aHUS", "--undo", "999"])
    assert missing.exit_code == 4
    # a decision already withdrawn cannot be withdrawn again (nothing appended)
    again = runner.invoke(app, ["dedup-history", "aHUS", "--undo", str(decisions[0]["seq"])])
    assert again.exit_code == 3 and "no longer in force" in again.output
    # the pair decided again (kept separate): withdrawing the old merge must not take back
    # the decision in force
    fourth = runner.invoke(app, ["dedup", *FILES, "--study", "aHUS", "--review"], input="d\n")
    assert fourth.exit_code == 0, fourth.output
    stale = runner.invoke(app, ["dedup-history", "aHUS", "--undo", str(decisions[0]["seq"])])
    assert stale.exit_code == 3, stale.output
    final = json.loads(runner.invoke(app, ["dedup-history", "aHUS", "--json"]).stdout)
    kinds = [e["decision"] for e in final["entries"] if e["kind"] == "decision"]
    assert kinds == ["merge", "undone", "distinct"]


def test_merged_records_keep_every_source_and_export(tmp_path: Path) -> None:
    report = dedup_files(FILES)
    merged = report.merged_records()
    assert len(merged) == len(report.result.groups) == 5
    assert sum(len(m.sources) for m in merged) == 7
    noris = next(m for m in merged if m.paper.doi == "10.1056/nejmra0902814")
    assert {(Path(s.ref.file).name, s.ref.source_id) for s in noris.sources} == {
        ("dedup_scopus.ris", "S2"),
        ("dedup_pubmed.ris", "P2"),
    }
    assert all(
        s.ref.lines[0] <= s.ref.lines[1] and s.ref.digest.startswith("sha256:")
        for s in noris.sources
    )
    # the JSON form as the CLI prints it
    doc = next(m.to_dict() for m in merged if m.paper.doi == "10.1056/nejmra0902814")
    assert {s["source_id"] for s in doc["sources"]} == {"S2", "P2"}
    assert all(set(s) == {"file", "index", "source_id", "lines", "digest"} for s in doc["sources"])
    out = tmp_path / "dedup.ris"
    result = CliRunner().invoke(app, ["dedup", *FILES, "-o", str(out), "--to", "ris"])
    assert result.exit_code == 0, result.output
    assert out.read_text().count("ER  -") == 5


ERRATUM_RIS = """TY  - JOUR
ID  - A1
TI  - Complement factor H mutations in familial atypical haemolytic uraemic syndrome
AU  - Warwicker, P.
AU  - Goodship, T. H.
PY  - 2001
JO  - Kidney International
VL  - 60
IS  - 3
SP  - 1210
EP  - 1218
ER  -

TY  - JOUR
ID  - E1
TI  - Complement factor H mutations in familial atypical haemolytic uraemic syndrome (vol 60, pg 1210, 2001)
AU  - Warwicker, P.
PY  - 2002
JO  - Kidney International
VL  - 61
IS  - 1
SP  - 371
ER  -
"""


def test_cli_corrections_wait_for_review_unless_asked(tmp_path: Path) -> None:
    path = tmp_path / "erratum.ris"
    path.write_text(ERRATUM_RIS.replace("ER  -\n", "ER  - \n"), encoding="utf-8")
    default = json.loads(CliRunner().invoke(app, ["dedup", str(path), "--json"]).stdout)
    assert [len(g) for g in default["groups"]] == [1, 1]
    assert [p["decision"] for p in default["pairs"]] == ["review"]
    asked = CliRunner().invoke(app, ["dedup", str(path), "--json", "--merge-corrections"])
    doc = json.loads(asked.stdout)
    assert [len(g) for g in doc["groups"]] == [2]
    assert doc["pairs"][0]["reason"].startswith("rule E")
    assert doc["pairs"][0]["evidence"]["kinds"] == ["article", "correction"]


def test_prisma_counts_the_reviewer_merges_of_imported_records(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("LITDESK_DATABASE_URL", raising=False)
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_path / "data"))
    runner = CliRunner()
    assert runner.invoke(app, ["import", *FILES, "--study", "aHUS"]).exit_code == 0

    def prisma() -> dict:
        out = runner.invoke(app, ["report", "prisma", "--study", "aHUS", "--json"])
        assert out.exit_code == 0, out.output
        return json.loads(out.stdout)

    before = prisma()
    assert not any("reviewer decision" in n for n in before["notes"])
    merged = runner.invoke(app, ["dedup", *FILES, "--study", "aHUS", "--review"], input="m\n")
    assert merged.exit_code == 0, merged.output
    after = prisma()
    ident_before, ident_after = before["identification"], after["identification"]
    assert ident_after["records_identified"] == ident_before["records_identified"]
    assert ident_after["duplicates_removed"] == ident_before["duplicates_removed"] + 1
    assert any("1 reviewer decision on" in n and "1 merged" in n for n in after["notes"])
    # the merge withdrawn: back to the automatic count
    hist = json.loads(runner.invoke(app, ["dedup-history", "aHUS", "--json"]).stdout)["entries"]
    seq = next(e["seq"] for e in hist if e["kind"] == "decision")
    assert runner.invoke(app, ["dedup-history", "aHUS", "--undo", str(seq)]).exit_code == 0
    assert prisma()["identification"] == ident_before


def test_a_groups_merged_record_is_cached_by_its_members_content(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The working set's merged records are read back for groups of equal members (the
    same sightings: source, kind, position and record) and merged anew when a member
    changed; either way the record a merge without any cache makes."""
    from litdesk.adapters.store import StudyRecordRow
    from litdesk.core.dedup import ContentCache
    from litdesk.core.records import make_paper
    from litdesk.services.dedup import _working_set

    def row(key: str, source: str, position: int, **fields: object) -> StudyRecordRow:
        paper = make_paper(**fields)  # type: ignore[arg-type]
        data = {"paper": paper.to_dict()}
        return StudyRecordRow(key, "import", source, position, "d", "db", None, None, data, "t")

    def members() -> list[StudyRecordRow]:
        return [
            row("a:0", "a", 0, doi="10.1000/x1", title="A trial", year=2020),
            row("b:3", "b", 3, doi="10.1000/x1", title="A trial.", abstract="Longer text."),
        ]

    cache: ContentCache[object, object] = ContentCache(10)
    monkeypatch.setattr(_working_set, "MERGED_PAPERS", cache)
    first = _working_set.merged_paper(members())
    assert first.abstract == "Longer text." and first.year == 2020
    again = _working_set.merged_paper(members())  # equal members, other objects
    assert (cache.misses, cache.hits) == (1, 1) and again == first
    changed = members()
    changed[1] = row("b:3", "b", 3, doi="10.1000/x1", title="A trial.", abstract="Other text.")
    assert _working_set.merged_paper(changed).abstract == "Other text."
    assert cache.misses == 2
    monkeypatch.setattr(_working_set, "MERGED_PAPERS", ContentCache(0))
    assert _working_set.merged_paper(members()) == first
