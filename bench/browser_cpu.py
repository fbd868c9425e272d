"""CPU of the browser tests, split by process: chromium's against the test process's
(issue 26: chromium was ~20-30 % of a full run's CPU on the 2-core machine).

Each test file is run on its own (``pytest -n 0 -q -p no:cacheprovider FILE``) as a child of
this script; every ``--interval`` seconds the script walks that child's process tree
(``/proc/<pid>/task/*/children``) and keeps each process's utime + stime as last seen, by
(pid, start time), with its kind:

* ``python`` — the pytest process itself (its threads: the session's uvicorn server, the
  apps' job threads, Playwright's sync client); read once more as a zombie, before it is
  reaped, so its total is exact;
* ``chromium`` — every process whose executable is chromium's (browser, zygotes, renderers,
  GPU and utility processes), and the ``/usr/bin/chromium`` launcher script; also told by
  part (its ``--type``: browser, renderer, gpu-process, zygote, utility:<sub-type>; the
  crash handler, until it leaves the tree) with the number of such processes;
* ``driver`` — Playwright's node driver;
* ``firefox`` — firefox-esr and its content processes (the Firefox tests);
* ``other`` — anything else the tests start (a ``litdesk`` CLI, a server process...);
* ``unseen`` — the tree's exact total (the test process's own and reaped children's time,
  read from its zombie) less all the above: what processes spent after their last look
  (chromium's renderers of closed contexts, mostly; see :class:`Tree`). It is 0 when some
  of the tree was not reaped up the chain (chromium's zygotes: 0 in every run of the browser
  files here): the other figures are then what the looks saw, each a little low.

What it cannot see: a process whose parent never reaps it (an orphan adopted by init:
chromium's crash handlers). The same file measured twice differs (timers run while the
test waits, longer on a loaded machine): measure several times, compare the medians.

    PYTHONPATH=src LITDESK_FIXTURES=... .venv/bin/python bench/browser_cpu.py \\
        tests/faces/web/test_library_browser.py [...] [--repeat 2] [--json out.json] \\
        [-- extra pytest args]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

_TICK = os.sysconf("SC_CLK_TCK")
KINDS = ("python", "chromium", "driver", "firefox", "other", "unseen")


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", encoding="ascii") as fh:
                found += [int(x) for x in fh.read().split()]
        except OSError:
            continue
    return found


def _stat(pid: int) -> tuple[int, int, int, int, bool] | None:
    """(ppid, start time, own utime + stime ticks, ticks of its reaped children, whether it
    has ended) of a process (a zombie's too)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            raw = fh.read()
    except OSError:
        return None
    f = raw[raw.rfind(")") + 2 :].split()
    return int(f[1]), int(f[19]), int(f[11]) + int(f[12]), int(f[13]) + int(f[14]), f[0] == "Z"


def _chromium_type(pid: int) -> str:
    """A chromium process's part: browser, renderer, gpu-process, zygote, utility:<sub>."""
    try:  # a child process sets its title: its arguments are then one space-separated string
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            args = fh.read().decode(errors="replace").replace("\0", " ").split()
    except OSError:
        return "?"
    if not args:  # ended, not reaped yet: its part is not known
        return "?"
    if "crashpad" in args[0]:
        return "crashpad"
    kind = next((a.split("=", 1)[1] for a in args if a.startswith("--type=")), "browser")
    sub = next((a.split("=", 1)[1] for a in args if a.startswith("--utility-sub-type=")), "")
    if kind == "renderer" and "--top-chrome-webui" in args:
        kind = "renderer(webui)"
    return f"{kind}:{sub.rsplit('.', 1)[-1]}" if sub else kind


def _kind(pid: int, top: int) -> str:
    if pid == top:
        return "python"
    try:
        exe = os.readlink(f"/proc/{pid}/exe")
    except OSError:
        exe = ""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            first = fh.read(300).split(b"\0")[:2]
    except OSError:
        first = []
    words = " ".join(x.decode(errors="replace") for x in first)
    try:  # a zombie has no command line or executable left, but its name
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as fh:
            comm = fh.read().strip()
    except OSError:
        comm = ""
    text = f"{exe} {words} {comm}"
    if "chromium" in text or "chrome" in text:
        return "chromium/" + _chromium_type(pid)
    if "firefox" in text:
        return "firefox"
    if "node" in os.path.basename(exe) or "playwright" in text:
        return "driver"
    return "other"


#: kinds looked at again: a child forked by a zygote shows the zygote's command line until
#: it sets its own title (a renderer), a browser is a copy of Playwright's driver until it
#: execs (then its launcher script, ``other``, then chromium)
_UNSETTLED = {"chromium/browser", "chromium/zygote", "chromium/?", "driver", "other"}


class Tree:
    """The last-seen CPU ticks of every process in a tree, by (pid, start) with its kind.

    A process that ends between two looks spent up to a look's interval unseen. The tree's
    exact total is the top process's own ticks and those of every descendant reaped up the
    chain (its ``cutime`` once everything has ended and been waited for: chromium's zygotes
    reap the renderers, the browser its zygotes, Playwright's driver the browser, the test
    process the driver); what the looks did not see of it is told apart as ``unseen`` (the
    last moments of processes that ended between two looks: chromium's renderers of closed
    contexts in these files)."""

    def __init__(self, top: int) -> None:
        self.top = top
        self.own: dict[tuple[int, int], int] = {}
        self.kinds: dict[tuple[int, int], str] = {}
        self.top_total = 0

    def look(self) -> None:
        todo = [self.top]
        while todo:
            pid = todo.pop()
            got = _stat(pid)
            if got is None:
                continue
            _ppid, started, own, reaped, ended = got
            key = (pid, started)
            if key not in self.kinds or (self.kinds[key] in _UNSETTLED and not ended):
                # a forked child is a copy of its zygote until it sets its title: looked again
                # (not once it has ended: a zombie keeps only its name)
                self.kinds[key] = _kind(pid, self.top)
            self.own[key] = max(own, self.own.get(key, 0))
            if pid == self.top:
                self.top_total = max(own + reaped, self.top_total)
            todo += _children(pid)

    def seconds(self) -> dict[str, object]:
        out = dict.fromkeys(KINDS, 0.0)
        parts: dict[str, float] = {}
        counts: dict[str, int] = {}
        for key, ticks in self.own.items():
            kind, _, part = self.kinds[key].partition("/")
            out[kind] += ticks / _TICK
            if part:
                parts[part] = parts.get(part, 0.0) + ticks / _TICK
                counts[part] = counts.get(part, 0) + 1
        out["unseen"] = max(0.0, (self.top_total - sum(self.own.values())) / _TICK)
        return {
            **{k: round(v, 2) for k, v in out.items()},
            "chromium_parts": {
                k: f"{v:.2f} s in {counts[k]}"
                for k, v in sorted(parts.items(), key=lambda x: -x[1])
            },
        }


def run_file(path: str, extra: list[str], interval: float) -> dict[str, object]:
    cmd = [sys.executable, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider", path]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd + extra, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    tree = Tree(proc.pid)
    done = threading.Event()
    lines: list[bytes] = []

    def read() -> None:
        assert proc.stdout is not None
        lines.extend(proc.stdout)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def wait() -> None:  # the child's exit, without reaping it (its zombie's stat stays)
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
        done.set()

    threading.Thread(target=wait, daemon=True).start()
    while not done.wait(interval):
        tree.look()
    tree.look()  # the zombie: the test process's exact total
    code = proc.wait()
    reader.join()
    wall = time.perf_counter() - start
    tail = b"".join(lines).decode(errors="replace").strip().splitlines()[-1:]
    return {"file": path, "rc": code, "wall": round(wall, 1), **tree.seconds(), "summary": tail}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--interval", type=float, default=0.1)
    parser.add_argument("--json", type=Path)
    args, extra = parser.parse_known_args()
    extra = [x for x in extra if x != "--"]
    with open("/proc/loadavg", encoding="ascii") as fh:
        print(f"load average before: {' '.join(fh.read().split()[:3])}", flush=True)
    results = []
    for round_ in range(args.repeat):
        for path in args.files:
            got = run_file(path, extra, args.interval)
            got["round"] = round_ + 1
            results.append(got)
            print(
                f"{got['file']} round {round_ + 1}: rc {got['rc']}, wall {got['wall']} s, "
                f"python {got['python']}, chromium {got['chromium']}, driver {got['driver']}, "
                f"firefox {got['firefox']}, other {got['other']}, unseen {got['unseen']} CPU s"
                f"  {got['summary']}\n"
                f"    chromium by part: {got['chromium_parts']}",
                flush=True,
            )
    if args.repeat > 1:
        print("medians:")
        for path in args.files:
            mine = [r for r in results if r["file"] == path]
            meds = {k: statistics.median(float(r[k]) for r in mine) for k in KINDS}  # type: ignore[arg-type]
            print(f"  {path}: " + ", ".join(f"{k} {v:.2f}" for k, v in meds.items()))
    with open("/proc/loadavg", encoding="ascii") as fh:
        print(f"load average after: {' '.join(fh.read().split()[:3])}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
