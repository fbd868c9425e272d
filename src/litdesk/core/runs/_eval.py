"""Offline evaluation of frozen runs against graded judgments (pure).

Metrics over the first ``k`` hits: precision@k (grade > 0 relevant, denominator k),
nDCG@k (gain 2^g − 1, discount log2(rank + 1), the ideal from the whole judged pool),
known-item recall@k, duplicate and conflict rates. A window with any ungraded hit is
reported as ``unjudged`` (``None``), never as zero.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from litdesk._errors import InputError
from litdesk.core.fusion import identity_keys

from ._run import SearchRun

__all__ = [
    "FROZEN_VERSION",
    "EvalInputError",
    "Evaluation",
    "FrozenHit",
    "FrozenRun",
    "Judgment",
    "RunScores",
    "evaluate",
    "freeze_run",
    "read_frozen_runs",
    "read_judgments",
    "score_run",
]

FROZEN_VERSION: Final = 1
_MAX_RUNS = 5000
_MAX_HITS = 5000
_MAX_GRADE = 10


class EvalInputError(InputError):
    """A runs or judgments file for ``litdesk eval`` is not in the expected shape."""

    default_code = "eval_input"


@dataclass(frozen=True, slots=True)
class FrozenHit:
    id: str
    keys: tuple[str, ...]
    conflicted: bool

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "keys": list(self.keys), "conflicted": self.conflicted}


@dataclass(frozen=True, slots=True)
class FrozenRun:
    """A run as an evaluation fixture: no query text, no executed expressions, no cursors."""

    case: str
    mode: str
    coverage: str
    lanes: tuple[tuple[str, str], ...]  # (lane, status)
    hits: tuple[FrozenHit, ...]
    #: measured when the run was made by ``litdesk runs bench`` (else ``None``)
    latency_ms: float | None = None
    provider_calls: int | None = None
    split: str | None = None
    #: the typed error code the case met (``None``: it ran) and the one it expected
    error: str | None = None
    expect_error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "version": FROZEN_VERSION,
            "kind": "litdesk-frozen-run",
            "case": self.case,
            "mode": self.mode,
            "coverage": self.coverage,
            "lanes": [{"lane": lane, "status": status} for lane, status in self.lanes],
            "hits": [h.to_dict() for h in self.hits],
        }
        for name in _MEASURED:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out


_MEASURED: Final = ("latency_ms", "provider_calls", "split", "error", "expect_error")


def _keys_of(hit_paper: Any) -> tuple[str, ...]:
    keys = identity_keys(hit_paper)
    return tuple(sorted(f"{ns}:{v}" for ns, vals in keys.items() if ns != "record" for v in vals))


def freeze_run(run: SearchRun, *, case: str | None = None) -> FrozenRun:
    """``run`` as a fixture: hit ids, identity keys and conflict flags in rank order."""
    return FrozenRun(
        case=case or run.id,
        mode=run.definition.mode,
        coverage=run.coverage,
        lanes=tuple((lane.lane, lane.status) for lane in run.lanes),
        hits=tuple(FrozenHit(h.paper.id, _keys_of(h.paper), bool(h.conflicts)) for h in run.hits),
    )


def _text(value: object, label: str, limit: int = 300) -> str:
    if not isinstance(value, str) or not value or len(value) > limit:
        raise EvalInputError(f"{label} must be text of 1 to {limit} characters")
    return value


def read_frozen_runs(data: object) -> list[FrozenRun]:
    """``{"runs": [frozen run, …]}`` or a bare list of frozen runs."""
    items = data.get("runs") if isinstance(data, dict) else data
    if not isinstance(items, list) or len(items) > _MAX_RUNS:
        raise EvalInputError(f"runs must be a list of at most {_MAX_RUNS} frozen runs")
    out: list[FrozenRun] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        if not isinstance(item, dict) or item.get("kind") != "litdesk-frozen-run":
            raise EvalInputError(f"runs[{i}] is not a litdesk frozen run")
        if item.get("version") != FROZEN_VERSION:
            raise EvalInputError(f"runs[{i}] has an unknown version")
        case = _text(item.get("case"), f"runs[{i}].case")
        if case in seen:
            raise EvalInputError(f"case {case!r} appears twice")
        seen.add(case)
        hits_raw = item.get("hits")
        if not isinstance(hits_raw, list) or len(hits_raw) > _MAX_HITS:
            raise EvalInputError(f"runs[{i}].hits must be a list")
        hits: list[FrozenHit] = []
        for j, h in enumerate(hits_raw):
            if not isinstance(h, dict):
                raise EvalInputError(f"runs[{i}].hits[{j}] must be an object")
            keys = h.get("keys", [])
            if not isinstance(keys, list) or len(keys) > 20:
                raise EvalInputError(f"runs[{i}].hits[{j}].keys must be a list")
            conflicted = h.get("conflicted", False)
            if not isinstance(conflicted, bool):
                raise EvalInputError(f"runs[{i}].hits[{j}].conflicted must be true or false")
            hits.append(
                FrozenHit(
                    _text(h.get("id"), f"runs[{i}].hits[{j}].id"),
                    tuple(_text(k, "key", 600) for k in keys),
                    conflicted,
                )
            )
        lanes_raw = item.get("lanes", [])
        if not isinstance(lanes_raw, list) or len(lanes_raw) > 16:
            raise EvalInputError(f"runs[{i}].lanes must be a list")
        lanes = tuple(
            (_text(x.get("lane"), "lane", 60), _text(x.get("status"), "status", 40))
            for x in lanes_raw
            if isinstance(x, dict)
        )
        out.append(
            FrozenRun(
                case,
                str(item.get("mode", ""))[:40],
                str(item.get("coverage", ""))[:40],
                lanes,
                tuple(hits),
                **_measured(item, i),
            )
        )
    return out


def _measured(item: dict[str, Any], i: int) -> dict[str, Any]:
    """The optional measured fields of a frozen run, checked."""
    out: dict[str, Any] = {}
    latency = item.get("latency_ms")
    if latency is not None:
        if isinstance(latency, bool) or not isinstance(latency, int | float) or latency < 0:
            raise EvalInputError(f"runs[{i}].latency_ms must be a number of milliseconds")
        out["latency_ms"] = float(latency)
    calls = item.get("provider_calls")
    if calls is not None:
        if isinstance(calls, bool) or not isinstance(calls, int) or calls < 0:
            raise EvalInputError(f"runs[{i}].provider_calls must be a whole number")
        out["provider_calls"] = calls
    split = item.get("split")
    if split is not None and split not in ("development", "holdout"):
        raise EvalInputError(f"runs[{i}].split must be development or holdout")
    out["split"] = split
    for name in ("error", "expect_error"):
        value = item.get(name)
        out[name] = None if value is None else _text(value, f"runs[{i}].{name}", 60)
    return out


@dataclass(frozen=True, slots=True)
class Judgment:
    """Graded relevance (0 = not relevant … up to 10) by paper id or identity key
    (``doi:10.…``), and the known items a run should find."""

    grades: Mapping[str, int]
    known: tuple[str, ...] = ()


def read_judgments(data: object) -> dict[str, Judgment]:
    """``{"judgments": {case: {"grades": {id: grade}, "known_items": [id, …]}}}``."""
    items = data.get("judgments") if isinstance(data, dict) else None
    if not isinstance(items, dict) or len(items) > _MAX_RUNS:
        raise EvalInputError('judgments must be an object {"judgments": {case: …}}')
    out: dict[str, Judgment] = {}
    for case, j in items.items():
        _text(case, "case")
        if not isinstance(j, dict):
            raise EvalInputError(f"judgments[{case!r}] must be an object")
        grades_raw = j.get("grades", {})
        if not isinstance(grades_raw, dict) or len(grades_raw) > 100_000:
            raise EvalInputError(f"judgments[{case!r}].grades must be an object")
        grades: dict[str, int] = {}
        for key, g in grades_raw.items():
            if isinstance(g, bool) or not isinstance(g, int) or not 0 <= g <= _MAX_GRADE:
                raise EvalInputError(f"grade of {str(key)[:60]!r} must be 0 to {_MAX_GRADE}")
            grades[_text(key, "judged id", 600)] = g
        known = j.get("known_items", [])
        if not isinstance(known, list) or len(known) > 10_000:
            raise EvalInputError(f"judgments[{case!r}].known_items must be a list")
        out[case] = Judgment(grades, tuple(_text(k, "known item", 600) for k in known))
    return out


@dataclass(frozen=True, slots=True)
class RunScores:
    case: str
    k: int
    precision: float | None
    ndcg: float | None
    recall: float | None
    duplicate_rate: float | None
    conflict_rate: float | None
    judged: bool
    hits: int

    def to_dict(self) -> dict[str, Any]:
        def show(v: float | None, unjudged: bool = True) -> float | str | None:
            if v is None:
                return "unjudged" if unjudged else None
            return round(v, 6)

        return {
            "case": self.case,
            "k": self.k,
            "hits": self.hits,
            "precision_at_k": show(self.precision),
            "ndcg_at_k": show(self.ndcg),
            "known_item_recall_at_k": show(self.recall, unjudged=False),
            "duplicate_rate": show(self.duplicate_rate, unjudged=False),
            "conflict_rate": show(self.conflict_rate, unjudged=False),
        }


def _grade(hit: FrozenHit, grades: Mapping[str, int]) -> int | None:
    for key in (hit.id, *hit.keys):
        if key in grades:
            return grades[key]
    return None


def _found(known: str, window: Sequence[FrozenHit]) -> bool:
    return any(known == h.id or known in h.keys for h in window)


def score_run(run: FrozenRun, judgment: Judgment | None, k: int) -> RunScores:
    if k < 1:
        raise EvalInputError("k must be at least 1")
    window = run.hits[:k]
    grades: Mapping[str, int] = judgment.grades if judgment else {}
    graded = [_grade(h, grades) for h in window]
    judged = judgment is not None and bool(window) and all(g is not None for g in graded)
    precision = ndcg = None
    if judged:
        values = [g or 0 for g in graded]
        precision = sum(1 for g in values if g > 0) / k
        dcg = sum((2**g - 1) / math.log2(r + 1) for r, g in enumerate(values, start=1))
        ideal_grades = sorted(grades.values(), reverse=True)[:k]
        idcg = sum((2**g - 1) / math.log2(r + 1) for r, g in enumerate(ideal_grades, start=1))
        ndcg = dcg / idcg if idcg > 0 else None
    recall = None
    if judgment is not None and judgment.known:
        recall = sum(1 for x in judgment.known if _found(x, window)) / len(judgment.known)
    dup = conflict = None
    if window:
        seen: set[str] = set()
        dups = 0
        for h in window:
            keys = {h.id, *h.keys}
            if keys & seen:
                dups += 1
            seen |= keys
        dup = dups / len(window)
        conflict = sum(1 for h in window if h.conflicted) / len(window)
    return RunScores(run.case, k, precision, ndcg, recall, dup, conflict, judged, len(window))


def _mean(values: Sequence[float | None]) -> dict[str, Any]:
    known = [v for v in values if v is not None]
    return {
        "mean": round(sum(known) / len(known), 6) if known else "unjudged",
        "covered": len(known),
        "of": len(values),
    }


def _run_row(run: FrozenRun, scores: RunScores) -> dict[str, Any]:
    row = scores.to_dict()
    row["latency_ms"] = run.latency_ms
    row["provider_calls"] = run.provider_calls
    row["split"] = run.split
    row["error"] = run.error
    row["expect_error"] = run.expect_error
    return row


def _percentile(values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile (``None`` for no values)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(len(ordered) * p / 100))
    return round(ordered[rank - 1], 3)


def _operations(runs: Sequence[FrozenRun]) -> dict[str, Any]:
    """Latency, provider calls, splits and expected-error outcomes, with coverage."""
    latencies = [r.latency_ms for r in runs if r.latency_ms is not None]
    calls = [r.provider_calls for r in runs if r.provider_calls is not None]
    expecting = [r for r in runs if r.expect_error is not None]
    return {
        "latency_ms": {
            "p50": _percentile(latencies, 50),
            "p95": _percentile(latencies, 95),
            "max": _percentile(latencies, 100),
            "covered": len(latencies),
            "of": len(runs),
        },
        "provider_calls": {
            "total": sum(calls),
            "mean": round(sum(calls) / len(calls), 3) if calls else None,
            "covered": len(calls),
            "of": len(runs),
        },
        "splits": {
            name: sum(1 for r in runs if r.split == name) for name in ("development", "holdout")
        },
        "expected_errors": {
            "met": sum(1 for r in expecting if r.error == r.expect_error),
            "of": len(expecting),
        },
        "unexpected_errors": sum(1 for r in runs if r.error and r.error != r.expect_error),
    }


@dataclass(frozen=True, slots=True)
class Evaluation:
    """An offline evaluation: each frozen run with its scores at ``k``; ``to_dict()`` adds
    the means over the runs each metric could be computed for and the measured latency
    and provider calls where the runs carry them."""

    k: int
    runs: tuple[FrozenRun, ...]
    #: one per run, in the same order
    scores: tuple[RunScores, ...]

    @property
    def unjudged_runs(self) -> int:
        """Runs with a hit in their window that no judgment grades."""
        return sum(1 for s in self.scores if not s.judged)

    def summary(self) -> dict[str, Any]:
        """Each metric's mean (``"unjudged"`` when no run has it) with its coverage."""
        scores = self.scores
        return {
            "precision_at_k": _mean([s.precision for s in scores]),
            "ndcg_at_k": _mean([s.ndcg for s in scores]),
            "known_item_recall_at_k": _mean([s.recall for s in scores]),
            "duplicate_rate": _mean([s.duplicate_rate for s in scores]),
            "conflict_rate": _mean([s.conflict_rate for s in scores]),
            "unjudged_runs": self.unjudged_runs,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "runs": [_run_row(r, s) for r, s in zip(self.runs, self.scores, strict=True)],
            "operations": _operations(self.runs),
            "summary": self.summary(),
        }


def evaluate(
    runs: Sequence[FrozenRun], judgments: Mapping[str, Judgment], *, k: int = 10
) -> Evaluation:
    """Score each run against its case's judgments (see :class:`Evaluation`)."""
    return Evaluation(k, tuple(runs), tuple(score_run(r, judgments.get(r.case), k) for r in runs))
