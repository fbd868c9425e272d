"""Candidate prioritisation models on the development seeds (issue 28; branch scr28).

litdesk only (no ASReview): each candidate's :func:`litdesk.core.screening.simulate` on the
labelled sets of $LITDESK_FIXTURES/screening, with the paired priors the screening bench uses
(:func:`draw_priors`), one JSON line per set and seed (WSS@95, recall@10%, retrains, wall and
CPU seconds). Develop on seeds 6–10; seeds 1–5 are for the final default's one run beside
ASReview in ``bench/screening_bench.py``.

    PYTHONPATH=src .venv/bin/python bench/screening_candidates.py CANDIDATE \\
        [--sets a,b] [--seeds 6,7,8,9,10]

Candidates (declared in bench/RESULTS.md before they were run; no setting fitted to a set):

* ``c0`` — the default model, the default retrain schedule;
* ``c1`` — the TF-IDF block plus wordllama's 256-dimension embedding of title + abstract
  (unit rows, weight 1.0) in the same SVM;
* ``c1c`` — ``c1`` with the embedding centred on the set's mean first;
* ``c3`` — reciprocal-rank fusion (k 60) of the TF-IDF SVM and an SVM on the embedding alone;
* ``c4`` — ``c0`` retrained after every decision.

Fourth round (branch scr28d), USE-m3 sentence embeddings (512 dimensions, unit rows, not
centred) of title + abstract:

* ``e0`` — the default (as ``c0``);
* ``e1`` — a linear SVM on the USE-m3 block alone, ASReview's elas_h3 settings;
* ``e2`` — the TF-IDF block and the USE-m3 block in one SVM (elas_u4's settings);
* ``e3`` — the TF-IDF SVM and the USE-m3 SVM, standardised scores averaged.

Fifth round (branch scr28e), a hand-over between the two models of ``e3``:

* ``f1`` — ``(1 - w)·z(text) + w·z(USE-m3 SVM)``, ``w = 0.5 / n`` for n labelled includes;
* ``f2`` — the same with ``w = 0.5 / n²``.

Seventh round (branch scr28g), pseudo-excludes (Cormack & Grossman's BMI/CAL): at every
training, 100 records drawn at random from those not yet labelled join the excludes:

* ``p1`` — ``e0`` with the pseudo-excludes;
* ``p2`` — ``f1`` (the hand-over) with the same pseudo-excludes in both of its SVMs.

Eighth round (branch scr28h), a floor on the hand-over's embedding weight:

* ``h1`` — ``f1`` with ``w = max(0.5 / n, 0.1)`` (0.1: ``f1``'s own weight at five includes).

``--vectors DIR`` keeps each set's USE-m3 rows in ``DIR/<set>.use.npy`` (computed once,
without labels) so that candidates and seeds share them.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import litdesk.core.screening._ranker as ranker_module
from litdesk.adapters.embeddings import WordLlamaEmbedder
from litdesk.core.screening import (
    FeatureConfig,
    ModelConfig,
    ScreeningRecord,
    build_features,
    default_retrain_every,
    simulate,
)
from litdesk.core.screening._model import _one, _scores
from screening_bench import SETS, load, use_vectors

CANDIDATES = ("c0", "c1", "c1c", "c3", "c4", "e0", "e1", "e2", "e3", "f1", "f2", "p1", "p2", "h1")
USES = {
    "e1": "alone",
    "e2": "joint",
    "e3": "separate",
    "f1": "handover",
    "f2": "handover",
    "p2": "handover",
    "h1": "handover",
}
PSEUDO_EXCLUDES = {"p1": 100, "p2": 100}  # Cormack & Grossman's BMI/CAL, fixed a priori
HANDOVER_FLOORS = {"h1": 0.1}  # f1's weight at five includes, fixed a priori
RRF_K = 60  # Cormack, Clarke & Büttcher 2009


def embed(records: list[ScreeningRecord]) -> Any:
    with tempfile.TemporaryDirectory() as cache:
        return WordLlamaEmbedder(Path(cache)).embed([r.text for r in records])


def rrf_fit_scores(columns: int) -> Any:
    """``fit_scores`` fusing an SVM on the text block (all but the last ``columns``) and one
    on the embedding block (the last ``columns``) by reciprocal rank."""
    from scipy.stats import rankdata

    def fit_scores(config: ModelConfig, features: Any, rows: Any, y: Any, seed: int) -> Any:
        matrix = features.matrix
        text = matrix[:, : matrix.shape[1] - columns].tocsr()
        dense = np.asarray(matrix[:, matrix.shape[1] - columns :].todense())
        fused = np.zeros(matrix.shape[0])
        for block in (text, dense):
            raw = _scores(_one("svm", config, block[rows], y, seed), block)
            rank = len(raw) - rankdata(raw, method="ordinal") + 1  # 1 = best
            fused += 1.0 / (RRF_K + rank)
        return fused

    return fit_scores


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("candidate", choices=CANDIDATES)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--seeds", default="6,7,8,9,10")
    ap.add_argument("--vectors", default=None, help="folder keeping the USE-m3 rows per set")
    args = ap.parse_args()
    every = (lambda n: 1) if args.candidate == "c4" else default_retrain_every
    for name in args.sets.split(","):
        _, records, labels = load(name)
        features_config = FeatureConfig()
        vectors = None
        if args.candidate in ("c1", "c1c", "c3"):
            vectors = embed(records)
            features_config = FeatureConfig(
                embedding="wordllama-l2-256",
                embedding_weight=1.0,
                embedding_centred=args.candidate == "c1c",
            )
        if args.candidate in USES:
            vectors = use_vectors(name, records, args.vectors)
            features_config = FeatureConfig(
                embedding="use-m3-512", embedding_weight=1.0, embedding_centred=False
            )
        features = build_features(records, features_config, embedding=vectors)
        config = ModelConfig(
            name=f"scr28-{args.candidate}",
            features=features_config,
            embedding_use=USES.get(args.candidate, "joint"),  # type: ignore[arg-type]
            handover_power=2 if args.candidate == "f2" else 1,
            pseudo_excludes=PSEUDO_EXCLUDES.get(args.candidate, 0),
            handover_floor=HANDOVER_FLOORS.get(args.candidate, 0.0),
        )
        if args.candidate == "c3":
            ranker_module.feature_scores = rrf_fit_scores(features.embedding_columns)  # type: ignore[assignment]
        for seed in (int(s) for s in args.seeds.split(",")):
            t, c = time.perf_counter(), time.process_time()
            sim = simulate(features, labels, seed=seed, config=config, retrain_every=every)
            print(
                json.dumps(
                    {
                        "candidate": args.candidate,
                        "set": name,
                        "seed": seed,
                        "wss95": round(sim.wss95, 4),
                        "r10": round(sim.recall_at_10, 4),
                        "retrains": sim.retrains,
                        "wall_s": round(time.perf_counter() - t, 1),
                        "cpu_s": round(time.process_time() - c, 1),
                    }
                ),  # fmt: skip
                flush=True,
            )


if __name__ == "__main__":
    sys.exit(main())
