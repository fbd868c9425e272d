"""Screening through the service (issue 28): next-record latency and the retrain job.

On a real Study (``cohen2006_BetaBlockers``: 2,072 records imported as its CSV) and on a
Study of 10,000 records (the three labelled sets' records repeated, copies without
identifiers and with a distinct title suffix, written to a temporary folder), over SQLite:

* next-record latency — ``app.screening.next`` (ranked order, the scores in force) timed in
  the reviewer's loop: next, then decide it (the decision is the set's own label: Cohen's
abstract-stage label, the final label for the others), while the
  app's job runner retrains in the background after every decision (one job per Study and
  stage; ``next`` never waits for it). p50 / p95 / max in ms over ``--decisions`` calls;
* the retrain job's work after one more decision (labels from the history, fit on every
  decision so far, score every item, store the scores with the next version), the feature
  matrix already fitted (median / max of 5), and the first fit of the features once.

    PYTHONPATH=src .venv/bin/python bench/screening_latency_bench.py [--decisions 200]
        [--big 10000]

Labels only stand in for a reviewer's decisions (no tuning reads them).
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from litdesk import Settings
from litdesk.core.screening import build_features
from litdesk.services.app import App, open_app_sync
from litdesk.services.screening import (
    DecideRequest,
    NextRequest,
    ProgressRequest,
    screening_record,
)
from litdesk.services.studies import CreateStudyRequest, ImportRequest

SETS = ("synergy_Oud_2018", "synergy_Jeyaraman_2020", "cohen2006_BetaBlockers")
TA = "title_abstract"


def fixtures() -> Path:
    root = os.environ.get("LITDESK_FIXTURES")
    if not root:
        sys.exit("set LITDESK_FIXTURES")
    return Path(root) / "screening"


def rows_of(name: str) -> list[dict[str, str]]:
    with (fixtures() / name / f"{name}.csv").open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def big_csv(path: Path, n: int) -> list[bool]:
    """``n`` records from the three sets, repeated: copies without DOI/PMID and with a
    distinct title suffix. Returns the labels in file order."""
    base = [r for name in SETS for r in rows_of(name)]
    fields = ["title", "abstract", "year", "authors", "journal", "doi", "pmid", "label_included"]
    labels: list[bool] = []
    with path.open("w", encoding="utf-8", newline="") as fh:
        out = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        out.writeheader()
        for k in range(n):
            r = dict(base[k % len(base)])
            copy = k // len(base)
            if copy:
                r["title"] = f"{r['title']} (replicate {copy}, record {k})"
                r["doi"] = r["pmid"] = ""
            out.writerow(r)
            labels.append(r["label_included"] == "1")
    return labels


def study(app: App, name: str, path: Path) -> tuple[str, float]:
    t = time.perf_counter()
    sid = app.studies.create_study(CreateStudyRequest(name, None), owner=app.owner).id
    app.studies.import_files(ImportRequest(study=sid, paths=(str(path),)), owner=app.owner)
    return sid, time.perf_counter() - t


def position(key: str) -> int:
    return int(key.rsplit(":", 1)[1])


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def screen(app: App, sid: str, labels: list[bool], decisions: int) -> tuple[dict[str, float], str]:
    """The reviewer's loop with the background runner retraining; next() timed."""
    s, o = app.screening, app.owner
    t = time.perf_counter()
    first = s.next(NextRequest(sid), owner=o)
    cold = time.perf_counter() - t
    times: list[float] = []
    cpu: list[float] = []  # CPU time of the calling thread (less sensitive to the host's load)
    card = first
    decided = 0
    while decided < decisions and not card.done:
        assert card.record_key is not None
        verdict = "include" if labels[position(card.record_key)] else "exclude"
        s.decide(DecideRequest(sid, TA, card.record_key, verdict, source="api"), owner=o)
        decided += 1
        t, c = time.perf_counter(), time.thread_time()
        card = s.next(NextRequest(sid), owner=o)
        times.append(time.perf_counter() - t)
        cpu.append(time.thread_time() - c)
    progress = s.progress(ProgressRequest(sid), owner=o)
    figures = {
        "cold_first_ms": cold * 1000,
        "p50_ms": pct(times, 0.5) * 1000,
        "p95_ms": pct(times, 0.95) * 1000,
        "max_ms": max(times) * 1000,
        "cpu_p50_ms": pct(cpu, 0.5) * 1000,
        "cpu_p95_ms": pct(cpu, 0.95) * 1000,
        "calls": len(times),
        "found": progress.mine["included"],
        "model_version": float(progress.model.version or 0),
        "model_trained_on": float(progress.model.trained_on or 0),
    }
    return figures, card.order.label


def retrain(app: App, sid: str) -> dict[str, float]:
    """The retrain job's work after one more decision, the features already fitted."""
    r = app.screening.retrainer
    screen_set = app.screening.cache.screen_set(sid)
    t = time.perf_counter()
    build_features([screening_record(screen_set, i) for i in range(len(screen_set.groups))])
    features_s = time.perf_counter() - t  # what the job's first run on a set costs
    times = []
    for _ in range(5):
        t = time.perf_counter()
        r.train(sid, TA)
        times.append(time.perf_counter() - t)
    return {"features_s": features_s, "median_s": statistics.median(times), "max_s": max(times)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--decisions", type=int, default=200)
    ap.add_argument("--big", type=int, default=10_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp) / "data")
        cohen = fixtures() / "cohen2006_BetaBlockers" / "cohen2006_BetaBlockers.csv"
        # title/abstract decisions: the review's abstract-stage labels
        cohen_labels = [
            r["label_abstract_included"] == "1" for r in rows_of("cohen2006_BetaBlockers")
        ]
        big_path = Path(tmp) / "big.csv"
        big_labels = big_csv(big_path, args.big)
        with open_app_sync(settings) as app:
            app.start_workers()  # the background retrain, as a server runs it
            for name, path, labels in (
                ("cohen2006_BetaBlockers", cohen, cohen_labels),
                (f"{args.big:,} records", big_path, big_labels),
            ):
                sid, import_s = study(app, name, path)
                items = len(app.screening.cache.screen_set(sid, reconcile=True).groups)
                loop, label = screen(app, sid, labels, args.decisions)
                rt = retrain(app, sid)
                print(
                    f"{name}: {items:,} items to screen (import {import_s:.1f} s); "
                    f"next record over {loop['calls']:.0f} decisions with background retrains: "
                    f"p50 {loop['p50_ms']:.1f} ms, p95 {loop['p95_ms']:.1f} ms, max "
                    f"{loop['max_ms']:.1f} ms (CPU of the calling thread: p50 {loop['cpu_p50_ms']:.1f} "
                    f"ms, p95 {loop['cpu_p95_ms']:.1f} ms; first call, cold cache: "
                    f"{loop['cold_first_ms']:.0f} ms); order at the end: {label}; "
                    f"includes found {loop['found']:.0f}. Retrain job after a decision "
                    f"(the features, fitted once per set: {rt['features_s']:.1f} s): median "
                    f"{rt['median_s']:.2f} s, max {rt['max_s']:.2f} s; load average "
                    f"{os.getloadavg()[0]:.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
