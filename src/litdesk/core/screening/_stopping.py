"""Stopping guidance a reviewer can defend — figures, never an automatic stop.

* the recall curve (decisions on x, includes found on y);
* the count of consecutive irrelevant records at the end of the decisions;
* an estimate of the includes remaining from a random check set, as in the SAFE procedure:
  the records of a uniform random sample (drawn by a seed, screened besides the model's
  order) estimate the share of includes in the whole set; the estimate minus the includes
  found, with a Wilson 95% interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._errors import ScreeningInputError
from ._metrics import recall_curve

__all__ = [
    "RemainingEstimate",
    "StoppingGuidance",
    "check_sample",
    "check_set",
    "consecutive_irrelevant",
    "estimate_remaining",
    "stopping_guidance",
]

_Z95 = 1.959963984540054


def consecutive_irrelevant(decisions: Sequence[bool]) -> int:
    """Excluded records decided since the last include (all of them if none yet)."""
    count = 0
    for included in reversed(decisions):
        if included:
            break
        count += 1
    return count


def check_set(records: int, size: int, seed: int) -> tuple[int, ...]:
    """A uniform random sample of ``size`` record indices out of ``records`` (by ``seed``),
    sorted: the SAFE check set, to be screened whatever the model says."""
    import numpy as np

    if not 0 <= size <= records:
        raise ScreeningInputError(
            f"a check set of {size} cannot be drawn from {records} records", code="bad_check_set"
        )
    chosen = np.random.default_rng(seed).choice(records, size=size, replace=False)
    return tuple(sorted(int(i) for i in chosen))


def check_sample(keys: Sequence[str], size: int, salt: str) -> tuple[str, ...]:
    """A uniform random sample of ``size`` of ``keys`` — the ``size`` keys whose keyed hash
    (BLAKE2b of the key, keyed by ``salt``) is lowest — in the order of ``keys``: the SAFE
    check set of a Study whose records grow (a living review). Unlike :func:`check_set`,
    records added later do not redraw it: a record stays in the sample unless one of the
    new records hashes below it, and the sample's own decisions stay counted."""
    import hashlib

    if not 0 <= size <= len(keys):
        raise ScreeningInputError(
            f"a check set of {size} cannot be drawn from {len(keys)} records",
            code="bad_check_set",
        )
    secret = hashlib.blake2b(salt.encode("utf-8"), digest_size=32).digest()

    def rank(key: str) -> bytes:
        return hashlib.blake2b(key.encode("utf-8"), key=secret, digest_size=16).digest()

    chosen = set(sorted(keys, key=rank)[:size])
    return tuple(k for k in keys if k in chosen)


def _wilson(successes: int, n: int) -> tuple[float, float]:
    p = successes / n
    denom = 1 + _Z95**2 / n
    centre = (p + _Z95**2 / (2 * n)) / denom
    half = _Z95 * math.sqrt(p * (1 - p) / n + _Z95**2 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True, slots=True)
class RemainingEstimate:
    """Includes estimated to remain unfound, from a random check set."""

    sample_size: int
    sample_included: int
    total_estimate: float
    remaining: float
    remaining_low: float
    remaining_high: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "sample_size": self.sample_size,
            "sample_included": self.sample_included,
            "total_estimate": self.total_estimate,
            "remaining": self.remaining,
            "remaining_interval_95": [self.remaining_low, self.remaining_high],
        }


def estimate_remaining(sample: Sequence[bool], records: int, found: int) -> RemainingEstimate:
    """Includes left among ``records`` given a random ``sample``'s decisions and the
    ``found`` includes so far (never below 0)."""
    n = len(sample)
    if n == 0 or n > records:
        raise ScreeningInputError(
            f"the check set must hold 1..{records} decisions, not {n}", code="bad_check_set"
        )
    k = sum(bool(v) for v in sample)
    low, high = _wilson(k, n)
    total = k / n * records
    return RemainingEstimate(
        sample_size=n,
        sample_included=k,
        total_estimate=total,
        remaining=max(0.0, total - found),
        remaining_low=max(0.0, low * records - found),
        remaining_high=max(0.0, high * records - found),
    )


@dataclass(frozen=True, slots=True)
class StoppingGuidance:
    """What the screen shows beside the record: figures for the reviewer's own decision."""

    screened: int
    records: int
    found: int
    curve: tuple[int, ...]
    consecutive_irrelevant: int
    remaining: RemainingEstimate | None
    #: what ``screened`` counts, as the advice says it: "screened" by the one reviewer whose
    #: decisions these are, or "decided by at least one reviewer" for a pair's (every record
    #: someone decided: neither one reviewer's count nor the settled ones)
    counted: str = "screened"

    @property
    def advice(self) -> str:
        """A sentence of figures; it never says "stop"."""
        parts = [
            # "maybe" counts as relevant (the model's label): the page's counts beside this
            # say "5 included, 2 maybe", so "7 included" here read as a contradiction
            f"{self.screened:,} of {self.records:,} {self.counted}, "
            f"{self.found:,} included or maybe",
            f"{self.consecutive_irrelevant:,} irrelevant in a row",
        ]
        if self.remaining is not None:
            r = self.remaining
            parts.append(
                f"about {r.remaining:.0f} includes may remain "
                f"(95% interval {r.remaining_low:.0f}–{r.remaining_high:.0f}, "
                f"from a random check set of {r.sample_size})"
            )
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "screened": self.screened,
            "records": self.records,
            "found": self.found,
            "curve": list(self.curve),
            "consecutive_irrelevant": self.consecutive_irrelevant,
            "remaining": None if self.remaining is None else self.remaining.to_dict(),
            "counted": self.counted,
            "advice": self.advice,
        }


def stopping_guidance(
    decisions: Sequence[bool],
    records: int,
    check: Sequence[bool] | None = None,
    *,
    counted: str = "screened",
) -> StoppingGuidance:
    """Guidance after ``decisions`` (in the order made) on a set of ``records``; ``check``
    holds the decisions on the random check set when one was screened; ``counted`` says
    what the decisions count (:attr:`StoppingGuidance.counted`)."""
    if len(decisions) > records:
        raise ScreeningInputError(
            f"{len(decisions)} decisions on a set of {records} records", code="bad_decisions"
        )
    curve = recall_curve(decisions)
    found = curve[-1] if curve else 0
    return StoppingGuidance(
        screened=len(decisions),
        records=records,
        found=found,
        curve=tuple(curve),
        consecutive_irrelevant=consecutive_irrelevant(decisions),
        remaining=None if not check else estimate_remaining(check, records, found),
        counted=counted,
    )
