"""Odd but real inputs on real export files: a field longer than the paper's bounds is cut
with a ``truncated`` notice naming the record's line (it was cut silently: a 50 MB abstract
came in as 200,000 characters, no word of it), the other records read whole; a file forced
to RIS that has no RIS record is refused naming its first line and its real format."""

from __future__ import annotations

from pathlib import Path

import pytest

from litdesk.adapters import formats
from litdesk.core.imports import ImportRefused, ImportTrace, RecordTrace


def _cut_notices(record: RecordTrace) -> list[str]:
    return [n.message for n in record.notices if n.kind == "truncated"]


def _others_untouched(trace: ImportTrace, plain: ImportTrace, huge_index: int) -> None:
    assert len(trace.records) == len(plain.records)
    for i, (a, b) in enumerate(zip(trace.records, plain.records, strict=True)):
        if i == huge_index:
            continue
        assert a.paper == b.paper
        assert _cut_notices(a) == []


def test_ris_abstract_over_the_bound_is_cut_with_a_notice_on_its_record(
    fixtures_dir: Path,
) -> None:
    data = (fixtures_dir / "bib/ris/citesource__medline_84.ris").read_bytes()
    plain = formats.loads(data, path="medline_84.ris")
    # the second record gets a 300,000-character abstract
    second = data.index(b"TY  - ", 10)
    huge = data[:second] + b"TY  - JOUR\nAB  - " + b"a" * 300_000 + b"\n" + data[second + 11 :]
    trace = formats.loads(huge, path="medline_84.ris")
    rec = trace.records[1]
    assert rec.paper.abstract is not None and len(rec.paper.abstract) == 200_000
    (message,) = _cut_notices(rec)
    assert "abstract (200,000 characters)" in message
    assert "raw record keeps the whole text" in message
    assert next(n for n in rec.notices if n.kind == "truncated").line == rec.first_line
    assert "a" * 300_000 in rec.raw  # the evidence is whole
    _others_untouched(trace, plain, 1)


def test_bibtex_title_and_author_over_the_bounds_are_cut_with_a_notice(
    fixtures_dir: Path,
) -> None:
    text = (fixtures_dir / "bib/bibtex/colrev__scopus_bib.bib").read_text(encoding="utf-8")
    plain = formats.loads(text.encode(), path="scopus.bib")
    at = text.index("@article{Articlewriter2022,") + len("@article{Articlewriter2022,")
    huge = text[:at] + f"\n  title = {{{'T' * 5_000}}},\n  author = {{{'N' * 3_000}}}," + text[at:]
    trace = formats.loads(huge.encode(), path="scopus.bib")
    index = next(i for i, r in enumerate(trace.records) if r.source_id == "Articlewriter2022")
    rec = trace.records[index]
    (message,) = _cut_notices(rec)
    assert "title (4,000 characters)" in message
    assert "1 author (2,000 characters)" in message
    _others_untouched(trace, plain, index)


def test_fields_at_most_their_bounds_get_no_notice(fixtures_dir: Path) -> None:
    for name in ("ris/citesource__wos_278.ris", "bibtex/pybtex__tugboat.bib"):
        trace = formats.load(fixtures_dir / "bib" / name)
        assert not [r for r in trace.records if _cut_notices(r)], name


@pytest.mark.parametrize(
    ("name", "first", "reads_as"),
    [
        ("medline/reflib__blue-light.nbib", "line 4 with LR", "medline"),  # 80 records
        ("medline/revtools__restoration_pubmed.nbib", "line 5 with LR", "medline"),
    ],
)
def test_forced_ris_on_a_file_without_any_ty_line_is_refused(
    fixtures_dir: Path, name: str, first: str, reads_as: str
) -> None:
    """``--format ris`` on a real MEDLINE export read its 80 records as one RIS "record"
    (lines 4-5814, "record starts without a TY line") and said nothing else; it is refused,
    naming where the first record starts and what the content reads as."""
    data = (fixtures_dir / "bib" / name).read_bytes()
    assert len(formats.loads(data, path=name).records) > 1  # detected: read whole
    with pytest.raises(ImportRefused) as info:
        formats.loads(data, format="ris", path=name)
    assert info.value.code == "malformed"
    message = info.value.message
    assert message.startswith("not RIS: no record starts with a TY line")
    assert first in message and f"the content reads as {reads_as}" in message


