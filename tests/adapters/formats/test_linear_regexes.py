"""Regexes of the readers that start with ``\\s*``/``\\s+`` are linear on long white-space
runs (the ``(?<!\\s)`` guard: a match never starts inside a run), and match exactly as the
unguarded pattern did. A 100,000-tab DOI in a MEDLINE file took 150 s before (issue 13).

A separator's guard is ``(?:(?<!\\s)\\s+)?;\\s*``, not ``(?<!\\s)\\s*;\\s*``: after a match
that ended in white space ("A; ;B": the first match is "; "), the plain guard could not start
a match at the next ";" (it follows a space), so "A; ;B" split into "A" and ";B"."""

from __future__ import annotations

import contextlib
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.adapters import formats
from litdesk.adapters.formats import (
    _bibtex,
    _cochrane,
    _csljson,
    _csvtable,
    _latex,
    _medline,
    _ovid,
    _ris_read,
)
from litdesk.adapters.providers import _common
from litdesk.core.dedup import _normalize
from litdesk.core.imports import ImportRefused
from litdesk.core.library import _chunking
from litdesk.core.screening import _features

GUARDED = [
    (_bibtex._KW_SPLIT, r"\s*[;,]\s*"),
    (_bibtex._KW_SPLIT_SEMI, r"\s*;\s*"),
    (_csljson._KW_SPLIT, r"\s*,\s*"),
    (_csvtable._SPLIT_SEMI, r"\s*;\s*"),
    (_ris_read._KW_SPLIT, r"\s*;\s+"),
    (_cochrane._SEMI, r"\s*;\s+"),
    (_ovid._SEMI, r"\s*;\s+"),
    (_features._TERM_SPLIT, r"\s*[;|]\s*"),
    (_csvtable._SPLIT_AND, r"\s+and\s+"),
    (_csvtable._SCOPUS_ID, r"\s*\(\d+\)\s*$"),
    (_medline._DOI_MARK, r"\s*\[doi\]\s*$"),
    (_medline._PMC_MARK, r"\s*\[pmc\]\s*$"),
    (_latex._AND, r"\s+and\s+"),
    (_latex._AND_TOP, r"\\.|[{}]|\s+and\s+"),
    (_common._BLANKS, r"\s*\n\s*\n\s*"),
    (_chunking._BREAKS, r"\s*\n\s*"),
    (_normalize._LETTERS, r"\s*[(\[]\s*multiple\s+letters\s*[)\]]"),
]
IDS = [p.pattern for p, _ in GUARDED]


@pytest.mark.parametrize(("pattern", "old"), GUARDED, ids=IDS)
def test_a_long_white_space_run_is_linear(pattern: re.Pattern[str], old: str) -> None:
    for run in (" " * 200_000, "\t" * 200_000, " \n" * 100_000):
        text = "x" + run + "y"
        t0 = time.perf_counter()
        pattern.split(text)
        pattern.search(text)
        pattern.sub("", text)
        assert time.perf_counter() - t0 < 2, pattern.pattern


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(range(len(GUARDED))),
    st.text(alphabet=" \t\n;,()[]0123456789andAND xyzdoipmcmultiplelters", max_size=40),
)
def test_the_guard_changes_no_match(index: int, text: str) -> None:
    pattern, old = GUARDED[index]
    unguarded = re.compile(old, pattern.flags)
    assert pattern.split(text) == unguarded.split(text)
    assert pattern.sub("|", text) == unguarded.sub("|", text)


@pytest.mark.parametrize(("pattern", "old"), GUARDED, ids=IDS)
def test_a_separator_right_after_a_match_ending_in_white_space(
    pattern: re.Pattern[str], old: str
) -> None:
    # ",\t," and ";\t;" once split into ["", ","] where the unguarded pattern gives ["", "", ""]
    unguarded = re.compile(old, pattern.flags)
    for text in (",\t,", ";\t;", "a; ;b", "a, ,b", "a| |b", "x ;  ; y", "a;\n;\n;b"):
        assert pattern.split(text) == unguarded.split(text), text
        assert pattern.sub("|", text) == unguarded.sub("|", text), text


def test_the_pages_split_of_dedup_is_linear_and_unchanged() -> None:
    new = r"(?<!\s)(?:\s*[-–—‐]+\s*|\s+)"
    old = r"\s*[-–—‐]+\s*|\s+"
    for text in ("12-15", "12 - 15", "  12  –15", "e12", "12 15", "1 -- 2"):
        assert re.split(new, text, maxsplit=1) == re.split(old, text, maxsplit=1)
    t0 = time.perf_counter()
    re.split(new, "1" + " " * 200_000 + "x", maxsplit=1)
    assert time.perf_counter() - t0 < 2


FILLERS = [b" ", b"\t", b"a", b",", b"0", b"-", b"\\"]


def _seeds() -> list[tuple[str, bytes]]:
    from _mutations import seeds

    return seeds()


@pytest.mark.parametrize("filler", FILLERS, ids=["spaces", "tabs", "a", "comma", "0", "-", "bs"])
def test_every_seed_with_a_long_run_in_its_longest_lines_is_read_quickly(
    filler: bytes,
) -> None:
    slow: list[str] = []
    for name, data in _seeds():
        lines = data.split(b"\n")
        longest = sorted(range(len(lines)), key=lambda i: -len(lines[i]))[:2]
        for i in longest:
            line = lines[i]
            mid = len(line) // 2
            mutated = lines[:i] + [line[:mid] + filler * 100_000 + line[mid:]] + lines[i + 1 :]
            t0 = time.perf_counter()
            with contextlib.suppress(ImportRefused):
                formats.loads(b"\n".join(mutated), path=name)
            took = time.perf_counter() - t0
            if took > 5:
                slow.append(f"{name} line {i + 1}: {took:.1f} s")
    assert not slow, slow
