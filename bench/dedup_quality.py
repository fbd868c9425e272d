"""Deduplication quality on the labelled public datasets (issue: deduplication).

Reads the real files through litdesk's importers (`$LITDESK_FIXTURES/bib/dedup/`), runs
`litdesk.services.dedup` exactly as `litdesk dedup` does, and reports, per dataset,
sensitivity, specificity and precision of

* the automatic decisions (default rules, and with `--merge-corrections`' policy),
* automatic + reviewed decisions, where the reviewer is simulated by the labels
  (every pair in the uncertain band answered correctly): the ceiling a careful human
  reviewer reaches with litdesk's review queue (its size is printed too).

In the same run, bib-dedupe (the peer) on the same records when installed.

Labelling schemes (see the datasets' PROVENANCE.md): haematology and stroke have
duplicate groups (record level as bib-dedupe counts: TP = a removed record that is a
true duplicate); copper has per-record flags on every member of a duplicate set (binary
per record).

    .venv/bin/python bench/dedup_quality.py            # the table of bench/RESULTS.md
    .venv/bin/python bench/dedup_quality.py --misses   # every automatic miss, with evidence
    .venv/bin/python bench/dedup_quality.py --sweep    # operating points (threshold sweep)
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _dedup_data import bib_dedupe_groups
from litdesk.core.dedup import RULES, evaluate_flags, evaluate_groups
from litdesk.services.dedup import DedupReport, dedup_batch
from litdesk.services.imports import import_files


def oracle_review(batch, same, **kw) -> tuple[DedupReport, int]:  # type: ignore[no-untyped-def]
    def reviewer(pair, ra, pa, rb, pb):  # type: ignore[no-untyped-def]
        return "merge" if same(pair.a, pair.b) else "distinct"

    report = dedup_batch(batch, reviewer=reviewer, **kw)
    return report, len(report.decisions)


def merge_band(batch, **kw) -> DedupReport:  # type: ignore[no-untyped-def]
    """Every pair of the review band merged: the most permissive automatic point."""
    return dedup_batch(batch, reviewer=lambda *_: "merge", **kw)


class Grouped:
    """A bib-dedupe record table with its duplicate groups (haematology, stroke)."""

    def __init__(self, root: Path, stem: str) -> None:
        self.batch = import_files([root / f"{stem}__records_pre_merged.csv"])
        records = self.batch.imports[0].records
        by_id = {r.source_id: i for i, r in enumerate(records)}
        with open(root / f"{stem}__merged_record_ids.csv", encoding="utf-8") as fh:
            self.truth = [
                [by_id[x] for x in row["merged_ids"].split(";")] for row in csv.DictReader(fh)
            ]
        self.group_of = {i: gi for gi, g in enumerate(self.truth) for i in g}
        self.n = len(records)

    def same(self, a: int, b: int) -> bool:
        return self.group_of.get(a, -1) == self.group_of.get(b, -2)

    def q(self, report: DedupReport):  # type: ignore[no-untyped-def]
        return self.q_groups(report.result.groups)

    def q_groups(self, groups):  # type: ignore[no-untyped-def]
        return evaluate_groups(self.n, groups, self.truth)

    def positives(self) -> list[tuple[int, int]]:
        return [(a, b) for g in self.truth for a in g for b in g if a < b]


class Flagged:
    """An EndNote XML library with per-record duplicate flags (copper)."""

    def __init__(self, root: Path, name: str) -> None:
        self.batch = import_files([root / name])
        records = self.batch.imports[0].records
        self.flagged = [
            i for i, r in enumerate(records) if r.extras.get("caption") == ["Duplicate"]
        ]
        self.flagged_set = frozenset(self.flagged)
        self.n = len(records)

    def same(self, a: int, b: int) -> bool:
        return a in self.flagged_set and b in self.flagged_set

    def q(self, report: DedupReport):  # type: ignore[no-untyped-def]
        return self.q_groups(report.result.groups)

    def q_groups(self, groups):  # type: ignore[no-untyped-def]
        return evaluate_flags(self.n, groups, self.flagged)

    def positives(self) -> list[tuple[int, int]]:
        return [(a, b) for a in self.flagged for b in self.flagged if a < b]


def load_sets(root: Path) -> dict[str, Grouped | Flagged]:
    """The three labelled sets, read once, by name."""
    return {
        "haematology": Grouped(root, "rathbone_haematology"),
        "stroke": Grouped(root, "rathbone_stroke"),
        "copper": Flagged(root, "iebh_copper__endnote.xml"),
    }


LABELS = {
    "haematology": "haematology (Rathbone 2015 via bib-dedupe; groups)",
    "stroke": "stroke (Rathbone 2015 via bib-dedupe; groups)",
    "copper": "copper (IEBH dedupe-sweep; EndNote flags, per record)",
}


def pairwise_precision(data, groups) -> tuple[float, int, int]:  # type: ignore[no-untyped-def]
    """Share of the record pairs put in one group that the labels call the same."""
    pairs = [(a, b) for g in groups for i, a in enumerate(g) for b in g[i + 1 :]]
    right = sum(data.same(a, b) for a, b in pairs)
    return (right / len(pairs) if pairs else 1.0), right, len(pairs)


def fmt(q) -> str:  # type: ignore[no-untyped-def]
    return f"{q.sensitivity:.3f} / {q.specificity:.4f}  (TP {q.tp} FP {q.fp} FN {q.fn} TN {q.tn})"


def misses(sets: dict[str, Grouped | Flagged]) -> None:
    """Every automatic miss and wrong merge on every set, with the pair's evidence."""
    for name, data in sets.items():
        report = dedup_batch(data.batch, auto_only=True)
        group = {i: k for k, g in enumerate(report.result.groups) for i in g}
        decided = {(p.a, p.b): p for p in report.result.pairs}
        papers = report.papers
        print(f"== {name}: pairs labelled the same but in different automatic groups")
        for a, b in data.positives():
            if group[a] == group[b]:
                continue
            p = decided.get((a, b))
            if p is None and isinstance(data, Flagged):
                continue  # flags carry no groups: only pairs litdesk compared are shown
            print(f"  {a}-{b}: {p.decision + ' — ' + p.reason if p else 'not compared'}")
            for i in (a, b):
                x = papers[i]
                print(f"     [{i}] {(x.title or '')[:110]!r} | {x.year} | {(x.journal or '')[:40]}"
                      f" {x.volume or ''}({x.issue or ''}):{x.pages or ''}")  # fmt: skip
        print(f"== {name}: merged pairs labelled different")
        for p in report.result.pairs:
            if p.decision == "merge" and not data.same(p.a, p.b):
                print(f"  {p.a}-{p.b}: {p.reason}")
        for c in report.result.conflicts:
            print(f"  conflict: {c.message}")


