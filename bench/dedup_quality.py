"""Deduplication quality on the labelled public datasets (issue: deduplication).

Reads the real files through litdesk's importers (`$LITDESK_FIXTURES/bib/dedup/`), runs
`litdesk.services.dedup` exactly as `litdesk dedup` does, and reports, per dataset,
sensitivity, specificity and precision of

* the automatic decisions, and
* automatic + reviewed decisions, where the reviewer is simulated by the labels
  (every pair in the uncertain band answered correctly): the ceiling a careful human
  reviewer reaches with litdesk's review queue (its size is printed too).

In the same run, bib-dedupe (the peer) on the same records when installed.

Labelling schemes (see the datasets' PROVENANCE.md): haematology has duplicate groups
(record level as bib-dedupe counts: TP = a removed record that is a true duplicate);
copper has per-record flags on every member of a duplicate set (binary per record).

    .venv/bin/python bench/dedup_quality.py
"""

from __future__ import annotations

import csv
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _dedup_data import bib_dedupe_groups
from litdesk.core.dedup import evaluate_flags, evaluate_groups
from litdesk.services.dedup import DedupReport, dedup_batch
from litdesk.services.imports import import_files


def oracle_review(batch, same) -> tuple[DedupReport, int]:  # type: ignore[no-untyped-def]
    def reviewer(pair, ra, pa, rb, pb):  # type: ignore[no-untyped-def]
        return "merge" if same(pair.a, pair.b) else "distinct"

    report = dedup_batch(batch, reviewer=reviewer)
    return report, len(report.decisions)


def main() -> None:
    root = Path(os.environ.get("LITDESK_FIXTURES", "../shared/fixtures")) / "bib" / "dedup"
    try:
        import bib_dedupe  # noqa: F401

        peer = True
    except ImportError:
        peer = False
        print("(bib-dedupe not installed: `make bench` or `.venv/bin/pip install bib-dedupe`)")

    # --- haematology: groups ---------------------------------------------------------
    batch = import_files([root / "rathbone_haematology__records_pre_merged.csv"])
    t = time.perf_counter()
    auto = dedup_batch(batch, auto_only=True)
    elapsed = time.perf_counter() - t
    by_id = {ref.source_id: i for i, ref in enumerate(auto.refs)}
    with open(root / "rathbone_haematology__merged_record_ids.csv", encoding="utf-8") as fh:
        truth = [[by_id[x] for x in row["merged_ids"].split(";")] for row in csv.DictReader(fh)]
    group_of = {i: gi for gi, g in enumerate(truth) for i in g}
    n = len(auto.refs)
    print(f"haematology (Rathbone 2015 via bib-dedupe): {n} records, {len(truth)} true groups")
    q = evaluate_groups(n, auto.result.groups, truth)
    print(f"  litdesk automatic          {q.to_dict()}  ({elapsed:.2f} s)")
    reviewed, asked = oracle_review(batch, lambda a, b: group_of.get(a, -1) == group_of.get(b, -2))
    q2 = evaluate_groups(n, reviewed.result.groups, truth)
    print(f"  litdesk automatic+reviewed {q2.to_dict()}  ({asked} pairs reviewed)")
    if peer:
        t = time.perf_counter()
        groups = bib_dedupe_groups(auto.papers)
        print(
            f"  bib-dedupe                 {evaluate_groups(n, groups, truth).to_dict()}  "
            f"({time.perf_counter() - t:.1f} s)"
        )

    # --- copper: per-record flags ------------------------------------------------------
    batch = import_files([root / "iebh_copper__endnote.xml"])
    t = time.perf_counter()
    auto = dedup_batch(batch, auto_only=True)
    elapsed = time.perf_counter() - t
    records = batch.imports[0].records
    flagged = [i for i, r in enumerate(records) if r.extras.get("caption") == ["Duplicate"]]
    n = len(records)
    print(f"copper (IEBH dedupe-sweep, EndNote flags): {n} records, {len(flagged)} flagged")
    q = evaluate_flags(n, auto.result.groups, flagged)
    print(f"  litdesk automatic          {q.to_dict()}  ({elapsed:.2f} s)")
    flag_set = set(flagged)
    # flags carry no groups: the simulated reviewer can only say "both flagged"
    reviewed, asked = oracle_review(batch, lambda a, b: a in flag_set and b in flag_set)
    q2 = evaluate_flags(n, reviewed.result.groups, flagged)
    print(f"  litdesk automatic+reviewed {q2.to_dict()}  ({asked} pairs reviewed)")
    if peer:
        t = time.perf_counter()
        groups = bib_dedupe_groups(auto.papers)
        print(
            f"  bib-dedupe                 {evaluate_flags(n, groups, flagged).to_dict()}  "
            f"({time.perf_counter() - t:.1f} s)"
        )


if __name__ == "__main__":
    main()
