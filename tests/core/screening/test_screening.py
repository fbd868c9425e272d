"""Screening prioritisation: metrics on hand-made orders, priors and determinism by seed,
class imbalance, ranking better than random on a small synthetic set, stopping guidance."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk._errors import InputError
from litdesk.core.screening import (
    FeatureConfig,
    ModelConfig,
    Ranker,
    ScreeningInputError,
    ScreeningRecord,
    build_features,
    check_set,
    consecutive_irrelevant,
    draw_priors,
    estimate_remaining,
    recall_at,
    recall_curve,
    screened_to_recall,
    simulate,
    stopping_guidance,
    wss,
)

# --- metrics on hand-made orders ---------------------------------------------------------


def test_wss_perfect_order_of_twenty_with_two_included():
    labels = [True, True] + [False] * 18
    order = list(range(20))
    # 95% of 2 rounded up = 2 found after 2 records: 1 - 2/20 - 0.05
    assert screened_to_recall(order, labels) == 2
    assert wss(order, labels) == pytest.approx(0.85)


def test_wss_worst_order_is_negative():
    labels = [True] + [False] * 9
    order = list(range(1, 10)) + [0]
    assert wss(order, labels) == pytest.approx(1 - 10 / 10 - 0.05)


def test_wss_ceiling_of_95_percent_of_twenty_is_nineteen():
    labels = [True] * 20 + [False] * 80
    # included interleaved: record 2k is included for k < 20
    order = [i for pair in zip(range(20), range(20, 40), strict=True) for i in pair]
    order += list(range(40, 100))
    assert screened_to_recall(order, labels) == 2 * 19 - 1
    assert wss(order, labels) == pytest.approx(1 - 37 / 100 - 0.05)


def test_recall_at_ten_percent_uses_ceiling_of_records():
    labels = [False] * 21
    labels[2] = labels[3] = True  # ⌈10% × 21⌉ = 3 → only record 2 is seen among the first 3
    order = list(range(21))
    assert recall_at(order, labels) == pytest.approx(0.5)
    assert recall_at(order, labels, 20) == pytest.approx(1.0)  # ⌈4.2⌉ = 5


def test_metrics_refuse_bad_orders_and_no_includes():
    with pytest.raises(ScreeningInputError):
        wss([0, 0, 1], [True, False, False])
    with pytest.raises(ScreeningInputError):
        wss([0, 1], [False, False])
    with pytest.raises(InputError):  # the category a face translates (exit 2)
        recall_at([0, 1], [True, False], 0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=60).filter(any), st.randoms())
def test_metric_bounds(labels, rnd):
    order = list(range(len(labels)))
    rnd.shuffle(order)
    n = len(labels)
    w = wss(order, labels)
    r = recall_at(order, labels)
    assert -0.05 - 1e-12 <= w <= 0.95 - 1 / n + 1e-12
    assert 0.0 <= r <= 1.0
    best = sorted(range(n), key=lambda i: not labels[i])
    assert wss(best, labels) >= w - 1e-12
    assert recall_at(best, labels) >= r


def test_recall_curve_and_consecutive_irrelevant():
    decisions = [False, True, False, True, False, False, False]
    assert recall_curve(decisions) == [0, 1, 1, 2, 2, 2, 2]
    assert consecutive_irrelevant(decisions) == 3
    assert consecutive_irrelevant([False, False]) == 2
    assert consecutive_irrelevant([]) == 0


# --- stopping guidance ---------------------------------------------------------------------


def test_remaining_estimate_from_a_check_set():
    sample = [True] * 2 + [False] * 98  # 2% of 1,000 = 20 expected; 15 found
    est = estimate_remaining(sample, 1000, 15)
    assert est.total_estimate == pytest.approx(20.0)
    assert est.remaining == pytest.approx(5.0)
    assert est.remaining_low == 0.0 < est.remaining < est.remaining_high
    assert estimate_remaining([False] * 50, 1000, 3).remaining == 0.0


def test_check_set_is_random_by_seed_and_guidance_never_says_stop():
    a, b = check_set(500, 25, seed=3), check_set(500, 25, seed=3)
    assert a == b and len(set(a)) == 25 and a != check_set(500, 25, seed=4)
    g = stopping_guidance([True, False, False], 100, check=[False] * 10 + [True])
    assert g.found == 1 and g.consecutive_irrelevant == 2 and g.curve == (1, 1, 1)
    assert g.remaining is not None and "stop" not in g.advice.lower()
    # "maybe" is relevant here: the advice says so (walk 11: "5 included, 2 maybe" beside
    # "7 included")
    assert g.advice.startswith("3 of 100 screened, 1 included or maybe; 2 irrelevant in a row")
    assert g.to_dict()["remaining"]["sample_size"] == 11
    with pytest.raises(ScreeningInputError):
        check_set(10, 11, seed=1)


def test_the_check_sample_is_not_redrawn_when_records_are_added():
    """A living review adds records: the SAFE check set keeps its records (and the decisions
    made on them) except those a newcomer displaces; the index draw redrew nearly all."""
    from litdesk.core.screening import check_sample

    keys = [f"rec-{i}" for i in range(1_000)]
    first = check_sample(keys, 50, "study-1")
    assert first == check_sample(keys, 50, "study-1") and len(set(first)) == 50
    assert first != check_sample(keys, 50, "study-2")  # each Study its own draw
    assert [k for k in keys if k in first] == list(first)  # in the records' order
    assert first != tuple(keys[:50])  # not the first records
    more = keys + [f"new-{i}" for i in range(100)]
    after = check_sample(more, 55, "study-1")
    newcomers = set(after) - set(keys)
    assert len(set(first) - set(after)) <= len(newcomers) <= 20, (first, after)
    # the index draw of the same growth kept few of its records
    old = {keys[i] for i in check_set(1_000, 50, seed=1)}
    assert len(old & {more[i] for i in check_set(1_100, 55, seed=1)}) < 25
    # uniform: the sample's share of the first half is near a half over many Studies
    firsts = sum(k in set(keys[:500]) for n in range(40) for k in check_sample(keys, 50, f"s{n}"))
    assert 0.4 < firsts / 2_000 < 0.6
    with pytest.raises(ScreeningInputError):
        check_sample(keys[:10], 11, "study-1")


# --- a small synthetic set --------------------------------------------------------------------

_TOPIC = [
    "beta",
    "blocker",
    "heart",
    "failure",
    "randomised",
    "trial",
    "mortality",
    "carvedilol",
    "bisoprolol",
]
_OTHER = [
    "soil",
    "nitrogen",
    "crop",
    "yield",
    "wheat",
    "rainfall",
    "irrigation",
    "survey",
    "teacher",
    "classroom",
    "pupils",
    "galaxy",
    "telescope",
    "quantum",
    "lattice",
    "protein",
    "folding",
    "enzyme",
    "kinetics",
    "river",
    "sediment",
]


def _synthetic(n: int = 300, included: int = 12, seed: int = 0):
    rnd = random.Random(seed)
    records, labels = [], []
    for i in range(n):
        inc = i % (n // included) == 0 and sum(labels) < included
        words = [rnd.choice(_OTHER) for _ in range(25)]
        if inc:
            words += [rnd.choice(_TOPIC) for _ in range(6)]
        elif rnd.random() < 0.15:  # some excluded records share a topic word
            words.append(rnd.choice(_TOPIC))
        rnd.shuffle(words)
        records.append(ScreeningRecord.of(" ".join(words[:8]), " ".join(words[8:])))
        labels.append(inc)
    return records, labels


def _sparse_retrain(labelled: int) -> int:
    return max(1, labelled // 10)  # fewer refits: the tests stay fast on a busy machine


def test_ranking_beats_random_on_a_synthetic_set():
    records, labels = _synthetic(200, 8)
    ours = [simulate(records, labels, seed=s, retrain_every=_sparse_retrain).wss95 for s in (1, 2)]
    rnd = random.Random(7)
    randoms = []
    for _ in range(30):
        order = list(range(len(labels)))
        rnd.shuffle(order)
        randoms.append(wss(order, labels))
    assert min(ours) > 0.5  # the topic words give the includes away
    assert sum(randoms) / len(randoms) < 0.2  # random order saves ~nothing (expected 0)


def test_simulation_is_deterministic_for_a_seed_and_lists_every_record_once():
    records, labels = _synthetic(120, 8, seed=1)
    kw = {"prior_included": 2, "prior_excluded": 3, "retrain_every": _sparse_retrain}
    a = simulate(records, labels, seed=5, **kw)
    b = simulate(records, labels, seed=5, **kw)
    c = simulate(records, labels, seed=6, **kw)
    assert a.order == b.order and a.priors == b.priors
    assert a.order != c.order
    assert sorted(a.order) == list(range(120))
    assert a.order[:5] == a.priors
    assert [labels[i] for i in a.priors] == [True, True, False, False, False]
    doc = a.to_dict()
    assert doc["wss95"] == a.wss95 and doc["model"]["name"] == ModelConfig().name


def test_priors_are_drawn_by_seed_and_checked():
    labels = [True, False, False, True, False]
    assert draw_priors(labels, 1) == draw_priors(labels, 1)
    assert {draw_priors(labels, s)[0] for s in range(20)} == {0, 3}
    with pytest.raises(ScreeningInputError):
        draw_priors(labels, 1, included=3)
    with pytest.raises(ScreeningInputError):
        draw_priors([False, False], 1)


def test_imbalance_is_balanced_the_rare_class_still_ranks_first():
    # 3 includes against 300 excludes: without balancing the includes' score would be swamped
    records, labels = _synthetic(303, 3, seed=2)
    features = build_features(records)
    for classifiers in (("svm",), ("logistic",)):  # the default is ("svm",)
        ranker = Ranker(features, seed=1, config=ModelConfig(classifiers=classifiers))
        first_inc = labels.index(True)
        ranker.decide(first_inc, True)
        for i in range(200, 260):
            ranker.decide(i, labels[i])
        assert ranker.retrain()
        top = ranker.ranking(limit=10)
        decided = set(ranker.decided)
        remaining_inc = [i for i, v in enumerate(labels) if v and i not in decided]
        assert remaining_inc and set(remaining_inc) <= set(top), classifiers


def test_ranker_without_both_classes_orders_randomly_by_seed():
    records, labels = _synthetic(50, 5)
    features = build_features(records)
    r1, r2 = Ranker(features, seed=3), Ranker(features, seed=3)
    r1.decide(1, False)
    r2.decide(1, False)
    assert not r1.retrain() and not r1.has_model
    assert r1.ranking() == r2.ranking() and 1 not in r1.ranking()
    assert r1.ranking() != Ranker(features, seed=4).ranking()
    with pytest.raises(ScreeningInputError):
        r1.decide(1, True)
    with pytest.raises(ScreeningInputError):
        r1.decide(50, True)


def test_terms_are_features_and_empty_records_are_kept():
    records = [
        ScreeningRecord.of("a", "", "Heart Failure; Humans"),
        ScreeningRecord.of("", "", None),
        ScreeningRecord.of("b", "c", ["Humans"]),
    ]
    assert records[0].terms == ("Heart Failure", "Humans")
    f = build_features(records, FeatureConfig(terms_weight=0.5))
    assert f.rows == 3 and f.has_terms
    assert not build_features(records).has_terms  # the default reads title + abstract only
    assert build_features([ScreeningRecord(), ScreeningRecord()]).rows == 2


def test_class_weights_average_one_per_record_with_asreviews_ratio():
    import numpy as np

    from litdesk.core.screening._model import _class_weights

    y = np.array([1] * 3 + [0] * 97)
    w = _class_weights(y, 9.8, True)
    per_record = np.where(y == 1, w[1], w[0])
    assert per_record.mean() == pytest.approx(1.0)
    # the excludes together weigh 1/9.8 of the includes together
    assert (97 * w[0]) / (3 * w[1]) == pytest.approx(1 / 9.8)
    raw = _class_weights(y, 9.8, False)
    assert raw[1] == 1.0 and raw[0] / raw[1] == pytest.approx(w[0] / w[1])


def test_an_ensemble_combines_its_classifiers_by_mean_rank():
    records, labels = _synthetic(120, 6, seed=3)
    features = build_features(records)
    assert Ranker(features, seed=1).config.classifiers == ("svm",)  # the default
    config = ModelConfig(classifiers=("svm", "nb"))
    ranker = Ranker(features, seed=1, config=config)
    assert config.to_dict()["combination"] == "mean rank"
    ranker.decide(labels.index(True), True)
    ranker.decide(labels.index(False), False)
    assert ranker.retrain()
    scores = ranker.scores()
    assert len(scores) == 120 and all(0 < s <= 2 for s in scores)  # two ranks in (0, 1]


def test_an_embedding_block_is_centred_unit_length_and_weighted():
    import numpy as np

    from litdesk.core.screening import embedding_block

    rng = np.random.default_rng(4)
    raw = rng.normal(size=(6, 5)) + 10.0  # one large shared direction, as mean-token vectors
    raw[2] = np.delete(raw, 2, axis=0).mean(axis=0)  # the set's mean: centred, it is zero
    block = embedding_block(raw, 6, 0.5)
    assert block.shape == (6, 5) and block.dtype == np.float32
    norms = np.linalg.norm(block, axis=1)
    assert norms[2] < 1e-6
    assert np.allclose(np.delete(norms, 2), 0.5, atol=1e-6)
    # centring removed the shared direction: the rows no longer all point the same way
    unit = np.delete(block, 2, axis=0) / 0.5
    assert (unit @ unit.T)[np.triu_indices(5, 1)].mean() < 0.5
    assert np.array_equal(block, embedding_block(raw, 6, 0.5))  # deterministic
    with pytest.raises(ScreeningInputError):
        embedding_block(raw, 7, 1.0)
    bad = raw.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ScreeningInputError):
        embedding_block(bad, 6, 1.0)


def test_features_append_an_embedding_block_only_when_the_config_names_one():
    import numpy as np

    records, labels = _synthetic(60, 6, seed=4)
    plain = build_features(records)
    # an "embedding" that gives the includes away: the model must be able to use it
    vectors = np.array([[1.0, 0.0, 0.2] if v else [0.0, 1.0, 0.2] for v in labels])
    config = FeatureConfig(embedding="test-3", embedding_weight=1.0)
    with pytest.raises(ScreeningInputError):
        build_features(records, config)  # named but not given
    f = build_features(records, config, embedding=vectors)
    assert f.embedding_columns == 3 and plain.embedding_columns == 0
    assert f.matrix.shape == (60, plain.matrix.shape[1] + 3)
    assert build_features(records, embedding=vectors).matrix.shape == plain.matrix.shape
    assert config.to_dict()["embedding"] == "test-3"
    assert FeatureConfig().to_dict()["embedding_weight"] == 0.0
    ranker = Ranker(f, seed=1, config=ModelConfig(features=config))
    ranker.decide(labels.index(True), True)
    ranker.decide(labels.index(False), False)
    assert ranker.retrain()
    top = ranker.ranking(limit=sum(labels) - 1)
    assert all(labels[i] for i in top)


def _giveaway(labels):
    import numpy as np

    rng = np.random.default_rng(7)
    noise = rng.normal(scale=0.3, size=(len(labels), 4))
    return noise + np.array([[2.0, 0, 0, 0] if v else [0, 2.0, 0, 0] for v in labels])


def test_an_embedding_read_alone_ignores_the_text():
    import numpy as np

    from litdesk.core.screening import feature_scores

    records, labels = _synthetic(80, 8, seed=5)
    vectors = _giveaway(labels)
    fc = FeatureConfig(embedding="test-4", embedding_centred=False)
    config = ModelConfig(features=fc, embedding_use="alone")
    f = build_features(records, fc, embedding=vectors)
    assert f.text.shape == (80, f.matrix.shape[1] - 4)
    assert f.embedding_matrix.shape == (80, 4)
    # the same rows under other words: the scores do not move
    other = build_features(
        [ScreeningRecord.of(f"unrelated {i}", "words") for i in range(80)], fc, embedding=vectors
    )
    rows = np.array([labels.index(True), labels.index(False), 3, 5, 9, 11])
    y = np.array([int(labels[i]) for i in rows])
    a = feature_scores(config, f, rows, y, 1)
    assert np.allclose(a, feature_scores(config, other, rows, y, 1))
    # and they follow the embedding, which gives the includes away
    top = np.argsort(-a)[: sum(labels)]
    assert all(labels[i] for i in top)
    described = config.to_dict()
    assert described["embedding_use"] == "alone"
    assert described["embedding_svm"] == {"svm_c": 0.067, "include_ratio": 9.724, "max_iter": 5000}


def test_separate_models_average_their_standardised_scores():
    import numpy as np
    from sklearn.svm import LinearSVC

    from litdesk.core.screening import feature_scores, fit_scores

    records, labels = _synthetic(80, 8, seed=6)
    vectors = _giveaway(labels)
    fc = FeatureConfig(embedding="test-4", embedding_centred=False)
    config = ModelConfig(features=fc, embedding_use="separate")
    f = build_features(records, fc, embedding=vectors)
    rows = np.arange(0, 80, 3)
    y = np.array([int(labels[i]) for i in rows])
    assert 0 < y.sum() < len(y)
    text = fit_scores(config, f.text, rows, y, 1)
    pos, neg = float(y.sum()), float(len(y) - y.sum())
    w1 = len(y) / (pos + neg * pos / (9.724 * neg))  # includes weigh 1, averaging 1
    svm = LinearSVC(C=0.067, class_weight={1: w1, 0: w1 * pos / (9.724 * neg)}, max_iter=5000)
    emb = svm.fit(f.embedding_matrix[rows], y).decision_function(f.embedding_matrix)

    def z(v):
        return (v - v.mean()) / v.std()

    assert np.allclose(feature_scores(config, f, rows, y, 1), (z(text) + z(emb)) / 2, atol=1e-6)
    assert config.to_dict()["combination"].startswith("mean of standardised scores")
    # joint (the default use): one model on the whole matrix, as before
    joint = ModelConfig(features=fc)
    assert np.allclose(
        feature_scores(joint, f, rows, y, 1), fit_scores(joint, f.matrix, rows, y, 1)
    )
    with pytest.raises(ScreeningInputError):
        ModelConfig(embedding_use="mixed")  # type: ignore[arg-type]


def test_handover_weighs_the_embedding_less_as_includes_are_labelled():
    import numpy as np

    from litdesk.core.screening import feature_scores, fit_scores, handover_weight

    assert [handover_weight(n) for n in (0, 1, 2, 5, 10)] == [0.5, 0.5, 0.25, 0.1, 0.05]
    assert [handover_weight(n, 2) for n in (1, 2, 10)] == [0.5, 0.125, 0.005]
    records, labels = _synthetic(80, 8, seed=6)
    vectors = _giveaway(labels)
    fc = FeatureConfig(embedding="test-4", embedding_centred=False)
    f = build_features(records, fc, embedding=vectors)
    handover = ModelConfig(features=fc, embedding_use="handover")
    separate = ModelConfig(features=fc, embedding_use="separate")
    alone = ModelConfig(features=fc, embedding_use="alone")

    def z(v):
        return (v - v.mean()) / v.std()

    included = [i for i, v in enumerate(labels) if v]
    excluded = [i for i, v in enumerate(labels) if not v]
    for n in (1, 2, 5):
        rows = np.array(included[:n] + excluded[:20])
        y = np.array([int(labels[i]) for i in rows])
        text = z(fit_scores(handover, f.text, rows, y, 1))
        emb = z(feature_scores(alone, f, rows, y, 1))
        got = feature_scores(handover, f, rows, y, 1)
        assert np.allclose(got, (1 - 0.5 / n) * text + (0.5 / n) * emb, atol=1e-6)
        if n == 1:  # one include: the equal mean of "separate"
            assert np.allclose(got, feature_scores(separate, f, rows, y, 1), atol=1e-9)
        else:  # several: closer to the text model than "separate" is
            assert (
                np.abs(got - text).max()
                < np.abs(feature_scores(separate, f, rows, y, 1) - text).max()
            )
    faster = ModelConfig(features=fc, embedding_use="handover", handover_power=2)
    assert faster.to_dict()["combination"].endswith("w = 0.5 / includes^2")
    with pytest.raises(ScreeningInputError):
        ModelConfig(embedding_use="handover", handover_power=0)
