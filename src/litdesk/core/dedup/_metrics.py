"""Quality measures of a deduplication against labels (pure).

Two labelling schemes occur in public benchmarks:

* groups (bib-dedupe): true duplicate groups; measured at record level as bib-dedupe
  does — a *removed* record is every record of a predicted group but its first; TP = a
  removed record that belongs to a true group with another kept… precisely: per true
  group, at most size−1 removals are correct. FP = removals beyond that (or of unique
  records); FN = true removable duplicates not removed; TN = the rest.
* flags (EndNote caption "Duplicate" on every member of a duplicate set): binary per
  record; predicted positive = the record is in a predicted group of size ≥ 2.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["Confusion", "evaluate_flags", "evaluate_groups"]


@dataclass(frozen=True, slots=True)
class Confusion:
    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def sensitivity(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def specificity(self) -> float:
        return self.tn / (self.tn + self.fp) if self.tn + self.fp else 1.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    def to_dict(self) -> dict[str, float | int]:
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "tn": self.tn,
            "sensitivity": round(self.sensitivity, 4),
            "specificity": round(self.specificity, 4),
            "precision": round(self.precision, 4),
        }


def evaluate_groups(
    n: int, predicted: Iterable[Sequence[int]], truth: Iterable[Sequence[int]]
) -> Confusion:
    """Record-level confusion of predicted groups against true groups over ``n`` records."""
    true_of: dict[int, int] = {}
    true_removable = 0
    for gi, g in enumerate(truth):
        true_members = set(g)
        true_removable += len(true_members) - 1
        for i in true_members:
            true_of[i] = gi
    tp = fp = 0
    for g in predicted:
        members = sorted(set(g))
        if len(members) < 2:
            continue
        # within a predicted group, keep one record per distinct true identity;
        # removing a record whose identity is already kept is correct
        kept: set[object] = set()
        for i in members:
            ident: object = true_of.get(i, ("unique", i))
            if ident in kept:
                tp += 1
            else:
                if kept:
                    fp += 1  # removed, but its paper was not yet represented
                kept.add(ident)
    fn = true_removable - tp
    tn = n - tp - fp - fn
    return Confusion(tp, fp, fn, tn)


def evaluate_flags(n: int, predicted: Iterable[Sequence[int]], flagged: Iterable[int]) -> Confusion:
    """Binary per-record confusion: positive = in a duplicate set (all members flagged)."""
    pos = set(flagged)
    pred: set[int] = set()
    for g in predicted:
        if len(g) > 1:
            pred.update(g)
    tp = len(pred & pos)
    fp = len(pred - pos)
    fn = len(pos - pred)
    return Confusion(tp, fp, fn, n - tp - fp - fn)
