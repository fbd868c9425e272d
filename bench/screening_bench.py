"""Screening prioritisation beside ASReview LAB (issue 28).

On the three labelled sets of $LITDESK_FIXTURES/screening, seeds 1–5, in one run:

* ASReview LAB (its default model) — ``asreview simulate FILE --prior-idx I E --seed S
  --n-stop -1 -o PROJECT`` with the priors litdesk draws for seed S (1 included, 1 excluded:
  :func:`litdesk.core.screening.draw_priors`), so both tools start from the same two records
  and per-seed figures are paired; its order is the
  ``results`` table of the project file (``record_id`` is the 0-based row);
* litdesk — :func:`litdesk.core.screening.simulate` with the same protocol (1 included and 1
  excluded prior drawn by the seed, then the model's order until every record is labelled);

both scored by the same functions (WSS@95, recall@10% as PROVENANCE.md defines them). Then
litdesk's re-rank time for 10,000 records after a decision (retrain on the decisions so far +
score every record + order the unscreened ones).

    .venv/bin/python bench/screening_bench.py [--seeds 1,2,3,4,5] [--sets a,b] [--jobs N]
        [--reuse] [--skip-asreview] [--model default|handover|handover2|p1|p2|h1 [--vectors DIR]]

``--model`` chooses litdesk's model (default: ``default``, the default ``ModelConfig()``):
``handover`` is the fifth round's F1 — the TF-IDF SVM and an SVM on USE-m3 embeddings of title
+ abstract, standardised scores weighed ``1 - w`` and ``w = 0.5 / n`` (n labelled includes);
``handover2`` the same with ``w = 0.5 / n²``; ``p1`` the default and ``p2`` ``handover`` with
100 pseudo-excludes at each training (the seventh round's candidates: records not yet labelled
drawn at random and trained as excludes, Cormack & Grossman's BMI/CAL); ``h1`` is ``handover``
with the embedding's weight never below 0.1 (``w = max(0.5 / n, 0.1)``, the eighth round). The
USE-m3 rows of the embedding models are computed once per set (``UseEmbedder``, no label read)
and kept in ``--vectors DIR/<set>.use.npy`` when given.

ASReview is not a dependency of litdesk: it lives in the bench's own environment
``bench/.venv-asreview`` (created here with ``python -m venv`` + pip from PyPI when missing,
or by ``make bench-env``; git-ignored). Project files go to ``bench/out/asreview/``; with
``--reuse`` a project file already there for the same set and seed (made by this script's
same command) is read instead of simulating again — the output says which were reused.
"""

from __future__ import annotations

import argparse
import csv
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import numpy as np

from litdesk.core.screening import (
    FeatureConfig,
    Features,
    ModelConfig,
    Ranker,
    ScreeningRecord,
    build_features,
    draw_priors,
    recall_at,
    simulate,
    wss,
)

HERE = Path(__file__).parent
VENV = HERE / ".venv-asreview"
OUT = HERE / "out" / "asreview"
ASREVIEW_VERSION = "3.0.8"
SETS = ("synergy_Oud_2018", "synergy_Jeyaraman_2020", "cohen2006_BetaBlockers")
MODELS = ("default", "handover", "handover2", "p1", "p2", "h1")
PSEUDO_EXCLUDES = 100  # p1, p2: Cormack & Grossman's BMI/CAL, fixed a priori
HANDOVER_FLOOR = 0.1  # h1: the hand-over's own weight at five includes, fixed a priori
USE_FEATURES = FeatureConfig(embedding="use-m3-512", embedding_weight=1.0, embedding_centred=False)


def fixtures() -> Path:
    root = os.environ.get("LITDESK_FIXTURES")
    if not root:
        sys.exit("set LITDESK_FIXTURES to the shared fixtures folder")
    return Path(root) / "screening"


def load(name: str) -> tuple[Path, list[ScreeningRecord], list[bool]]:
    path = fixtures() / name / f"{name}.csv"
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    records = [ScreeningRecord.of(r["title"], r["abstract"], r.get("mesh_terms")) for r in rows]
    return path, records, [r["label_included"].strip() == "1" for r in rows]


