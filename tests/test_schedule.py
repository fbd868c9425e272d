"""The xdist schedule of the suite (``tests/_schedule.py``): the longest files first."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tests._schedule import SECONDS_FILE, file_of, load_seconds, longest_files_first


@dataclass(frozen=True)
class Node:
    nodeid: str


def _ids(items: list[Node]) -> list[str]:
    return [i.nodeid for i in items]


def test_files_go_longest_first_and_keep_their_tests_order() -> None:
    items = [
        Node("tests/a.py::t1"),
        Node("tests/a.py::t2[x]"),
        Node("tests/a.py::t2[y]"),
        Node("tests/b.py::t1"),
        Node("tests/c.py::C::t1"),
        Node("tests/c.py::C::t2"),
    ]
    recorded = {"tests/a.py": 3.0, "tests/b.py": 40.0, "tests/c.py": 10.0}
    assert _ids(longest_files_first(items, recorded, per_test=1.0)) == [
        "tests/b.py::t1",
        "tests/c.py::C::t1",
        "tests/c.py::C::t2",
        "tests/a.py::t1",
        "tests/a.py::t2[x]",
        "tests/a.py::t2[y]",
    ]


def test_a_new_file_is_estimated_by_its_number_of_tests() -> None:
    new = [Node(f"tests/new.py::t{i}") for i in range(5)]
    items = [Node("tests/old.py::t"), *new, Node("tests/small.py::t")]
    recorded = {"tests/old.py": 4.0, "tests/small.py": 0.5}
    # 5 tests at 1 s each: before the 4 s file
    assert _ids(longest_files_first(items, recorded, per_test=1.0))[:5] == _ids(new)
    # at 0.1 s each: between the two
    order = _ids(longest_files_first(items, recorded, per_test=0.1))
    assert order[0] == "tests/old.py::t" and order[-1] == "tests/small.py::t"


def test_ties_keep_the_collection_order_and_nothing_is_lost() -> None:
    items = [Node(f"tests/f{i % 4}.py::t{i}") for i in range(12)]
    out = longest_files_first(items, {}, per_test=0.0)
    assert sorted(_ids(out)) == sorted(_ids(items))
    assert [file_of(i.nodeid) for i in out[::3]] == [f"tests/f{i}.py" for i in range(4)]


def test_the_recorded_seconds_are_read_with_their_mean(tmp_path: Path) -> None:
    path = tmp_path / "seconds.json"
    assert load_seconds(path) == ({}, 0.0)
    path.write_text(json.dumps({"tests": 4, "seconds": 10.0, "files": {"tests/a.py": 7.5}}))
    assert load_seconds(path) == ({"tests/a.py": 7.5}, 2.5)


def test_the_committed_table_names_existing_test_files() -> None:
    recorded, per_test = load_seconds(SECONDS_FILE)
    assert recorded and per_test > 0
    root = SECONDS_FILE.parents[1]
    missing = [f for f in recorded if not (root / f).is_file()]
    # a file renamed or removed since the table was written falls back to the estimate;
    # most of the table must still name real files, or it is time to write it again
    assert len(missing) <= len(recorded) // 10, missing
