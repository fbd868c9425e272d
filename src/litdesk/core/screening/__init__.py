"""Screening prioritisation (active learning): text features of title, abstract and subject
terms, a class-weighted linear classifier retrained on the decisions so far, the ranker that orders
the unscreened records by it, the simulation of a labelled set, its metrics (WSS@95,
recall@10%) and stopping guidance (never an automatic stop); the screening workflow's pure
parts: decisions as an append-only history with blind pairs, conflicts and resolutions,
agreement (Cohen's kappa), PRISMA 2020 counts (Markdown, CSV, SVG) and decisions read from
other tools' files. Pure logic, no I/O."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._agreement import Agreement, AgreementPoint, PairAgreement, agreement, pair_agreement
    from ._decisions import (
        STAGES,
        VERDICTS,
        ConflictPolicy,
        Decision,
        DecisionHistory,
        DecisionInputError,
        Outcome,
        Stage,
        Verdict,
    )
    from ._errors import ScreeningInputError
    from ._exchange import (
        DECISION_FORMATS,
        DecisionsFileError,
        DecisionsFormat,
        ImportedDecision,
        ImportedDecisions,
        parse_decisions,
        parse_verdict,
    )
    from ._features import (
        FeatureConfig,
        Features,
        ScreeningRecord,
        build_features,
        embedding_block,
    )
    from ._labels import (
        ASREVIEW_NOTE_LABELS,
        LABEL_WORDS,
        Label,
        asreview_note_label,
        parse_label,
    )
    from ._metrics import recall_at, recall_curve, screened_to_recall, wss
    from ._model import (
        DEFAULT_MODEL,
        EMBEDDING_USES,
        HANDOVER_MODEL,
        MODEL_KINDS,
        MODEL_NAMES,
        SVM_MODEL,
        ModelConfig,
        feature_scores,
        fit_scores,
        handover_weight,
        named_model,
        pseudo_exclude_rows,
    )
    from ._prisma import (
        BOXES,
        PrismaCheck,
        PrismaFlow,
        PrismaInputError,
        PrismaRound,
        SourceCount,
        prisma_round,
    )
    from ._prisma_svg import prisma_svg, text_width, wrap
    from ._ranker import Ranker
    from ._rayyan import RayyanNotes, RayyanNotesError, parse_rayyan_notes, rayyan_ris_records
    from ._simulate import Simulation, default_retrain_every, draw_priors, simulate
    from ._stopping import (
        RemainingEstimate,
        StoppingGuidance,
        check_sample,
        check_set,
        consecutive_irrelevant,
        estimate_remaining,
        stopping_guidance,
    )

__all__ = [
    "DEFAULT_MODEL",
    "EMBEDDING_USES",
    "HANDOVER_MODEL",
    "MODEL_NAMES",
    "SVM_MODEL",
    "named_model",
    "BOXES",
    "DECISION_FORMATS",
    "MODEL_KINDS",
    "STAGES",
    "VERDICTS",
    "Agreement",
    "AgreementPoint",
    "ConflictPolicy",
    "Decision",
    "DecisionHistory",
    "DecisionInputError",
    "DecisionsFileError",
    "RayyanNotes",
    "RayyanNotesError",
    "DecisionsFormat",
    "ImportedDecision",
    "ImportedDecisions",
    "Outcome",
    "PairAgreement",
    "PrismaCheck",
    "PrismaFlow",
    "PrismaInputError",
    "PrismaRound",
    "SourceCount",
    "Stage",
    "Verdict",
    "agreement",
    "pair_agreement",
    "parse_decisions",
    "parse_rayyan_notes",
    "parse_verdict",
    "rayyan_ris_records",
    "prisma_round",
    "prisma_svg",
    "text_width",
    "wrap",
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
    "embedding_block",
    "check_sample",
    "check_set",
    "consecutive_irrelevant",
    "default_retrain_every",
    "draw_priors",
    "estimate_remaining",
    "feature_scores",
    "handover_weight",
    "pseudo_exclude_rows",
    "fit_scores",
    "recall_at",
    "recall_curve",
    "screened_to_recall",
    "simulate",
    "stopping_guidance",
    "wss",
    "ASREVIEW_NOTE_LABELS",
    "LABEL_WORDS",
    "Label",
    "asreview_note_label",
    "parse_label",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
