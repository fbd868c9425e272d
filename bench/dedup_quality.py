"""Deduplication quality on the labelled public datasets (issue: deduplication).

Reads the real files through litdesk's importers (`$LITDESK_FIXTURES/bib/dedup/`), runs
`litdesk.services.dedup` exactly as `litdesk dedup` does, and reports, per dataset,
sensitivity, specificity and precision of

* the automatic decisions (default rules, and with `--merge-corrections`' policy),
* automatic + reviewed decisions, where the reviewer is simulated by the labels
  (every pair in the uncertain band answered correctly): the ceiling a careful human
  reviewer reaches with litdesk's review queue (its size is printed too).

In the same run, bib-dedupe (the peer) on the same records when installed.

Labelling schemes (see the datasets' PROVENANCE.md): haematology has duplicate groups
(record level as bib-dedupe counts: TP = a removed record that is a true duplicate);
copper has per-record flags on every member of a duplicate set (binary per record).

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


class Sets:
    """The two labelled sets, read once."""

    def __init__(self, root: Path) -> None:
        self.haem = import_files([root / "rathbone_haematology__records_pre_merged.csv"])
        haem_records = self.haem.imports[0].records
        by_id = {r.source_id: i for i, r in enumerate(haem_records)}
        with open(root / "rathbone_haematology__merged_record_ids.csv", encoding="utf-8") as fh:
            self.truth = [
                [by_id[x] for x in row["merged_ids"].split(";")] for row in csv.DictReader(fh)
            ]
        self.group_of = {i: gi for gi, g in enumerate(self.truth) for i in g}
        self.n_haem = len(haem_records)
        self.copper = import_files([root / "iebh_copper__endnote.xml"])
        records = self.copper.imports[0].records
        self.flagged = [
            i for i, r in enumerate(records) if r.extras.get("caption") == ["Duplicate"]
        ]
        self.flagged_set = frozenset(self.flagged)
        self.n_copper = len(records)

    def same_haem(self, a: int, b: int) -> bool:
        return self.group_of.get(a, -1) == self.group_of.get(b, -2)

    def same_copper(self, a: int, b: int) -> bool:
        return a in self.flagged_set and b in self.flagged_set

    def q_haem(self, report: DedupReport):  # type: ignore[no-untyped-def]
        return evaluate_groups(self.n_haem, report.result.groups, self.truth)

    def q_copper(self, report: DedupReport):  # type: ignore[no-untyped-def]
        return evaluate_flags(self.n_copper, report.result.groups, self.flagged)


def fmt(q) -> str:  # type: ignore[no-untyped-def]
    return f"{q.sensitivity:.3f} / {q.specificity:.4f}  (TP {q.tp} FP {q.fp} FN {q.fn} TN {q.tn})"


def misses(sets: Sets) -> None:
    """Every automatic miss and wrong merge on both sets, with the pair's evidence."""
    for name, batch, same in (
        ("haematology", sets.haem, sets.same_haem),
        ("copper", sets.copper, sets.same_copper),
    ):
        report = dedup_batch(batch, auto_only=True)
        group = {i: k for k, g in enumerate(report.result.groups) for i in g}
        decided = {(p.a, p.b): p for p in report.result.pairs}
        papers = report.papers
        print(f"== {name}: pairs labelled the same but in different automatic groups")
        positives = (
            [(a, b) for g in sets.truth for a in g for b in g if a < b]
            if name == "haematology"
            else [(a, b) for a in sets.flagged for b in sets.flagged if a < b]
        )
        for a, b in positives:
            if group[a] == group[b]:
                continue
            p = decided.get((a, b))
            if p is None and name == "copper":
                continue  # flags carry no groups: only pairs litdesk compared are shown
            print(f"  {a}-{b}: {p.decision + ' — ' + p.reason if p else 'not compared'}")
            for i in (a, b):
                x = papers[i]
                print(f"     [{i}] {(x.title or '')[:110]!r} | {x.year} | {(x.journal or '')[:40]}"
                      f" {x.volume or ''}({x.issue or ''}):{x.pages or ''}")  # fmt: skip
        print(f"== {name}: merged pairs labelled different")
        for p in report.result.pairs:
            if p.decision == "merge" and not same(p.a, p.b):
                print(f"  {p.a}-{p.b}: {p.reason}")


def sweep(sets: Sets) -> None:
    """Operating points: the automatic title threshold swept (rule A, with the review band
    kept below it), the corrections policy, and the whole review band merged."""
    print("auto_title | corrections | haematology sens / spec | copper sens / spec")
    saved = dict(RULES)
    try:
        for thr in (0.99, 0.97, 0.95, 0.93, 0.90, 0.85):
            for mc in (False, True):
                RULES["auto_title"] = thr
                RULES["review_title"] = min(saved["review_title"], thr)
                h = sets.q_haem(dedup_batch(sets.haem, auto_only=True, merge_corrections=mc))
                c = sets.q_copper(dedup_batch(sets.copper, auto_only=True, merge_corrections=mc))
                print(f"{thr:.2f} | {'merged' if mc else 'review'} | {fmt(h)} | {fmt(c)}")
    finally:
        RULES.clear()
        RULES.update(saved)
    for mc in (False, True):
        h = sets.q_haem(merge_band(sets.haem, merge_corrections=mc))
        c = sets.q_copper(merge_band(sets.copper, merge_corrections=mc))
        label = "merged" if mc else "review"
        print(f"whole review band merged | {label} | {fmt(h)} | {fmt(c)}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--misses", action="store_true", help="list every automatic miss")
    ap.add_argument("--sweep", action="store_true", help="operating points")
    args = ap.parse_args()
    root = Path(os.environ.get("LITDESK_FIXTURES", "../shared/fixtures")) / "bib" / "dedup"
    sets = Sets(root)
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

    for name, batch, q, same in (
        ("haematology (Rathbone 2015 via bib-dedupe; groups)", sets.haem, sets.q_haem,
         sets.same_haem),
        ("copper (IEBH dedupe-sweep; EndNote flags, per record)", sets.copper, sets.q_copper,
         sets.same_copper),
    ):  # fmt: skip
        print(f"{name}: {len(batch.imports[0].records)} records")
        t = time.perf_counter()
        auto = dedup_batch(batch, auto_only=True)
        elapsed = time.perf_counter() - t
        print(f"  litdesk automatic            {q(auto).to_dict()}  ({elapsed:.2f} s)")
        reviewed, asked = oracle_review(batch, same)
        print(f"  litdesk automatic+reviewed   {q(reviewed).to_dict()}  ({asked} pairs reviewed)")
        merged = dedup_batch(batch, auto_only=True, merge_corrections=True)
        print(f"  --merge-corrections auto     {q(merged).to_dict()}")
        reviewed, asked = oracle_review(batch, same, merge_corrections=True)
        print(f"  --merge-corrections +review  {q(reviewed).to_dict()}  ({asked} pairs reviewed)")
        if peer:
            t = time.perf_counter()
            groups = bib_dedupe_groups(auto.papers)
            peer_q = (
                evaluate_groups(sets.n_haem, groups, sets.truth)
                if batch is sets.haem
                else evaluate_flags(sets.n_copper, groups, sets.flagged)
            )
            print(
                f"  bib-dedupe                   {peer_q.to_dict()}  "
                f"({time.perf_counter() - t:.1f} s)"
            )


if __name__ == "__main__":
    main()
