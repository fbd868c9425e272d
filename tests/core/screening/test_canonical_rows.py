"""Training rows taken from the canonical copy of the feature matrix: the classifier gets the
same input as from the matrix itself (so the same scores, bit for bit), without scikit-learn
sorting every row selection again."""

from __future__ import annotations

import numpy as np
import pytest

from litdesk.core.screening import (
    FeatureConfig,
    ModelConfig,
    ScreeningRecord,
    build_features,
    feature_scores,
    fit_scores,
)

_WORDS = [
    "heart",
    "failure",
    "beta",
    "blocker",
    "carvedilol",
    "trial",
    "wheat",
    "soil",
    "rainfall",
    "crop",
    "yield",
    "survey",
]


def _records(n: int = 120) -> list[ScreeningRecord]:
    rng = np.random.default_rng(7)
    return [
        ScreeningRecord.of(
            " ".join(rng.choice(_WORDS, 5)),
            " ".join(rng.choice(_WORDS, 25)),
            ["Humans; Heart Failure" if i % 9 == 0 else "Soil"],
        )
        for i in range(n)
    ]


@pytest.mark.parametrize(
    "config",
    [
        ModelConfig(),
        ModelConfig(classifiers=("svm", "nb")),
        ModelConfig(features=FeatureConfig(terms_weight=0.5)),
    ],
)
def test_scores_are_the_same_with_the_canonical_copy(config: ModelConfig):
    features = build_features(_records(), config.features)
    matrix = features.matrix
    copy = features.canonical(matrix)
    assert copy is features.canonical(matrix)  # made once
    assert copy.has_canonical_format and (copy != matrix).nnz == 0
    rows = np.arange(0, 120, 2)
    y = (rows % 9 == 0).astype(np.int64)
    plain = fit_scores(config, matrix, rows, y, 3)
    via_copy = feature_scores(config, features, rows, y, 3, canonical=True)
    assert np.array_equal(plain, via_copy)  # bit for bit


def test_the_selection_is_not_sorted_again(monkeypatch: pytest.MonkeyPatch):
    """The cause of the time saved: no sort of the training rows inside the fit."""
    from scipy.sparse import csr_matrix

    features = build_features(_records())
    rows = np.arange(0, 120, 2)
    y = (rows % 9 == 0).astype(np.int64)
    features.canonical(features.matrix)  # made before counting
    calls: list[int] = []
    original = csr_matrix.sort_indices

    def counted(self: csr_matrix) -> None:
        if not self.has_sorted_indices:
            calls.append(self.shape[0])
        original(self)

    monkeypatch.setattr(csr_matrix, "sort_indices", counted)
    feature_scores(ModelConfig(), features, rows, y, 3, canonical=True)
    assert calls == []
    feature_scores(ModelConfig(), features, rows, y, 3)  # the default (a Study's retrain)
    assert calls == [len(rows)]  # what every retrain of a simulation paid before
