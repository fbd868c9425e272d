"""RIS: one hand-written fixture per edge case, the writer's rules, round-trip properties."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litdesk.adapters import formats
from litdesk.adapters.formats import _ris
from litdesk.core.imports import ImportRefused
from litdesk.core.records import make_paper

DATA = Path(__file__).parent / "data" / "ris"


def load(name: str, **kw: str) -> formats.ParseResult:  # type: ignore[name-defined]
    return formats.load(DATA / name, **kw)


def kinds(trace) -> set[str]:  # type: ignore[no-untyped-def]
    return {n.kind for n in trace.notices} | {n.kind for r in trace.records for n in r.notices}


def test_bom_is_removed_with_a_notice() -> None:
    trace = load("bom.ris")
    assert trace.source.encoding == "utf-8-sig"
    assert [p.title for p in trace.papers] == ["A title"]
    assert trace.papers[0].doi == "10.1000/abc"
    assert trace.notices[0].kind == "encoding"


def test_crlf_and_mixed_line_ends() -> None:
    trace = load("crlf.ris")
    assert [p.title for p in trace.papers] == ["A title", "Second"]
    assert (trace.records[1].first_line, trace.records[1].last_line) == (7, 9)
    mixed = load("mixed_line_ends.ris")
    assert [p.title for p in mixed.papers] == ["One", "Two"]
    assert mixed.papers[0].authors == ("A, B",)
    assert [(r.first_line, r.last_line) for r in mixed.records] == [(1, 4), (5, 7)]


def test_untagged_continuation_lines() -> None:
    paper = load("continuation.ris").papers[0]
    assert paper.title == "A title that goes on to a second line"
    assert paper.keywords == ("first keyword", "second keyword", "third keyword")
    assert paper.abstract == "Paragraph one.\nParagraph two."


def test_empty_tags_are_ignored() -> None:
    trace = load("empty_tags.ris")
    paper = trace.papers[0]
    assert (paper.title, paper.authors, paper.doi, paper.year) == ("", (), None, 2019)
    assert paper.journal == "Journal X"
    assert paper.id.startswith("REC-")


def test_unterminated_last_record_is_read_with_a_notice() -> None:
    trace = load("unterminated.ris")
    assert [p.title for p in trace.papers] == ["Finished", "Not finished"]
    assert trace.papers[1].authors == ("Last, First",)
    assert [n.kind for n in trace.records[1].notices] == ["unterminated"]
    assert trace.records[1].last_line == 7


def test_junk_and_numbered_lines_between_records_are_skipped() -> None:
    trace = load("junk_between.ris")
    assert [p.title for p in trace.papers] == ["First", "Second"]
    assert trace.papers[1].publication_types == ("Book",)
    skipped = [n for n in trace.notices if n.kind == "skipped"]
    assert [n.line for n in skipped] == [1, 9, 14]
    assert trace.records[0].raw.startswith("TY  - JOUR")


def test_ovid_tag_after_er_belongs_to_the_record() -> None:
    trace = load("ovid_tail.ris")
    assert [r.extras.get("NL") for r in trace.records] == [["Clin J"], ["Other J"]]
    assert [r.source_id for r in trace.records] == ["2019-1-001", "2019-1-002"]


def test_utf16_with_and_without_bom() -> None:
    le = load("utf16le_nobom.ris")
    assert le.source.encoding == "utf-16-le"
    assert le.papers[0].title == "Über Straße"
    be = load("utf16be_bom.ris")
    assert be.source.encoding == "utf-16-be"
    assert be.papers[0].title == "Éte"


def test_cp1252_fallback_has_a_notice() -> None:
    trace = load("cp1252.ris")
    assert trace.source.encoding == "cp1252"
    assert trace.papers[0].title == "Café – naïve"
    assert trace.papers[0].authors == ("Müller, Jürgen",)
    assert any(n.kind == "encoding" and "Windows-1252" in n.message for n in trace.notices)


def test_duplicate_ids_refuse_the_file_naming_ids_and_lines() -> None:
    with pytest.raises(ImportRefused) as info:
        load("duplicate_ids.ris", duplicate_ids="refuse")
    assert info.value.code == "duplicate_ids"
    assert "'7'" in info.value.message and "lines 1, 11" in info.value.message


def test_no_record_is_refused() -> None:
    with pytest.raises(ImportRefused) as info:
        load("no_record.ris")
    assert info.value.code == "unsupported"
    with pytest.raises(ImportRefused) as forced:
        formats.load(DATA / "no_record.ris", format="ris")
    assert forced.value.code == "malformed"


def test_malformed_identifiers_and_years_become_notices() -> None:
    trace = load("malformed_ids.ris")
    paper = trace.papers[0]
    assert paper.doi is None and paper.year is None
    assert paper.pmid == "12345678"  # a bare numeric AN with no database named is a PMID
    found = {(n.kind, n.field) for n in trace.records[0].notices}
    assert ("malformed_identifier", "DO") in found
    assert ("dropped_field", "PY") in found


def test_unknown_tags_are_kept_in_extras() -> None:
    rec = load("unknown_tags.ris").records[0]
    assert rec.extras == {"ZZ": ["something"], "Q9": ["else"], "SN": ["1234-5678"]}
    assert sorted(n.field for n in rec.notices if n.kind == "unknown_tag") == ["Q9", "ZZ"]


def test_record_digest_is_of_the_raw_record() -> None:
    from litdesk.core.imports import digest_bytes

    rec = load("bom.ris").records[0]
    assert rec.digest == digest_bytes(rec.raw.encode())
    assert rec.raw.splitlines()[0] == "TY  - JOUR"


# --- writer ---------------------------------------------------------------------------


def test_export_types_and_fields() -> None:
    journal = make_paper(
        title="T",
        authors=("Doe, J", "Roe, R"),
        journal="J",
        year=2020,
        volume="3",
        issue="2",
        pages="10-20",
        doi="10.1000/x",
        pmid="123",
        pmcid="PMC9",
        keywords=("a", "b"),
        publication_types=("Journal Article",),
        retracted=True,
    )
    preprint = make_paper(title="P", doi="10.1000/y", publication_types=("Preprint",))
    chapter = make_paper(title="C", publication_types=("book-chapter",), fallback_key="c")
    text = formats.dumps([journal, preprint, chapter], "ris")
    assert [x[6:] for x in text.splitlines() if x.startswith("TY")] == ["JOUR", "UNPB", "CHAP"]
    first = text.split("ER  - ")[0].splitlines()
    assert "AU  - Doe, J" in first and "AU  - Roe, R" in first
    for line in ("JO  - J", "PY  - 2020", "VL  - 3", "IS  - 2", "SP  - 10", "EP  - 20"):
        assert line in first
    assert "DO  - 10.1000/x" in first and "AN  - 123" in first and "C2  - PMC9" in first
    assert "N1  - RETRACTED" in first
    assert text.count("ER  - ") == 3


def test_export_cannot_inject_tags() -> None:
    evil = make_paper(
        title="Nice title\nER  - \nTY  - JOUR\rTI  - injected\u2028AU  - x",
        authors=("A\r\nKW  - b",),
        fallback_key="evil",
    )
    text = _ris.dumps([evil])
    tags = [line[:2] for line in text.splitlines() if line]
    assert tags == ["TY", "TI", "AU", "ID", "ER"]
    again = formats.loads(text.encode(), format="ris")
    assert len(again.records) == 1
    assert again.papers[0].title == "Nice title ER - TY - JOUR TI - injected AU - x"


def test_export_of_the_same_paper_twice_reimports() -> None:
    paper = make_paper(title="Twice", doi="10.1000/twice")
    text = formats.dumps([paper, paper], "ris")
    assert text.count("ID  - ") == 1
    again = formats.loads(text.encode(), format="ris")
    assert [p.id for p in again.papers] == [paper.id, paper.id]


def test_export_can_omit_abstracts() -> None:
    paper = make_paper(title="T", abstract="secret", fallback_key="k")
    assert "AB  - secret" in _ris.dumps([paper])
    assert "AB  -" not in _ris.dumps([paper], abstracts=False)


# --- properties -----------------------------------------------------------------------

_text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=60
)
_word = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz"), min_size=1, max_size=8)
_name = st.builds(lambda a, b: f"{a.title()}, {b.upper()}", _word, _word)


# made once, not on every draw of papers (the values drawn are the same)
_authors = st.lists(_name, max_size=4)
_journal = st.none() | _word.map(str.title)
_year = st.none() | st.integers(1000, 2999)
_key = st.text(max_size=7)


@st.composite
def papers(draw: st.DrawFn) -> object:
    maybe = st.booleans()
    n = draw(st.integers(1, 10**9))
    fields = {
        "title": draw(_text),
        "authors": tuple(draw(_authors)),
        "journal": draw(_journal),
        "year": draw(_year),
        "doi": f"10.{1000 + n % 9000}/x.{n}" if draw(maybe) else None,
        "pmid": str(n) if draw(maybe) else None,
        "pmcid": f"PMC{n % 10**7 + 1}" if draw(maybe) else None,
        "arxiv_id": f"2{n % 5}0{n % 9 + 1}.{n % 100000:05d}" if draw(maybe) else None,
        "openalex_id": f"W{n}" if draw(maybe) else None,
    }
    return make_paper(fallback_key="k" + draw(_key), **fields)  # never blank


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(papers(), min_size=1, max_size=5, unique_by=lambda p: p.id))  # type: ignore[attr-defined]
def test_ris_round_trip_property(items: list) -> None:  # type: ignore[type-arg]
    text = formats.dumps(items, "ris")
    again = formats.loads(text.encode(), format="ris")
    assert len(again.papers) == len(items)
    for a, b in zip(items, again.papers, strict=True):
        assert b.id == a.id
        assert (b.doi, b.pmid, b.pmcid, b.arxiv_id, b.openalex_id) == (
            a.doi,
            a.pmid,
            a.pmcid,
            a.arxiv_id,
            a.openalex_id,
        )
        assert b.title == re.sub(r"\s+", " ", a.title).strip()
        assert (b.authors, b.year, b.journal) == (a.authors, a.year, a.journal)


def test_non_standard_separators_only_for_known_tags() -> None:
    data = b"TY - JOUR\nTI  -Tight title\nAB  - Started here\nUS - based cohort of adults\nER  - \n"
    trace = formats.loads(data, format="ris")
    paper = trace.papers[0]
    assert paper.publication_types == ("Journal Article",)
    assert paper.title == "Tight title"
    assert paper.abstract == "Started here\nUS - based cohort of adults"
    assert trace.records[0].extras == {}


_ris_lines = st.lists(
    st.one_of(
        st.sampled_from(["TY  - JOUR", "ER  - ", "ER  -", "", "  ", "1.", "TY - BOOK"]),
        st.builds(
            lambda t, v: f"{t}  - {v}",
            st.sampled_from(["TI", "AU", "KW", "DO", "PY", "AN", "ID", "UR", "SP", "ZZ"]),
            _text.map(lambda s: s.replace("\r", " ").replace("\n", " ")),
        ),
        _text.map(lambda s: s.replace("\r", " ").replace("\n", " ")),
    ),
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(_ris_lines, st.sampled_from(["\n", "\r\n", "\r"]))
def test_ris_parse_never_raises_and_spans_hold(lines: list[str], newline: str) -> None:
    text = newline.join(lines)
    result = _ris.parse(text)
    flat = re.split(r"\r\n|\r|\n", text)
    previous = 0
    for rec in result.records:
        assert previous < rec.first_line <= rec.last_line <= len(flat)
        assert rec.raw == "\n".join(flat[rec.first_line - 1 : rec.last_line])
        previous = rec.last_line


def test_oversize_values_never_lose_the_record() -> None:
    long_author = "A" * 2_500
    data = (
        f"TY  - JOUR\nTI  - Big\nAU  - {long_author}\nVL  - {'9' * 150}\nPY  - 0999\nER  - \n"
    ).encode()
    trace = formats.loads(data, format="ris")
    paper = trace.papers[0]
    assert paper.title == "Big"
    assert paper.authors == ("A" * 2_000,)
    assert paper.volume is None and paper.year is None
    fields = {n.field for n in trace.records[0].notices if n.kind == "dropped_field"}
    assert fields == {"volume", "PY"}


def test_many_continuation_lines_read_in_linear_time() -> None:
    import time

    data = ("TY  - JOUR\nAB  - start\n" + "more text\n" * 150_000 + "ER  - \n").encode()
    start = time.process_time()
    trace = formats.loads(data, format="ris")
    assert time.process_time() - start < 5.0  # quadratic joining took minutes here
    assert trace.papers[0].abstract is not None
    assert trace.papers[0].abstract.startswith("start\nmore text\nmore text")


def test_html_escaped_markup_in_a_record_is_made_plain() -> None:
    """A RIS made from OpenAlex metadata: the abstract's escaped markup is made plain (it
    showed '&lt;i&gt;Results:&lt;/i&gt;' to a reviewer); a bare '<' stays."""
    text = (
        "TY  - JOUR\nTI  - Smith &amp; Jones\n"
        "AB  - &lt;i&gt;Results:&lt;/i&gt; fewer episodes (p &lt; 0.05)\nER  - \n"
        "TY  - JOUR\nTI  - Plain\nAB  - p < 0.05\nER  - \n"
    )
    first, second = formats.loads(text.encode(), format="ris").papers
    assert (first.title, first.abstract) == ("Smith & Jones", "Results: fewer episodes (p < 0.05)")
    assert second.abstract == "p < 0.05"
