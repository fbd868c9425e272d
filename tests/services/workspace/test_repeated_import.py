"""The same file imported four times is one source: PRISMA counts its records once and the
repeat is reported (notice, result, note); an empty query says it is empty (issue 13, 11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from litdesk.adapters import formats
from litdesk.core.query import QuerySyntaxError
from litdesk.core.runs import ImportSource, RunInvalid, build_prisma
from litdesk.core.runs._run import read_definition
from litdesk.services.dedup import keep_working_sets
from litdesk.services.imports import import_files
from litdesk.services.search import make_definition, study_prisma
from litdesk.services.workspace import Workspace

RIS = (
    b"TY  - JOUR\nTI  - Fluids in septic shock\nDO  - 10.1000/a1\nPY  - 2019\nER  - \n"
    b"TY  - JOUR\nTI  - Vasopressors early\nDO  - 10.1000/b2\nPY  - 2020\nER  - \n"
    b"TY  - JOUR\nTI  - Steroids in sepsis\nDO  - 10.1000/c3\nPY  - 2021\nER  - \n"
)
OTHER = b"TY  - JOUR\nTI  - Another paper\nDO  - 10.1000/d4\nPY  - 2022\nER  - \n"


def test_prisma_counts_a_repeated_source_digest_once() -> None:
    papers = formats.loads(RIS).papers
    same = [
        ImportSource(f"imp_{i}", "a.ris (ris)", "2026-01-01", tuple(papers), "sha256:x")
        for i in range(4)
    ]
    report = build_prisma("S", [], same)
    assert report.identified == 3
    assert report.per_source == {"Import: a.ris (ris)": 3}
    assert [n for _, _, _, n in report.imports] == [3, 0, 0, 0]
    assert sum("same file as import imp_0" in note for note in report.notes) == 3
    # without digests (older callers) every import counts, as before
    plain = [ImportSource(f"imp_{i}", "a.ris (ris)", "d", tuple(papers)) for i in range(2)]
    assert build_prisma("S", [], plain).identified == 6


def test_four_imports_of_one_file_into_a_study(ws: Workspace, tmp_path: Path) -> None:
    # the store as the app sets it up: its writes keep a Study's records in step with its
    # sources (reads no longer reconcile them; PRISMA reads the records)
    keep_working_sets(ws.store)
    path = tmp_path / "a.ris"
    path.write_bytes(RIS)
    other = tmp_path / "b.ris"
    other.write_bytes(OTHER)
    ws.create_study("Sepsis")
    results = [ws.attach_import(formats.load(path), study="Sepsis") for _ in range(4)]
    results.append(ws.attach_import(formats.load(other), study="Sepsis"))
    assert results[0].repeats == [] and results[4].repeats == []
    assert results[3].repeats == [r.import_id for r in results[:3]]
    assert results[1].to_dict()["repeats_imports"] == [results[0].import_id]
    stored = {imp_id: trace for imp_id, trace, _ in ws.imports(study="Sepsis")}
    kinds = [[n.kind for n in stored[r.import_id].notices] for r in results]
    assert [k.count("repeated_source") for k in kinds] == [0, 1, 1, 1, 0]
    report = study_prisma(ws.store, "Sepsis")
    assert report.identified == 4  # 3 + 1, not 4 * 3 + 1
    assert report.after_dedup == 4
    assert len(report.imports) == 5
    assert sum("not counted again" in n for n in report.notes) == 3
    # the same file into another Study is that Study's first import of it
    ws.create_study("Other")
    assert ws.attach_import(formats.load(path), study="Other").repeats == []


def test_one_import_call_with_the_same_file_twice(tmp_path: Path) -> None:
    path = tmp_path / "a.ris"
    path.write_bytes(RIS)
    copy = tmp_path / "copy.ris"
    copy.write_bytes(RIS)
    batch = import_files([path, path, copy])
    kinds = [[n.kind for n in t.notices] for t in batch.imports]
    assert kinds == [[], ["repeated_source"], ["repeated_source"]]
    assert str(path) in batch.imports[2].notices[0].message


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_query_says_it_is_empty(query: str) -> None:
    with pytest.raises(QuerySyntaxError) as info:
        make_definition(query)
    assert info.value.code == "empty"
    assert "4096" not in info.value.message and "empty" in info.value.message


def test_definition_text_errors_name_what_is_wrong() -> None:
    base = {"mode": "keyword", "providers": ["europepmc"], "filters": {}, "limit": 20}
    for value, words in (("", "is empty"), (7, "must be text"), ("x" * 5000, "longer than")):
        with pytest.raises(RunInvalid) as info:
            read_definition({**base, "query": value})
        assert words in info.value.message, value
