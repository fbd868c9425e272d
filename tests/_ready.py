"""Start several processes together without a fixed sleep: each touches its ready file
(``<go>.ready-<name>``) once it has imported and opened what it needs, then waits for
the go file; the test waits for every ready file (:func:`wait_ready`) and touches go."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

__all__ = ["ready_file", "wait_ready"]


def ready_file(go: Path, name: str) -> Path:
    return Path(f"{go}.ready-{name}")


def wait_ready(
    go: Path, names: Sequence[str], procs: Sequence[subprocess.Popen[str]], timeout: float = 120
) -> None:
    """Wait until every process named in ``names`` is ready, then touch ``go``; fail at
    once (with its stderr) if one exits first, or after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not all(ready_file(go, n).exists() for n in names):
        for p in procs:
            if p.poll() is not None:
                _, err = p.communicate()
                raise AssertionError(f"a process exited before it was ready: {err[-3000:]}")
        if time.monotonic() > deadline:
            for p in procs:
                p.kill()
            raise AssertionError(f"the processes were not ready within {timeout:g} s")
        time.sleep(0.02)
    go.touch()


@contextmanager
def reaped(procs: Sequence[subprocess.Popen[str]]) -> Iterator[None]:
    """Whatever happens inside, no process of ``procs`` is left running and no pipe of
    theirs open (a process left behind by a failed test makes later tests of the same
    worker fail with ResourceWarnings)."""
    try:
        yield
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.communicate()
