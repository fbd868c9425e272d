"""Hostile input classes of issue 13 (readers): expansion caps, runtime-limit errors, control
characters. Every case ends in a record set or :class:`ImportRefused`, never another error."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.adapters import formats
from litdesk.adapters.formats import _bibtex_entry as _bibtex
from litdesk.adapters.formats._spec import FormatSpec, ParseResult
from litdesk.core.imports import ImportRefused, strip_control_text


def refusal(data: bytes, **kw: object) -> ImportRefused:
    with pytest.raises(ImportRefused) as info:
        formats.loads(data, **kw)  # type: ignore[arg-type]
    return info.value


# -- 1. unbounded expansion ---------------------------------------------------------
def _doubling(depth: int, seed: str) -> bytes:
    lines = [f"@string{{s0 = {{{seed}}}}}"]
    lines += [f"@string{{s{i} = s{i - 1} # s{i - 1}}}" for i in range(1, depth + 1)]
    lines.append(f"@article{{k, title = s{depth}, year = 2020}}")
    return "\n".join(lines).encode()


def test_string_chain_30_deep_is_refused_quickly_naming_the_string() -> None:
    data = _doubling(30, "x" * 32)  # about 1 KB that would expand to 32 GiB
    assert len(data) < 1200
    t0 = time.perf_counter()
    err = refusal(data)
    assert time.perf_counter() - t0 < 2
    assert err.code == "too_large"
    assert "@string on line" in err.message and "1,048,576" in err.message
    assert err.details["entry"].startswith("@string on line")


def test_string_depth_is_capped_even_when_values_stay_small() -> None:
    lines = ["@string{s0 = {x}}"]
    lines += [f"@string{{s{i} = s{i - 1} # {{y}}}}" for i in range(1, 21)]
    lines.append("@article{k, title = s20}")
    err = refusal("\n".join(lines).encode())
    assert err.code == "too_deep"
    assert f"line {_bibtex.MAX_MACRO_DEPTH + 2}" in err.message


def test_string_chain_within_the_limits_still_expands() -> None:
    trace = formats.loads(_doubling(4, "ab"))
    assert trace.records[0].paper.title == "ab" * 16


def test_wide_reuse_of_a_big_macro_hits_the_file_budget_naming_the_entry() -> None:
    big = "x" * 600_000
    body = "".join(f"@article{{k{i}, title = s0}}\n" for i in range(200))
    err = refusal(f"@string{{s0 = {{{big}}}}}\n{body}".encode())
    assert err.code == "too_large"
    assert "entry 'k" in err.message and "per file" in err.message


def test_crossref_chain_over_the_depth_is_refused_naming_the_entry() -> None:
    n = _bibtex.MAX_CROSSREF_DEPTH + 8
    body = "".join(
        f"@article{{k{i}, crossref = {{k{i + 1}}}, title = {{t{i}}}}}\n" for i in range(n)
    )
    body += f"@book{{k{n}, title = {{B}}, year = 2000}}\n"
    err = refusal(body.encode())
    assert err.code == "too_deep"
    assert "crossref chain" in err.message and "entry 'k" in err.message


def test_crossref_chain_within_the_depth_inherits() -> None:
    body = "".join(
        f"@article{{k{i}, crossref = {{k{i + 1}}}, title = {{t{i}}}}}\n" for i in range(5)
    )
    body += "@book{k5, title = {B}, year = 2000, publisher = {P}}\n"
    trace = formats.loads(body.encode())
    assert all(r.paper.year == 2000 for r in trace.records)


def test_crossref_fan_out_of_a_huge_parent_hits_the_budget() -> None:
    parent = "@proceedings{p, title = {P}, abstract = {" + "a" * 1_000_000 + "}}\n"
    children = "".join(f"@inproceedings{{c{i}, crossref = {{p}}}}\n" for i in range(100))
    err = refusal((parent + children).encode())
    assert err.code == "too_large" and "crossref inheritance" in err.message


# -- 2. runtime limits ------------------------------------------------------------------
@pytest.mark.parametrize(
    "number",
    ["9" * 5000, "-" + "9" * 5000, "1e999", "-1e999", "NaN", "Infinity", "1" + "0" * 400 + ".5"],
)
def test_json_number_extremes_end_in_a_record_or_a_refusal(number: str) -> None:
    item = f'[{{"id": "a", "type": "article", "title": "T", "volume": {number}, '
    item += f'"issued": {{"date-parts": [[{number}]]}}, "page": {number}}}]'
    trace = formats.loads(item.encode())
    paper = trace.records[0].paper
    assert paper.title == "T" and paper.year is None


def test_openalex_json_with_a_huge_integer_is_read() -> None:
    doc = {"results": [{"id": "https://openalex.org/W1", "title": "T", "publication_year": 0}]}
    text = json.dumps(doc).replace('"publication_year": 0', '"publication_year": ' + "2" * 5000)
    trace = formats.loads(text.encode(), format="openalex-json")
    assert trace.records[0].paper.year is None


@pytest.mark.parametrize("fmt", ["csljson", "openalex-json", "crossref-json", None])
def test_deep_json_nesting_is_too_deep(fmt: str | None) -> None:
    data = b'{"results": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"
    err = refusal(data, format=fmt)
    assert err.code in {"too_deep", "malformed"}


@pytest.mark.parametrize(
    "exc",
    [
        ValueError("Exceeds the limit (4300 digits)"),
        UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
        OverflowError("int too large"),
        RecursionError("maximum recursion depth exceeded"),
        MemoryError(),
        KeyError("x"),
        IndexError("x"),
        TypeError("x"),
    ],
)
def test_any_reader_error_becomes_the_typed_import_refusal(
    monkeypatch: pytest.MonkeyPatch, exc: BaseException
) -> None:
    def boom(text: str) -> ParseResult:
        raise exc

    spec = formats.get_format("ris")
    broken = FormatSpec(**{**{f: getattr(spec, f) for f in spec.__slots__}, "parse": boom})
    monkeypatch.setattr(formats._registry, "FORMATS", [broken])
    monkeypatch.setattr(formats._registry, "_BYTES_PARSERS", {})
    err = refusal(b"TY  - JOUR\nTI  - x\nER  - \n", format="ris")
    expected = {RecursionError: "too_deep", MemoryError: "too_large"}.get(type(exc), "malformed")
    assert err.code == expected
    assert "Traceback" not in err.message


# -- 4. control characters ----------------------------------------------------------------
_CONTROLS = "\x00\x01\x07\x08\x0b\x0c\x1b\x1f\x7f"
_PAD = " " * 40_000 + "\n"  # puts the fields past the decoder's binary-text sample


def _samples(c: str) -> dict[str, bytes]:
    item = {
        "type": "article-journal",
        "id": f"a{c}b",
        "title": f"Ti{c}tle",
        "author": [{"family": f"Sm{c}ith", "given": "J"}],
        "container-title": f"Jour{c}nal",
        "volume": f"1{c}2",
        "issued": {"date-parts": [[2020]]},
        "note": f"n{c}ote",
        "keyword": f"k{c}w",
    }
    return {
        "ris": (
            f"{_PAD}TY  - JOUR\nTI  - Ti{c}tle\nAU  - Sm{c}ith, J\nJO  - Jour{c}nal\n"
            f"VL  - 1{c}2\nPY  - 2020\nN1  - n{c}ote\nKW  - k{c}w\nER  - \n"
        ).encode(),
        "bibtex": (
            f"%{_PAD}@article{{key,\n title={{Ti{c}tle}},\n author={{Sm{c}ith, J}},\n"
            f" journal={{Jour{c}nal}},\n volume={{1{c}2}},\n year={{2020}},\n"
            f" note={{n{c}ote}}, keywords={{k{c}w}}\n}}\n"
        ).encode(),
        "csljson": json.dumps([item]).encode(),
        "csv": (
            "Title,Authors,Year,Journal,Volume,Notes\n"
            + '"Padding row","Doe, A",2019,"Pad","1","-"\n' * 800
            + f'"Ti{c}tle","Sm{c}ith, J",2020,"Jour{c}nal","1{c}2","n{c}ote"\n'
        ).encode(),
    }


def _no_control(trace: formats.ImportTrace) -> None:  # type: ignore[name-defined]
    for rec in trace.records:
        texts = [v for v in rec.paper.model_dump().values() if isinstance(v, str)]
        texts += [x for v in rec.paper.model_dump().values() if isinstance(v, tuple) for x in v]
        texts += [x for vs in rec.extras.values() for x in vs]
        texts += [rec.source_id or ""]
        assert all(strip_control_text(t) == t for t in texts), texts


@pytest.mark.parametrize("c", list(_CONTROLS))
@pytest.mark.parametrize("source", ["ris", "bibtex", "csljson", "csv"])
def test_control_characters_are_removed_at_import_and_every_export_reimports(
    source: str, c: str
) -> None:
    trace = formats.loads(_samples(c)[source])
    _no_control(trace)
    rec = trace.records[-1]
    # a reader may take a white-space control (VT, FF, FS…US) for a space; nothing else
    space = c.isspace()
    squeeze = str.maketrans("", "", " ") if space else {}
    got = (rec.paper.title, rec.paper.journal, rec.paper.volume)
    assert tuple((v or "").translate(squeeze) for v in got) == ("Title", "Journal", "12")
    if not space:
        assert "control_characters" in [n.kind for n in rec.notices]
    assert c in rec.raw or f"Ti{json.dumps(c)[1:-1]}tle" in rec.raw  # the raw record is kept
    for fmt in formats.EXPORT_FORMATS:
        out = formats.dumps(trace.papers[-1:], fmt)
        again = formats.loads(out.encode())
        _no_control(again)
        p = again.records[0].paper
        assert (p.title, p.journal, p.volume, p.year) == (*got, 2020), fmt
        if not (fmt == "csv" and space):  # "Sm ith, J" reads as two names from a CSV cell
            assert p.authors == rec.paper.authors, fmt


def test_clean_files_get_no_control_notice() -> None:
    trace = formats.loads(b"TY  - JOUR\nTI  - Clean\nJO  - J\nER  - \n")
    assert all(n.kind != "control_characters" for r in trace.records for n in r.notices)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x7F), min_size=1, max_size=30))
def test_any_ascii_title_in_csljson_reimports_from_every_export(title: str) -> None:
    data = json.dumps([{"id": "x", "type": "article", "title": title, "volume": title[:50]}])
    try:
        trace = formats.loads(data.encode(), format="csljson")
    except ImportRefused:
        return
    _no_control(trace)
    for fmt in formats.EXPORT_FORMATS:
        out = formats.dumps(trace.papers, fmt)
        try:
            again = formats.loads(out.encode())
        except ImportRefused as exc:  # only a paper with nothing to write may be refused
            assert not trace.papers[0].title.strip(), (fmt, exc.message)
            continue
        _no_control(again)
        if fmt == "csv" and trace.papers[0].title.startswith(("=", "+", "-", "@", "'")):
            continue  # the CSV export's formula guard (a leading apostrophe) stays on re-import
        got, want = again.records[0].paper.title, trace.papers[0].title
        assert got.split() == want.split(), fmt  # white space may be collapsed, never more
