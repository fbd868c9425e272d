"""tests/_warm_rewrites.py: the files it writes are the ones pytest reads (pytest rewrites
nothing after it, and the asserts still explain themselves), and a changed module is
rewritten again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from _pytest.assertion.rewrite import PYC_TAIL

from tests import _warm_rewrites

FAILING = """
def helper():
    return {"a": 1}


def test_fails():
    assert helper()["a"] == 2
"""


def _tree(root: Path) -> Path:
    tests = root / "tests"
    (tests / "sub").mkdir(parents=True)
    (tests / "conftest.py").write_text("import pytest\n", encoding="utf-8")
    (tests / "sub" / "test_one.py").write_text(FAILING, encoding="utf-8")
    (tests / "sub" / "helper.py").write_text("X = 1\n", encoding="utf-8")
    return tests


def _pytest(root: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-o", "addopts=", "--rootdir", str(root), str(root / "tests")],
        cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def _cached(tests: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in tests.rglob("*-pytest-*.pyc")}


def test_pytest_reads_what_it_wrote_and_rewrites_a_changed_module(tmp_path: Path) -> None:
    tests = _tree(tmp_path)
    found = _warm_rewrites.modules(tests)
    assert [p.name for p in found] == ["conftest.py", "test_one.py"]  # not the helper

    assert _warm_rewrites._write([str(p) for p in found]) == 2
    written = _cached(tests)
    assert len(written) == 2
    assert _warm_rewrites._write([str(p) for p in found]) == 0  # current: left alone

    run = _pytest(tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "assert 1 == 2" in run.stdout  # the rewritten assert explains itself
    assert _cached(tests) == written  # pytest read the files and wrote none

    module = tests / "sub" / "test_one.py"
    module.write_text(FAILING.replace("== 2", "== 3"), encoding="utf-8")
    assert _warm_rewrites._write([str(module)]) == 1
    run = _pytest(tmp_path)
    assert "assert 1 == 3" in run.stdout
    name = "test_one" + PYC_TAIL
    assert _cached(tests)[name] != written[name]


def test_nothing_written_when_bytecode_is_off(tmp_path: Path) -> None:
    tests = _tree(tmp_path)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run(
        [sys.executable, str(Path(_warm_rewrites.__file__)), "--jobs", "1", "--tests", str(tests)],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 0
    assert "bytecode writing is off" in run.stderr
    assert _cached(tests) == {}
    run = subprocess.run(  # and the same command writes them when it is on
        [sys.executable, str(Path(_warm_rewrites.__file__)), "--jobs", "2", "--tests", str(tests)],
        env={k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"},
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert len(_cached(tests)) == 2
