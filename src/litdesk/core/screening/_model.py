"""The classifier that scores unscreened records: one or more linear models on the feature
matrix, each trained with the classes weighted (``include_ratio``, weights averaging 1 per
labelled record as ASReview's ``balanced`` balancer does), their scores combined by mean rank.

Models (all from scikit-learn, deterministic for a seed):

* ``logistic`` — L2 logistic regression, class-weighted;
* ``nb`` — multinomial naive Bayes with the same class weights as sample weights;
* ``svm`` — linear SVM (squared hinge), class-weighted.

The default (``litdesk-svm-2``) is the SVM with ASReview 3's default settings (its ``elas_u4``:
C 0.11, ratio 9.8, weights averaging 1, TF-IDF of words and word pairs). The SVM + naive Bayes
ensemble (``classifiers=("svm", "nb")``, mean rank) found the includes sooner on one set and
later on two (bench/RESULTS.md, 2026-12-05), so it is not the default. An embedding block
(see :mod:`._features`) is read in the same matrix (``joint``), alone, or by its own SVM
beside the text model (``separate``); with USE-m3 each of the three found Oud's includes later
than the default on the development seeds (bench/RESULTS.md, branch scr28d), so none is.
``handover`` (the embedding's weight shrinking as includes are labelled; ``litdesk-handover``,
:func:`named_model`) beat the default on every set over development seeds 6–20 (branch
scr28f) but on the held-out seeds 1–5 fell short of ASReview on Jeyaraman's WSS@95 and
Beta-blockers' recall@10% by a few records, so it is a Study's choice, not the default.
``handover_floor`` keeps the embedding's weight from falling below a floor (``w = max(0.5 / n,
floor)``). With floor 0.1 (the eighth round's H1, branch scr28h) it found Jeyaraman's last
includes sooner but Beta-blockers' far later than the default (WSS@95 −0.07 on seeds 6–7), so it
was stopped early and is 0 (off) in every named model.

``pseudo_excludes`` (K > 0) adds, at every training, K records drawn at random from those not
yet labelled to the exclude class (Cormack & Grossman's BMI/CAL, SIGIR 2015: "100 randomly
selected documents ... temporarily labelled not relevant"); the draw is seeded by the seed and
the number of labelled records (:func:`pseudo_exclude_rows`), the drawn records' labels are
never read, and they stay unlabelled (never shown as decided, never counted). With K = 100
neither the TF-IDF SVM nor the hand-over beat the default on the development seeds (recall@10%
lower on Jeyaraman, both metrics lower on Beta-blockers; bench/RESULTS.md, seventh round,
branch scr28g), so the option is off (0) in every named model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ._errors import ScreeningInputError
from ._features import FeatureConfig, Features

__all__ = [
    "DEFAULT_MODEL",
    "EMBEDDING_USES",
    "HANDOVER_MODEL",
    "MODEL_KINDS",
    "MODEL_NAMES",
    "SVM_MODEL",
    "ModelConfig",
    "feature_scores",
    "fit_scores",
    "handover_weight",
    "named_model",
    "pseudo_exclude_rows",
]

ModelKind = Literal["logistic", "nb", "svm"]
MODEL_KINDS: tuple[ModelKind, ...] = ("logistic", "nb", "svm")
EmbeddingUse = Literal["joint", "alone", "separate", "handover"]
#: how the model reads an embedding block: ``joint`` — one matrix, text and embedding side by
#: side, in the classifiers; ``alone`` — a linear SVM on the embedding only (the text is not
#: read; ASReview's elas_h3 shape); ``separate`` — the classifiers on the text and a linear SVM
#: on the embedding, each one's scores standardised over every record, the two averaged;
#: ``handover`` — as ``separate``, but the embedding's weight is ``0.5 / n ** power`` with n
#: the includes among the labelled records (equal weight with one include, then less and less,
#: never below ``handover_floor``)
EMBEDDING_USES: tuple[EmbeddingUse, ...] = ("joint", "alone", "separate", "handover")


@dataclass(frozen=True, slots=True)
class ModelConfig:
    """The whole prioritisation model: features, classifiers and their settings."""

    name: str = "litdesk-svm-2"
    classifiers: tuple[ModelKind, ...] = ("svm",)
    logistic_c: float = 1.0
    svm_c: float = 0.11
    nb_alpha: float = 0.1
    #: class imbalance: each include weighs 1 and the excludes together weigh 1/``ratio`` of
    #: the includes together (1 = balanced classes; ASReview's default ``balanced`` balancer
    #: with its published ratio 9.8 weighs them the same way)
    include_ratio: float = 9.8
    #: scale the class weights so that they average 1 per labelled record (ASReview's
    #: ``balanced`` balancer does); without it the same C regularises far more strongly
    mean_one_weights: bool = True
    features: FeatureConfig = field(default_factory=FeatureConfig)
    #: how an embedding block is read (see :data:`EMBEDDING_USES`; no block: ignored)
    embedding_use: EmbeddingUse = "joint"
    #: the embedding's own SVM (``alone``, ``separate``): ASReview's published elas_h3
    #: settings (C 0.067, ratio 9.724, at most 5,000 iterations)
    embedding_svm_c: float = 0.067
    embedding_include_ratio: float = 9.724
    embedding_max_iter: int = 5000
    #: ``handover``: the embedding's weight is ``0.5 / n ** handover_power`` (n includes)
    handover_power: int = 1
    #: ``handover``: the embedding's weight never falls below this (0 ≤ floor ≤ 0.5; 0 = off):
    #: ``w = max(0.5 / n ** handover_power, handover_floor)``
    handover_floor: float = 0.0
    #: records not yet labelled added to each training as excludes (0 = none; BMI/CAL: 100),
    #: a fresh draw per training (:func:`pseudo_exclude_rows`), weighed as the excludes
    pseudo_excludes: int = 0

    def __post_init__(self) -> None:
        if not self.classifiers or any(c not in MODEL_KINDS for c in self.classifiers):
            raise ScreeningInputError(
                f"classifiers must be among {', '.join(MODEL_KINDS)}", code="bad_model"
            )
        if self.embedding_use not in EMBEDDING_USES:
            raise ScreeningInputError(
                f"embedding_use must be among {', '.join(EMBEDDING_USES)}", code="bad_model"
            )
        if self.handover_power < 1:
            raise ScreeningInputError("handover_power must be at least 1", code="bad_model")
        if (
            not isinstance(self.handover_floor, int | float)
            or isinstance(self.handover_floor, bool)
            or not 0.0 <= self.handover_floor <= 0.5  # also refuses NaN
        ):
            raise ScreeningInputError(
                "handover_floor must be a number from 0 to 0.5", code="bad_model"
            )
        if (
            not isinstance(self.pseudo_excludes, int)
            or isinstance(self.pseudo_excludes, bool)
            or self.pseudo_excludes < 0
        ):
            raise ScreeningInputError(
                "pseudo_excludes must be a whole number of records, 0 or more", code="bad_model"
            )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "classifiers": list(self.classifiers),
            "combination": "mean rank" if len(self.classifiers) > 1 else "score",
            "class_balance": "includes weigh 1, excludes in total 1/ratio of the includes",
            "include_ratio": self.include_ratio,
            "weights_average_one": self.mean_one_weights,
            "query": "highest score first",
            "features": self.features.to_dict(),
        }
        if "logistic" in self.classifiers:
            out["logistic_c"] = self.logistic_c
        if "svm" in self.classifiers:
            out["svm_c"] = self.svm_c
        if "nb" in self.classifiers:
            out["nb_alpha"] = self.nb_alpha
        if self.pseudo_excludes:
            out["pseudo_excludes"] = {
                "records": self.pseudo_excludes,
                "drawn_from": "records not yet labelled, uniformly, without replacement, "
                "afresh at each training (seeded by the seed and the number labelled)",
                "counted_as": "excludes in training only (never decisions)",
            }
        if self.features.embedding:
            out["embedding_use"] = self.embedding_use
            if self.embedding_use != "joint":
                out["embedding_svm"] = {
                    "svm_c": self.embedding_svm_c,
                    "include_ratio": self.embedding_include_ratio,
                    "max_iter": self.embedding_max_iter,
                }
            if self.embedding_use == "separate":
                out["combination"] = "mean of standardised scores (text, embedding)"
            if self.embedding_use == "handover":
                weight = f"0.5 / includes^{self.handover_power}"
                if self.handover_floor > 0:
                    weight = f"max({weight}, {self.handover_floor:g})"
                    out["handover_floor"] = self.handover_floor
                out["combination"] = (
                    f"standardised scores, (1 - w) text + w embedding, w = {weight}"
                )
        return out


#: the TF-IDF SVM (ASReview's elas_u4 settings): ``ModelConfig()``
SVM_MODEL: Final = "litdesk-svm-2"
#: the fifth round's F1: the default's TF-IDF SVM and an SVM on USE-m3 rows of title +
#: abstract (unit length, not centred; elas_h3's settings), standardised scores weighed
#: ``1 - w`` and ``w = 0.5 / n`` for n labelled includes (bench/RESULTS.md, sixth round)
HANDOVER_MODEL: Final = "litdesk-handover"
MODEL_NAMES: Final = (SVM_MODEL, HANDOVER_MODEL)
#: the model a Study's screening and ``simulate`` use unless told otherwise
DEFAULT_MODEL: Final = SVM_MODEL


def named_model(name: str) -> ModelConfig:
    """The model called ``name`` (one of :data:`MODEL_NAMES`)."""
    if name == SVM_MODEL:
        return ModelConfig()
    if name == HANDOVER_MODEL:
        return ModelConfig(
            name=HANDOVER_MODEL,
            features=FeatureConfig(
                embedding="use-m3-512", embedding_weight=1.0, embedding_centred=False
            ),
            embedding_use="handover",
        )
    raise ScreeningInputError(
        f"model must be among {', '.join(MODEL_NAMES)}, not {name!r}", code="bad_model"
    )


def pseudo_exclude_rows(unlabelled: Any, count: int, seed: int, labelled: int) -> Any:
    """``count`` rows drawn uniformly without replacement from ``unlabelled`` (all of them
    when fewer), by a generator seeded with ``(seed, labelled)``: the same draw for the same
    seed and number of labelled records, a fresh one at each further training."""
    import numpy as np

    pool = np.asarray(unlabelled, dtype=np.int64)
    if count <= 0 or len(pool) == 0:
        return np.empty(0, dtype=np.int64)
    if count >= len(pool):
        return np.sort(pool)
    rng = np.random.default_rng([seed, labelled])
    return np.sort(rng.choice(pool, size=count, replace=False))


def _class_weights(y: Any, ratio: float, mean_one: bool) -> dict[int, float]:
    positives = float(y.sum())
    negatives = float(len(y) - positives)
    weights = {1: 1.0, 0: positives / (ratio * negatives)}
    if mean_one:
        scale = len(y) / (positives * weights[1] + negatives * weights[0])
        weights = {k: v * scale for k, v in weights.items()}
    return weights


def _one(kind: ModelKind, config: ModelConfig, x: Any, y: Any, seed: int) -> Any:
    """Decision scores of one classifier fitted on ``(x, y)`` (rows of the full matrix)."""
    weights = _class_weights(y, config.include_ratio, config.mean_one_weights)
    if kind == "logistic":
        from sklearn.linear_model import LogisticRegression

        model: Any = LogisticRegression(
            C=config.logistic_c, class_weight=weights, solver="liblinear", random_state=seed
        )
        model.fit(x, y)
        return model
    if kind == "svm":
        from sklearn.svm import LinearSVC

        model = LinearSVC(C=config.svm_c, class_weight=weights, random_state=seed)
        model.fit(x, y)
        return model
    from sklearn.naive_bayes import MultinomialNB

    model = MultinomialNB(alpha=config.nb_alpha)
    import numpy as np

    model.fit(x, y, sample_weight=np.where(y == 1, weights[1], weights[0]))
    return model


def _embedding_svm(config: ModelConfig, x: Any, y: Any, seed: int) -> Any:
    from sklearn.svm import LinearSVC

    weights = _class_weights(y, config.embedding_include_ratio, config.mean_one_weights)
    model = LinearSVC(
        C=config.embedding_svm_c,
        class_weight=weights,
        max_iter=config.embedding_max_iter,
        random_state=seed,
    )
    model.fit(x, y)
    return model


def _standardised(scores: Any) -> Any:
    import numpy as np

    values = np.asarray(scores, dtype=np.float64)
    spread = float(values.std())
    if spread <= 1e-12:
        return np.zeros_like(values)
    return (values - values.mean()) / spread


def feature_scores(
    config: ModelConfig,
    features: Features,
    rows: Any,
    y: Any,
    seed: int,
    *,
    canonical: bool = False,
) -> Any:
    """Scores of every record of ``features`` after training on ``rows`` (labels ``y``),
    reading an embedding block as ``config.embedding_use`` says (no block: the text model).
    ``canonical``: take the training rows from the set's canonical copy
    (:meth:`Features.canonical`: the same scores, less time per fit, a second copy of the
    matrix kept with ``features``) — for a run of many retrains such as a simulation."""
    import warnings

    import numpy as np
    from sklearn.exceptions import ConvergenceWarning

    if features.embedding_matrix is None or config.embedding_use == "joint":
        train = features.canonical(features.matrix) if canonical else None
        return fit_scores(config, features.matrix, rows, y, seed, train=train)
    dense = features.embedding_matrix
    with warnings.catch_warnings():  # max_iter bounds the time; the order is what counts
        warnings.simplefilter("ignore", ConvergenceWarning)
        embedded = _embedding_svm(config, dense[rows], y, seed).decision_function(dense)
    if config.embedding_use == "alone":
        return np.asarray(embedded, dtype=np.float64)
    train = features.canonical(features.text) if canonical else None
    text = fit_scores(config, features.text, rows, y, seed, train=train)
    if config.embedding_use == "separate":
        return (_standardised(text) + _standardised(embedded)) / 2.0
    weight = handover_weight(int(np.asarray(y).sum()), config.handover_power, config.handover_floor)
    return (1.0 - weight) * _standardised(text) + weight * _standardised(embedded)


def handover_weight(includes: int, power: int = 1, floor: float = 0.0) -> float:
    """The embedding model's weight under ``handover``: ``0.5 / n ** power`` for ``n``
    included records among the labelled ones (at least 1), never below ``floor``."""
    return max(0.5 / float(max(1, includes) ** power), floor)


def _scores(model: Any, matrix: Any) -> Any:
    if hasattr(model, "decision_function"):
        return model.decision_function(matrix)
    log_proba = model.predict_log_proba(matrix)
    return log_proba[:, 1] - log_proba[:, 0]


def fit_scores(
    config: ModelConfig, matrix: Any, rows: Any, y: Any, seed: int, *, train: Any = None
) -> Any:
    """Train every classifier of ``config`` on ``matrix[rows]`` with labels ``y`` (0/1, both
    present) and return one combined score per row of ``matrix`` (higher = more likely
    included). ``train``: ``matrix`` in scipy's canonical format (:meth:`Features.canonical`),
    to take the training rows from (the same input, without a sort per fit)."""
    import numpy as np
    from scipy.stats import rankdata

    if train is None:
        x = matrix[rows]
    else:
        x = train[rows]
        x.has_canonical_format = True  # rows of a canonical matrix are canonical
    combined: Any = None
    for kind in config.classifiers:
        raw = _scores(_one(kind, config, x, y, seed), matrix)
        part = raw if len(config.classifiers) == 1 else rankdata(raw) / len(raw)
        combined = part if combined is None else combined + part
    return np.asarray(combined, dtype=np.float64)
