"""Every regular expression litdesk compiles at module level reads untrusted text somewhere
(imports, Study ZIPs, provider answers, model replies, form fields): each must take time
linear in its input. A sweep runs every such pattern over adversarial inputs (long runs of
one or two of the characters its syntax cares about, the shapes that make backtracking
quadratic) within a time bound; the known cases also run at their real size limits."""

from __future__ import annotations

import importlib
import itertools
import pkgutil
import re
import time
from collections.abc import Iterator

import pytest

import litdesk
from litdesk.adapters.formats import _bibtex
from litdesk.services.workspace import _archive

#: characters that open, close, escape or repeat in the patterns' syntax: runs of one
_ALPHABET = " \t\n\\\"'a1A._-=,;:/@#%<>{}[]()^*"
#: and runs of two alternating
_PAIRED = " \n\\\"'a1=,:<{[("
#: long enough that a quadratic pattern takes seconds, a linear one milliseconds
_SIZE = 16_000
_BOUND_SECONDS = 0.5
#: patterns the parsers only ``match`` at a position they then move past what was read
#: (BibTeX field names and values): judged by one ``match``, the parse as a whole below
_ANCHORED = frozenset(
    {"litdesk.adapters.formats._bibtex._NAME", "litdesk.adapters.formats._bibtex._FAST"}
)


def _patterns() -> Iterator[tuple[str, re.Pattern[str] | re.Pattern[bytes]]]:
    seen: set[int] = set()
    for info in pkgutil.walk_packages(litdesk.__path__, "litdesk."):
        if info.name.endswith("__main__") or ".migrations" in info.name:
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            pattern = getattr(value, "__self__", value)  # a bound ``fullmatch`` too
            if isinstance(pattern, re.Pattern) and id(pattern) not in seen:
                seen.add(id(pattern))
                yield f"{info.name}.{name}", pattern


def _inputs() -> list[str]:
    singles = [c * _SIZE for c in _ALPHABET]
    pairs = [(a + b) * (_SIZE // 2) for a, b in itertools.combinations(_PAIRED, 2)]
    return singles + pairs


def _scan(pattern: re.Pattern[str] | re.Pattern[bytes], text: str, anchored: bool = False) -> float:
    """CPU seconds of this process for one scan (another process's load does not count:
    a loaded machine slows the wall clock, not the work a pattern does)."""
    subject: str | bytes = text if isinstance(pattern.pattern, str) else text.encode("latin-1")
    started = time.process_time()
    if anchored:
        pattern.match(subject)  # type: ignore[arg-type]
    else:
        for _ in pattern.finditer(subject):  # type: ignore[arg-type]
            pass
    return time.process_time() - started


def test_the_sweep_finds_the_patterns() -> None:
    names = {name for name, _ in _patterns()}
    assert len(names) > 150
    assert "litdesk.services.workspace._archive._STRING" in names
    assert "litdesk.adapters.formats._bibtex._FAST" in names


def test_the_sweep_catches_a_quadratic_pattern() -> None:
    """The bound and the inputs are strict enough to fail the pattern that froze a worker."""
    old = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
    assert max(_scan(old, text) for text in ['\\"' * (_SIZE // 2)]) > _BOUND_SECONDS


def test_every_pattern_is_linear_on_adversarial_inputs() -> None:
    inputs = _inputs()
    slow: list[str] = []
    for name, pattern in _patterns():
        anchored = name in _ANCHORED
        for text in inputs:
            # both of two tries past the bound: one descheduled run is not a failure
            if (
                _scan(pattern, text, anchored) > _BOUND_SECONDS
                and _scan(pattern, text, anchored) > _BOUND_SECONDS
            ):
                slow.append(f"{name} on {text[:6]!r}…")
                break
    assert slow == []


@pytest.mark.parametrize(
    ("body", "valid"),
    [
        (b'\\"' * (_archive.MAX_SMALL_MEMBER_BYTES // 2), False),  # escaped quotes, no string
        (b'"' + b'\\"' * (_archive.MAX_SMALL_MEMBER_BYTES // 2 - 1) + b"\\", False),
        (b'["' + b"\\\\" * (_archive.MAX_SMALL_MEMBER_BYTES // 2 - 2) + b'"]', True),
    ],
)
def test_a_study_zip_member_at_its_limit_is_judged_in_linear_time(body: bytes, valid: bool) -> None:
    started = time.process_time()
    if valid:
        assert len(_archive.load_json(body, "manifest.json", _archive.JsonBudget())) == 1
    else:
        with pytest.raises(_archive.StudyImportRefused, match="not valid UTF-8 JSON"):
            _archive.load_json(body, "manifest.json", _archive.JsonBudget())
    assert time.process_time() - started < 5.0  # most of an hour before


def test_strings_are_still_collapsed_exactly() -> None:
    budget = _archive.JsonBudget()
    text = b'{"a\\"[b": ["c\\\\", "{{{"], "d": 1}'
    assert _archive.load_json(text, "x", budget) == {'a"[b': ["c\\", "{{{"], "d": 1}
    assert budget.values == _archive.MAX_JSON_VALUES - 5


def test_bibtex_junk_at_a_large_size_reads_in_linear_time() -> None:
    started = time.process_time()
    for junk in ("a" * 2_000_000, "\\" * 2_000_000, "a=\\" * 500_000, "^a" * 1_000_000):
        _bibtex.parse("@article{k,\n" + junk + "\n}\n")
    assert _bibtex.sniff("@misc{x, " + "1a" * 200_000) == _bibtex.sniff("@misc{x, a")
    assert time.process_time() - started < 20.0


def test_bibtex_fields_still_read() -> None:
    result = _bibtex.parse('@article{k, title = {A \\{b\\} c}, year = 2001, note = "x\\"y"}\n')
    (record,) = result.records
    assert record.paper.title is not None and "A" in record.paper.title
    assert record.paper.year == 2001
    assert _bibtex.sniff("@misc{x,\n  9abc = {y}}") == 90
