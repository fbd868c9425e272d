"""Screening prioritisation (active learning): text features of title, abstract and subject
terms, a class-weighted linear classifier retrained on the decisions so far, the ranker that orders
the unscreened records by it, the simulation of a labelled set, its metrics (WSS@95,
recall@10%) and stopping guidance (never an automatic stop). Pure logic, no I/O."""

from ._errors import ScreeningInputError
from ._features import FeatureConfig, Features, ScreeningRecord, build_features
from ._metrics import recall_at, recall_curve, screened_to_recall, wss
from ._model import MODEL_KINDS, ModelConfig, fit_scores
from ._ranker import Ranker
from ._simulate import Simulation, default_retrain_every, draw_priors, simulate
from ._stopping import (
    RemainingEstimate,
    StoppingGuidance,
    check_set,
    consecutive_irrelevant,
    estimate_remaining,
    stopping_guidance,
)

__all__ = [
    "MODEL_KINDS",
    "FeatureConfig",
    "Features",
    "ModelConfig",
    "Ranker",
    "RemainingEstimate",
    "ScreeningInputError",
    "ScreeningRecord",
    "Simulation",
    "StoppingGuidance",
    "build_features",
    "check_set",
    "consecutive_irrelevant",
    "default_retrain_every",
    "draw_priors",
    "estimate_remaining",
    "fit_scores",
    "recall_at",
    "recall_curve",
    "screened_to_recall",
    "simulate",
    "stopping_guidance",
    "wss",
]
