"""RecordTrace: raw text given as text or as a span of a shared RawSource, the same record."""

from __future__ import annotations

import dataclasses
import hashlib
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from litdesk.core.imports import Notice, RawSource, RecordTrace, digest_bytes
from litdesk.core.records import make_paper

PAPER = make_paper(title="A title", doi="10.1000/x")


def _pair(text: str, before: str = "", after: str = "") -> tuple[RecordTrace, RecordTrace]:
    src = RawSource((before + text + after).encode("utf-8", "surrogatepass"), "surrogatepass")
    start = len(before.encode("utf-8", "surrogatepass"))
    end = start + len(text.encode("utf-8", "surrogatepass"))
    digest = src.digest(start, end)
    common = {"first_line": 2, "last_line": 5, "paper": PAPER, "source_id": "r1"}
    as_text = RecordTrace(digest=digest, raw=text, **common)  # type: ignore[arg-type]
    as_span = RecordTrace(digest=digest, raw_span=(src, start, end), **common)  # type: ignore[arg-type]
    return as_text, as_span


@given(st.text(), st.text(max_size=5), st.text(max_size=5))
def test_a_span_reads_back_its_text_and_digest(text: str, before: str, after: str) -> None:
    as_text, as_span = _pair(text, before, after)
    assert as_span.raw == text
    assert as_span == as_text
    assert as_span.to_dict(include_raw=True) == as_text.to_dict(include_raw=True)
    assert repr(as_span) == repr(as_text)
    expected = "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    assert as_span.digest == expected


def test_digest_of_a_span_equals_digest_bytes_of_its_text() -> None:
    src = RawSource("xx TY  - JOUR\nTI  - Dvořák\nER  - yy".encode())
    assert src.digest(3, len(src.data) - 2) == digest_bytes(
        "TY  - JOUR\nTI  - Dvořák\nER  - ".encode()
    )
    assert src.text(3, len(src.data) - 2) == "TY  - JOUR\nTI  - Dvořák\nER  - "


def test_a_record_trace_is_immutable_and_not_hashable() -> None:
    _, rec = _pair("TY  - JOUR\nER  - ")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.digest = "x"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del rec.paper
    with pytest.raises(TypeError):
        hash(rec)


def test_replace_keeps_the_span_and_changes_what_it_is_told() -> None:
    as_text, as_span = _pair("TY  - JOUR\nTI  - A\nER  - ", before="\n\n")
    note = Notice("duplicate_id", "again", line=2)
    changed = as_span.replace(notices=(note,))
    assert changed.notices == (note,) and changed.raw == as_span.raw
    assert changed._raw is as_span._raw  # still a span of the shared source, not a copy
    assert as_span.notices == ()
    assert as_text.replace(notices=(note,)) == changed
    assert as_span.replace(raw="other").raw == "other"


def test_a_record_trace_pickles_with_its_text() -> None:
    _, rec = _pair("TY  - JOUR\nTI  - é\nER  - ", before="junk\n")
    back = pickle.loads(pickle.dumps(rec))
    assert back == rec and back.raw == rec.raw and type(back._raw) is str


def test_raw_and_raw_span_are_exclusive() -> None:
    src = RawSource(b"abc")
    with pytest.raises(ValueError):
        RecordTrace("d", 1, 1, PAPER, raw="abc", raw_span=(src, 0, 3))


def test_defaults_match_the_former_dataclass() -> None:
    rec = RecordTrace(digest="d", first_line=1, last_line=1, paper=PAPER, raw="x")
    assert (rec.source_id, rec.notices, rec.extras) == (None, (), {})
    other = RecordTrace(digest="d", first_line=1, last_line=1, paper=PAPER, raw="x")
    assert rec.extras is not other.extras  # no shared mutable default


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\r\n")), max_size=5))
def test_a_crlf_source_reads_as_lf(lines: list[str]) -> None:
    text = "\n".join(lines)
    src = RawSource(
        text.replace("\n", "\r\n").encode("utf-8", "surrogatepass"), "surrogatepass", crlf=True
    )
    assert src.text(0, len(src.data)) == text
    assert src.digest(0, len(src.data)) == digest_bytes(text.encode("utf-8", "surrogatepass"))