def use_vectors(name: str, records: list[ScreeningRecord], folder: str | None) -> np.ndarray:
    """USE-m3 rows of the set's title + abstract (kept in ``folder`` when given)."""
    from litdesk.adapters.embeddings import UseEmbedder

    path = Path(folder) / f"{name}.use.npy" if folder else None
    if path is not None and path.exists():
        return np.asarray(np.load(path))
    vectors = np.asarray(UseEmbedder().embed([r.text for r in records]))
    if path is not None:
        np.save(path, vectors)
    return vectors


def model_config(model: str) -> ModelConfig:
    """litdesk's model for ``--model`` (``default``: the default ``ModelConfig()``)."""
    if model == "default":
        return ModelConfig()
    if model == "p1":
        return ModelConfig(name="litdesk-p1", pseudo_excludes=PSEUDO_EXCLUDES)
    return ModelConfig(
        name=f"litdesk-{model}",
        features=USE_FEATURES,
        embedding_use="handover",
        handover_power=2 if model == "handover2" else 1,
        pseudo_excludes=PSEUDO_EXCLUDES if model == "p2" else 0,
        handover_floor=HANDOVER_FLOOR if model == "h1" else 0.0,
    )


def model_features(
    model: str, name: str, records: list[ScreeningRecord], folder: str | None
) -> Features:
    config = model_config(model)
    if not config.features.embedding:
        return build_features(records, config.features)
    return build_features(records, config.features, embedding=use_vectors(name, records, folder))


