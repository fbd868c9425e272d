"""BibTeX raw records kept as spans (of the text, or of the file's UTF-8 bytes) read exactly
as the former per-record slices: same ``raw``, digests, line spans, notices and papers.

The reference is the slice path: each record's raw text cut from the decoded text and its
digest taken from that slice's UTF-8 — what every BibTeX import did before spans. It is
still the path for texts stored with more than one byte per character, and the tests force
it for the others. Digests pinned below were computed by the code before spans.
"""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.adapters import formats
from litdesk.adapters.formats import _bibtex, _registry, decode
from litdesk.adapters.formats._decode import NotUtf8
from litdesk.core.imports import ImportRefused, RecordTrace, digest_bytes

PIECES = [
    '@string{jn = {Journal of {\\"U}ber}}\n',
    "@article{a1,\n  title = {Dvořák and the {\\'e}tude},\n  author = {Dvo{\\v{r}}{\\'a}k, A. and Smith, J},\n"
    "  journal = jn,\n  year = 2021,\n  doi = {10.1000/ABC}\n}\n",
    "@inproceedings{c1, title = {Child}, crossref = {p1}, pages = {1--2}}\n",
    "@proceedings{p1, title = {Parent proceedings}, year = {1999}, publisher = {Pub}}\n",
    "@misc{u1, title = {Emoji 😀 title}, note = {Ünïcödé}, zzz = {unknown}}\n",
    '@book{b1, title = "Quoted {nested {braces}}" # " and more", year = {19xx}}\n',
    "@comment{ignored @article{not, title={x}} }\n",
    '@preamble{ "\\newcommand{\\x}{y}" }\n',
    "junk between = {entries}\n",
    "@article{d1, title = {Dup}, title = {Again}, doi = {not a doi}}\n",
    "@article{e1, author = {Ｆｕｌｌ Ｗｉｄｔｈ}, title = {\u3000wide\u00a0spaces}}\n",
    "@article{a1, title = {Repeated key}}\n",
    "@article(paren1, title = {Round} )\n",
    "@article{open1, title = {Unterminated\n",
    "\n",
    "% a comment line with é\n",
]


def _pin(text: str) -> list[tuple[str, int, int, str]]:
    return [(r.digest, r.first_line, r.last_line, r.raw) for r in _bibtex.parse(text).records]


def _slice_path(text: str, monkeypatch: pytest.MonkeyPatch) -> list[RecordTrace]:
    with monkeypatch.context() as m:
        m.setattr(_bibtex, "_one_byte_chars", lambda _text: False)
        return _bibtex.parse(text).records


def _loads_bytes_path(data: bytes, monkeypatch: pytest.MonkeyPatch) -> object:
    with monkeypatch.context() as m:
        m.setitem(_registry._BYTES_PARSERS, "bibtex", _bibtex.parse_bytes)
        return formats.loads(data, format="bibtex")


def _same(got: list[RecordTrace], want: list[RecordTrace]) -> None:
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert a.raw == b.raw
        assert a.digest == b.digest == digest_bytes(b.raw.encode("utf-8", "surrogatepass"))
        assert (a.first_line, a.last_line) == (b.first_line, b.last_line)
        assert a.notices == b.notices
        assert a.paper == b.paper
        assert a.extras == b.extras
        assert a == b


