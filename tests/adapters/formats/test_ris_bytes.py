"""RIS read from the file's bytes (no whole-file decode) equals decoding first, then parsing.

The reference is the text path: ``decode`` the bytes (BOM, UTF-16, UTF-8, Windows-1252
fallback), then read every line with the line machine (``fast=False``).
"""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.adapters import formats
from litdesk.adapters.formats import _ris_read, decode
from litdesk.core.imports import ImportRefused

LINES = [
    "TY  - JOUR",
    "TI  - A title",
    "AU  - Dvořák, A",
    "AU  - Smith, J",
    "PY  - 2021",
    "DO  - 10.1000/ABC",
    "DO  - not a doi",
    "AB  - An abstract\x1c with a separator",
    "KW  - kw",
    "ID  - rec1",
    "ZZ  - unknown tag",
    "TI  - \xa0\u3000spaced\x1f \x85",
    "N1  - ",
    "ER  - ",
    "",
    "Record #1 of 2",
    "  continued text",
    "TY - CHAP",
    "NL  - after ER",
    "KW  - a\u2028b",
]


# the strategies ris_bytes draws from, made once: one made inside the composite is made,
# validated and measured again on every draw (the values drawn are the same)
_RECORDS = st.integers(1, 4)
_BODY = st.lists(st.sampled_from(LINES[1:13]), max_size=6)
_BETWEEN = st.lists(st.sampled_from(LINES[13:]), max_size=2)
_SEP = st.sampled_from(["\n", "\n", "\r\n", "\r"])
_HOW = st.sampled_from(["utf-8", "utf-8", "bom", "utf-16", "cp1252-fallback", "bad"])


@st.composite
def ris_bytes(draw: st.DrawFn) -> bytes:
    out: list[str] = []
    for _ in range(draw(_RECORDS)):
        body = draw(_BODY)
        out += ["TY  - JOUR", *body, "ER  - "]
        out += draw(_BETWEEN)
    sep = draw(_SEP)
    text = sep.join(out) + draw(st.sampled_from(["", sep]))
    how = draw(_HOW)
    if how == "bom":
        return codecs.BOM_UTF8 + text.encode()
    if how == "utf-16":
        return text.encode("utf-16")
    data = text.encode()
    if how in ("cp1252-fallback", "bad"):  # one byte that is not UTF-8, near the end
        at = draw(st.integers(0, len(data)))
        data = data[:at] + (b"\xe9" if how == "cp1252-fallback" else b"\x81") + data[at:]
    return data


def _reference(data: bytes) -> tuple[object, ...]:
    decoded = decode(data)
    result = _ris_read._parse(decoded.text, fast=False)
    return (
        decoded.encoding,
        [n.to_dict() for n in decoded.notices],
        [r.to_dict(include_raw=True) for r in result.records],
        [n.to_dict() for n in result.notices],
    )


def _loaded(data: bytes, **kw: str) -> tuple[object, ...]:
    trace = formats.loads(data, **kw)
    file_notices = [n.to_dict() for n in trace.notices if n.kind != "duplicate_id"]
    n_decode = len(decode(data).notices)
    return (
        trace.source.encoding,
        file_notices[:n_decode],
        [r.to_dict(include_raw=True) for r in trace.records],
        file_notices[n_decode:],
    )


def _strip_duplicate_notices(rows: list[dict[str, object]]) -> None:
    for row in rows:
        row["notices"] = [n for n in row["notices"] if n["kind"] != "duplicate_id"]  # type: ignore[index,union-attr]