def ensure_asreview() -> Path:
    exe = VENV / "bin" / "asreview"
    if not exe.exists():
        print(f"creating {VENV} with asreview=={ASREVIEW_VERSION} (PyPI)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        pip = [str(VENV / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        subprocess.run([*pip, "--upgrade", "pip"], check=True)
        subprocess.run([*pip, f"asreview=={ASREVIEW_VERSION}"], check=True)
    return exe


def asreview_order(project: Path) -> list[int]:
    """The order ASReview labelled the records in: ``results`` rows in insertion order."""
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(project) as zf:
            zf.extract("results.db", tmp)
        con = sqlite3.connect(Path(tmp) / "results.db")
        try:
            rows = con.execute("SELECT record_id FROM results ORDER BY rowid").fetchall()
        finally:
            con.close()
    return [int(r[0]) for r in rows]


def project_path(name: str, seed: int, priors: tuple[int, ...]) -> Path:
    return OUT / f"{name}-s{seed}-p{'-'.join(str(i) for i in priors)}.asreview"


def run_asreview(
    exe: Path, path: Path, name: str, seed: int, reuse: bool, priors: tuple[int, ...]
) -> tuple[list[int], float, bool]:
    """ASReview's order on ``path`` with litdesk's priors for this seed (``--prior-idx``: the
    same records shown first, in the same order) and ``--seed S``."""
    project = project_path(name, seed, priors)
    if reuse and project.exists():
        return asreview_order(project), 0.0, True
    OUT.mkdir(parents=True, exist_ok=True)
    project.unlink(missing_ok=True)
    cmd = [
        str(exe), "simulate", str(path), "--prior-idx", *(str(i) for i in priors),
        "--seed", str(seed), "--n-stop", "-1", "-o", str(project),
    ]  # fmt: skip
    t = time.perf_counter()
    subprocess.run(  # in OUT: ASReview leaves a cache file in its working folder
        cmd, check=True, cwd=OUT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    order = asreview_order(project)
    if tuple(order[: len(priors)]) != priors:
        raise SystemExit(f"{project}: ASReview did not show the priors {priors} first")
    return order, time.perf_counter() - t, False


def run_litdesk(
    name: str, seed: int, model: str = "default", folder: str | None = None
) -> tuple[float, float, float]:
    """WSS@95, recall@10% and seconds of one litdesk simulation (features included; for an
    embedding model the USE-m3 rows are read from ``folder`` or computed, not timed apart)."""
    _, records, labels = load(name)
    t = time.perf_counter()
    features = model_features(model, name, records, folder)
    sim = simulate(features, labels, seed=seed, config=model_config(model))
    return sim.wss95, sim.recall_at_10, time.perf_counter() - t


def rerank_time(
    records: list[ScreeningRecord],
    labels: list[bool],
    n: int = 10_000,
    model: str = "default",
    vectors: np.ndarray | None = None,
) -> dict[str, float]:
    """Seconds to re-rank ``n`` records after one more decision (median of 5), the features
    fitted once beforehand; ``n`` records made of the three sets' records, repeated with a
    distinct suffix so that the vocabulary keeps growing (an embedding model: each copy keeps
    its original's USE-m3 row, the vectors being computed once per Study, not per re-rank)."""
    recs = [
        ScreeningRecord(f"{r.title} v{k // len(records)}", r.abstract, r.terms)
        for k, r in enumerate(records * (n // len(records) + 1))
    ][:n]
    labs = (labels * (n // len(labels) + 1))[:n]
    config = model_config(model)
    rows = None if vectors is None else np.resize(vectors, (n, vectors.shape[1]))
    t = time.perf_counter()
    features = build_features(recs, config.features, embedding=rows)
    feature_s = time.perf_counter() - t
    ranker = Ranker(features, seed=1, config=config)
    decided = [i for i in range(0, n, 20)]  # 500 decisions so far
    ranker.decide_many((i, labs[i]) for i in decided)
    ranker.retrain()
    times, cpu = [], []
    for i in range(1, 6):
        ranker.decide(i, labs[i])
        t, c = time.perf_counter(), time.process_time()
        ranker.retrain()
        ranker.ranking()
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return {
        "features_s": feature_s,
        "rerank_median_s": statistics.median(times),
        "rerank_max_s": max(times),
        "rerank_cpu_median_s": statistics.median(cpu),
        "rerank_cpu_max_s": max(cpu),
        "load_average": os.getloadavg()[0],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--jobs", type=int, default=1, help="simulations run at once (each tool)")
    ap.add_argument("--reuse", action="store_true", help="read ASReview project files already made")
    ap.add_argument("--skip-asreview", action="store_true")
    ap.add_argument("--model", choices=MODELS, default="default", help="litdesk's model")
    ap.add_argument("--vectors", default=None, help="folder keeping the USE-m3 rows per set")
    ap.add_argument(
        "--cached-asreview-only",
        action="store_true",
        help="read only the ASReview project files already made; simulate none (lists the missing)",
    )
    ap.add_argument(
        "--wait",
        type=float,
        default=0.0,
        help="with --cached-asreview-only: wait up to this many seconds for missing project "
        "files that a concurrent run of this script is making",
    )
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    names = [s for s in args.sets.split(",") if s]
    exe = None if args.skip_asreview else ensure_asreview()
    print(f"screening bench: sets {', '.join(names)}; seeds {seeds}; litdesk model {args.model}: "
          f"{model_config(args.model).to_dict()}", flush=True)  # fmt: skip

    # litdesk first (every set and seed at once), then the peer
    t0 = time.perf_counter()
    jobs = [(n, s) for n in names for s in seeds]
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        done = pool.map(
            run_litdesk,
            *zip(*jobs, strict=True),
            [args.model] * len(jobs),
            [args.vectors] * len(jobs),
        )
        results = dict(zip(jobs, done, strict=True))
    print(f"litdesk: {len(jobs)} simulations in {time.perf_counter() - t0:.0f} s", flush=True)

    peer: dict[tuple[str, int], tuple[list[int], float, bool]] = {}
    if exe is not None:
        jobs = [(n, s) for n in names for s in seeds]
        if args.cached_asreview_only:
            deadline = time.monotonic() + args.wait
            while time.monotonic() < deadline and not all(
                project_path(*j, draw_priors(load(j[0])[2], j[1])).exists() for j in jobs
            ):
                time.sleep(10)
            missing = [
                j for j in jobs
                if not project_path(*j, draw_priors(load(j[0])[2], j[1])).exists()
            ]  # fmt: skip
            print(f"ASReview project files missing (not simulated): {missing}", flush=True)
            jobs = [j for j in jobs if j not in missing]
            args.reuse = True
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = {
                job: pool.submit(
                    run_asreview,
                    exe,
                    fixtures() / job[0] / f"{job[0]}.csv",
                    *job,
                    args.reuse,
                    draw_priors(load(job[0])[2], job[1]),
                )
                for job in jobs
            }
            for job, fut in futures.items():
                peer[job] = fut.result()
        reused = sum(1 for v in peer.values() if v[2])
        print(
            f"ASReview {ASREVIEW_VERSION} (elas_u4 default): {len(peer)} simulations, {reused} reused from {OUT}"
        )

    all_records: list[ScreeningRecord] = []
    all_labels: list[bool] = []
    all_vectors: list[np.ndarray] = []
    rows = []
    for name in names:
        _, records, labels = load(name)
        all_records += records
        all_labels += labels
        if model_config(args.model).features.embedding:
            all_vectors.append(use_vectors(name, records, args.vectors))
        ours = [results[(name, seed)] for seed in seeds]
        peer_seeds = [seed for seed in seeds if (name, seed) in peer]
        ours_w = [o[0] for o in ours]
        ours_r = [o[1] for o in ours]
        ours_t = [o[2] for o in ours]
        theirs_w, theirs_r = [], []
        for seed in seeds:
            if (name, seed) in peer:
                order = peer[(name, seed)][0]
                theirs_w.append(wss(order, labels))
                theirs_r.append(recall_at(order, labels))
        row = {
            "set": name, "n": len(labels), "included": sum(labels),
            "litdesk_wss95": statistics.mean(ours_w), "litdesk_r10": statistics.mean(ours_r),
            "litdesk_run_s": statistics.mean(ours_t),
            "litdesk_wss95_seeds": ours_w, "asreview_wss95_seeds": theirs_w,
            "asreview_seeds": peer_seeds,
            "litdesk_wss95_on_asreview_seeds": statistics.mean(
                results[(name, s)][0] for s in peer_seeds
            ) if peer_seeds else None,
            "litdesk_r10_on_asreview_seeds": statistics.mean(
                results[(name, s)][1] for s in peer_seeds
            ) if peer_seeds else None,
        }  # fmt: skip
        if theirs_w:
            row |= {
                "asreview_wss95": statistics.mean(theirs_w),
                "asreview_r10": statistics.mean(theirs_r),
            }
        rows.append(row)
        print(row, flush=True)

    print()
    print(
        "| set | N | incl. | litdesk WSS@95 | ASReview WSS@95 | ratio | litdesk R@10% | ASReview R@10% | ratio |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        a_w, a_r = r.get("asreview_wss95"), r.get("asreview_r10")
        print(
            f"| {r['set']} | {r['n']} | {r['included']} | {r['litdesk_wss95']:.3f} | "
            + (f"{a_w:.3f} | {r['litdesk_wss95'] / a_w:.3f} | " if a_w else "– | – | ")
            + f"{r['litdesk_r10']:.3f} | "
            + (f"{a_r:.3f} | {r['litdesk_r10'] / a_r:.3f} |" if a_r else "– | – |")
        )
    if all("asreview_wss95" in r for r in rows):
        for key in ("wss95", "r10"):
            ours = statistics.mean(r[f"litdesk_{key}"] for r in rows)
            theirs = statistics.mean(r[f"asreview_{key}"] for r in rows)
            every = all(r[f"litdesk_{key}"] >= r[f"asreview_{key}"] for r in rows)
            print(
                f"mean over sets {key}: litdesk {ours:.3f}, ASReview {theirs:.3f}, ratio {ours / theirs:.3f}; "
                f"at least ASReview's on every set: {'yes' if every else 'no'}; "
                f"higher on average: {'yes' if ours > theirs else 'no'}"
            )
        for r in rows:
            pairs = zip(r["litdesk_wss95_seeds"], r["asreview_wss95_seeds"], strict=False)
            print(f"{r['set']} WSS@95 per seed (litdesk / ASReview, same priors): "
                  + ", ".join(f"{a:.3f}/{b:.3f}" for a, b in pairs))  # fmt: skip
    timing = rerank_time(
        all_records,
        all_labels,
        model=args.model,
        vectors=np.vstack(all_vectors) if all_vectors else None,
    )
    print(
        f"re-rank 10,000 records after a decision (500 decided): median {timing['rerank_median_s']:.3f} s, "
        f"max {timing['rerank_max_s']:.3f} s; CPU median {timing['rerank_cpu_median_s']:.3f} s, "
        f"max {timing['rerank_cpu_max_s']:.3f} s; load average {timing['load_average']:.1f} "
        f"(features once: {timing['features_s']:.1f} s)"
    )


if __name__ == "__main__":
    main()
