"""The ``litdesk screen simulate --json`` figures as an independent checker computes them: from
``order`` and the labels alone, in exact arithmetic (``fractions.Fraction``), on small random
label vectors (Hypothesis). The documents' figures must be the float nearest the exact value —
the same number a checker's own script prints — not a last-bit neighbour of it."""

from __future__ import annotations

import json
import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.core.screening import ScreeningRecord, recall_at, simulate, wss

_IN = ["carvedilol", "beta", "blocker", "heart", "failure", "mortality", "trial"]
_OUT = ["wheat", "irrigation", "soil", "nitrogen", "rainfall", "crop", "yield"]


def _exact_wss95(order: list[int], labels: list[bool]) -> Fraction:
    """WSS@95 = 1 − (records screened when ⌈95% × included⌉ are found) / N − 0.05."""
    n, included = len(labels), sum(labels)
    target = -(-95 * included // 100)  # ⌈0.95 × included⌉
    found = 0
    for screened, index in enumerate(order, start=1):
        found += labels[index]
        if found == target:
            return 1 - Fraction(screened, n) - Fraction(5, 100)
    raise AssertionError("the order misses an included record")


def _exact_recall_at_10(order: list[int], labels: list[bool]) -> Fraction:
    """Included found in the first ⌈10% × N⌉ records / included."""
    cut = -(-10 * len(labels) // 100)
    return Fraction(sum(labels[i] for i in order[:cut]), sum(labels))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=80).filter(any), st.randoms())
def test_metrics_are_the_nearest_float_to_the_exact_figure(labels: list[bool], rnd: random.Random):
    order = list(range(len(labels)))
    rnd.shuffle(order)
    # before: 1.0 − screened/N − 0.05 in floats, e.g. 4.2e-17 for an exact 0 (N 40, 38 screened)
    assert wss(order, labels) == float(_exact_wss95(order, labels))
    assert recall_at(order, labels) == float(_exact_recall_at_10(order, labels))


def test_a_zero_wss_is_zero():
    labels = [True] * 40  # 95% of 40 includes: 38 screened; 1 − 38/40 − 0.05 = 0 exactly
    assert wss(list(range(40)), labels) == 0.0


@st.composite
def _labelled(draw: st.DrawFn) -> tuple[list[bool], int, int, int]:
    labels = draw(st.lists(st.booleans(), min_size=2, max_size=12).filter(any))
    prior_inc = draw(st.integers(0, min(2, sum(labels))))
    prior_exc = draw(st.integers(0, min(2, len(labels) - sum(labels))))
    return labels, prior_inc, prior_exc, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=10, deadline=None)  # each example fits a dozen SVMs twice
@given(_labelled())
def test_simulate_json_agrees_with_an_independent_computation(
    case: tuple[list[bool], int, int, int],
):
    labels, prior_inc, prior_exc, seed = case
    rnd = random.Random(seed)
    records = [
        ScreeningRecord.of(
            " ".join(rnd.sample(_IN if v else _OUT, 3)), " ".join(rnd.sample(_IN + _OUT, 4))
        )
        for v in labels
    ]
    sim = simulate(records, labels, seed=seed, prior_included=prior_inc, prior_excluded=prior_exc)
    doc = json.loads(json.dumps(sim.to_dict()))  # what --json prints, read back
    order = doc["order"]
    assert sorted(order) == list(range(len(labels)))  # every record once, 0-based
    priors = order[: prior_inc + prior_exc]
    assert priors == doc["priors"]  # priors first, in the order shown
    assert [labels[i] for i in priors] == [True] * prior_inc + [False] * prior_exc
    assert doc["wss95"] == float(_exact_wss95(order, labels))
    assert doc["recall_at_10"] == float(_exact_recall_at_10(order, labels))
    assert doc["records"] == len(labels) and doc["included"] == sum(labels)
    again = simulate(records, labels, seed=seed, prior_included=prior_inc, prior_excluded=prior_exc)
    assert list(again.order) == order  # same seed, same order
