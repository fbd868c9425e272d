"""Scopus CSV and generic CSV/TSV: edge cases, the real fixtures and properties."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litdesk.adapters.formats import _csvtable
from litdesk.adapters.formats._csvtable import (
    FORMATS,
    parse_csv,
    parse_scopus,
    sniff_csv,
    sniff_scopus,
)
from litdesk.core.imports import ImportRefused
from litdesk.core.records import normalize_doi


def test_generic_mapping_and_extras_notice() -> None:
    text = (
        "Title,Authors,Publication Year,Journal,DOI,PMID,Abstract,Volume,Issue,Pages,"
        "Keywords,record_id,Colour\n"
        'A study,"Smith, John; Doe, Jane",2020,J Med,10.1000/X,123,Abs,4,2,1-9,a; b,r1,blue\n'
    )
    result = parse_csv(text)
    (rec,) = result.records
    p = rec.paper
    assert p.title == "A study"
    assert p.authors == ("Smith, John", "Doe, Jane")
    assert (p.year, p.journal, p.doi, p.pmid) == (2020, "J Med", "10.1000/x", "123")
    assert (p.volume, p.issue, p.pages, p.abstract) == ("4", "2", "1-9", "Abs")
    assert p.keywords == ("a", "b")
    assert rec.source_id == "r1"
    assert rec.extras == {"Colour": ["blue"]}
    unknown = [n for n in result.notices if n.kind == "unknown_tag"]
    assert len(unknown) == 1 and "Colour" in unknown[0].message
    assert any(n.kind == "mapped_column" for n in result.notices)


@pytest.mark.parametrize("delimiter", [",", "\t", ";"])
def test_delimiter_sniffing(delimiter: str) -> None:
    rows = [["title", "year", "doi"], ["One, two", "1999", "10.1000/a"], ["Three", "2001", ""]]
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter).writerows(rows)
    result = parse_csv(buf.getvalue())
    assert [r.paper.title for r in result.records] == ["One, two", "Three"]
    assert result.records[0].paper.year == 1999


def _delimiter_by_characters(header: str) -> str:
    """The delimiter as the sniffer counted it before: a walk over the characters."""
    counts = {d: 0 for d in (",", "\t", ";")}
    quoted = False
    for ch in header:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in counts:
            counts[ch] += 1
    best = max(counts, key=lambda d: (counts[d], d == ","))
    return best if counts[best] else ","


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=',\t;"ab \ufeff', max_size=40))
def test_the_delimiter_is_the_one_most_used_outside_quotes(header: str) -> None:
    assert _csvtable._delimiter(header) == _delimiter_by_characters(header)


def test_both_sniffers_read_the_headers_of_one_head_once() -> None:
    head = "Title,EID,Source title,Link\n" + "x,y,z,w\n" * 3
    _csvtable._headers.cache_clear()
    assert (sniff_scopus(head), sniff_csv(head)) == (95, 40)
    info = _csvtable._headers.cache_info()
    assert (info.misses, info.hits) == (1, 1)


def test_quoted_multiline_cells_keep_line_spans() -> None:
    text = 'title,abstract\n"T1","line one\nline two\nline three"\nT2,short\r\n"T3","a\r\nb"\n'
    result = parse_csv(text)
    assert [(r.first_line, r.last_line) for r in result.records] == [(2, 4), (5, 5), (6, 7)]
    assert result.records[0].paper.abstract == "line one\nline two\nline three"
    assert result.records[0].raw == '"T1","line one\nline two\nline three"'
    assert result.records[2].raw == '"T3","a\r\nb"'


def test_page_start_end_and_article_number() -> None:
    text = "Title,Page start,Page end,Art. No.\nA,5,9,\nB,,,e123\n"
    result = parse_csv(text)
    assert [r.paper.pages for r in result.records] == ["5-9", "e123"]


def test_author_heuristics() -> None:
    text = 'title,authors\nA,"Liu R., Adler D.G."\nB,"Smith, John"\nC,Ann Lee and Bo Kim\n'
    result = parse_csv(text)
    assert [r.paper.authors for r in result.records] == [
        ("Liu R.", "Adler D.G."),
        ("Smith, John",),
        ("Ann Lee", "Bo Kim"),
    ]


def test_malformed_doi_and_bad_year_are_notices() -> None:
    (rec,) = parse_csv("title,doi,year\nA,not-a-doi,n.d.\n").records
    assert rec.paper.doi is None and rec.paper.year is None
    assert rec.extras["doi"] == ["not-a-doi"]
    assert {n.kind for n in rec.notices} == {"malformed_identifier", "dropped_field"}


def test_blank_rows_skipped_and_surplus_cells_kept() -> None:
    result = parse_csv("title,year\n\nA,2000,extra\n,\n")
    (rec,) = result.records
    assert rec.first_line == 3
    assert rec.extras["(cells beyond the header)"] == ["extra"]
    # a row of delimiters only is a row to pandas (so to ASReview): its skip is a notice;
    # an empty line is not
    skipped = [n for n in result.notices if n.kind == "skipped"]
    assert [n.line for n in skipped] == [4]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "empty"),
        ("title,year\n", "empty"),
        ("foo,bar\n1,2\n", "unsupported"),
        ("\n\n", "empty"),
    ],
)
def test_refusals(text: str, code: str) -> None:
    with pytest.raises(ImportRefused) as err:
        parse_csv(text)
    assert err.value.code == code


def test_scopus_sniff_and_author_full_names() -> None:
    text = (
        "\ufeffAuthors,Author full names,Title,Year,Source title,Link,EID\n"
        '"Li X., Wu Y.","Li, Xin (123); Wu, Yan (456)",T,2021,J,https://www.scopus.com/x,2-s2.0-1\n'
    )
    assert sniff_scopus(text) >= 90
    assert sniff_csv(text) < sniff_scopus(text)
    (rec,) = parse_scopus(text).records
    assert rec.paper.authors == ("Li, Xin", "Wu, Yan")
    assert rec.source_id == "2-s2.0-1"
    assert rec.paper.source_url == "https://www.scopus.com/x"
    assert rec.extras["Authors"] == ["Li X., Wu Y."]


def test_sniff_rejects_other_formats() -> None:
    assert sniff_scopus("TY  - JOUR\n") == 0
    assert sniff_csv("@article{x,\n title={y}}") == 0
    assert [f.name for f in FORMATS] == ["scopus-csv", "csv"]


# -- real fixtures ---------------------------------------------------------------------
def provenance_counts(folder: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in (folder / "PROVENANCE.md").read_text("utf-8").splitlines():
        m = re.match(r"^\|\s*`([^`]+)`\s*\|\s*(\d+)\s*\|", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


@pytest.mark.fixtures
def test_fixture_counts_detection_and_dois(fixtures_dir: Path) -> None:
    folder = fixtures_dir / "bib" / "scopus-csv"
    counts = provenance_counts(folder)
    files = sorted(p.name for p in folder.glob("*.csv"))
    assert set(files) == set(counts)
    for name in files:
        text = (folder / name).read_bytes().decode("utf-8-sig")
        is_scopus = not name.startswith("other__")  # PROVENANCE: other__ files are NOT Scopus
        assert (sniff_scopus(text[:65536]) >= 90) == is_scopus, name
        result = (parse_scopus if is_scopus else parse_csv)(text)
        assert len(result.records) == counts[name], name
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
        doi_col = next((h for h in rows[0] if h.strip().lower() in ("doi", "item doi")), None)
        plain = {d for r in rows if doi_col and (d := normalize_doi(r[doi_col] or ""))}
        assert {r.paper.doi for r in result.records if r.paper.doi} == plain, name
        for rec in result.records:
            assert rec.first_line <= rec.last_line


@pytest.mark.fixtures
def test_scopus_fixture_fields(fixtures_dir: Path) -> None:
    text = (fixtures_dir / "bib" / "scopus-csv" / "litstudy__scopus.csv").read_text("utf-8-sig")
    result = parse_scopus(text)
    rows = list(csv.reader(io.StringIO(text, newline="")))
    header, body = rows[0], rows[1:]
    eids = [next(c for c in reversed(r) if re.fullmatch(r"2-s2\.0-\d+", c)) for r in body]
    assert [r.source_id for r in result.records] == eids  # also rows with surplus cells
    assert len(set(eids)) == len(eids)
    surplus = sum(1 for r in body if len(r) > len(header))
    realigned = [r for r in result.records if any("more cell" in n.message for n in r.notices)]
    assert len(realigned) == surplus > 0
    first = result.records[0]
    col = {h: i for i, h in enumerate(header)}
    assert first.paper.title == body[0][col["Title"]]
    assert first.paper.year == int(body[0][col["Year"]])
    assert first.paper.journal == body[0][col["Source title"]]
    assert first.paper.pages == f"{body[0][col['Page start']]}-{body[0][col['Page end']]}"
    assert first.extras["Index Keywords"] == [body[0][col["Index Keywords"]]]
    for rec in result.records:
        if rec.paper.pmid:
            assert f",{rec.paper.pmid}," in rec.raw or f'"{rec.paper.pmid}"' in rec.raw
    assert not any(n.kind == "malformed_identifier" for r in result.records for n in r.notices)


def test_scopus_surplus_funding_text_is_realigned() -> None:
    text = "Title,Funding Text 1,PubMed ID,EID\nA,f1,123,2-s2.0-1\nB,f1,f2,456,2-s2.0-2\n"
    result = parse_scopus(text)
    assert [(r.source_id, r.paper.pmid) for r in result.records] == [
        ("2-s2.0-1", "123"),
        ("2-s2.0-2", "456"),
    ]
    assert result.records[1].extras["Funding Text (more)"] == ["f2"]


@pytest.mark.fixtures
def test_bib_dedupe_table(fixtures_dir: Path) -> None:
    folder = fixtures_dir / "bib" / "dedup"
    counts = provenance_counts(folder)
    name = "rathbone_haematology__records_pre_merged.csv"
    result = parse_csv((folder / name).read_text("utf-8"))
    assert len(result.records) == counts[name]
    ids = [r.source_id for r in result.records]
    assert len(set(ids)) == len(ids) and ids[0] == "id_0000001"
    assert result.records[0].paper.authors[0] == "Zuber, J"


# -- properties --------------------------------------------------------------------------
@settings(max_examples=200, deadline=1000, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([*'ab,;\t"\n\r\x00 ', "title", "doi"]), max_size=150).map("".join))
def test_parse_arbitrary_text_returns_or_refuses(text: str) -> None:
    for parse in (parse_csv, parse_scopus):
        try:
            result = parse(text)
        except ImportRefused:
            continue
        assert result.records
        for rec in result.records:
            assert 1 <= rec.first_line <= rec.last_line


@settings(max_examples=100, deadline=1000)
@given(
    st.lists(
        st.tuples(
            st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30),
            st.integers(1000, 2999),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_written_table_reads_back(rows: list[tuple[str, int]]) -> None:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["title", "year"])
    w.writerows(rows)
    result = parse_csv(buf.getvalue())
    assert [r.paper.year for r in result.records] == [y for _, y in rows]


@pytest.mark.fixtures
def test_through_the_registry(fixtures_dir: Path) -> None:
    from litdesk.adapters.formats import loads

    folder = fixtures_dir / "bib" / "scopus-csv"
    counts = provenance_counts(folder)
    for path in sorted(folder.glob("*.csv")):
        trace = loads(path.read_bytes(), path=path.name)
        expected = "csv" if path.name.startswith("other__") else "scopus-csv"
        assert trace.source.format == expected, path.name
        assert len(trace.records) == counts[path.name], path.name
    tsv = b"title\tyear\tdoi\nA\t2001\t10.1000/a\n"
    trace = loads(tsv, path="x.tsv")
    assert trace.source.format == "csv" and trace.papers[0].doi == "10.1000/a"


def test_identifier_only_table() -> None:
    text = "PMID;DOI\n123;10.1000/x\n"
    assert sniff_csv(text) > 0
    (rec,) = parse_csv(text).records
    assert (rec.paper.pmid, rec.paper.doi, rec.paper.title) == ("123", "10.1000/x", "")


def test_json_and_xml_documents_are_never_taken_for_csv() -> None:
    from litdesk.adapters.formats._csvtable import sniff_csv

    assert sniff_csv('{"error":"Invalid query","message":"title, year, doi are fields"}') == 0
    assert sniff_csv('  [{"title": "a", "year": 1}]') == 0
    assert sniff_csv("<xml>title,year</xml>") == 0
    assert sniff_csv("title,year,doi\na,2001,10.1/x\n") > 0


def test_asreview_column_names_and_cr_line_ends() -> None:
    # ASReview's readers take primary_title, notes_abstract / abstract note and
    # first_authors; a file saved with CR alone ends its lines (before: not sniffed as CSV,
    # its header read up to the first LF, and these columns were extras)
    text = (
        "primary_title,notes_abstract,first_authors,asreview_label\r"
        '"Knee, stem cells",An abstract.,"Smith, J",1\r'
        'Second,"Two\rlines",Doe,0\r'
    )
    assert sniff_csv(text) > 0
    result = parse_csv(text)
    first, second = result.records
    assert (first.paper.title, first.paper.abstract) == ("Knee, stem cells", "An abstract.")
    assert first.paper.authors == ("Smith, J",)
    assert (first.first_line, first.last_line, second.first_line, second.last_line) == (
        2, 2, 3, 4,
    )  # fmt: skip
    assert second.paper.abstract == "Two\rlines"  # a quoted line break is kept
    assert first.extras == {"asreview_label": ["1"]}
    zotero = parse_csv("Title,Abstract Note\nA,B\n").records[0]
    assert zotero.paper.abstract == "B"


# ------------------------------------------------ reading UTF-8 bytes line by line (memory)


@pytest.mark.fixtures
def test_bytes_reader_gives_what_the_text_reader_gives(fixtures_dir: Path) -> None:
    # the registry reads a UTF-8 CSV from its bytes, line by line; the same records, lines,
    # raw texts and notices as reading the decoded text
    from litdesk.adapters.formats._csvtable import parse_csv_bytes, parse_scopus_bytes

    paths = sorted((fixtures_dir / "bib" / "scopus-csv").glob("*.csv"))
    paths += sorted((fixtures_dir / "screening").glob("*/*.csv"))
    for path in paths:
        data = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
        text = data.decode("utf-8")
        titles: list[str] = []  # parse_csv(text)'s, read once for the CR comparison below
        for by_text, by_bytes in ((parse_csv, parse_csv_bytes), (parse_scopus, parse_scopus_bytes)):
            expected, got = by_text(text), by_bytes(data)
            assert got.notices == expected.notices, path.name
            assert got.records == expected.records, path.name
            if by_text is parse_csv:
                titles = [r.paper.title for r in expected.records]
        # the same file with CR line ends (quoted line breaks become CRs too: compare titles)
        cr_only = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r")
        assert [r.paper.title for r in parse_csv_bytes(cr_only).records] == titles, path.name


def test_bytes_that_are_not_utf8_further_on_are_read_as_windows_1252() -> None:
    from litdesk.adapters.formats import loads

    data = "title,abstract\nA,plain\nB,caf\xe9 au lait\n".encode("cp1252")
    trace = loads(data, path="x.csv")
    assert trace.source.encoding == "cp1252"
    assert [p.abstract for p in trace.papers] == ["plain", "caf\u00e9 au lait"]
    bom = loads(b"\xef\xbb\xbftitle,year\r\nA,2001\r\n", path="y.csv")
    assert bom.source.encoding == "utf-8-sig" and bom.papers[0].title == "A"


def test_reading_a_large_csv_takes_a_few_times_its_size() -> None:
    # before: about 11 times the file's size at the peak (the decoded text at 2 bytes a
    # character, io.StringIO's 4-byte buffer twice, a list of every line, a translated copy
    # of the file); now the records themselves and the file's bytes
    import tracemalloc

    from litdesk.adapters.formats import loads

    words = [
        "mesenchymal",
        "stem",
        "cells",
        "knee",
        "osteoarthritis",
        "naïve",
        "cartilage",
        "–",
        "trial",
    ]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["record_id", "title", "abstract", "label_included"])
    for i in range(2000):
        abstract = " ".join(words[(i + k) % len(words)] for k in range(250))
        w.writerow([i, f"Study {i}: {' '.join(words[i % 5 :][:6])}", abstract, i % 2])
    data = buf.getvalue().encode("utf-8")
    tracemalloc.start()
    try:
        trace = loads(data, path="big.csv")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(trace.records) == 2000
    # measured: 12.5 x before, 4.8 x after (4 MB, 2,000 records)
    assert peak < 7 * len(data), f"{peak / len(data):.1f} x the file's size"


def test_html_escaped_markup_in_a_cell_is_made_plain() -> None:
    """OpenAlex-built exports (the SYNERGY sets: 21 of synergy_Oud_2018's 952 abstracts)
    carry markup HTML-escaped; the screening card showed '&lt;b&gt;&lt;i&gt;Background:…'.
    Entities are decoded and the tags they held removed; a bare '<' stays text."""
    rows = [
        ["title", "abstract"],
        [
            "Therapy &amp; outcome",
            "&lt;b&gt;&lt;i&gt;Background:&lt;/i&gt;&lt;/b&gt; BPD.&lt;/p&gt;&lt;p&gt;"
            '&lt;span class="fett"&gt;Methods:&lt;/span&gt; a PHQ-9 score of &lt;10',
        ],
        ["Plain", "p < 0.05 and q > 3 in <i>vivo</i>"],
    ]
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    first, second = (r.paper for r in parse_csv(buf.getvalue()).records)
    assert first.title == "Therapy & outcome"
    assert first.abstract == "Background: BPD.\n\nMethods: a PHQ-9 score of <10"
    assert (second.title, second.abstract) == ("Plain", "p < 0.05 and q > 3 in <i>vivo</i>")


def test_a_quote_never_closed_is_said_on_the_row_that_swallowed_the_rest() -> None:
    """A cell opened with ``"`` and never closed (a hand-edited file) makes the reader take the
    rest of the file as that cell: before, silently (the rows after it lost, no notice)."""
    text = 'title,abstract\nA,one\n"B unclosed,two\nC,three\nD,four\n'
    result = parse_csv(text)
    assert [r.first_line for r in result.records] == [2, 3]
    (notice,) = [n for n in result.records[-1].notices if n.kind == "unterminated"]
    assert notice.line == 3 and "lines 3-5" in notice.message
    closed = parse_csv('title,abstract\nA,"one\ntwo"\nB,three\n')  # a quoted line break
    assert not [n for r in closed.records for n in r.notices if n.kind == "unterminated"]


def test_a_row_wider_than_a_spreadsheet_is_refused_at_once() -> None:
    """1,000,000 columns took seconds and every cell ~150 bytes in extras (a 108 MB file of 50
    such rows ran out of 4 GB); a row is bounded by a spreadsheet's 16,384 columns."""
    from litdesk.adapters.formats._csvtable import MAX_CELLS

    wide = "title,abstract," + ",".join(f"c{i}" for i in range(MAX_CELLS)) + "\nA,b\n"
    with pytest.raises(ImportRefused) as info:
        parse_csv(wide)
    assert info.value.code == "too_large" and "line 1" in info.value.message
    row = "title,abstract\nA,b\nC,d" + ",x" * MAX_CELLS + "\n"  # a data row wider than that
    with pytest.raises(ImportRefused) as info:
        parse_csv(row)
    assert info.value.code == "too_large" and "line 3" in info.value.message
    assert len(parse_csv("title,x\n" + "A," + ",".join(["y"] * (MAX_CELLS - 2)) + "\n").records)


def test_the_cells_kept_in_extras_are_bounded_per_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each kept cell costs ~130 bytes however short (10 MB of one-letter cells took 665 MB):
    a file's extras are bounded, the refusal names the line."""
    from litdesk.adapters.formats import _csvtable

    monkeypatch.setattr(_csvtable, "MAX_EXTRA_CELLS", 10)
    text = "title,a,b,c\n" + "".join(f"T{i},x,y,z\n" for i in range(5))
    with pytest.raises(ImportRefused) as info:
        parse_csv(text)  # 3 kept cells a row: the 4th row (line 5) passes 10
    assert info.value.code == "too_large" and "line 5" in info.value.message
    assert len(parse_csv("title,a,b,c\n" + "".join(f"T{i},,,\n" for i in range(50))).records) == 50


@pytest.mark.parametrize(("lead", "first"), [("\n", 3), ("\r\n\r\n", 4), ("\r", 3)])
def test_empty_lines_before_the_header_are_skipped_as_pandas_does(lead: str, first: int) -> None:
    """Before: the header was looked for on the first line only, so a table after an empty
    line was 'not a format litdesk reads' (pandas, and so ASReview, reads it)."""
    from litdesk.adapters import formats

    text = lead + "title,label_included\nA,1\nB,0\n"
    assert sniff_csv(text) > 0
    for data in (text.encode(), ("\ufeff" + text).encode()):  # the bytes and the text reader
        trace = formats.loads(data)
        assert [r.paper.title for r in trace.records] == ["A", "B"]
        assert [r.first_line for r in trace.records] == [first, first + 1]