def _check_all_paths(data: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        text = decode(data).text
    except ImportRefused:
        return
    try:
        want = _slice_path(text, monkeypatch)
    except ImportRefused as exc:
        with pytest.raises(ImportRefused) as info:
            _bibtex.parse(text)
        assert info.value.code == exc.code
        return
    _same(_bibtex.parse(text).records, want)
    via_loads = formats.loads(data, format="bibtex")  # adds duplicate_id notices only
    assert [(r.raw, r.digest, r.first_line, r.last_line, r.paper) for r in via_loads.records] == [
        (r.raw, r.digest, r.first_line, r.last_line, r.paper) for r in want
    ]
    try:
        from_bytes = _bibtex.parse_bytes(data)
    except NotUtf8:
        assert data.startswith(codecs.BOM_UTF8) or not _is_utf8(data)
    else:
        _same(from_bytes.records, want)
        trace = _loads_bytes_path(data, monkeypatch)
        assert trace == via_loads


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_pieces_every_encoding_and_line_end(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "".join(PIECES)
    crlf = text.replace("\n", "\r\n")
    latin = "".join(p for p in PIECES if all(ord(c) < 256 for c in p))
    for data in (
        text.encode("utf-8"),
        crlf.encode("utf-8"),
        codecs.BOM_UTF8 + text.encode("utf-8"),
        codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
        text.encode("utf-16-be"),
        latin.encode("utf-8"),
        latin.encode("cp1252"),
        latin.replace("\n", "\r").encode("utf-8"),
        text.replace("😀", "\U0001f600" * 40).encode("utf-8"),
    ):
        _check_all_paths(data, monkeypatch)


def test_text_spans_are_used_and_wide_texts_slice() -> None:
    narrow = _bibtex.parse("@article{k, title = {Caf\u00e9 au lait}}\n" * 3).records
    assert all(type(r._raw) is _bibtex._TextSpans for r in narrow)
    wide = _bibtex.parse(("@article{k, title = {Dvo\u0159\u00e1k}}\n" * 3) + "x" * 40).records
    assert all(type(r._raw) is str for r in wide)
    data = ("@article{k, title = {\u0159}}\n" * 3).encode("utf-8")
    spans = _bibtex.parse_bytes(data).records
    assert [r.raw for r in spans] == ["@article{k, title = {\u0159}}"] * 3
    assert all(type(r._raw) is not str for r in spans)


def test_parse_bytes_refuses_bom_and_non_utf8() -> None:
    with pytest.raises(NotUtf8):
        _bibtex.parse_bytes(codecs.BOM_UTF8 + b"@article{k, title={x}}")
    with pytest.raises(NotUtf8):
        _bibtex.parse_bytes("@article{k, title={Caf\u00e9}}".encode("cp1252"))


# Computed by the code before spans (commit 7b2ad3d) for "".join(PIECES): raw records, digests
# and line spans must stay byte-identical.
PINNED = [  # (digest, first line, last line)
    ("sha256:012af646b9e1160a49a08ea0314b852d7ea540d5e8285ef69409b9a73fb85d73", 2, 8),
    ("sha256:8a3b14a26ddb07e1b4260b2e640a78c0dc36a70564eb4b9eba291c75dc18cf35", 9, 9),
    ("sha256:742a5fea95b336fbd5010ecdde0588413d4ec226c240bfbc33812f4eb9f0c540", 10, 10),
    ("sha256:67c7882af754923b04c9f53a5e0b1978dd8c29b4cc4bc44ec976d69a682913eb", 11, 11),
    ("sha256:e625e7d83ed94a7d14036e42e055d470978711cbb861d1830ac8e31c00d27f4c", 12, 12),
    ("sha256:b99ddb70982220da4a2753b001f000b62e7a1190575e06db1faa59f67545eb9a", 16, 16),
    ("sha256:8a69fae9d4467675c64dea8465f27c0b7e6b05aed5b7b392943c12dd431eeb28", 17, 17),
    ("sha256:7a0467360c39cf984cb00d02ab5e7dac125e87d1008438d5d59f7b582360bba3", 18, 18),
    ("sha256:43e9096fd84e801ba158a00a084e5e6686963612f9b16a1c28d733aeb846de1c", 19, 19),
    ("sha256:1ac835b93f80d257e9e05d911736c8d950cb7cca945030c3e02f7734acd4a817", 20, 22),
]


def test_digests_as_before() -> None:
    got = _pin("".join(PIECES))
    assert [(d, first, last) for d, first, last, _raw in got] == PINNED
    data = "".join(PIECES).encode("utf-8")
    from_bytes = _bibtex.parse_bytes(data).records
    assert [(r.digest, r.first_line, r.last_line) for r in from_bytes] == PINNED
    assert [r.raw for r in from_bytes] == [raw for *_, raw in got]


def test_detached_record_keeps_its_raw() -> None:
    rec = _bibtex.parse("@article{k, title = {T}}\n@article{j, title = {U}}\n").records[1]
    detached = rec.replace(raw=rec.raw)
    assert type(detached._raw) is str
    assert detached == rec
    assert detached.raw == "@article{j, title = {U}}"


ENTRY = st.builds(
    lambda key, title, extra, sep: f"@article{{{key},{sep}title = {{{title}}},{sep}{extra}}}",
    st.sampled_from(["k1", "k2", "kä", ""]),
    st.lists(
        st.sampled_from(list("abc é\u0159\U0001f600{}\\'\"\t") + ["\r\n", "\n"]), max_size=30
    ).map("".join),
    st.sampled_from(["year = 2020", "crossref = {k1}", "doi = {10.1/x}", "note = jan", ""]),
    st.sampled_from([" ", "\n", "\r\n", "\n  "]),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(ENTRY, min_size=1, max_size=6), st.sampled_from(["\n", "\r\n", "\n\n"]))
def test_generated_files(entries: list[str], sep: str) -> None:
    mp = pytest.MonkeyPatch()
    try:
        text = sep.join(entries)
        _check_all_paths(text.encode("utf-8"), mp)
        _check_all_paths(codecs.BOM_UTF8 + text.encode("utf-8"), mp)
        _check_all_paths(text.encode("utf-16"), mp)
        if all(ord(c) < 256 for c in text):
            _check_all_paths(text.encode("cp1252", "replace"), mp)
    finally:
        mp.undo()
