"""RIS: the whole-record fast path reads exactly what the line-by-line machine reads."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.adapters.formats import _ris, _ris_read
from litdesk.core.imports import RawSource

CLEAN = [
    "TY  - JOUR",
    "TI  - A title",
    "AU  - Smith, J",
    "AU  - Dvořák, A",
    "PY  - 2021",
    "DO  - 10.1000/abc",
    "AN  - 12345",
    "DB  - PubMed",
    "AB  - An abstract\x1c with a separator",
    "KW  - kw",
    "ID  - rec1",
    "UR  - https://openalex.org/W42",
    "ZZ  - unknown tag",
    "SP  - 1",
    "TI  - \xa0\u3000spaced\x1f \x85",
    "T2  - \t",
    "KW  -  \u2028x\x1c\x0b ",
    "EP  - 9",
]
ODD = [
    "",
    "   ",
    "ER  - ",
    "ER  - junk",
    "TY  - BOOK",
    "NL  - after ER",
    "AB  -no space",
    "TY - CHAP",
    "Record #1 of 2",
    "  continued text",
    "US - based cohort",
    "KW  - a\x85b",
    "ID  - rec1",
]


# the strategies the composites draw from, made once: one made inside a composite is made,
# validated and measured again on every draw (the values drawn are the same)
_RECORDS, _BLANKS = st.integers(0, 5), st.integers(0, 2)
_CLEAN_BODY = st.lists(st.sampled_from(CLEAN[1:]), max_size=8)
_ODD_COUNT, _ODD = st.sampled_from([0, 0, 1, 2]), st.sampled_from(ODD)
_SEP = st.sampled_from(["\n", "\r\n", "\r"])
_AT = [st.integers(0, n) for n in range(13)]  # where an odd line goes in a body of n lines


@st.composite
def ris_texts(draw: st.DrawFn) -> str:
    out: list[str] = []
    for _ in range(draw(_RECORDS)):
        body = ["TY  - JOUR", *draw(_CLEAN_BODY), "ER  - "]
        for _ in range(draw(_ODD_COUNT)):
            body.insert(draw(_AT[len(body)]), draw(_ODD))
        out.extend(body)
        out.extend([""] * draw(_BLANKS))
    sep = draw(_SEP)
    return sep.join(out) + draw(st.sampled_from(["", sep]))


def _dump(text: str, *, fast: bool) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    result = _ris_read._parse(text, fast=fast)
    return (
        [r.to_dict(include_raw=True) for r in result.records],
        [n.to_dict() for n in result.notices],
    )


@settings(max_examples=200, deadline=None)
@given(ris_texts())
def test_fast_path_equals_line_machine(text: str) -> None:
    assert _dump(text, fast=True) == _dump(text, fast=False)


def test_clean_records_take_the_fast_path_and_keep_line_numbers() -> None:
    text = "\n\nTY  - JOUR\nTI  - One\nZZ  - x\nER  - \n\nTY  - JOUR\nTI  -  Two \nER  - \n"
    assert _ris_read._clean_record(RawSource(text.encode()), 2) is not None
    result = _ris.parse(text)
    one, two = result.records
    assert (one.first_line, one.last_line) == (3, 6)
    assert (two.first_line, two.last_line) == (8, 10)
    assert two.paper.title == "Two"
    assert one.raw == "TY  - JOUR\nTI  - One\nZZ  - x\nER  - "
    assert [n.line for n in one.notices if n.kind == "unknown_tag"] == [5]
    assert _dump(text, fast=True) == _dump(text, fast=False)


def test_tag_after_er_is_not_taken_by_the_fast_path() -> None:
    text = "TY  - JOUR\nTI  - One\nER  - \nNL  - Ovid note\nTY  - JOUR\nTI  - Two\nER  - "
    assert _ris_read._clean_record(RawSource(text.encode()), 0) is None
    first = _ris.parse(text).records[0]
    assert first.extras["NL"] == ["Ovid note"]
    assert first.last_line == 4


def test_values_strip_exactly_like_str_strip() -> None:
    for ch in map(chr, range(0x3001)):
        for line in (f"AB  - {ch}x{ch}", f"AB  - {ch}", f"AB  - x{ch}{ch} "):
            text = f"TY  - JOUR\n{line}\nER  - "
            assert _dump(text, fast=True) == _dump(text, fast=False), repr(line)


SIMPLE = [
    "TI  - A title",
    "TI  - Second title",
    "AU  - Smith, J",
    "AU  - Dvořák, A",
    "AU  -  \xa0Spaced\u3000",
    "JO  - Journal",
    "JF  - Full journal",
    "T2  - Secondary",
    "PY  - 2021",
    "PY  - 2021/05/01",
    "PY  - n.d.",
    "PY  - 3021",
    "VL  - 12",
    "VL  - " + "9" * 101,
    "IS  - 3",
    "SP  - 100",
    "SP  - 100-110",
    "EP  - 110",
    "DO  - 10.1000/ABC",
    "DO  - https://doi.org/10.1000/x%20y",
    "DO  - not a doi",
    "AB  - An abstract\x1c with a separator",
    "KW  - kw",
    "KW  - second kw",
    "ID  - rec1",
    "ID  - PPR-12",
    "TI  - ",
    "AU  - ",
]


_SIMPLE_RECORDS, _SIMPLE_BODY = st.integers(1, 4), st.lists(st.sampled_from(SIMPLE), max_size=10)
_TY = st.sampled_from(["TY  - JOUR", "TY  - chap", "TY  - XYZ"])


@st.composite
def simple_texts(draw: st.DrawFn) -> str:
    out: list[str] = []
    for _ in range(draw(_SIMPLE_RECORDS)):
        body = draw(_SIMPLE_BODY)
        if draw(st.booleans()):  # authors and keywords in runs, as exports write them
            body.sort(key=lambda line: line[:2] not in ("AU", "KW"))
        out += [draw(_TY), *body, "ER  - "]
        out += [""] * draw(_BLANKS)
    return "\n".join(out)


@settings(max_examples=300, deadline=None)
@given(simple_texts())
def test_common_records_map_as_the_line_machine_maps_them(text: str) -> None:
    assert _dump(text, fast=True) == _dump(text, fast=False)