def test_forced_ris_still_reads_ris_with_one_record_missing_its_ty(fixtures_dir: Path) -> None:
    """Only a file where *no* record starts with TY is refused: a real RIS export whose one
    record lost its TY line is read, that record with its notice."""
    text = (fixtures_dir / "bib/ris/citesource__medline_84.ris").read_text(encoding="utf-8")
    second = text.index("TY  - ", 10)
    damaged = text[:second] + text[text.index("\n", second) + 1 :]
    trace = formats.loads(damaged.encode(), format="ris", path="medline_84.ris")
    assert len(trace.records) == 84
    assert [n.message for n in trace.records[1].notices] == ["record starts without a TY line"]


def test_a_forced_format_the_content_is_not_says_so(fixtures_dir: Path) -> None:
    """``--format wos`` on a real 80-record MEDLINE export reads 170 "records" with no word
    that the content is MEDLINE; a file-level notice says what it reads as. Not for a format
    of the same family (CSV for a Scopus CSV) nor when --format agrees with the content."""
    medline = (fixtures_dir / "bib/medline/reflib__blue-light.nbib").read_bytes()
    forced = formats.loads(medline, format="wos", path="blue-light.nbib")
    said = [n.message for n in forced.notices if n.kind == "other"]
    assert said == [
        "read as wos as --format asked; the content reads as medline "
        "(leave out --format to read it so)"
    ]
    agreed = formats.loads(medline, format="medline", path="blue-light.nbib")
    assert len(agreed.records) == 80 and not [n for n in agreed.notices if n.kind == "other"]
    scopus = (fixtures_dir / "bib/scopus-csv/litstudy__scopus.csv").read_bytes()
    table = formats.loads(scopus, format="csv", path="scopus.csv")
    assert not [n for n in table.notices if n.kind == "other"]


def test_a_csv_cell_over_the_csv_readers_bound_loses_no_row(fixtures_dir: Path) -> None:
    """A real Scopus CSV whose second row's abstract is 300,000 characters (over Python's
    process-wide 128 KiB ``csv.field_size_limit``): reading stopped there, "rows before it
    are kept" — 1 record of 58. Every row is read; that one is cut with its notice, a
    quoted huge cell over several lines keeps the line numbers of the rows after it."""
    import csv
    import io

    text = (fixtures_dir / "bib/scopus-csv/litstudy__scopus.csv").read_text(encoding="utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    at = [c.lower() for c in rows[0]].index("abstract")

    def written(rows: list[list[str]]) -> bytes:
        buf = io.StringIO()
        csv.writer(buf).writerows(rows)
        return buf.getvalue().encode()

    plain = formats.loads(written(rows), path="scopus.csv")
    huge = [list(r) for r in rows]
    huge[2][at] = 'a "quoted" first line, here\n' + "z" * 300_000 + "\nlast line"
    huge[5][at] = "y" * 140_000
    trace = formats.loads(written(huge), path="scopus.csv")
    assert len(trace.records) == len(plain.records) == 58
    assert not [n for n in trace.notices if n.kind == "skipped"]
    second, fifth = trace.records[1], trace.records[4]
    assert second.paper.abstract is not None and len(second.paper.abstract) == 200_000
    assert second.paper.abstract.startswith('a "quoted" first line, here\nzzz')
    assert _cut_notices(second) and (second.first_line, second.last_line) == (3, 5)
    assert fifth.paper.abstract == "y" * 140_000 and not _cut_notices(fifth)
    for i, (a, b) in enumerate(zip(trace.records, plain.records, strict=True)):
        if i not in (1, 4):
            assert a.paper == b.paper
            assert a.first_line - b.first_line == (0 if i < 1 else 2)
