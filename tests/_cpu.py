"""CPU seconds per test and per test file, robust to a loaded machine (issue 26).

Opt-in: ``LITDESK_TEST_CPU=PATH pytest -n 0 tests/x/test_y.py ...`` registers this plugin
(``tests/conftest.py``); without the variable nothing is measured or written. At the end
of the run ``PATH`` holds JSON::

    {"files": {"tests/x/test_y.py": {"tests": 3, "cpu": 12.3, "self": 10.1,
                                      "children": 2.2, "wall": 30.4}, ...},
     "tests": {"tests/x/test_y.py::test_z": {"cpu": ..., "self": ..., "children": ...,
                                             "wall": ...}, ...},
     "totals": {"tests": ..., "cpu": ..., "wall": ...}}

and the terminal summary prints the files, costliest first. Under xdist each worker
writes ``PATH.<worker id>`` (e.g. ``cpu.json.gw0``) instead; run with ``-n 0`` to get one.

What is counted: for each test, from the start of its setup to the end of its teardown,
the deltas of ``resource.getrusage`` user + system time of

* ``RUSAGE_SELF`` — the pytest process and all its threads (in-process ASGI servers,
  ``hosting.serve`` threads, thread pools, Hypothesis, the local embedders...);
* ``RUSAGE_CHILDREN`` — child processes that have ended *and been waited for* during that
  span (subprocess ``litdesk`` CLI calls, index worker processes, servers a test starts
  and stops), including their own waited-for descendants;
* live descendants (Linux ``/proc/*/stat``: utime + stime + cutime + cstime of every
  process whose parent chain leads here), so a module-scoped browser's processes or a
  server still running are charged to the tests during which they spent it. A descendant
  reaped by its parent moves into that parent's cutime/cstime; one reaped by us moves
  into ``RUSAGE_CHILDREN``: each second is counted once.

What it cannot see:

* the PostgreSQL server's processes (they are not our children): work pushed into SQL
  looks cheaper than it is;
* a descendant that ends and is never reaped by a live descendant or by us (its
  parent killed first, a double-forked daemon adopted by init): its time is lost, and
  the live-descendant sum can even step down when such a parent dies — e.g. chromium's
  renderers when the browser is closed at a module's teardown; small next to a walk;
* the outside world: the machine's load changes cache and frequency effects (CPU
  seconds drift ~±10 % where wall seconds drift ×2–5).

Module- and session-scoped fixtures are charged to the test that sets them up (the
first of their scope) and the one that tears them down, so per-file sums are the
meaningful figure, per-test ones only within a file. CPU seconds do not grow with the
machine's load the way wall seconds do, which is why they are the measure to compare
before/after on a shared machine.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

__all__ = ["ENV_VAR", "CpuRecorder", "register"]

#: the variable that turns the plugin on (its value is the JSON file to write)
ENV_VAR = "LITDESK_TEST_CPU"


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _live_descendants() -> float:
    """CPU seconds so far of this process's live descendants (Linux ``/proc``; 0 elsewhere):
    each one's own time plus that of its children it has reaped."""
    proc = Path("/proc")
    if not proc.is_dir():
        return 0.0
    parent: dict[int, int] = {}
    spent: dict[int, int] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_text()
        except OSError:
            continue
        fields = raw[raw.rfind(")") + 2 :].split()  # after "pid (comm) "
        # fields[1] is ppid; fields[11..14] utime, stime, cutime, cstime
        parent[int(entry.name)] = int(fields[1])
        spent[int(entry.name)] = sum(int(x) for x in fields[11:15])
    me = os.getpid()
    total = 0
    for pid, ticks in spent.items():
        up, seen = parent.get(pid), 0
        while up and up != me and seen < 64:
            up, seen = parent.get(up), seen + 1
        if up == me:
            total += ticks
    return total / _TICK


def _times() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime + _live_descendants()


class CpuRecorder:
    """The pytest plugin: one record per test, a summary per file at the session's end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.per_test: dict[str, dict[str, float]] = {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, Any, None]:
        me0, kids0 = _times()
        wall0 = time.perf_counter()
        yield
        me1, kids1 = _times()
        wall = time.perf_counter() - wall0
        own, children = me1 - me0, kids1 - kids0
        self.per_test[item.nodeid] = {
            "cpu": round(own + children, 4),
            "self": round(own, 4),
            "children": round(children, 4),
            "wall": round(wall, 4),
        }

    def summary(self) -> dict[str, Any]:
        files: dict[str, dict[str, float]] = {}
        for nodeid, rec in self.per_test.items():
            entry = files.setdefault(
                nodeid.split("::", 1)[0],
                {"tests": 0, "cpu": 0.0, "self": 0.0, "children": 0.0, "wall": 0.0},
            )
            entry["tests"] += 1
            for key in ("cpu", "self", "children", "wall"):
                entry[key] += rec[key]
        for entry in files.values():
            for key in ("cpu", "self", "children", "wall"):
                entry[key] = round(entry[key], 2)
        ordered = dict(sorted(files.items(), key=lambda kv: -kv[1]["cpu"]))
        return {
            "files": ordered,
            "tests": self.per_test,
            "totals": {
                "tests": len(self.per_test),
                "cpu": round(sum(r["cpu"] for r in self.per_test.values()), 2),
                "wall": round(sum(r["wall"] for r in self.per_test.values()), 2),
            },
        }

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        target = self.path.with_name(f"{self.path.name}.{worker}") if worker else self.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(self.summary(), indent=1), encoding="utf-8")

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if os.environ.get("PYTEST_XDIST_WORKER"):
            return
        data = self.summary()
        terminalreporter.section("CPU seconds per file (self + waited children)")
        for name, entry in data["files"].items():
            terminalreporter.write_line(
                f"{entry['cpu']:8.2f} cpu {entry['self']:8.2f} self {entry['children']:7.2f}"
                f" children {entry['wall']:8.2f} wall {int(entry['tests']):4d} tests  {name}"
            )
        totals = data["totals"]
        terminalreporter.write_line(
            f"{totals['cpu']:8.2f} cpu {totals['wall']:8.2f} wall, {totals['tests']} tests"
            f" -> {self.path}"
        )


def register(config: pytest.Config) -> None:
    """Register the recorder when ``$LITDESK_TEST_CPU`` names a file."""
    raw = os.environ.get(ENV_VAR, "")
    if raw:
        config.pluginmanager.register(CpuRecorder(Path(raw)), "litdesk-cpu")
