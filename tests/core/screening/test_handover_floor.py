"""A floor on the hand-over's embedding weight (issue 28, eighth round, H1): ``w = max(0.5 /
n ** power, floor)`` for n labelled includes. Floor 0 is the hand-over (G1) bit for bit; with a
floor the weight never falls below it, and the scores follow the weight; the floor is
validated (0 to 0.5)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from litdesk.core.screening import (
    FeatureConfig,
    ModelConfig,
    Ranker,
    ScreeningInputError,
    ScreeningRecord,
    build_features,
    feature_scores,
    fit_scores,
    handover_weight,
    named_model,
    simulate,
)

_TOPIC = ["beta", "blocker", "carvedilol", "heart", "failure", "trial"]
_OTHER = ["wheat", "soil", "rainfall", "crop", "yield", "survey", "farm", "river", "model"]
_FC = FeatureConfig(embedding="test-4", embedding_centred=False)


def _set(n: int = 120, every: int = 6, seed: int = 3):
    """Records whose text hints at the includes, and a 4-dimension embedding that also does
    (noisily), so that the two SVMs order the records differently."""
    rng = np.random.default_rng(seed)
    records, labels = [], []
    for i in range(n):
        included = i % every == 0
        words = list(rng.choice(_OTHER, 20)) + (list(rng.choice(_TOPIC, 3)) if included else [])
        if not included and rng.random() < 0.2:
            words.append(str(rng.choice(_TOPIC)))
        records.append(ScreeningRecord.of(" ".join(words[:6]), " ".join(words[6:])))
        labels.append(included)
    vectors = rng.normal(scale=1.0, size=(n, 4)) + np.array(
        [[1.0, 0, 0, 0] if v else [0, 1.0, 0, 0] for v in labels]
    )
    return build_features(records, _FC, embedding=vectors), labels


def _z(v):
    return (v - v.mean()) / v.std()


def test_the_weight_is_the_hand_overs_until_it_reaches_the_floor_then_the_floor():
    assert handover_weight(4, 1, 0.0) == handover_weight(4) == 0.125
    for power in (1, 2):
        for floor in (0.0, 0.05, 0.1, 0.5):
            for n in range(200):
                w = handover_weight(n, power, floor)
                assert w >= floor
                assert w == max(0.5 / max(1, n) ** power, floor)
    # H1 (floor 0.1): G1's 0.5 / n up to five includes, 0.1 from there on
    assert [handover_weight(n, 1, 0.1) for n in (1, 2, 4, 5, 6, 10, 96)] == [
        0.5, 0.25, 0.125, 0.1, 0.1, 0.1, 0.1,
    ]  # fmt: skip
    assert handover_weight(96) < 0.0053  # G1's weight on a set with 96 includes


def test_floor_zero_is_the_hand_over_bit_for_bit():
    features, labels = _set()
    g1 = ModelConfig(features=_FC, embedding_use="handover")
    off = ModelConfig(features=_FC, embedding_use="handover", handover_floor=0.0)
    assert off == g1 and off.to_dict() == g1.to_dict()
    included = [i for i, v in enumerate(labels) if v]
    excluded = [i for i, v in enumerate(labels) if not v]
    for n in (1, 3, 8, 15):
        rows = np.array(included[:n] + excluded[:30])
        y = np.array([int(labels[i]) for i in rows])
        assert np.array_equal(
            feature_scores(off, features, rows, y, 2), feature_scores(g1, features, rows, y, 2)
        )
    # a whole simulation: the same order, the same figures
    a = simulate(features, labels, seed=4, config=g1)
    b = simulate(features, labels, seed=4, config=off)
    assert a.order == b.order and (a.wss95, a.recall_at_10) == (b.wss95, b.recall_at_10)
    # and the named hand-over model has no floor
    assert named_model("litdesk-handover").handover_floor == 0.0


def test_with_a_floor_the_scores_follow_the_floored_weight():
    features, labels = _set()
    g1 = ModelConfig(features=_FC, embedding_use="handover")
    h1 = ModelConfig(features=_FC, embedding_use="handover", handover_floor=0.1)
    alone = ModelConfig(features=_FC, embedding_use="alone")
    included = [i for i, v in enumerate(labels) if v]
    excluded = [i for i, v in enumerate(labels) if not v]
    for n in (2, 5, 10, 20):
        rows = np.array(included[:n] + excluded[:40])
        y = np.array([int(labels[i]) for i in rows])
        text = _z(fit_scores(h1, features.text, rows, y, 2))
        emb = _z(feature_scores(alone, features, rows, y, 2))
        got = feature_scores(h1, features, rows, y, 2)
        w = max(0.5 / n, 0.1)
        assert np.allclose(got, (1 - w) * text + w * emb, atol=1e-9)
        before = feature_scores(g1, features, rows, y, 2)
        if n <= 5:  # the floor not reached: G1's scores exactly
            assert np.array_equal(got, before)
        else:  # below G1's weight: H1 keeps more of the embedding than G1
            assert np.abs(got - text).max() > np.abs(before - text).max()
            assert not np.allclose(got, before)


def test_the_ranker_reads_the_floor():
    features, labels = _set()
    included = [i for i, v in enumerate(labels) if v][:10]
    excluded = [i for i, v in enumerate(labels) if not v][:30]
    scores = {}
    for floor in (0.0, 0.1):
        config = ModelConfig(features=_FC, embedding_use="handover", handover_floor=floor)
        ranker = Ranker(features, seed=1, config=config)
        ranker.decide_many((i, labels[i]) for i in included + excluded)
        assert ranker.retrain()
        scores[floor] = np.asarray(ranker.scores())
    assert not np.allclose(scores[0.0], scores[0.1])


def test_the_floor_is_validated_and_described():
    for bad in (-0.01, 0.51, 1.0, math.nan, math.inf, "0.1", True, None):
        with pytest.raises(ScreeningInputError) as err:
            ModelConfig(embedding_use="handover", handover_floor=bad)  # type: ignore[arg-type]
        assert err.value.code == "bad_model"
    for good in (0, 0.0, 0.1, 0.5):
        assert ModelConfig(embedding_use="handover", handover_floor=good).handover_floor == good
    h1 = ModelConfig(features=_FC, embedding_use="handover", handover_floor=0.1).to_dict()
    assert h1["handover_floor"] == 0.1
    assert h1["combination"].endswith("w = max(0.5 / includes^1, 0.1)")
    g1 = ModelConfig(features=_FC, embedding_use="handover").to_dict()
    assert "handover_floor" not in g1 and g1["combination"].endswith("w = 0.5 / includes^1")
