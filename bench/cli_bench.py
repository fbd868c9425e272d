"""CLI start-up bench: ``litdesk --help`` and ``litdesk --version`` against the peer
``python -c "import typer, rich.console"`` (the floor any Typer + rich CLI pays).

Each command runs N times in a fresh interpreter (alternating, so load drifts hit every
command alike); the medians and the ratio litdesk / peer are printed. Target: at most 2x.

    PYTHONPATH=src .venv/bin/python bench/cli_bench.py [N]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

PEER = [sys.executable, "-c", "import typer, rich.console"]
COMMANDS = {
    "litdesk --help": [sys.executable, "-m", "litdesk", "--help"],
    "litdesk --version": [sys.executable, "-m", "litdesk", "--version"],
}


def _once(argv: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode()[:400]}")
    return elapsed


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    env_note = os.environ.get("PYTHONPATH", "")
    times: dict[str, list[float]] = {"peer": [], **{name: [] for name in COMMANDS}}
    for argv in [PEER, *COMMANDS.values()]:
        _once(argv)  # warm the file cache
    for _ in range(n):
        times["peer"].append(_once(PEER))
        for name, argv in COMMANDS.items():
            times[name].append(_once(argv))
    peer = statistics.median(times["peer"])
    print(f"runs per command: {n}; python {sys.version.split()[0]}; PYTHONPATH={env_note}")
    print(f"peer  python -c 'import typer, rich.console'  median {peer * 1000:7.1f} ms")
    for name in COMMANDS:
        median = statistics.median(times[name])
        print(f"      {name:<38} median {median * 1000:7.1f} ms  ratio {median / peer:4.2f}x")


if __name__ == "__main__":
    main()
