"""The Cochrane Library's plain-text export (CENTRAL), written here as the Library writes it
("Record #1 of N", ``XX: value`` lines): detected, every field in its place, the record count
checked against the headers."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.adapters import formats
from litdesk.core.imports import ImportRefused

EXPORT = """Record #1 of 2
ID: CN-01198765
AU: Lamo-Espinosa JM
AU: Mora G
TI: Intra-articular injection of mesenchymal stem cells in knee osteoarthritis
SO: Journal of translational medicine
YR: 2016
VL: 14
NO: 1
PG: 246
XR: EMBASE 612209871
PT: Journal Article; Multicenter Study; Randomized Controlled Trial
KY: *Mesenchymal Stem Cell Transplantation; Aged; Osteoarthritis, Knee [*therapy]
DOI: 10.1186/s12967-016-0998-2
AB: BACKGROUND: Mesenchymal stromal cells are an option.
RESULTS: No adverse effects.
US: https://www.cochranelibrary.com/central/doi/10.1002/central/CN-01198765/full
PM: PUBMED 27565858


Record #2 of 2
ID: CN-01087654
AU: Vega A
TI: Treatment of knee osteoarthritis with allogeneic bone marrow mesenchymal stem cells
SO: Transplantation
YR: 2015
VL: 99
NO: 8
PG: 1681-1690
DOI: https://doi.org/10.1097/TP.0000000000000678
US: https://www.cochranelibrary.com/central/doi/10.1002/central/CN-01087654/full
"""


def test_cochrane_plain_text_export(tmp_path: Path) -> None:
    path = tmp_path / "citation-export.txt"
    path.write_bytes(EXPORT.replace("\n", "\r\n").encode("utf-8"))
    trace = formats.load(path)
    assert trace.source.format == "cochrane-txt"
    first, second = trace.papers
    assert first.title.startswith("Intra-articular injection")
    assert first.authors == ("Lamo-Espinosa JM", "Mora G")
    assert (first.journal, first.year, first.volume, first.issue, first.pages) == (
        "Journal of translational medicine",
        2016,
        "14",
        "1",
        "246",
    )
    assert (first.doi, first.pmid) == ("10.1186/s12967-016-0998-2", "27565858")
    assert (
        first.abstract
        == "BACKGROUND: Mesenchymal stromal cells are an option.\nRESULTS: No adverse effects."
    )
    assert first.keywords == (
        "*Mesenchymal Stem Cell Transplantation",
        "Aged",
        "Osteoarthritis, Knee [*therapy]",
    )
    assert first.publication_types == (
        "Journal Article",
        "Multicenter Study",
        "Randomized Controlled Trial",
    )
    assert first.source_url is not None and "CN-01198765" in first.source_url
    assert trace.records[0].source_id == "CN-01198765"
    assert trace.records[0].extras["XR"] == ["EMBASE 612209871"]
    assert [(r.first_line, r.last_line) for r in trace.records] == [(1, 18), (21, 31)]
    assert (second.doi, second.pmid, second.pages) == (
        "10.1097/tp.0000000000000678",
        None,
        "1681-1690",
    )
    assert not trace.notices


def test_an_export_cut_short_says_how_many_records_are_missing() -> None:
    cut = EXPORT.replace(" of 2", " of 3")
    trace = formats.loads(cut.encode(), path="x.txt")
    assert len(trace.records) == 2
    [notice] = trace.notices
    assert "3 records" in notice.message and "holds 2" in notice.message


def test_prose_is_still_refused_and_names_its_first_line() -> None:
    with pytest.raises(ImportRefused) as info:
        formats.loads(b"\nSearch history, 3 June\n1 knee.mp. (12)\n", path="notes.txt")
    assert info.value.code == "unsupported"
    assert "'Search history, 3 June'" in info.value.message
    # Ovid's own tagged export, refused here before, is read (tests/adapters/formats/test_ovid.py)
    trace = formats.loads(b"\n<1. >\nVN  - Ovid Technologies\nUI  - 1\n", path="ovid.cgi")
    assert trace.source.format == "ovid"


_TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1
).map(lambda s: " ".join(s.split()))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            _TEXT.filter(bool), st.lists(_TEXT.filter(lambda s: s and ";" not in s), max_size=4)
        ),
        min_size=1,
        max_size=5,
    )
)
def test_titles_and_authors_read_back(records: list[tuple[str, list[str]]]) -> None:
    n = len(records)
    text = "".join(
        f"Record #{i + 1} of {n}\nID: CN-{i:08d}\nTI: {title}\n"
        + "".join(f"AU: {a}\n" for a in authors)
        + "\n"
        for i, (title, authors) in enumerate(records)
    )
    trace = formats.loads(text.encode(), path="central.txt")
    assert [(p.title, list(p.authors)) for p in trace.papers] == [(t, a) for t, a in records]
    assert [r.source_id for r in trace.records] == [f"CN-{i:08d}" for i in range(n)]
