"""The order in which xdist's workers take the suite's files: the longest first.

``make test`` runs ``pytest -n 3 --dist loadfile --no-loadscope-reorder``: each worker takes
whole files, the next one in the collection's order whenever it is nearly done. Left to
xdist (``--loadscope-reorder``, its default) the files are taken by their number of tests,
most first, so files of a few slow tests (the 5,000-record Study, the IDOR sweeps, the
browser and kill -9 files) came last and one worker ran them alone at the end while the
others had finished. Taking the longest files first (the classic "longest processing time
first" rule) leaves only short files for the end.

The time of each file comes from ``tests/file_seconds.json``, written from a whole-suite run's
JUnit report by ``bench/suite_times.py REPORT.xml --files-json tests/file_seconds.json``; a
file not in it (new since) is estimated at the table's mean seconds per test times its
number of tests. The order is only a schedule: every test still runs, each file's tests in
their own order; runs without xdist keep pytest's order.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

#: the per-file seconds of the last whole-suite run (see the module's notes)
SECONDS_FILE = Path(__file__).with_name("file_seconds.json")


class _Item(Protocol):
    @property
    def nodeid(self) -> str: ...


T = TypeVar("T", bound=_Item)


def file_of(nodeid: str) -> str:
    """The test file of a node id (``tests/x/test_y.py::test_z[a]`` → ``tests/x/test_y.py``)."""
    return nodeid.split("::", 1)[0]


def load_seconds(path: Path = SECONDS_FILE) -> tuple[dict[str, float], float]:
    """The recorded seconds per file and the run's mean seconds per test (nothing, 0 when
    the file is missing)."""
    if not path.is_file():
        return {}, 0.0
    raw = json.loads(path.read_text(encoding="utf-8"))
    per_test = float(raw["seconds"]) / max(1, int(raw["tests"]))
    return {str(k): float(v) for k, v in raw["files"].items()}, per_test


def estimated_seconds(
    counts: Mapping[str, int], recorded: Mapping[str, float], per_test: float
) -> dict[str, float]:
    """Each file's recorded seconds, or ``per_test`` times its number of tests."""
    return {f: recorded.get(f, per_test * n) for f, n in counts.items()}


def longest_files_first(
    items: Sequence[T], recorded: Mapping[str, float], per_test: float
) -> list[T]:
    """``items`` grouped by file, the files ordered by their estimated seconds, longest
    first (ties keep the collection's order); the tests of a file keep their order."""
    counts = Counter(file_of(i.nodeid) for i in items)
    seconds = estimated_seconds(counts, recorded, per_test)
    first_seen: dict[str, int] = {}
    for i in items:
        first_seen.setdefault(file_of(i.nodeid), len(first_seen))
    rank = {
        f: r for r, f in enumerate(sorted(first_seen, key=lambda f: (-seconds[f], first_seen[f])))
    }
    return sorted(items, key=lambda i: rank[file_of(i.nodeid)])