@settings(max_examples=300, deadline=None)
@given(ris_bytes())
def test_bytes_path_equals_decoding_first(data: bytes) -> None:
    try:
        expected = _reference(data)
    except ImportRefused as exc:
        with pytest.raises(ImportRefused) as info:
            formats.loads(data, format="ris")
        assert info.value.code == exc.code
        return
    if not expected[2]:
        with pytest.raises(ImportRefused):
            formats.loads(data, format="ris")
        return
    got = _loaded(data, format="ris")
    _strip_duplicate_notices(got[2])  # type: ignore[arg-type]
    assert got == expected
    # detection sees what it saw in the decoded text
    try:
        detected = formats.detect(decode(data).text).name
    except ImportRefused as exc:
        with pytest.raises(ImportRefused) as info:
            formats.loads(data)
        assert info.value.code == exc.code
        return
    if detected == "ris":
        got = _loaded(data)
        _strip_duplicate_notices(got[2])  # type: ignore[arg-type]
        assert got == expected


def test_a_utf8_file_is_not_decoded_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    from litdesk.adapters.formats import _registry

    def refuse(data: bytes) -> object:
        raise AssertionError("decoded whole")

    monkeypatch.setattr(_registry, "decode", refuse)
    trace = formats.loads("TY  - JOUR\nTI  - Dvořák\nER  - \n".encode(), path="a.ris")
    assert trace.records[0].paper.title == "Dvořák" and trace.source.encoding == "utf-8"


def test_bytes_not_utf8_late_in_the_file_fall_back_to_cp1252() -> None:
    data = ("TY  - JOUR\nTI  - One\nER  - \n" * 3).encode() + b"TY  - JOUR\nTI  - caf\xe9\nER  - \n"
    trace = formats.loads(data, format="ris")
    assert trace.source.encoding == "cp1252"
    assert [r.paper.title for r in trace.records] == ["One", "One", "One", "café"]
    assert trace.records[3].raw == "TY  - JOUR\nTI  - café\nER  - "
    assert any(n.kind == "encoding" and n.line == 11 for n in trace.notices)


def test_only_unicode_whitespace_is_empty() -> None:
    with pytest.raises(ImportRefused) as info:
        formats.loads("\u3000\n\xa0\n".encode(), format="ris")
    assert info.value.code == "empty"


def test_crlf_bytes_keep_lf_raw_and_its_digest() -> None:
    trace = formats.loads(b"TY  - JOUR\r\nTI  - A\r\nER  - \r\n", format="ris")
    rec = trace.records[0]
    assert rec.raw == "TY  - JOUR\nTI  - A\nER  - "
    assert rec.digest == formats.loads(b"TY  - JOUR\nTI  - A\nER  - \n").records[0].digest


def test_windows_line_ends_are_read_in_place() -> None:
    lf = "TY  - JOUR\nTI  - Dvořák\nZZ  - x\nER  - \n\nTY  - JOUR\nTI  - B\nER  - \n"
    crlf = lf.replace("\n", "\r\n").encode()
    trace = formats.loads(crlf, format="ris")
    first = trace.records[0]
    assert first._raw.crlf and first._raw.data is crlf  # no normalised copy
    assert first.raw == "TY  - JOUR\nTI  - Dvořák\nZZ  - x\nER  - "
    assert [r.to_dict(include_raw=True) for r in trace.records] == [
        r.to_dict(include_raw=True) for r in formats.loads(lf.encode(), format="ris").records
    ]


@pytest.mark.parametrize(
    "data",
    [
        b"TY  - JOUR\r\nTI  - A\nER  - \r\n",  # a bare LF among CR LF
        b"TY  - JOUR\r\nTI  - A\rER  - \r\n",  # a bare CR among CR LF
        b"TY  - JOUR\r\nTI  - A\r\nER  - \r",  # a last CR alone
        b"TY  - JOUR\r\nTI  - A\r\nER  - \r\n\r\nNL  - after\r\nTY  - JOUR\r\nER  - ",
        b"TY  - JOUR\r\nAB  - x\r\n  more\r\nER  - \r\nRecord 2\r\nTY  - BOOK\r\nTI  - B",
    ],
)
def test_mixed_line_ends_equal_decoding_first(data: bytes) -> None:
    got = _loaded(data, format="ris")
    assert got == _reference(data)
