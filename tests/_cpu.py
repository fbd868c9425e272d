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
writes ``PATH.<worker id>`` (e.g. ``cpu.json.gw0``) and the controller nothing; run with
``-n 0`` to get one file.

What is counted: for each test, from the start of its setup to the end of its teardown,
the deltas of ``resource.getrusage`` user + system time of

* ``RUSAGE_SELF`` — the pytest process and all its threads (in-process ASGI servers,
  ``hosting.serve`` threads, thread pools, Hypothesis, the local embedders...);
* ``RUSAGE_CHILDREN`` — child processes that have ended *and been waited for* during that
  span (subprocess ``litdesk`` CLI calls, index worker processes, servers a test starts
  and stops), including their own waited-for descendants;
* live descendants (Linux ``/proc``: a background thread walks
  ``/proc/<pid>/task/*/children`` from this process every ``SAMPLE_SECONDS`` and keeps
  each descendant's utime + stime as last seen, see :class:`_Descendants`), so a
  session-scoped browser's processes or a server still running are charged to the tests
  during which they spent them, and a process that ends unreaped (chromium's renderers
  when the browser closes) keeps what it was last seen spending; ``RUSAGE_CHILDREN``
  counts only what no look explained (processes that lived between two looks, the tail
  after a child's last look).

What it cannot see:

* the PostgreSQL server's processes (they are not our children): work pushed into SQL
  looks cheaper than it is;
* the last ``SAMPLE_SECONDS`` of a grandchild that ends unreaped (its parent killed
  first), and the whole of one that lives and dies between two looks that way; a
  process that leaves our tree (a double-forked daemon, adopted by init) from then on;
* this plugin's own looks (a few ms every ``SAMPLE_SECONDS``, counted in ``self``: about
  the same before and after a change, so it cancels in a comparison);
* the outside world: the machine's load changes cache and frequency effects, and what
  polls while it waits (a team server's job poll, a browser's timers) spends more the
  longer a loaded machine makes it wait (the same file measured twice differed by up to
  26 % here, its wall seconds up to ×3): alternate before/after runs, several of each.

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
import threading
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

__all__ = ["ENV_VAR", "CpuRecorder", "register"]

#: the variable that turns the plugin on (its value is the JSON file to write)
ENV_VAR = "LITDESK_TEST_CPU"


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
#: seconds between two looks at the live descendants (a background thread)
SAMPLE_SECONDS = 0.25


def _children(pid: int) -> list[int]:
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", encoding="ascii") as fh:
                found += [int(x) for x in fh.read().split()]
        except OSError:
            continue
    return found


def _stat(pid: int) -> tuple[int, int, int, int] | None:
    """(ppid, start time, own ticks, ticks of its reaped children) of a live process."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            raw = fh.read()
    except OSError:
        return None
    f = raw[raw.rfind(")") + 2 :].split()  # the fields after "pid (comm) "
    return int(f[1]), int(f[19]), int(f[11]) + int(f[12]), int(f[13]) + int(f[14])


class _Descendants:
    """The CPU ticks of every descendant process seen alive (``/proc``), kept after it ends.

    A background thread looks every ``SAMPLE_SECONDS`` (and :meth:`seconds` looks once
    more): each descendant's own ticks as last seen are kept under (pid, start time), so a
    process that ends unreaped by anyone we can read (a browser's renderers when the
    browser is closed) still counts what it was last seen spending. Our direct children
    are also counted by ``RUSAGE_CHILDREN`` once we reap them, with the descendants they
    reaped; :meth:`seconds` answers only ``RUSAGE_CHILDREN``'s part no descendant seen
    explains (processes that lived between two looks, the tail after a child's last
    look), so a second is counted once. A direct child's seen descendants are taken as
    reaped into it (the usual end: a pool joins its workers); those it left orphaned (it
    was killed) are then taken off other processes' unexplained part, which is never
    counted below zero.
    """

    def __init__(self) -> None:
        self.me = os.getpid()
        self.own: dict[tuple[int, int], int] = {}
        self.direct: dict[tuple[int, int], int] = {}  # our children: own + reaped, last seen
        self.under: dict[tuple[int, int], set[tuple[int, int]]] = {}  # their descendants
        self.settled = 0  # ticks of our vanished direct children as last seen
        self._lock = threading.Lock()
        self._looking = threading.Lock()
        self._stop = threading.Event()
        self.enabled = os.path.isdir(f"/proc/{self.me}/task")
        if self.enabled:
            threading.Thread(target=self._run, name="litdesk-cpu", daemon=True).start()

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_SECONDS):
            self.look()

    def look(self) -> None:
        if not self.enabled:
            return
        with self._looking:  # one look at a time: a child two looks disagree on is not settled
            self._look()

    def _look(self) -> None:
        todo: list[tuple[int, tuple[int, int] | None]] = [(self.me, None)]
        live = set()
        while todo:
            pid, top = todo.pop()
            for child in _children(pid):
                got = _stat(child)
                if got is None:
                    continue
                ppid, started, own, reaped = got
                key = (child, started)
                live.add(key)
                mine = top or key  # the direct child this one descends from
                todo.append((child, mine))
                with self._lock:
                    self.own[key] = max(own, self.own.get(key, 0))
                    if ppid == self.me and top is None:
                        self.direct[key] = max(own + reaped, self.direct.get(key, 0))
                    else:
                        self.under.setdefault(mine, set()).add(key)
        with self._lock:
            for key in [k for k in self.direct if k not in live]:
                # what RUSAGE_CHILDREN got when we reaped it: its time, and that of the
                # descendants it (or theirs) reaped — those seen here already count in
                # ``own``, whether reaped before its last look (in its cutime) or after
                seen_below = sum(self.own.get(k, 0) for k in self.under.pop(key, ()))
                self.settled += max(self.direct.pop(key), self.own.get(key, 0) + seen_below)

    def seconds(self, children_rusage: float) -> float:
        self.look()
        with self._lock:
            seen = sum(self.own.values()) / _TICK
            settled = self.settled / _TICK
        return seen + max(0.0, children_rusage - settled)

    def stop(self) -> None:
        self._stop.set()


_DESCENDANTS: _Descendants | None = None


def _times() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    reaped = kids.ru_utime + kids.ru_stime
    children = _DESCENDANTS.seconds(reaped) if _DESCENDANTS is not None else reaped
    return me.ru_utime + me.ru_stime, children


class CpuRecorder:
    """The pytest plugin: one record per test, a summary per file at the session's end."""

    def __init__(self, path: Path) -> None:
        global _DESCENDANTS
        self.path = path
        self.per_test: dict[str, dict[str, float]] = {}
        if _DESCENDANTS is None:
            _DESCENDANTS = _Descendants()

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
        if not self.per_test:  # nothing ran here (xdist's controller): nothing to write
            return
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        target = self.path.with_name(f"{self.path.name}.{worker}") if worker else self.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(self.summary(), indent=1), encoding="utf-8")

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if os.environ.get("PYTEST_XDIST_WORKER") or not self.per_test:
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
