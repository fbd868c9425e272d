"""CSV export: stable columns, formula-safe cells, round trip."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.adapters import formats
from litdesk.adapters.formats import _csv_export
from litdesk.core.records import make_paper


def test_columns_are_stable() -> None:
    text = formats.dumps([], "csv")
    assert text == ",".join(_csv_export.COLUMNS) + "\r\n"
    assert _csv_export.COLUMNS[:5] == ("id", "title", "authors", "journal", "year")


def test_formula_cells_are_escaped() -> None:
    paper = make_paper(
        title='=HYPERLINK("http://evil")',
        authors=("+1 Doe", "@SUM(A1)", "-2"),
        journal="-Journal",
        keywords=("ok",),
        fallback_key="f",
    )
    rows = list(csv.reader(io.StringIO(formats.dumps([paper], "csv"), newline="")))
    row = dict(zip(rows[0], rows[1], strict=True))
    assert row["title"] == '\'=HYPERLINK("http://evil")'
    assert row["authors"] == "'+1 Doe; @SUM(A1); -2"
    assert row["journal"] == "'-Journal"
    assert row["keywords"] == "ok"
    for value in rows[1]:
        assert not value.startswith(("=", "+", "-", "@", "\t", "\r"))
    # Paper strips surrounding whitespace, so tab and CR are checked on the cell rule itself
    assert _csv_export.escape_cell("\tcmd") == "'\tcmd"
    assert _csv_export.escape_cell("\r=1") == "'\r=1"
    assert _csv_export.escape_cell("plain") == "plain"


def test_values_and_lists_are_written() -> None:
    paper = make_paper(
        title="Hello, world", authors=("A, B", "C, D"), year=2020, pmid="5", retracted=True
    )
    row = _csv_export.read_rows(formats.dumps([paper], "csv"))[0]
    assert row["id"] == "MED-5" and row["title"] == "Hello, world"
    assert row["authors"] == "A, B; C, D" and row["year"] == "2020"
    assert row["retracted"] == "true" and row["doi"] == ""


_cell = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_cell, _cell, st.none() | st.integers(1000, 2999)), max_size=5))
def test_csv_round_trip_property(items: list[tuple[str, str, int | None]]) -> None:
    papers = [
        make_paper(title=t, journal=j or None, year=y, fallback_key=str(i))
        for i, (t, j, y) in enumerate(items)
    ]
    rows = _csv_export.read_rows(formats.dumps(papers, "csv"))
    assert len(rows) == len(papers)
    for paper, row in zip(papers, rows, strict=True):
        assert row["id"] == paper.id
        assert row["title"] == paper.title
        assert row["journal"] == (paper.journal or "")
        assert row["year"] == ("" if paper.year is None else str(paper.year))
        for value in row.values():
            assert value == _csv_export.unescape_cell(_csv_export.escape_cell(value))


@given(_cell)
def test_escape_is_reversible_and_safe(value: str) -> None:
    escaped = _csv_export.escape_cell(value)
    assert _csv_export.unescape_cell(escaped) == value
    assert not escaped.startswith(("=", "+", "-", "@", "\t", "\r"))


@pytest.mark.fixtures
def test_papers_of_one_id_get_unique_ids_and_read_back_strictly(fixtures_dir: Path) -> None:
    """Better BibTeX's math-markup export has two entries of one proceedings DOI (two
    papers, one DOI-derived id): the CSV wrote the id twice, and ``import --strict-ids``
    refused litdesk's own file (RIS writes the id once, CSL-JSON makes it unique)."""
    papers = formats.load(fixtures_dir / "bib/bibtex/bbt__math_markup_472.bib").papers
    assert len(papers) == 2 and papers[0].id == papers[1].id
    rows = _csv_export.read_rows(formats.dumps(papers, "csv"))
    assert [r["id"] for r in rows] == [papers[0].id, f"{papers[0].id}-2"]
    back = formats.loads(formats.dumps(papers, "csv").encode(), duplicate_ids="refuse")
    assert [r.paper.title for r in back.records] == [p.title for p in papers]
    assert not [n for r in back.records for n in r.notices if n.kind == "duplicate_id"]