def sweep(sets: dict[str, Grouped | Flagged]) -> None:
    """Operating points: the automatic title threshold swept (rule A, with the review band
    kept below it), the corrections policy, and the whole review band merged."""
    print("auto_title | corrections | " + " | ".join(f"{n} sens / spec" for n in sets))
    saved = dict(RULES)
    try:
        for thr in (0.99, 0.97, 0.95, 0.93, 0.90, 0.85):
            for mc in (False, True):
                RULES["auto_title"] = thr
                RULES["review_title"] = min(saved["review_title"], thr)
                cells = [
                    fmt(d.q(dedup_batch(d.batch, auto_only=True, merge_corrections=mc)))
                    for d in sets.values()
                ]
                print(f"{thr:.2f} | {'merged' if mc else 'review'} | " + " | ".join(cells))
    finally:
        RULES.clear()
        RULES.update(saved)
    for mc in (False, True):
        cells = [fmt(d.q(merge_band(d.batch, merge_corrections=mc))) for d in sets.values()]
        label = "merged" if mc else "review"
        print(f"whole review band merged | {label} | " + " | ".join(cells))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--misses", action="store_true", help="list every automatic miss")
    ap.add_argument("--sweep", action="store_true", help="operating points")
    args = ap.parse_args()
    root = Path(os.environ.get("LITDESK_FIXTURES", "../shared/fixtures")) / "bib" / "dedup"
    sets = load_sets(root)
    if args.misses:
        misses(sets)
        return
    if args.sweep:
        sweep(sets)
        return
    try:
        import bib_dedupe  # noqa: F401

        peer = True
    except ImportError:
        peer = False
        print("(bib-dedupe not installed: `make bench` or `.venv/bin/pip install bib-dedupe`)")

    for name, data in sets.items():
        batch, q = data.batch, data.q
        print(f"{LABELS[name]}: {len(batch.imports[0].records)} records")
        t = time.perf_counter()
        auto = dedup_batch(batch, auto_only=True)
        elapsed = time.perf_counter() - t
        print(f"  litdesk automatic            {q(auto).to_dict()}  ({elapsed:.2f} s)")
        prec, right, total = pairwise_precision(data, auto.result.groups)
        print(f"    pairwise precision {prec:.4f} ({right} / {total} pairs in groups)")
        counts = auto.result.counts
        print(f"    vetoed pairs {counts.get('vetoed_pairs', '-')}, versions linked "
              f"{counts.get('versions', '-')}, other tools' duplicate flags read as "
              f"suggestions {counts.get('suggested_duplicates', '-')}")  # fmt: skip
        print(f"    review queue {counts['review_pairs']} pairs, chain joins sent to review "
              f"{counts['chain_reviews']}, shared-identifier conflicts "
              f"{counts['shared_id_conflicts']}")  # fmt: skip
        reviewed, asked = oracle_review(batch, data.same)
        print(f"  litdesk automatic+reviewed   {q(reviewed).to_dict()}  ({asked} pairs reviewed)")
        merged = dedup_batch(batch, auto_only=True, merge_corrections=True)
        print(f"  --merge-corrections auto     {q(merged).to_dict()}")
        reviewed, asked = oracle_review(batch, data.same, merge_corrections=True)
        print(f"  --merge-corrections +review  {q(reviewed).to_dict()}  ({asked} pairs reviewed)")
        if peer:
            t = time.perf_counter()
            groups = bib_dedupe_groups(auto.papers)
            peer_q = data.q_groups(groups)
            print(
                f"  bib-dedupe                   {peer_q.to_dict()}  "
                f"({time.perf_counter() - t:.1f} s)"
            )
            prec, right, total = pairwise_precision(data, groups)
            print(f"    pairwise precision {prec:.4f} ({right} / {total} pairs in groups)")


if __name__ == "__main__":
    main()
