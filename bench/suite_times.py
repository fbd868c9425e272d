"""Time of the test suite by folder, from a pytest JUnit XML file.

    .venv/bin/pytest -n 2 --dist loadfile --junitxml=/tmp/suite.xml
    .venv/bin/python bench/suite_times.py /tmp/suite.xml

Prints a Markdown table (folder, tests, seconds: set-up + call + teardown summed over the
workers), largest first, and the total. ``--files-json tests/file_seconds.json`` also writes
the seconds per test file, which the suite's xdist schedule reads (``tests/_schedule.py``:
the longest files first).
"""

from __future__ import annotations

import argparse
import collections
import json
import xml.etree.ElementTree as ET
from pathlib import Path


def folder_times(path: Path) -> dict[str, tuple[int, float]]:
    """Tests and seconds per folder (``tests/x/y``) of one JUnit XML report."""
    root = ET.parse(path).getroot()  # a report pytest wrote on this machine
    counts: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0])
    for case in root.iter("testcase"):
        parts = case.get("classname", "").split(".")
        key = "/".join(parts[:3]) if len(parts) > 3 else "/".join(parts[:2])
        counts[key][0] += 1
        counts[key][1] += float(case.get("time", 0) or 0)
    return {k: (int(v[0]), v[1]) for k, v in counts.items()}


def file_of(classname: str, root: Path) -> str:
    """The test file of a JUnit ``classname`` (``tests.x.test_y`` or ``tests.x.test_y.Class``):
    the longest prefix that is a ``.py`` file under ``root``."""
    parts = classname.split(".")
    for end in range(len(parts), 0, -1):
        rel = "/".join(parts[:end]) + ".py"
        if (root / rel).is_file():
            return rel
    return "/".join(parts) + ".py"


def file_times(path: Path, root: Path) -> dict[str, tuple[int, float]]:
    """Tests and seconds per test file of one JUnit XML report."""
    root_el = ET.parse(path).getroot()  # a report pytest wrote on this machine
    out: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0])
    for case in root_el.iter("testcase"):
        key = file_of(case.get("classname", ""), root)
        out[key][0] += 1
        out[key][1] += float(case.get("time", 0) or 0)
    return {k: (int(v[0]), v[1]) for k, v in out.items()}


def makespan(order: list[tuple[str, float]], workers: int) -> float:
    """Seconds until the last of ``workers`` finishes when each takes the next file of
    ``order`` as soon as it is free (list scheduling, as xdist's ``loadfile`` hands out
    files; it ignores xdist's prefetch of a second file and each worker's start)."""
    free = [0.0] * workers
    for _, seconds in order:
        i = free.index(min(free))
        free[i] += seconds
    return max(free)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="a pytest --junitxml file")
    parser.add_argument(
        "--simulate",
        type=int,
        metavar="WORKERS",
        help="also print the simulated wall time of the report's files on WORKERS workers: "
        "in xdist's default order (most tests first) and the longest files first",
    )
    parser.add_argument(
        "--files-json",
        type=Path,
        help="also write the seconds per test file here (tests/file_seconds.json)",
    )
    args = parser.parse_args()
    times = folder_times(args.report)
    print("| folder | tests | seconds |\n|---|---:|---:|")
    for folder, (n, s) in sorted(times.items(), key=lambda kv: -kv[1][1]):
        print(f"| {folder} | {n} | {s:,.0f} |")
    total_n = sum(n for n, _ in times.values())
    total_s = sum(s for _, s in times.values())
    print(f"| total | {total_n} | {total_s:,.0f} |")
    files = file_times(args.report, Path(__file__).resolve().parents[1])
    if args.simulate:
        by_count = sorted(sorted(files.items()), key=lambda kv: -kv[1][0])
        by_time = sorted(sorted(files.items()), key=lambda kv: -kv[1][1])
        for label, order in (("most tests first", by_count), ("longest first", by_time)):
            span = makespan([(f, s) for f, (_, s) in order], args.simulate)
            print(f"simulated, {args.simulate} workers, {label}: {span:,.0f} s")
        print(f"lower bound (total / workers): {total_s / args.simulate:,.0f} s")
    if args.files_json:
        doc = {
            "source": args.report.name,
            "tests": sum(n for n, _ in files.values()),
            "seconds": round(sum(s for _, s in files.values()), 1),
            "files": {
                f: round(s, 1) for f, (_, s) in sorted(files.items(), key=lambda kv: -kv[1][1])
            },
        }
        args.files_json.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
