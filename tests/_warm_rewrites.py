"""Write pytest's rewritten bytecode of every test module once, before ``make test``'s
workers start: ``python tests/_warm_rewrites.py [--jobs N]``.

pytest rewrites the ``assert`` statements of each test module (and conftest) when it imports
it, and caches the result beside it (``__pycache__/*.cpython-311-pytest-<version>.pyc``). On a
clean clone the cache is empty and every xdist worker collects the whole suite at the same
moment, so each one rewrites every module (~9 s of CPU apiece here) and none finds the others'
files in time. This writes the cache first, in ``--jobs`` processes, with pytest's own
rewriter and its own file format; the workers then read it (pytest checks each file against
its source's hash and rewrites any it cannot read, so a stale or missing file costs only the
time it would have cost anyway).

It uses pytest's assertion-rewriting module, which is not a public API: when that module no
longer has what this needs, it says so and writes nothing (the suite is unchanged, only its
collection is slower)."""

from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"


def modules(tests: Path = TESTS) -> list[Path]:
    """The modules pytest rewrites here: ``test_*.py`` (the default ``python_files``) and
    ``conftest.py``; the ``tests/_*.py`` helpers are plain imports."""
    found = [
        p
        for p in tests.rglob("*.py")
        if (p.name.startswith("test_") or p.name == "conftest.py") and "__pycache__" not in p.parts
    ]
    return sorted(found)


def _write(paths: list[str]) -> int:
    """Rewrite and cache ``paths``; the number of files written."""
    from _pytest.assertion import rewrite

    written = 0
    for name in paths:
        fn = Path(name)
        cache = rewrite.get_cache_dir(fn)
        pyc = cache / (fn.name[:-3] + rewrite.PYC_TAIL)
        if rewrite._read_pyc(fn, pyc) is not None:
            continue  # already cached and current
        source_hash, code = rewrite._rewrite_test(fn, None)  # type: ignore[arg-type]
        cache.mkdir(exist_ok=True)
        part = pyc.with_name(f"{pyc.name}.{os.getpid()}")
        with open(part, "wb") as fh:
            rewrite._write_pyc_fp(fh, source_hash, code)
        os.replace(part, pyc)  # atomic, as pytest itself writes it
        if rewrite._read_pyc(fn, pyc) is None:  # pytest would not read it: leave no trace
            pyc.unlink()
            raise RuntimeError(f"pytest does not read the file written for {fn}")
        written += 1
    return written


def _usable() -> str | None:
    """Why pytest's rewriter cannot be used here, or None."""
    try:
        from _pytest.assertion import rewrite
    except ImportError as exc:
        return str(exc)
    missing = [
        n
        for n in ("get_cache_dir", "PYC_TAIL", "_read_pyc", "_rewrite_test", "_write_pyc_fp")
        if not hasattr(rewrite, n)
    ]
    return f"pytest's rewrite module lacks {', '.join(missing)}" if missing else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--tests", type=Path, default=TESTS, help="the tests folder")
    args = parser.parse_args(argv)
    if sys.dont_write_bytecode:
        print("warm_rewrites: bytecode writing is off; nothing written", file=sys.stderr)
        return 0
    why = _usable()
    if why is not None:
        print(f"warm_rewrites: skipped ({why})", file=sys.stderr)
        return 0
    names = [str(p) for p in modules(args.tests)]
    jobs = max(1, min(args.jobs, len(names)))
    chunks = [names[i::jobs] for i in range(jobs)]
    if jobs == 1:
        _write(names)
        return 0
    with ProcessPoolExecutor(jobs) as pool:
        list(pool.map(_write, chunks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
