"""The format registry: decoding, limits, detection, whole-file refusals, arbitrary bytes."""

from __future__ import annotations

import codecs
import io
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litdesk._errors import NotFoundError
from litdesk.adapters import formats
from litdesk.adapters.formats import decode
from litdesk.core.imports import IMPORT_REFUSALS, ImportRefused, digest_bytes
from litdesk.core.records import make_paper

RIS = b"TY  - JOUR\nTI  - Hello\nER  - \n"


def refused(data: bytes, **kw: object) -> str:
    with pytest.raises(ImportRefused) as info:
        formats.loads(data, **kw)  # type: ignore[arg-type]
    return info.value.code


def test_registry_lists_the_formats_by_name() -> None:
    names = [f.name for f in formats.FORMATS]
    assert {"ris", "medline", "wos", "wos-tab"} <= set(names)
    assert len(names) == len(set(names))
    assert formats.get_format("RIS").name == "ris"
    with pytest.raises(ImportRefused) as info:
        formats.get_format("docx")
    assert info.value.code == "unsupported"


def test_source_info_identifies_the_bytes_and_parser() -> None:
    trace = formats.loads(RIS, path="x.ris")
    src = trace.source
    assert (src.path, src.bytes, src.format, src.encoding) == ("x.ris", len(RIS), "ris", "utf-8")
    assert src.sha256 == digest_bytes(RIS)
    assert (src.parser.id, src.parser.version) == ("litdesk.ris", "1")


@pytest.mark.parametrize("data", [b"", b"   \n\r\n\t", codecs.BOM_UTF8 + b"\n \n"])
def test_empty_files_are_refused(data: bytes) -> None:
    assert refused(data) == "empty"


def test_size_limit_is_explicit() -> None:
    assert refused(RIS * 10, max_bytes=len(RIS) * 2) == "too_large"
    assert formats.MAX_IMPORT_BYTES == 200 * 1024 * 1024


def test_load_checks_size_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "big.ris"
    path.write_bytes(RIS * 100)
    with pytest.raises(ImportRefused) as info:
        formats.load(path, max_bytes=100)
    assert info.value.code == "too_large"


def test_load_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        formats.load(tmp_path / "nope.ris")
    with pytest.raises(ImportRefused) as info:
        formats.load(tmp_path)
    assert info.value.code == "unsupported"


def test_unsupported_content_and_unknown_format() -> None:
    assert refused(b"just some prose, nothing bibliographic\n") == "unsupported"
    assert refused(RIS, format="nope") == "unsupported"


def test_forced_format_with_no_record_is_malformed() -> None:
    assert refused(b"nothing here\n", format="ris") == "malformed"


def test_duplicate_ids_are_refused_when_asked() -> None:
    data = b"TY  - JOUR\nID  - a\nER  - \nTY  - JOUR\nID  - a\nER  - \n"
    with pytest.raises(ImportRefused) as info:
        formats.loads(data, duplicate_ids="refuse")
    assert info.value.code == "duplicate_ids"
    assert info.value.details["ids"] == ["a"]


def test_duplicate_ids_are_kept_with_notices_by_default() -> None:
    data = b"TY  - JOUR\nID  - a\nTI  - One\nER  - \nTY  - JOUR\nID  - a\nTI  - Two\nER  - \n"
    trace = formats.loads(data)
    assert [p.title for p in trace.papers] == ["One", "Two"]
    assert [n.kind for n in trace.records[0].notices] == []
    second = [n for n in trace.records[1].notices if n.kind == "duplicate_id"]
    assert len(second) == 1 and second[0].line == 5 and "line 1" in second[0].message
    assert any(n.kind == "duplicate_id" and "'a'" in n.message for n in trace.notices)


# --- decoding -------------------------------------------------------------------------

TEXT = "TY  - JOUR\nTI  - Zoë’s café\nER  - \n"


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (TEXT.encode("utf-8"), "utf-8"),
        (codecs.BOM_UTF8 + TEXT.encode("utf-8"), "utf-8-sig"),
        (codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"), "utf-16-le"),
        (codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"), "utf-16-be"),
        (TEXT.encode("utf-16-le"), "utf-16-le"),
        (TEXT.encode("utf-16-be"), "utf-16-be"),
        (TEXT.encode("cp1252"), "cp1252"),
    ],
)
def test_decoding(data: bytes, encoding: str) -> None:
    out = decode(data)
    assert out.encoding == encoding
    assert out.text == TEXT
    assert bool(out.notices) == (encoding != "utf-8")
    assert formats.loads(data).papers[0].title == "Zoë’s café"


def test_undecodable_bytes_are_refused() -> None:
    # 0x81 is undefined in cp1252 and invalid in UTF-8
    assert refused(b"TY  - JOUR\nTI  - \x81\x81\nER  - \n") == "undecodable"
    assert refused(bytes(range(256)) * 4) == "undecodable"
    assert refused(codecs.BOM_UTF8 + b"TY  - \xff\n") == "undecodable"


def test_binary_looking_text_is_refused() -> None:
    assert refused(b"\x00\x01\x02\x03TY  - JOUR\x00\x00\x05\x06\x07\n" * 20) == "undecodable"


# --- export ---------------------------------------------------------------------------


def test_dump_and_dumps_agree() -> None:
    papers = [make_paper(title="T", doi="10.1000/t")]
    for fmt in ("ris", "csv"):
        buf = io.StringIO()
        formats.dump(papers, buf, fmt)
        assert buf.getvalue() == formats.dumps(papers, fmt)
    with pytest.raises(ImportRefused) as info:
        formats.dumps(papers, "docx")
    assert info.value.code == "unsupported"


# --- arbitrary bytes ------------------------------------------------------------------

_blobs = st.one_of(
    st.binary(max_size=2_000),
    st.text(max_size=600).map(lambda s: s.encode("utf-8")),
    st.lists(
        st.sampled_from(
            [
                b"TY  - JOUR",
                b"ER  - ",
                b"TI  - x",
                b"ID  - 1",
                b"AU  - A, B",
                b"PMID- 1",
                b"FAU - X",
                b"   cont",
                b"PT J",
                b"FN Clarivate",
                b"VR 1.0",
                b"ER",
                b"PT\tAU\tTI\tSO\tUT",
                b"J\tx\ty\tz\tw",
                b"@article{k, title={x}}",
                b"",
                b"\xff\xfe",
                b"DO  - 10.1000/x",
                b"PY  - 99999",
            ]
        ),
        max_size=40,
    ).map(b"\n".join),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_blobs)
def test_loads_on_arbitrary_bytes_returns_a_trace_or_refuses(data: bytes) -> None:
    start = time.process_time()
    try:
        trace = formats.loads(data)
    except ImportRefused as exc:
        assert exc.code in IMPORT_REFUSALS
    else:
        assert trace.records
        assert trace.source.sha256 == digest_bytes(data)
        for rec in trace.records:
            assert rec.first_line <= rec.last_line
    assert time.process_time() - start < 2.0
