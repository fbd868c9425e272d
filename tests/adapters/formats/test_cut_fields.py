"""A field longer than the paper's bounds is cut with a ``truncated`` notice naming the record's
line (it was cut silently: a 50 MB abstract came in as 200,000 characters, no word of it), on
real export files with one field made huge; the other records are read whole."""

from __future__ import annotations

from pathlib import Path

from litdesk.adapters import formats
from litdesk.core.imports import ImportTrace, RecordTrace


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
