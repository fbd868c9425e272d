"""Web of Science plain text and tab-delimited: real exports and edge cases."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.adapters import formats
from litdesk.adapters.formats import decode
from litdesk.core.records import normalize_doi, normalize_pmid

DATA = Path(__file__).parent / "data" / "tagged"


def provenance_counts(folder: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in (folder / "PROVENANCE.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 2 and cells[0].startswith("`") and cells[1].isdigit():
            out[cells[0].strip("`")] = int(cells[1])
    return out


@pytest.mark.fixtures
def test_every_wos_fixture_parses_with_its_count_and_ids(fixtures_dir: Path) -> None:
    folder = fixtures_dir / "bib" / "wos"
    counts = provenance_counts(folder)
    assert len(counts) >= 9
    for name, expected in counts.items():
        data = (folder / name).read_bytes()
        trace = formats.loads(data, path=name)
        assert len(trace.records) == expected, name
        text = decode(data).text
        if text.startswith("PT\t"):
            assert trace.source.format == "wos-tab", name
            rows = list(csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))
            dois = {d for r in rows if (d := normalize_doi(r.get("DI") or ""))}
            pmids = {p for r in rows if (p := normalize_pmid(r.get("PM") or ""))}
            uts = {r["UT"] for r in rows if r.get("UT")}
        else:
            assert trace.source.format == "wos", name
            dois = {d for v in re.findall(r"^DI (.+)$", text, re.M) if (d := normalize_doi(v))}
            pmids = {p for v in re.findall(r"^PM (.+)$", text, re.M) if (p := normalize_pmid(v))}
            uts = set(re.findall(r"^UT (\S+)", text, re.M))
        assert {p.doi for p in trace.papers if p.doi} == dois, name
        assert {p.pmid for p in trace.papers if p.pmid} == pmids, name
        assert {r.source_id for r in trace.records if r.source_id} == uts, name


@pytest.mark.fixtures
def test_wos_utf16_and_utf8_tab_exports_agree(fixtures_dir: Path) -> None:
    folder = fixtures_dir / "bib" / "wos"
    a = formats.load(folder / "wosfile__wos_tab_delimited_win_utf16.txt")
    b = formats.load(folder / "wosfile__wos_tab_delimited_win_utf8.txt")
    assert a.source.encoding == "utf-16-le" and b.source.encoding == "utf-8-sig"
    assert [p.model_dump() for p in a.papers] == [p.model_dump() for p in b.papers]


def test_plain_text_continuations_and_unterminated_record() -> None:
    trace = formats.load(DATA / "wos_unterminated.txt")
    first, second = trace.records
    assert first.paper.authors == ("Doe, J", "Roe, R")
    assert first.paper.title == "A title continued"
    assert (first.paper.journal, first.paper.year, first.paper.doi) == (
        "JOURNAL",
        2010,
        "10.1000/w1",
    )
    assert first.source_id == "WOS:0001"
    assert (first.first_line, first.last_line) == (3, 12)
    assert second.paper.title == "Second"
    assert [n.kind for n in second.notices] == ["unterminated"]


def test_tab_delimited_rows() -> None:
    trace = formats.load(DATA / "wos_tab.txt")
    assert trace.source.format == "wos-tab"
    first, second = trace.records
    assert first.paper.authors == ("Doe, J", "Roe, R")
    assert (first.paper.pmid, first.paper.doi) == ("123", "10.1000/t1")
    assert (first.first_line, second.first_line) == (2, 4)
    assert second.source_id == "WOS:0004"


_value = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r\n"), max_size=40
)


@settings(max_examples=120, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["FN Clarivate", "VR 1.0", "PT J", "ER", "EF", ""]),
            st.builds(
                lambda t, v: f"{t} {v}",
                st.sampled_from(["AU", "TI", "DI", "PM", "UT", "PY", "DE", "Q1"]),
                _value,
            ),
            _value.map(lambda v: "   " + v),
            _value,
        ),
        max_size=30,
    )
)
def test_wos_plain_parse_never_raises_and_spans_hold(lines: list[str]) -> None:
    from litdesk.adapters.formats import _wos

    result = _wos.parse_plain("\n".join(lines))
    previous = 0
    for rec in result.records:
        assert previous < rec.first_line <= rec.last_line <= len(lines)
        previous = rec.last_line


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(_value.map(lambda v: v.replace("\t", " ")), max_size=6), max_size=8))
def test_wos_tab_parse_never_raises(rows: list[list[str]]) -> None:
    from litdesk.adapters.formats import _wos

    text = "PT\tAU\tTI\tSO\tPY\tUT\n" + "\n".join("\t".join(r) for r in rows)
    result = _wos.parse_tab(text)
    assert len(result.records) == sum(1 for r in rows if any(c.strip() for c in r))


def test_many_continuation_lines_read_in_linear_time() -> None:
    import time

    data = ("PT J\nTI start\n" + "   more\n" * 150_000 + "ER\n").encode()
    start = time.process_time()
    trace = formats.loads(data, format="wos")
    assert time.process_time() - start < 5.0
    assert trace.papers[0].title.startswith("start more more")


def test_tab_cells_have_no_size_limit_of_their_own() -> None:
    big = "Ref, 2001, J; " * 20_000  # cited references run long (> csv's 128 KiB field limit)
    data = f"PT\tAU\tTI\tCR\tUT\nJ\tA, B\tTitle\t{big}\tWOS:1\n".encode()
    trace = formats.loads(data)
    assert trace.source.format == "wos-tab"
    assert trace.records[0].source_id == "WOS:1"
    assert len(trace.records[0].extras["CR"]) == 20_000
