"""Deduplication speed benchmark.

100k generated records (realistic duplicate rate ~30%, noise: abbreviations, author
formats, dropped identifiers, case, typos, page formats, year ±1), deduplicated by
litdesk (identifier stage + blocked similarity); time and peak memory; in the same run
bib-dedupe (the peer: CoLRev's deduplicator) on the same records, and both tools'
sensitivity/specificity against the generated truth. Target: litdesk ≤ 60 s, ≤ 2 GB.

    .venv/bin/python bench/dedup_bench.py [--records N] [--peer-records N]

bib-dedupe is not a dependency of litdesk; install it for the peer run with
`.venv/bin/pip install bib-dedupe` (the script says so and skips the peer otherwise).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _dedup_data import bib_dedupe_groups, synthetic, to_papers
from litdesk.core.dedup import deduplicate, evaluate_groups


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--peer-records", type=int, default=20_000)
    ap.add_argument(
        "--supplements",
        type=float,
        default=0.0,
        help="share of the unique records given, 15 at a time, one supplement DOI each "
        "(different works under one DOI: none may merge)",
    )
    args = ap.parse_args()

    records, truth = synthetic(args.records)
    if args.supplements > 0:
        in_group = {i for g in truth for i in g}
        unique = [i for i in range(len(records)) if i not in in_group]
        chosen = unique[: int(len(unique) * args.supplements) // 15 * 15]
        for k in range(0, len(chosen), 15):
            for i in chosen[k : k + 15]:
                records[i] = {**records[i], "doi": f"10.9999/supp.{k // 15}", "pmid": None}
        print(f"supplement DOIs: {len(chosen) // 15:,} shared by 15 different records each")
    t = time.perf_counter()
    papers = to_papers(records)
    build_s = time.perf_counter() - t
    t, cpu = time.perf_counter(), time.process_time()
    result = deduplicate(papers)
    dedup_s, dedup_cpu = time.perf_counter() - t, time.process_time() - cpu
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    q = evaluate_groups(len(papers), result.groups, truth)
    print(
        f"records: {len(papers):,} ({sum(len(g) - 1 for g in truth):,} true removable duplicates)"
    )
    print(
        f"litdesk: building Paper records {build_s:.1f} s; deduplicate {dedup_s:.1f} s "
        f"(target <= 60 s; {dedup_cpu:.1f} s CPU, so a loaded machine shows); "
        f"peak RSS {rss:.0f} MiB (target <= 2048)"
    )
    print(f"litdesk counts: {result.counts}")
    print(f"litdesk quality on the synthetic truth: {q.to_dict()}")

    try:
        import bib_dedupe  # noqa: F401
    except ImportError:
        print("bib-dedupe not installed: `.venv/bin/pip install bib-dedupe` for the peer run")
        return
    n = min(args.peer_records, len(papers))
    if n < 2:
        return
    sub_truth = [[i for i in g if i < n] for g in truth]
    sub_truth = [g for g in sub_truth if len(g) > 1]
    t = time.perf_counter()
    ours = deduplicate(papers[:n])
    ours_s = time.perf_counter() - t
    t = time.perf_counter()
    theirs = bib_dedupe_groups(papers[:n])
    theirs_s = time.perf_counter() - t
    print(
        f"on the first {n:,} records: litdesk {ours_s:.1f} s, bib-dedupe {theirs_s:.1f} s "
        f"(ratio bib-dedupe/litdesk {theirs_s / ours_s:.1f}x)"
    )
    print(f"  litdesk    {evaluate_groups(n, ours.groups, sub_truth).to_dict()}")
    print(f"  bib-dedupe {evaluate_groups(n, theirs, sub_truth).to_dict()}")


if __name__ == "__main__":
    main()
