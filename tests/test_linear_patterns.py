"""Every regular expression litdesk compiles at module level reads untrusted text somewhere
(imports, Study ZIPs, provider answers, model replies, form fields): each must take time
linear in its input. A sweep runs every such pattern over adversarial inputs (long runs of
one or two of the characters its syntax cares about, the shapes that make backtracking
quadratic) within a time bound; the known cases also run at their real size limits."""

from __future__ import annotations

import ast
import functools
import importlib
import itertools
import pkgutil
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import litdesk
from litdesk.adapters.formats import _bibtex, _markup
from litdesk.core.imports import _source
from litdesk.services.workspace import _archive

#: characters that open, close, escape or repeat in the patterns' syntax: runs of one
_ALPHABET = " \t\n\\\"'a1A._-=,;:/@#%<>{}[]()^*"
#: and runs of two alternating
_PAIRED = " \n\\\"'a1=,:<{[("
#: long enough that a quadratic pattern takes seconds, a linear one milliseconds
_SIZE = 16_000
_BOUND_SECONDS = 0.5
#: every pattern is first scanned at a quarter of the size (a quarter of the sweep's cost:
#: nearly all of it is linear scans). A pattern whose time grows as c1*n + c2*n**2 + c3*n**3
#: takes at least 1/64 of its full-size time at a quarter of the size, so any pattern over
#: the bound at the full size is over this screen at the quarter size, and is then judged at
#: the full size exactly as before; the linear ones stay far below it (about 0.1-10 ms here)
_SCREEN_SIZE = _SIZE // 4
_SCREEN_SECONDS = _BOUND_SECONDS / 4**3
#: patterns the parsers only ``match`` at a position they then move past what was read
#: (BibTeX field names and values): judged by one ``match``, the parse as a whole below
_ANCHORED = frozenset(
    {
        "litdesk.adapters.formats._bibtex._NAME",
        "litdesk.adapters.formats._bibtex._FAST",
        # the query tokenizer matches a field at a token's start and moves past the token
        # (the field or the word read instead), the query at most QUERY_LIMITS.chars long
        "litdesk.core.query._grammar._FIELD_RE",
    }
)
#: inline ``re.match``/``re.fullmatch`` patterns (found by :func:`_inline`)
_ANCHORED_INLINE: set[str] = set()


#: ``re`` functions that try a pattern at one position only (judged by one ``match``)
_ONE_POSITION = frozenset({"match", "fullmatch"})


def _flags(node: ast.expr | None) -> int:
    """The flags of an inline call when written as ``re.X`` or ``re.X | re.Y`` (else none)."""
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "re"
    ):
        return int(getattr(re, node.attr, 0))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _flags(node.left) | _flags(node.right)
    return 0


#: the name ``re`` followed by an attribute (``re.sub``, ``re .match``): a module without
#: one has no inline call for the walk below to find (parsing every module's source cost
#: 1 s of CPU; about one module in five names ``re.``)
_NAMES_RE = re.compile(r"(?<![\w.])re\s*\.")


