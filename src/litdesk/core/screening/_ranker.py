"""The ranker: orders the unscreened records by the model, given the decisions so far.

The feature matrix is fixed (see :mod:`._features`); a decision only records a label, and
:meth:`Ranker.retrain` refits the classifiers on the labelled rows and rescores every row.
Until both an include and an exclude are known there is no model: the order is a random
permutation drawn by the seed. Ties are broken by that same permutation, so the order is
deterministic for a seed. With ``pseudo_excludes`` in the model, each retrain also trains
on that many records not yet labelled as excludes (:func:`._model.pseudo_exclude_rows`); they
stay undecided and in the ranking.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ._errors import ScreeningInputError
from ._features import Features
from ._model import ModelConfig, feature_scores, pseudo_exclude_rows

__all__ = ["Ranker"]


class Ranker:
    """Decisions so far and the model's order of the records not yet decided."""

    def __init__(
        self,
        features: Features,
        *,
        seed: int = 1,
        config: ModelConfig | None = None,
        canonical_rows: bool = False,
    ):
        """``canonical_rows``: fit on rows of the set's canonical copy (the same scores, less
        time per retrain, the matrix kept twice: see :meth:`Features.canonical`)."""
        import numpy as np

        self.features = features
        self.config = config or ModelConfig(features=features.config)
        self.seed = seed
        n = features.rows
        self._labels = np.full(n, -1, dtype=np.int8)
        self._decided: list[int] = []
        self._tiebreak = np.random.default_rng(seed).permutation(n)
        self._scores: Any = None
        self.trained_on = 0  # decisions the current scores were fitted on
        #: the records not yet labelled that the current scores were trained on as excludes
        self.pseudo_excluded: tuple[int, ...] = ()
        self.canonical_rows = canonical_rows

    @property
    def size(self) -> int:
        return self.features.rows

    @property
    def decided(self) -> tuple[int, ...]:
        """Indices decided, in the order decided."""
        return tuple(self._decided)

    @property
    def has_model(self) -> bool:
        return self._scores is not None

    def decide(self, index: int, included: bool) -> None:
        """Record a decision on record ``index`` (once per record)."""
        if not 0 <= index < self.size:
            raise ScreeningInputError(
                f"record {index} is out of range (0..{self.size - 1})", code="bad_index"
            )
        if self._labels[index] >= 0:
            raise ScreeningInputError(f"record {index} is already decided", code="decided")
        self._labels[index] = 1 if included else 0
        self._decided.append(index)

    def decide_many(self, decisions: Iterable[tuple[int, bool]]) -> None:
        for index, included in decisions:
            self.decide(index, included)

    def can_train(self) -> bool:
        labelled = self._labels[self._labels >= 0]
        return bool((labelled == 1).any() and (labelled == 0).any())

    def retrain(self) -> bool:
        """Refit on every decision so far and rescore; False (order unchanged) when the
        decisions do not hold both an include and an exclude yet."""
        import numpy as np

        if not self.can_train():
            return False
        rows = np.flatnonzero(self._labels >= 0)
        y = self._labels[rows].astype(np.int64)
        pseudo = pseudo_exclude_rows(
            np.flatnonzero(self._labels < 0), self.config.pseudo_excludes, self.seed, len(rows)
        )
        if len(pseudo):  # their labels are unknown here: they join the excludes
            rows = np.union1d(rows, pseudo)
            y = (self._labels[rows] == 1).astype(np.int64)
        self._scores = feature_scores(
            self.config, self.features, rows, y, self.seed, canonical=self.canonical_rows
        )
        self.trained_on = len(self._decided)
        self.pseudo_excluded = tuple(int(i) for i in pseudo)
        return True

    def scores(self) -> list[float]:
        """The current model's score of every record (empty before the first model)."""
        return [] if self._scores is None else [float(s) for s in self._scores]

    def ranking(self, limit: int | None = None) -> list[int]:
        """Undecided records, most likely included first (random by seed before a model)."""
        import numpy as np

        open_rows = np.flatnonzero(self._labels < 0)
        if self._scores is None:
            keys = self._tiebreak[open_rows]
            ordered = open_rows[np.argsort(keys, kind="stable")]
        else:
            ordered = open_rows[np.lexsort((self._tiebreak[open_rows], -self._scores[open_rows]))]
        if limit is not None:
            ordered = ordered[:limit]
        return [int(i) for i in ordered]
