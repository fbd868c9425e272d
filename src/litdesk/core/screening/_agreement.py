"""Agreement between reviewers: Cohen's kappa and percent agreement per reviewer pair and
stage, overall and over time.

For two reviewers who both decided the same ``n`` records (their current own decisions; a
resolution is not a reviewer's vote), with ``p_o`` the share of records on which they agree
and ``p_e = Σ_k p_A(k) · p_B(k)`` the agreement expected by chance from each reviewer's own
share of each verdict ``k`` (include, exclude, maybe):

    κ = (p_o − p_e) / (1 − p_e)

κ is undefined when ``p_e = 1`` (both reviewers gave one and the same verdict to every record):
it is then reported as ``None`` with percent agreement 1.

Over time: the records both decided, in the order the pair's second decision on each was
made; after each such record, the figures on the records so far.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from ._decisions import STAGES, VERDICTS, DecisionHistory, Stage, Verdict
from ._errors import ScreeningInputError

__all__ = ["Agreement", "AgreementPoint", "PairAgreement", "agreement", "pair_agreement"]


@dataclass(frozen=True, slots=True)
class Agreement:
    """Agreement on ``n`` records decided by both raters."""

    n: int
    agreed: int
    percent: float  # p_o as a fraction in 0..1
    expected: float  # p_e
    kappa: float | None  # None when p_e = 1 (undefined)
    #: counts[a][b]: records the first rater called a and the second b
    counts: dict[Verdict, dict[Verdict, int]]

    def to_dict(self) -> dict[str, object]:
        return {
            "n": self.n,
            "agreed": self.agreed,
            "percent_agreement": self.percent,
            "chance_agreement": self.expected,
            "kappa": self.kappa,
            "counts": {a: dict(row) for a, row in self.counts.items()},
        }


def pair_agreement(pairs: Sequence[tuple[Verdict, Verdict]]) -> Agreement:
    """Cohen's kappa and percent agreement of two raters' verdicts on the same records."""
    n = len(pairs)
    if n == 0:
        raise ScreeningInputError("agreement needs at least one record rated by both", code="empty")
    counts: dict[Verdict, dict[Verdict, int]] = {a: dict.fromkeys(VERDICTS, 0) for a in VERDICTS}
    for a, b in pairs:
        if a not in VERDICTS or b not in VERDICTS:
            raise ScreeningInputError(f"unknown verdicts {a!r}, {b!r}", code="bad_verdict")
        counts[a][b] += 1
    return _from_counts(counts, n)


def _from_counts(counts: dict[Verdict, dict[Verdict, int]], n: int) -> Agreement:
    agreed = sum(counts[k][k] for k in VERDICTS)
    first = {k: sum(counts[k].values()) for k in VERDICTS}
    second = {k: sum(counts[a][k] for a in VERDICTS) for k in VERDICTS}
    p_o = agreed / n
    # integers first: p_e == 1 exactly when every record got one and the same verdict
    chance = sum(first[k] * second[k] for k in VERDICTS)
    p_e = chance / (n * n)
    kappa = None if chance == n * n else (p_o - p_e) / (1 - p_e)
    return Agreement(n, agreed, p_o, p_e, kappa, {a: dict(r) for a, r in counts.items()})


@dataclass(frozen=True, slots=True)
class AgreementPoint:
    """The figures after the ``n``-th record both reviewers decided (history order)."""

    n: int
    seq: int  # the history entry that completed the pair on that record
    percent: float
    kappa: float | None

    def to_dict(self) -> dict[str, object]:
        return {"n": self.n, "seq": self.seq, "percent_agreement": self.percent,
                "kappa": self.kappa}  # fmt: skip


@dataclass(frozen=True, slots=True)
class PairAgreement:
    """Agreement of one reviewer pair at one stage, overall and over time."""

    first: str
    second: str
    stage: Stage
    overall: Agreement
    over_time: tuple[AgreementPoint, ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "reviewers": [self.first, self.second],
            "stage": self.stage,
            **self.overall.to_dict(),
            "over_time": [p.to_dict() for p in self.over_time],
        }


def agreement(history: DecisionHistory, *, stage: Stage | None = None) -> list[PairAgreement]:
    """Every reviewer pair that decided at least one record in common, per stage (both stages
    unless ``stage`` is given); reviewers in name order within a pair."""
    out: list[PairAgreement] = []
    current = history.current()
    for st in STAGES if stage is None else (stage,):
        by_record: dict[str, dict[str, tuple[Verdict, int]]] = {}
        for (record, s, reviewer), d in current.items():
            if s == st and d.verdict is not None:
                by_record.setdefault(record, {})[reviewer] = (d.verdict, d.seq)
        shared: dict[tuple[str, str], list[tuple[int, Verdict, Verdict]]] = {}
        for votes in by_record.values():
            for a, b in combinations(sorted(votes), 2):
                (va, sa), (vb, sb) = votes[a], votes[b]
                shared.setdefault((a, b), []).append((max(sa, sb), va, vb))
        for (a, b), rows in sorted(shared.items()):
            rows.sort()
            counts: dict[Verdict, dict[Verdict, int]] = {
                k: dict.fromkeys(VERDICTS, 0) for k in VERDICTS
            }
            points: list[AgreementPoint] = []
            for n, (seq, va, vb) in enumerate(rows, start=1):
                counts[va][vb] += 1
                so_far = _from_counts(counts, n)
                points.append(AgreementPoint(n, seq, so_far.percent, so_far.kappa))
            overall = _from_counts(counts, len(rows))
            out.append(PairAgreement(a, b, st, overall, tuple(points)))
    return out
