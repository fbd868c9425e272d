"""Pseudo-excludes (Cormack & Grossman's BMI/CAL): at each training, K records not yet labelled
join the exclude class. They are drawn only from the unlabelled records, afresh per training
and deterministically per seed; they are never decided, never shown first as priors, and
their labels are never read; with K = 0 the scores are the default model's, bit for bit."""

from __future__ import annotations

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
    pseudo_exclude_rows,
    simulate,
)

_TOPIC = ["beta", "blocker", "carvedilol", "heart", "failure", "trial"]
_OTHER = ["wheat", "soil", "rainfall", "crop", "yield", "survey", "farm", "river", "model"]


def _set(n: int = 90, every: int = 9, seed: int = 3) -> tuple[list[ScreeningRecord], list[bool]]:
    rng = np.random.default_rng(seed)
    records, labels = [], []
    for i in range(n):
        included = i % every == 0
        words = list(rng.choice(_OTHER, 20)) + (list(rng.choice(_TOPIC, 5)) if included else [])
        records.append(ScreeningRecord.of(" ".join(words[:6]), " ".join(words[6:])))
        labels.append(included)
    return records, labels


def test_the_draw_is_from_the_pool_only_without_repeats_and_fixed_by_seed_and_count():
    pool = np.arange(3, 200, 2)  # odd rows only
    first = pseudo_exclude_rows(pool, 20, 5, 12)
    assert len(first) == 20 and len(set(first.tolist())) == 20
    assert set(first.tolist()) <= set(pool.tolist())
    assert np.array_equal(first, pseudo_exclude_rows(pool, 20, 5, 12))  # deterministic
    assert not np.array_equal(first, pseudo_exclude_rows(pool, 20, 6, 12))  # another seed
    assert not np.array_equal(first, pseudo_exclude_rows(pool, 20, 5, 13))  # fresh per training
    # K larger than the pool: all of it; K = 0 or an empty pool: none
    assert pseudo_exclude_rows(pool[:7], 100, 5, 12).tolist() == pool[:7].tolist()
    assert pseudo_exclude_rows(pool, 0, 5, 12).size == 0
    assert pseudo_exclude_rows(np.array([], dtype=np.int64), 10, 5, 12).size == 0


def test_off_is_the_default_model_bit_for_bit():
    records, labels = _set()
    features = build_features(records, FeatureConfig())
    decided = [0, 1, 2, 9, 10, 18, 30]
    for config in (ModelConfig(), ModelConfig(pseudo_excludes=0)):
        ranker = Ranker(features, seed=4, config=config)
        ranker.decide_many((i, labels[i]) for i in decided)
        assert ranker.retrain() and ranker.pseudo_excluded == ()
        rows = np.array(sorted(decided))
        y = np.array([int(labels[i]) for i in rows])
        assert np.array_equal(
            np.asarray(ranker.scores()), fit_scores(ModelConfig(), features.matrix, rows, y, 4)
        )
    assert "pseudo_excludes" not in ModelConfig().to_dict()


def test_the_drawn_records_train_as_excludes_whatever_their_label_and_stay_undecided():
    records, labels = _set()
    features = build_features(records, FeatureConfig())
    config = ModelConfig(pseudo_excludes=30)
    ranker = Ranker(features, seed=4, config=config)
    decided = [0, 1, 2, 3, 4]
    ranker.decide_many((i, labels[i]) for i in decided)
    assert ranker.retrain()
    pseudo = ranker.pseudo_excluded
    assert len(pseudo) == 30 and not set(pseudo) & set(decided)
    assert ranker.decided == tuple(decided)  # never recorded as decisions
    assert set(pseudo) <= set(ranker.ranking())  # still to be screened, still ranked
    assert any(labels[i] for i in pseudo)  # an include among them is trained as an exclude:
    rows = np.union1d(decided, pseudo)
    y = np.array([int(labels[i]) if i in decided else 0 for i in rows])
    assert np.array_equal(
        np.asarray(ranker.scores()), fit_scores(config, features.matrix, rows, y, 4)
    )
    # the same decisions, another ranker: the same draw; one decision more: a fresh one
    again = Ranker(features, seed=4, config=config)
    again.decide_many((i, labels[i]) for i in decided)
    again.retrain()
    assert again.pseudo_excluded == pseudo and again.scores() == ranker.scores()
    again.decide(5, labels[5])
    again.retrain()
    assert again.pseudo_excluded != pseudo and 5 not in again.pseudo_excluded


def test_k_larger_than_the_records_left_takes_all_of_them():
    records, labels = _set(30, 5)
    features = build_features(records, FeatureConfig())
    ranker = Ranker(features, seed=1, config=ModelConfig(pseudo_excludes=100))
    ranker.decide_many((i, labels[i]) for i in range(24))
    ranker.retrain()
    assert ranker.pseudo_excluded == tuple(range(24, 30)) == tuple(sorted(ranker.ranking()))


def test_both_models_of_the_hand_over_train_on_the_same_pseudo_excludes():
    records, labels = _set()
    rng = np.random.default_rng(2)
    vectors = rng.normal(size=(len(labels), 4)) + np.array(
        [[2.0, 0, 0, 0] if v else [0] * 4 for v in labels]
    )
    fc = FeatureConfig(embedding="test-4", embedding_centred=False)
    features = build_features(records, fc, embedding=vectors)
    config = ModelConfig(features=fc, embedding_use="handover", pseudo_excludes=25)
    ranker = Ranker(features, seed=3, config=config)
    decided = [0, 1, 2, 9, 11]
    ranker.decide_many((i, labels[i]) for i in decided)
    ranker.retrain()
    rows = np.union1d(decided, ranker.pseudo_excluded)
    y = np.array([int(labels[i]) if i in decided else 0 for i in rows])
    assert len(rows) == 30
    assert np.array_equal(np.asarray(ranker.scores()), feature_scores(config, features, rows, y, 3))


def test_a_simulation_with_pseudo_excludes_is_deterministic_and_shows_the_priors_first():
    records, labels = _set(120, 10, seed=8)
    config = ModelConfig(pseudo_excludes=40)
    sparse = lambda n: max(1, n // 10)  # noqa: E731 — fewer refits, a fast test
    first = simulate(records, labels, seed=7, config=config, retrain_every=sparse)
    second = simulate(records, labels, seed=7, config=config, retrain_every=sparse)
    plain = simulate(records, labels, seed=7, retrain_every=sparse)
    assert first.order == second.order
    assert first.order[:2] == first.priors == plain.priors
    assert sorted(first.order) == list(range(120))  # every record once, none skipped
    assert first.order != plain.order  # the option changes the order
    assert first.model["pseudo_excludes"]["records"] == 40
    assert first.to_dict()["records"] == 120 and first.to_dict()["included"] == sum(labels)


@pytest.mark.parametrize("bad", [-1, True, 2.5, "100"])
def test_the_count_is_checked(bad):
    with pytest.raises(ScreeningInputError):
        ModelConfig(pseudo_excludes=bad)
