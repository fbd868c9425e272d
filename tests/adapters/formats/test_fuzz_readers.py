"""Fuzz the readers with a bounded, seeded corpus of mutations of the project's own
fixtures (bit flips, truncation, encodings, huge lines, NULs and other controls, splices,
repeats, nesting, number extremes, @string bombs, crossref chains): every case ends in
records or :class:`ImportRefused`, within a time bound, and what was read re-imports
from every export format (issue 13)."""

from __future__ import annotations

import time

import pytest
from _mutations import MUTATIONS, Case, cases, seeds

from litdesk.adapters import formats
from litdesk.core.imports import ImportRefused, ImportTrace

#: Cases in ``make test`` (the bench runs many more).
CASES = 360
#: One case's time bound under load (seconds); typical cases take milliseconds.
CASE_SECONDS = 10.0


def _reimport(trace: ImportTrace) -> None:
    """What litdesk read, it writes in every export format and reads back."""
    papers = [p for p in trace.papers if p.title.strip() or p.doi or p.pmid or p.authors]
    if not papers:
        return
    for fmt in formats.EXPORT_FORMATS:
        out = formats.dumps(papers, fmt)
        again = formats.loads(out.encode("utf-8"))
        assert len(again.records) >= 1, fmt


def run_case(case: Case) -> str:
    """ "ok" or the refusal code; anything else raised is a failure of the test."""
    try:
        trace = formats.loads(case.data, path=case.seed)
    except ImportRefused as exc:
        assert exc.code, case.name
        assert "Traceback" not in exc.message
        return exc.code
    _reimport(trace)
    return "ok"


def test_every_seed_is_read_and_every_mutation_is_used() -> None:
    corpus = seeds()
    assert len(corpus) >= 20
    ok = 0
    for name, data in corpus:
        try:
            formats.loads(data, path=name)
            ok += 1
        except ImportRefused:
            pass
    assert ok >= len(corpus) - 2  # the two refusal fixtures (no record, billion laughs)
    used = {c.mutation.split("+")[0] for c in cases(CASES)}
    assert used == set(MUTATIONS)


def test_mutated_fixtures_end_in_records_or_a_typed_refusal() -> None:
    outcomes: dict[str, int] = {}
    failures: list[str] = []
    slow: list[str] = []
    t0 = time.perf_counter()
    for case in cases(CASES):
        start = time.perf_counter()
        try:
            outcome = run_case(case)
        except Exception as exc:  # noqa: BLE001 - collected and reported with the case
            failures.append(f"{case.name}: {type(exc).__name__}: {str(exc)[:200]}")
            continue
        took = time.perf_counter() - start
        if took > CASE_SECONDS:
            slow.append(f"{case.name}: {took:.1f} s")
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert not failures, "\n".join(failures[:20])
    assert not slow, "\n".join(slow)
    assert outcomes.get("ok", 0) > CASES // 5, outcomes  # mutations still read as records
    assert len(outcomes) >= 3, outcomes  # and refusals of several kinds
    assert time.perf_counter() - t0 < 120


@pytest.mark.parametrize("index", [0, 1, 2])
def test_cases_are_reproducible(index: int) -> None:
    first = list(cases(40))[index * 13]
    again = list(cases(40))[index * 13]
    assert first == again
