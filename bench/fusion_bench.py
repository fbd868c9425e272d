"""Identity graph and fusion benchmark (issue: fused search).

In one run:
1. 1M synthetic sightings with realistic identifier overlap and a few conflicts:
   litdesk's identity graph (``group_keys``: key factorisation, vectorised components,
   conflict detection and splitting) vs scipy's ``connected_components`` on the same
   record–key edges (graph construction included for both). Target: ≤ 3× scipy.
2. Fusion of a 3 × 50-hit run (Paper records, merge and RRF). Target: ≤ 5 ms.

    .venv/bin/python bench/fusion_bench.py [--sightings N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import tracemalloc

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from litdesk.core.fusion import Sighting, component_labels, fuse, group_keys
from litdesk.core.records import make_paper


def synthetic_keys(n: int, seed: int = 7) -> list[dict[str, set[str]]]:
    """~n/2.5 distinct papers, each seen 1–5 times by providers that know different ids."""
    rnd = random.Random(seed)
    out: list[dict[str, set[str]]] = []
    paper = 0
    while len(out) < n:
        paper += 1
        doi = f"10.{1000 + paper % 9000}/p{paper}"
        for _ in range(rnd.choice((1, 1, 2, 3, 3, 4, 5))):
            k: dict[str, set[str]] = {}
            if rnd.random() < 0.8:
                k["doi"] = {doi}
            if rnd.random() < 0.5:
                k["pmid"] = {str(paper)}
            if rnd.random() < 0.4:
                k["openalex"] = {f"W{paper}"}
            if rnd.random() < 0.002:  # a wrong DOI: a conflict bridged by the PMID
                k["doi"] = {f"10.9999/wrong{paper}"}
                k["pmid"] = {str(paper)}
            if not k:
                k["record"] = {f"REC-{paper}-{len(out)}"}
            out.append(k)
            if len(out) >= n:
                break
    return out


def edges(keys: list[dict[str, set[str]]]) -> tuple[np.ndarray, np.ndarray, int]:
    ids: dict[tuple[str, str], int] = {}
    rec: list[int] = []
    kid: list[int] = []
    for i, by_ns in enumerate(keys):
        for ns, vals in by_ns.items():
            for v in vals:
                rec.append(i)
                kid.append(ids.setdefault((ns, v), len(ids)))
    return np.asarray(rec, dtype=np.int64), np.asarray(kid, dtype=np.int64), len(ids)


def run_scipy(keys: list[dict[str, set[str]]]) -> tuple[float, int]:
    t = time.perf_counter()
    rec, kid, nk = edges(keys)
    n = len(keys)
    graph = coo_matrix(
        (np.ones(rec.size, dtype=np.int8), (rec, kid + n)), shape=(n + nk, n + nk)
    ).tocsr()
    count, _labels = connected_components(graph, directed=False)
    elapsed = time.perf_counter() - t
    return elapsed, count  # every key node belongs to some record's component


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sightings", type=int, default=1_000_000)
    args = ap.parse_args()
    keys = synthetic_keys(args.sightings)
    print(f"sightings: {len(keys):,}")

    # same edges, both timed from the key lists
    scipy_s, scipy_groups = run_scipy(keys)
    t = time.perf_counter()
    groups = group_keys(keys)
    litdesk_s = time.perf_counter() - t
    # memory in a separate, untimed pass (tracemalloc slows allocation down)
    tracemalloc.start()
    group_keys(keys)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    conflicted = sum(1 for g in groups if g.conflicts)
    # the components before conflict splitting must agree with scipy's
    rec, kid, _ = edges(keys)
    t = time.perf_counter()
    labels = component_labels(len(keys), rec, kid)
    core_s = time.perf_counter() - t
    unsplit = len(np.unique(labels))
    assert unsplit == scipy_groups, (unsplit, scipy_groups)
    print(
        f"scipy connected_components (incl. edge building): {scipy_s:.3f} s, {scipy_groups:,} components"
    )
    print(
        f"litdesk group_keys (incl. edge building, conflict split): {litdesk_s:.3f} s, "
        f"{len(groups):,} groups ({conflicted} flagged), peak traced memory {peak / 2**20:.0f} MiB"
    )
    n = len(keys)
    graph = coo_matrix(
        (np.ones(rec.size, dtype=np.int8), (rec, kid + n)), shape=(n + int(kid.max()) + 1,) * 2
    ).tocsr()
    t = time.perf_counter()
    connected_components(graph, directed=False)
    cc_s = time.perf_counter() - t
    print(
        f"components alone on prepared edges: litdesk component_labels {core_s:.3f} s, "
        f"scipy connected_components on a built CSR {cc_s:.3f} s"
    )
    print(f"ratio litdesk/scipy: {litdesk_s / scipy_s:.2f}x (target <= 3x)")

    # fusion of a 3 x 50-hit run
    rnd = random.Random(3)
    lanes = []
    for lane, provider in (
        ("europepmc-keyword", "europepmc"),
        ("openalex-keyword", "openalex"),
        ("openalex-semantic", "openalex"),
    ):
        for r in range(1, 51):
            pid = rnd.randint(1, 90)
            paper = make_paper(
                title=f"Paper {pid}",
                pmid=str(pid) if provider == "europepmc" or rnd.random() < 0.5 else None,
                openalex_id=f"W{pid}" if provider == "openalex" else None,
                doi=f"10.1234/p{pid}",
                authors=("A. Author", "B. Author"),
                year=2020,
                abstract="word " * 150,
            )
            lanes.append(Sighting(lane, provider, r, paper))
    times = []
    for _ in range(50):
        t = time.perf_counter()
        fuse(lanes)
        times.append((time.perf_counter() - t) * 1000)
    print(
        f"fusion of 3 x 50 hits: median {statistics.median(times):.2f} ms, max {max(times):.2f} ms (target <= 5 ms)"
    )


if __name__ == "__main__":
    main()
