"""A sampling profiler for a server process of the benches (py-spy is not installed, and
cProfile sees only the thread it was started in: FastAPI runs sync routes in a thread
pool). Every ``interval`` seconds a daemon thread reads every other thread's stack
(``sys._current_frames``) and counts, per function, the samples where it is the innermost
frame (self) and where it is anywhere on the stack (cumulative, once per sample). Threads
waiting for work (a thread pool's queue, the event loop's ``select``, a condition) are not
counted; a thread waiting for PostgreSQL's answer is (that is a request's time, not CPU).

    python -c "import sys; sys.path.insert(0, 'bench'); import _sampler; _sampler.start('out.txt'); ..."

At exit the report is written to the file: the top functions by self and by cumulative
samples, and the process's CPU time."""

from __future__ import annotations

import atexit
import collections
import os
import sys
import threading
import time
from pathlib import Path
from types import FrameType

#: innermost frames of a thread that waits for work (not counted)
IDLE = {
    ("threading.py", "wait"),
    ("selectors.py", "select"),
    ("queue.py", "get"),
    ("thread.py", "_worker"),
    ("threading.py", "_wait_for_tstate_lock"),
    ("_sampler.py", "_run"),
    ("socket.py", "accept"),
}
#: frames whose caller waits for a job (the runners' polls, the idle asyncio loop)
IDLE_NAMES = {"sleep", "_poll_loop", "wait_for", "_run_once"}


def _key(frame: FrameType) -> tuple[str, int, str]:
    code = frame.f_code
    return (code.co_filename, code.co_firstlineno, code.co_name)


class Sampler:
    def __init__(self, out: Path, interval: float) -> None:
        self.out, self.interval = out, interval
        self.self_counts: collections.Counter[tuple[str, int, str]] = collections.Counter()
        self.cum_counts: collections.Counter[tuple[str, int, str]] = collections.Counter()
        self.samples = 0
        self.idle = 0
        self.started = time.monotonic()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="bench-sampler", daemon=True)

    def _run(self) -> None:
        me = threading.get_ident()
        while not self._stop.wait(self.interval):
            for ident, frame in sys._current_frames().items():
                if ident == me:
                    continue
                leaf = (os.path.basename(frame.f_code.co_filename), frame.f_code.co_name)
                if leaf in IDLE or frame.f_code.co_name in IDLE_NAMES:
                    self.idle += 1
                    continue
                self.samples += 1
                self.self_counts[_key(frame)] += 1
                seen: set[tuple[str, int, str]] = set()
                f: FrameType | None = frame
                while f is not None:
                    k = _key(f)
                    if k not in seen:
                        seen.add(k)
                        self.cum_counts[k] += 1
                    f = f.f_back

    def report(self) -> None:
        self._stop.set()
        cpu = os.times()
        lines = [
            f"pid {os.getpid()}: {self.samples} busy samples, {self.idle} idle, every "
            f"{self.interval * 1000:.1f} ms over {time.monotonic() - self.started:.1f} s; "
            f"process CPU user {cpu.user:.2f} s, system {cpu.system:.2f} s",
            "",
            "self (innermost frame):",
        ]

        def name(k: tuple[str, int, str]) -> str:
            path = k[0]
            for marker in ("site-packages/", "src/", "lib/python3"):
                if marker in path:
                    path = path.split(marker, 1)[1]
                    break
            return f"{path}:{k[1]} {k[2]}"

        total = max(1, self.samples)
        for k, n in self.self_counts.most_common(45):
            lines.append(f"  {n:7d} {100 * n / total:5.1f}%  {name(k)}")
        lines += ["", "cumulative (on the stack):"]
        for k, n in self.cum_counts.most_common(150):
            lines.append(f"  {n:7d} {100 * n / total:5.1f}%  {name(k)}")
        self.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def start(out: str, interval: float = 0.002) -> Sampler:
    sampler = Sampler(Path(out), interval)
    sampler.thread.start()
    atexit.register(sampler.report)
    return sampler
