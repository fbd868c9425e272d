"""Prioritisation metrics on a screening order, exactly as the fixtures' PROVENANCE defines them.

* WSS@R (work saved over sampling at recall R%) = 1 − (records screened when ⌈R% × included⌉
  included records have been found) / N − (1 − R%).
* Recall@F% = included records found after screening ⌈F% × N⌉ records / included records.

Percentages are integers so that the ceilings are exact (no floating-point rounding), and each
figure is one division of two integers, so it is the float nearest the exact fraction: what an
independent computation from the order gives (WSS@95 of a random-looking order is 0.0, not
1 − 38/40 − 0.05 = 4.2e-17).
"""

from __future__ import annotations

from collections.abc import Sequence

from ._errors import ScreeningInputError

__all__ = [
    "recall_at",
    "recall_curve",
    "screened_to_recall",
    "wss",
]


def _ceil_percent(percent: int, total: int) -> int:
    """⌈percent% × total⌉ in integer arithmetic."""
    return (percent * total + 99) // 100


def _ordered_labels(order: Sequence[int], labels: Sequence[bool]) -> list[bool]:
    n = len(labels)
    if len(order) != n or sorted(order) != list(range(n)):
        raise ScreeningInputError(
            f"the order must list each of the {n} records exactly once", code="bad_order"
        )
    if not any(labels):
        raise ScreeningInputError("no included record: the metric is undefined", code="no_included")
    return [bool(labels[i]) for i in order]


def _check_percent(percent: int) -> None:
    if not 0 < percent <= 100:
        raise ScreeningInputError(f"percent must be in 1..100, not {percent}", code="bad_percent")


def screened_to_recall(order: Sequence[int], labels: Sequence[bool], percent: int = 95) -> int:
    """How many records of ``order`` are screened when ⌈percent% × included⌉ are found."""
    _check_percent(percent)
    seen = _ordered_labels(order, labels)
    target = _ceil_percent(percent, sum(seen))
    found = 0
    for screened, included in enumerate(seen, start=1):
        found += included
        if found >= target:
            return screened
    raise AssertionError("unreachable: every included record is in the order")


def wss(order: Sequence[int], labels: Sequence[bool], percent: int = 95) -> float:
    """Work saved over sampling at ``percent``% recall (a fraction; WSS@95 by default)."""
    screened = screened_to_recall(order, labels, percent)
    n = len(labels)
    # 1 − screened/n − (100 − percent)/100 = (percent·n − 100·screened) / (100·n), exactly
    return (percent * n - 100 * screened) / (100 * n)


def recall_at(order: Sequence[int], labels: Sequence[bool], percent: int = 10) -> float:
    """Share of the included records found after screening ⌈percent% × N⌉ records."""
    _check_percent(percent)
    seen = _ordered_labels(order, labels)
    cut = _ceil_percent(percent, len(seen))
    return sum(seen[:cut]) / sum(seen)


def recall_curve(decisions: Sequence[bool]) -> list[int]:
    """Includes found after each decision: ``curve[k]`` = includes among the first ``k + 1``
    decisions (x: decisions made, y: includes found)."""
    out: list[int] = []
    found = 0
    for included in decisions:
        found += bool(included)
        out.append(found)
    return out
