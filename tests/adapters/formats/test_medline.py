"""MEDLINE / PubMed .nbib: real exports and hand-written edge cases."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.adapters import formats
from litdesk.core.imports import ImportRefused
from litdesk.core.records import normalize_doi

DATA = Path(__file__).parent / "data" / "tagged"


def provenance_counts(folder: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in (folder / "PROVENANCE.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 2 and cells[0].startswith("`") and cells[1].isdigit():
            out[cells[0].strip("`")] = int(cells[1])
    return out


@pytest.mark.fixtures
def test_every_medline_fixture_parses_with_its_count_and_ids(fixtures_dir: Path) -> None:
    folder = fixtures_dir / "bib" / "medline"
    counts = provenance_counts(folder)
    assert len(counts) >= 3
    for name, expected in counts.items():
        trace = formats.load(folder / name)
        assert trace.source.format == "medline", name
        assert len(trace.records) == expected, name
        text = (folder / name).read_text(encoding="utf-8")
        pmids = set(re.findall(r"^PMID- *(\d+)", text, re.M))
        assert {p.pmid for p in trace.papers if p.pmid} == pmids, name
        dois = {
            d
            for v in re.findall(r"^(?:LID|AID) - (.+?)\s*$", text, re.M)
            if ("[doi]" in v or "doi.org" in v) and (d := normalize_doi(v.replace("[doi]", "")))
        }
        assert {p.doi for p in trace.papers if p.doi} == dois, name
        assert all(p.title for p in trace.papers), name


def test_two_records_without_a_blank_line_and_continuations() -> None:
    trace = formats.load(DATA / "medline_two.nbib")
    first, second = trace.records
    assert first.paper.title == "First title that is continued here."
    assert first.paper.authors == ("Doe, Jane",)
    assert (first.paper.pmid, first.paper.pmcid, first.paper.doi) == (
        "111",
        "PMC999",
        "10.1000/one",
    )
    assert (first.paper.year, first.paper.journal) == (2001, "Journal One")
    assert first.source_id == "111" and first.paper.id == "MED-111"
    assert (first.first_line, first.last_line) == (1, 10)
    assert second.paper.doi == "10.1000/two" and second.first_line == 11
    assert second.extras["XYZ"] == ["odd tag"]
    assert [n.kind for n in second.notices] == ["unknown_tag"]


def test_duplicate_pmids_are_refused_when_asked_else_kept() -> None:
    with pytest.raises(ImportRefused) as info:
        formats.load(DATA / "medline_dup.nbib", duplicate_ids="refuse")
    assert info.value.code == "duplicate_ids"
    trace = formats.load(DATA / "medline_dup.nbib")
    assert len(trace.records) == 2
    assert any(n.kind == "duplicate_id" for n in trace.records[1].notices)


def test_medline_is_not_taken_for_ris() -> None:
    assert formats.detect("PMID- 1\nTI  - x\n").name == "medline"
    assert formats.detect("TY  - JOUR\nTI  - x\nER  - \n").name == "ris"


_value = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r\n"), max_size=40
)
_lines = st.lists(
    st.one_of(
        st.builds(
            lambda t, v: f"{t}- {v}",
            st.sampled_from(["PMID", "TI  ", "FAU ", "AU  ", "DP  ", "LID ", "AID ", "XX  "]),
            _value,
        ),
        _value.map(lambda v: "      " + v),
        st.just(""),
        _value,
    ),
    max_size=30,
)


@settings(max_examples=120, deadline=None)
@given(_lines)
def test_medline_parse_never_raises_and_spans_hold(lines: list[str]) -> None:
    from litdesk.adapters.formats import _medline

    result = _medline.parse("\n".join(lines))
    previous = 0
    for rec in result.records:
        assert previous < rec.first_line <= rec.last_line <= len(lines)
        assert rec.raw == "\n".join(lines[rec.first_line - 1 : rec.last_line])
        previous = rec.last_line


def test_many_continuation_lines_read_in_linear_time() -> None:
    import time

    data = ("PMID- 1\nTI  - start\n" + "      more\n" * 150_000).encode()
    start = time.process_time()
    trace = formats.loads(data, format="medline")
    assert time.process_time() - start < 5.0
    assert trace.papers[0].title.startswith("start more more")
