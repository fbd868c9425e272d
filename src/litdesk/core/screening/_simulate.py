"""Replay a labelled set as ASReview's ``simulate`` does: priors drawn by the seed, then the
model's order, one record per step, until every record is labelled.

Retraining: after every decision while few are known, then after every ``k``-th decision
with ``k`` growing with the number labelled (``retrain_every``); between retrains the next
record is the best-scored one of the current model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ._errors import ScreeningInputError
from ._features import Features, ScreeningRecord, build_features
from ._metrics import recall_at, wss
from ._model import ModelConfig
from ._ranker import Ranker

__all__ = ["MAX_SEED", "Simulation", "default_retrain_every", "draw_priors", "simulate"]

#: the largest seed: the classifiers' ``random_state`` is a 32-bit unsigned integer
MAX_SEED = 2**32 - 1


@dataclass(frozen=True, slots=True)
class Simulation:
    """One replay: the order shown (priors first), its figures and the model used."""

    order: tuple[int, ...]
    priors: tuple[int, ...]
    labels: tuple[bool, ...]
    seed: int
    model: dict[str, Any]
    retrains: int

    @property
    def wss95(self) -> float:
        return wss(self.order, self.labels, 95)

    @property
    def recall_at_10(self) -> float:
        return recall_at(self.order, self.labels, 10)

    def to_dict(self) -> dict[str, Any]:
        """The ``litdesk screen simulate --json`` document."""
        return {
            "order": list(self.order),
            "wss95": self.wss95,
            "recall_at_10": self.recall_at_10,
            "model": self.model,
            "seed": self.seed,
            "priors": list(self.priors),
            "records": len(self.order),
            "included": sum(self.labels),
            "retrains": self.retrains,
        }


def default_retrain_every(labelled: int) -> int:
    """Retrain after every decision up to 200 labelled, then every ``labelled // 200``."""
    return max(1, labelled // 200)


def draw_priors(
    labels: Sequence[bool], seed: int, included: int = 1, excluded: int = 1
) -> tuple[int, ...]:
    """``included`` included then ``excluded`` excluded record indices, drawn by ``seed``."""
    import numpy as np

    if not 0 <= seed <= MAX_SEED:  # before: numpy's or scikit-learn's ValueError, a traceback
        raise ScreeningInputError(f"the seed is 0 to {MAX_SEED:,}, not {seed}", code="bad_seed")
    if included < 0 or excluded < 0:
        raise ScreeningInputError("prior counts cannot be negative", code="bad_priors")
    inc = [i for i, v in enumerate(labels) if v]
    exc = [i for i, v in enumerate(labels) if not v]
    if not inc:
        raise ScreeningInputError("no included record in the labels", code="no_included")
    if included > len(inc) or excluded > len(exc):
        raise ScreeningInputError(
            f"asked for {included} included and {excluded} excluded priors; the labels hold "
            f"{len(inc)} and {len(exc)}",
            code="bad_priors",
        )
    rng = np.random.default_rng(seed)
    chosen_inc: Any = rng.choice(len(inc), size=included, replace=False) if included else []
    chosen_exc: Any = rng.choice(len(exc), size=excluded, replace=False) if excluded else []
    return tuple(inc[int(i)] for i in chosen_inc) + tuple(exc[int(i)] for i in chosen_exc)


def simulate(
    records: Sequence[ScreeningRecord] | Features,
    labels: Sequence[bool],
    *,
    seed: int = 1,
    prior_included: int = 1,
    prior_excluded: int = 1,
    config: ModelConfig | None = None,
    retrain_every: Callable[[int], int] = default_retrain_every,
) -> Simulation:
    """Replay ``labels`` on ``records`` (or their prebuilt features)."""
    config = config or ModelConfig()
    features = (
        records if isinstance(records, Features) else build_features(records, config.features)
    )
    if features.rows != len(labels):
        raise ScreeningInputError(
            f"{features.rows} records but {len(labels)} labels", code="bad_labels"
        )
    priors = draw_priors(labels, seed, prior_included, prior_excluded)
    # hundreds of retrains: their training rows from the canonical copy (the same order,
    # less time; bench/RESULTS.md, issue 28, branch sim28)
    ranker = Ranker(features, seed=seed, config=config, canonical_rows=True)
    for index in priors:
        ranker.decide(index, labels[index])
    order = list(priors)
    retrains = 0
    queue: list[int] = []
    since = 0
    while len(order) < len(labels):
        if not queue or (since >= retrain_every(len(order)) and ranker.can_train()):
            if ranker.retrain():
                retrains += 1
            since = 0
            queue = ranker.ranking()
            queue.reverse()  # pop() takes the best
        index = queue.pop()
        ranker.decide(index, labels[index])
        order.append(index)
        since += 1
    return Simulation(
        order=tuple(order),
        priors=priors,
        labels=tuple(bool(v) for v in labels),
        seed=seed,
        model=config.to_dict(),
        retrains=retrains,
    )
