"""Time of the test suite by folder, from a pytest JUnit XML file.

    .venv/bin/pytest -n 2 --dist loadfile --junitxml=/tmp/suite.xml
    .venv/bin/python bench/suite_times.py /tmp/suite.xml

Prints a Markdown table (folder, tests, seconds: set-up + call + teardown summed over the
workers), largest first, and the total.
"""

from __future__ import annotations

import argparse
import collections
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="a pytest --junitxml file")
    args = parser.parse_args()
    times = folder_times(args.report)
    print("| folder | tests | seconds |\n|---|---:|---:|")
    for folder, (n, s) in sorted(times.items(), key=lambda kv: -kv[1][1]):
        print(f"| {folder} | {n} | {s:,.0f} |")
    total_n = sum(n for n, _ in times.values())
    total_s = sum(s for _, s in times.values())
    print(f"| total | {total_n} | {total_s:,.0f} |")


if __name__ == "__main__":
    main()
