"""Fuzz bench of the readers: many seeded mutations of the project's own fixtures.

    .venv/bin/python bench/fuzz_bench.py                 # 20,000 cases, seed 13
    .venv/bin/python bench/fuzz_bench.py --cases 2000 --seed 7 --no-peer

Every case is fed to ``litdesk.adapters.formats.loads`` (format detected). A case ends in
records or ``ImportRefused``; anything else raised is a failure and is printed with the
case (seed file, mutation, index: ``tests/adapters/formats/_mutations.py`` rebuilds it).
Printed: inputs, outcomes, failures, worst time of one case, the process's peak RSS and the
case that raised it most. The peers (rispy for RIS seeds, bibtexparser 2 for BibTeX seeds)
read the same mutated inputs in the same process: how many end in an exception, and the
time ratio litdesk / peer over those cases.
"""

from __future__ import annotations

import argparse
import gc
import logging
import resource
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "adapters" / "formats"))

from _mutations import Case, cases  # noqa: E402

from litdesk.adapters import formats  # noqa: E402
from litdesk.core.imports import ImportRefused  # noqa: E402


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _peer(case: Case) -> tuple[str, float] | None:
    """(outcome, seconds) of the peer parser for RIS/BibTeX seeds, else None."""
    text = case.data.decode("utf-8", "replace")
    if case.seed.endswith(".ris"):
        import rispy

        def run() -> object:
            return rispy.loads(text)
    elif case.seed.endswith(".bib"):
        import bibtexparser

        def run() -> object:
            return bibtexparser.parse_string(text)
    else:
        return None
    start = time.perf_counter()
    try:
        run()
        outcome = "ok"
    except Exception as exc:  # noqa: BLE001 - the peer's failure is what is counted
        outcome = type(exc).__name__
    return outcome, time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args()
    logging.disable(logging.CRITICAL)  # bibtexparser logs every block it cannot read

    outcomes: Counter[str] = Counter()
    by_mutation: Counter[str] = Counter()
    failures: list[str] = []
    times: list[tuple[float, str]] = []
    rss_jump = (0.0, "")
    peer_out: Counter[str] = Counter()
    peer_time = ours_on_peer = ours = 0.0
    total_bytes = 0
    start_rss = _rss_mib()
    t0 = time.perf_counter()
    for case in cases(args.cases, seed=args.seed):
        total_bytes += len(case.data)
        before = _rss_mib()
        start = time.perf_counter()
        try:
            formats.loads(case.data, path=case.seed)
            outcome = "ok"
        except ImportRefused as exc:
            outcome = f"refused:{exc.code}"
        except Exception as exc:  # noqa: BLE001 - a failure: printed with its case
            outcome = "FAILURE"
            failures.append(f"{case.name}: {type(exc).__name__}: {str(exc)[:160]}")
        took = time.perf_counter() - start
        ours += took
        gc.collect()
        outcomes[outcome] += 1
        by_mutation[case.mutation.split("+")[0]] += 1
        times.append((took, case.name))
        jump = _rss_mib() - before
        if jump > rss_jump[0]:
            rss_jump = (jump, case.name)
        if not args.no_peer:
            peer = _peer(case)
            if peer is not None:
                peer_out[peer[0]] += 1
                peer_time += peer[1]
                ours_on_peer += took
    elapsed = time.perf_counter() - t0

    print(
        f"cases: {args.cases:,} (seed {args.seed}), {total_bytes / 1e6:.1f} MB in all; "
        f"litdesk {ours:.1f} s of {elapsed:.1f} s"
    )
    print("outcomes: " + ", ".join(f"{k} {v:,}" for k, v in sorted(outcomes.items())))
    print("mutations: " + ", ".join(f"{k} {v}" for k, v in sorted(by_mutation.items())))
    print(f"failures (not records, not ImportRefused): {len(failures)}")
    for line in failures[:30]:
        print("  " + line)
    times.sort(reverse=True)
    print(f"worst time of one case: {times[0][0]:.3f} s ({times[0][1]})")
    print("next slowest: " + ", ".join(f"{t:.2f} s ({n})" for t, n in times[1:5]))
    median = times[len(times) // 2][0]
    print(f"median time of one case: {median * 1000:.1f} ms")
    print(
        f"peak RSS: {_rss_mib():.0f} MiB (start {start_rss:.0f} MiB); "
        f"largest rise in one case: {rss_jump[0]:.0f} MiB ({rss_jump[1] or '-'})"
    )
    if peer_out:
        n = sum(peer_out.values())
        crashed = n - peer_out["ok"]
        print(
            f"peers (rispy / bibtexparser) on the {n:,} RIS/BibTeX cases: {crashed:,} ended in "
            "an exception ("
            + ", ".join(f"{k} {v}" for k, v in peer_out.most_common() if k != "ok")
            + f"); time litdesk {ours_on_peer:.2f} s / peers {peer_time:.2f} s = "
            f"ratio {ours_on_peer / peer_time if peer_time else float('nan'):.2f}"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