def _inline(module: object, name: str) -> Iterator[tuple[str, re.Pattern[str], bool]]:
    """Patterns written inline (``re.sub(r"…", …)``) in a module's source: a module-level
    sweep alone missed them (the answer gate's ``[ \t]+([.,;:])`` was quadratic)."""
    path = getattr(module, "__file__", None)
    if not path or not path.endswith(".py"):
        return
    source = Path(path).read_text(encoding="utf-8")
    if not _NAMES_RE.search(source):  # no ``re.`` anywhere: nothing to parse for (most modules)
        return
    tree = ast.parse(source)
    for node in ast.walk(tree):
        func = node.func if isinstance(node, ast.Call) else None
        if not (
            isinstance(node, ast.Call)
            and isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "re"
            and func.attr != "compile"  # module-level ones are swept by value
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            continue
        keywords = {k.arg: k.value for k in node.keywords}
        positional = {"sub": 4, "subn": 4, "split": 3}.get(func.attr, 2)
        flags = keywords.get("flags") or (
            node.args[positional] if len(node.args) > positional else None
        )
        pattern = re.compile(node.args[0].value, _flags(flags))
        yield f"{name}:{node.lineno} re.{func.attr}", pattern, func.attr in _ONE_POSITION


@functools.cache
def _patterns() -> tuple[tuple[str, re.Pattern[str] | re.Pattern[bytes]], ...]:
    """Every module's patterns, found once per test process (the walk imports and parses
    every module of litdesk: 4.7 s of CPU, which two tests paid each)."""
    return tuple(_find_patterns())


def _find_patterns() -> Iterator[tuple[str, re.Pattern[str] | re.Pattern[bytes]]]:
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
        for name, inline, one_position in _inline(module, info.name):
            if one_position:
                _ANCHORED_INLINE.add(name)
            yield name, inline


#: an opening a pattern looks for, then a long run of what may follow it
_OPENINGS = ("[1", '"', "<a", "{", "(", "#", "**", "A", "1")
_RUNS = " \n1a"


def _inputs(size: int = _SIZE) -> list[str]:
    singles = [c * size for c in _ALPHABET]
    pairs = [(a + b) * (size // 2) for a, b in itertools.combinations(_PAIRED, 2)]
    opened = [o + r * size for o in _OPENINGS for r in _RUNS]
    return singles + pairs + opened


def _scan(pattern: re.Pattern[str] | re.Pattern[bytes], text: str, anchored: bool = False) -> float:
    """CPU seconds of this thread for one scan (another process's load, or another thread of
    this test process, does not count: they slow the wall clock, not a pattern's work)."""
    subject: str | bytes = text if isinstance(pattern.pattern, str) else text.encode("latin-1")
    started = time.thread_time()
    if anchored:
        pattern.match(subject)  # type: ignore[arg-type]
    else:
        for _ in pattern.finditer(subject):  # type: ignore[arg-type]
            pass
    return time.thread_time() - started


def test_the_sweep_finds_the_patterns() -> None:
    names = {name for name, _ in _patterns()}
    assert len(names) > 150
    assert "litdesk.services.workspace._archive._STRING" in names
    assert "litdesk.adapters.formats._bibtex._FAST" in names
    # inline patterns too (the answer gate's re.sub calls), the one-position ones judged so
    assert any(n.startswith("litdesk.core.library._gate:") and n.endswith("re.sub") for n in names)
    assert any(n.endswith("re.fullmatch") for n in _ANCHORED_INLINE)


def _slow(
    patterns: tuple[tuple[str, re.Pattern[str] | re.Pattern[bytes]], ...],
) -> list[str]:
    """The patterns over the bound on some input (``name on 'input'…``): each input is
    scanned at the screen size first, and at the full size only if that scan passes the
    screen (see ``_SCREEN_SECONDS``)."""
    inputs = list(zip(_inputs(_SCREEN_SIZE), _inputs(), strict=True))
    slow: list[str] = []
    for name, pattern in patterns:
        anchored = name in _ANCHORED or name in _ANCHORED_INLINE
        for small, text in inputs:
            # both of two tries past the bound: one descheduled run is not a failure
            if (
                _scan(pattern, small, anchored) > _SCREEN_SECONDS
                and _scan(pattern, text, anchored) > _BOUND_SECONDS
                and _scan(pattern, text, anchored) > _BOUND_SECONDS
            ):
                slow.append(f"{name} on {text[:6]!r}…")
                break
    return slow


def test_the_sweep_catches_a_quadratic_pattern() -> None:
    """The bound and the inputs are strict enough to fail the pattern that froze a worker:
    the screen at the quarter size lets it through, and the sweep's own judgement (two
    full-size scans over the bound), over all its inputs, names it."""
    old = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
    assert _scan(old, '\\"' * (_SCREEN_SIZE // 2)) > _SCREEN_SECONDS
    assert _slow((("planted", old),)) == ["planted on " + repr('\\"' * 3) + "…"]


def test_every_pattern_is_linear_on_adversarial_inputs() -> None:
    assert _slow(_patterns()) == []


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


def test_a_csv_cell_over_the_readers_bound_spanning_many_lines_reads_in_linear_time() -> None:
    """An unterminated quoted cell over csv's 128 KiB bound, 200,000 lines long: the row is
    gathered line by line counting each line's quotes once (it recounted the whole gathered
    text per line: 21 s of CPU at 200,000 lines, 3 s at 50,000), skipped with its lines named,
    and the rows before it kept."""
    from litdesk.adapters import formats

    head = b"Title,Abstract,DOI\r\nA first,short,10.1/a\r\n"
    body = b'B second,"' + b"x" * 140_000 + b"\n" + b"y\n" * 200_000 + b"\r\n"
    started = time.process_time()
    trace = formats.loads(head + body, path="huge.csv")
    assert time.process_time() - started < 5.0
    assert [r.paper.title for r in trace.records] == ["A first"]
    assert any("lines 3-200004 could not be read" in n.message for n in trace.notices)


#: the spaces of a run each read the rest of the run (``\s*<``, ``\s*\n``), and each ``<`` of
#: a run with no ``>`` after it the rest of the text: 0.3-0.45 s of CPU at the sweep's size,
#: just under its bound, 12 s at this one
_RUN = 100_000


@pytest.mark.parametrize(
    "value",
    [" " * _RUN + "x", "Embase" + " \n" * (_RUN // 2), "<" * _RUN],
)
def test_a_ris_database_name_reads_in_linear_time(value: str) -> None:
    started = time.process_time()
    _source._ris_name(value)
    assert time.process_time() - started < 1.0


@pytest.mark.parametrize("value", [" " * _RUN, "\n" + " \t" * (_RUN // 2)])
def test_escaped_markup_with_long_runs_of_spaces_reads_in_linear_time(value: str) -> None:
    started = time.process_time()
    _markup.escaped_markup_text("&amp;" + value + "x")
    assert time.process_time() - started < 1.0


def test_the_linear_patterns_match_what_the_quadratic_ones_matched() -> None:
    """Ovid years and blank lines are found where the former patterns found them (every
    string of up to 6 of the characters that matter, and longer ones)."""
    years, blanks = re.compile(r"\s*<[^>]*>"), re.compile(r"\s*\n\s*\n\s*")
    texts = ["".join(t) for n in range(7) for t in itertools.product(" \n<>a", repeat=n)] + [
        "Ovid MEDLINE(R) <2008 to 2009>",
        "Embase <1980 to 2009> <a<b> c",
        " \n\t\n x\n\ny\n",
    ]
    for text in texts:
        assert _source._without_years(text) == years.sub("", text), text
        assert _markup._BLANKS.split(text) == blanks.split(text), text
