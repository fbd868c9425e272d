"""A bounded, seeded corpus of hostile mutations of the project's own format fixtures.

Used by ``test_fuzz_readers.py`` (a few hundred cases in ``make test``) and by
``bench/fuzz_bench.py`` (a longer run with figures). Each mutation is a pure function of a
``random.Random`` and the seed bytes, so a case is reproduced from (seed, index).
"""

from __future__ import annotations

import codecs
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).parent / "data"
#: The seeds: every fixture file of the format tests that is read as some format.
SEED_GLOBS = ("fuzz/*", "ris/*.ris", "tagged/*")
#: The largest mutated input the suite feeds (bytes): mutations stay small and fast.
MAX_CASE_BYTES = 2_000_000


def seeds() -> list[tuple[str, bytes]]:
    out: list[tuple[str, bytes]] = []
    for pattern in SEED_GLOBS:
        for path in sorted(DATA.glob(pattern)):
            if path.is_file():
                out.append((f"{path.parent.name}/{path.name}", path.read_bytes()))
    return out


def _pos(rng: random.Random, data: bytes) -> int:
    return rng.randrange(len(data) + 1)


def bit_flips(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 16)):
        if buf:
            i = rng.randrange(len(buf))
            buf[i] ^= 1 << rng.randrange(8)
    return bytes(buf)


def byte_noise(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = _pos(rng, bytes(buf))
        buf[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 6)))
    return bytes(buf)


def truncation(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    cut = _pos(rng, data)
    return data[:cut] if rng.random() < 0.7 else data[cut:]


def deletion(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    i = _pos(rng, data)
    return data[:i] + data[i + rng.randint(1, 200) :]


def encodings(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    codec = rng.choice(
        [
            "utf-16-le",
            "utf-16-be",
            "utf-16",
            "utf-32",
            "utf-32-le",
            "cp1252",
            "latin-1",
            "utf-8-sig",
        ]
    )
    out = text.encode(codec, "replace")
    if rng.random() < 0.3:  # a BOM that lies about the rest
        out = rng.choice([codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE]) + out
    if rng.random() < 0.3 and len(out) > 1:  # an odd byte count
        out = out[:-1]
    return out


def huge_line(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    size = rng.choice([10_000, 100_000, 600_000])
    filler = rng.choice([b"a", b"{", b"}", b'"', b",", b"\\", b"<", b"&", b" ", b"\t", b"-"])
    i = _pos(rng, data)
    return data[:i] + filler * size + data[i:]


def controls(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        i = _pos(rng, bytes(buf))
        buf[i:i] = bytes([rng.choice([0, 1, 7, 8, 0x0B, 0x0C, 0x1B, 0x1F, 0x7F])])
    return bytes(buf)


def splice(rng: random.Random, data: bytes, other: bytes) -> bytes:
    i = _pos(rng, data)
    j = rng.randrange(len(other) + 1)
    k = min(len(other), j + rng.randint(1, 2000))
    return data[:i] + other[j:k] + data[i:]


def repeat(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    i = _pos(rng, data)
    j = min(len(data), i + rng.randint(1, 400))
    return data[:i] + data[i:j] * rng.randint(2, 300) + data[j:]


def nesting(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    depth = rng.choice([100, 1_000, 50_000, 200_000])
    opener, closer = rng.choice(
        [(b"[", b"]"), (b"{", b"}"), (b"<a>", b"</a>"), (b"(", b")"), (b'{"a":', b"}")]
    )
    i = _pos(rng, data)
    closing = closer * depth if rng.random() < 0.5 else b""
    return data[:i] + opener * depth + closing + data[i:]


_NUMBER = re.compile(rb"\d+")


def numbers(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    spans = [m.span() for m in _NUMBER.finditer(data)]
    if not spans:
        return data + b"9" * 5000
    out = data
    for start, end in sorted(rng.sample(spans, min(len(spans), rng.randint(1, 5))), reverse=True):
        value = rng.choice(
            [
                b"9" * 5000,
                b"-" + b"1" * 4400,
                b"1e999",
                b"-1e999",
                b"NaN",
                b"Infinity",
                b"0" * 300 + b"1",
                b"18446744073709551616",
                b"-0",
                b"1.5e-400",
                b"0x1F",
                b"99999",
            ]
        )
        out = out[:start] + value + out[end:]
    return out


def bibtex_bombs(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    depth = rng.randint(12, 40)
    lines = [b"@string{s0 = {" + b"x" * rng.choice([1, 32, 1000]) + b"}}"]
    lines += [b"@string{s%d = s%d # s%d}" % (i, i - 1, i - 1) for i in range(1, depth + 1)]
    lines.append(b"@article{k, title = s%d}" % depth)
    return data + b"\n" + b"\n".join(lines)


def crossref_chains(rng: random.Random, data: bytes, _other: bytes) -> bytes:
    n = rng.choice([10, 40, 500])
    body = b"".join(
        b"@article{c%d, crossref = {c%d}, title = {t}}\n" % (i, i + 1) for i in range(n)
    )
    if rng.random() < 0.5:
        body += b"@article{c%d, crossref = {c0}}\n" % n  # a cycle
    return data + b"\n" + body


Mutation = Callable[[random.Random, bytes, bytes], bytes]
MUTATIONS: dict[str, Mutation] = {
    "bit_flips": bit_flips,
    "byte_noise": byte_noise,
    "truncation": truncation,
    "deletion": deletion,
    "encodings": encodings,
    "huge_line": huge_line,
    "controls": controls,
    "splice": splice,
    "repeat": repeat,
    "nesting": nesting,
    "numbers": numbers,
    "bibtex_bombs": bibtex_bombs,
    "crossref_chains": crossref_chains,
}


@dataclass(frozen=True, slots=True)
class Case:
    seed: str
    mutation: str
    index: int
    data: bytes

    @property
    def name(self) -> str:
        return f"{self.seed}:{self.mutation}:{self.index}"


def cases(count: int, *, seed: int = 13) -> Iterator[Case]:
    """``count`` mutated inputs, every seed and every mutation in turn, reproducible."""
    corpus = seeds()
    names = list(MUTATIONS)
    rng = random.Random(seed)
    for index in range(count):
        seed_name, data = corpus[index % len(corpus)]
        mutation = names[(index // len(corpus) + index) % len(names)]
        other = corpus[rng.randrange(len(corpus))][1]
        case_rng = random.Random(f"{seed}:{index}")
        out = MUTATIONS[mutation](case_rng, data, other)
        if case_rng.random() < 0.25:  # a second mutation on top
            second = names[case_rng.randrange(len(names))]
            out = MUTATIONS[second](case_rng, out, other)
            mutation = f"{mutation}+{second}"
        yield Case(seed_name, mutation, index, out[:MAX_CASE_BYTES])
