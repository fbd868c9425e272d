"""Import benchmark: litdesk's ``loads`` against rispy (RIS) and bibtexparser 2 (BibTeX).

Generates realistic files (authors, title, journal, year, DOI, abstract; LaTeX accents
in BibTeX), then measures each parser in its own subprocess: wall time of one parse
(records/s) and peak memory above the process's baseline (the high-water RSS ``VmHWM``
minus the RSS just before parsing, with the input bytes already loaded; ``ru_maxrss`` is
not used: on Linux it carries the parent's RSS over fork and exec, which hid the child's
own peak whenever the generating parent was larger). Prints the ratios.

    .venv/bin/python bench/import_bench.py                     # both, 100k records
    .venv/bin/python bench/import_bench.py --only ris --records 20000
    .venv/bin/python bench/import_bench.py --only bibtex --records 100000 --no-peer

``--no-peer`` measures litdesk alone (bibtexparser takes about a minute per 10k BibTeX
records, so its ratio is measured on a smaller file).

litdesk runs with digests and notices on (they always are), a validated Paper per record
and, for BibTeX, LaTeX decoded; bibtexparser runs with its ``LatexDecodingMiddleware``.
``litdesk-*`` is the library's ``loads`` as it stands (the cyclic garbage collector left
alone); ``litdesk-*-cli`` is the same ``loads`` with the collector paused as ``litdesk
import`` pauses it for its one-shot process.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIRST = ["Anna", "Björn", "Chloé", "Dmitri", "Eva", "François", "Grace", "Hiro", "Inés", "José"]
LAST = ["Müller", "García", "Smith", "Nakamura", "O'Brien", "Dvořák", "Lefèvre", "Kim", "Rossi"]
LAST_TEX = {
    "Müller": 'M{\\"u}ller',
    "García": "Garc{\\'\\i}a",
    "Dvořák": "Dvo{\\v{r}}{\\'a}k",
    "Lefèvre": "Lef{\\`e}vre",
}
FIRST_TEX = {"Björn": 'Bj{\\"o}rn', "Chloé": "Chlo{\\'e}", "François": "Fran{\\c{c}}ois"}
FIRST_TEX["Inés"] = "In{\\'e}s"
FIRST_TEX["José"] = "Jos{\\'e}"
WORDS = [
    "effect",
    "of",
    "randomised",
    "trial",
    "cohort",
    "outcome",
    "systematic",
    "review",
    "meta",
    "analysis",
    "patients",
    "treatment",
    "risk",
    "association",
    "clinical",
    "study",
    "evidence",
    "model",
    "gene",
    "expression",
    "cell",
    "protein",
    "mortality",
    "children",
    "adults",
    "intervention",
    "prevalence",
    "quality",
    "care",
    "health",
    "network",
]
JOURNALS = ["The Lancet", "BMJ Open", "PLoS ONE", "Nature Medicine", "Journal of Ecology"]


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _record(rng: random.Random, i: int) -> dict[str, object]:
    authors = [(rng.choice(LAST), rng.choice(FIRST)) for _ in range(rng.randint(1, 8))]
    return {
        "authors": authors,
        "title": _sentence(rng, rng.randint(6, 16)).capitalize(),
        "journal": rng.choice(JOURNALS),
        "year": rng.randint(1980, 2025),
        "volume": str(rng.randint(1, 300)),
        "pages": f"{(p := rng.randint(1, 900))}-{p + rng.randint(1, 20)}",
        "doi": f"10.{rng.randint(1000, 9999)}/bench.{i}",
        "abstract": ". ".join(_sentence(rng, 18) for _ in range(rng.randint(4, 9))) + ".",
        "keywords": [rng.choice(WORDS) for _ in range(rng.randint(0, 5))],
    }


def make_ris(n: int, seed: int = 1) -> bytes:
    rng = random.Random(seed)
    out: list[str] = []
    for i in range(n):
        r = _record(rng, i)
        out.append("TY  - JOUR")
        out.append(f"TI  - {r['title']}")
        for last, first in r["authors"]:  # type: ignore[attr-defined]
            out.append(f"AU  - {last}, {first}")
        out.append(f"JO  - {r['journal']}")
        out.append(f"PY  - {r['year']}")
        out.append(f"VL  - {r['volume']}")
        sp, ep = str(r["pages"]).split("-")
        out.append(f"SP  - {sp}")
        out.append(f"EP  - {ep}")
        out.append(f"DO  - {r['doi']}")
        out.append(f"AB  - {r['abstract']}")
        for kw in r["keywords"]:  # type: ignore[attr-defined]
            out.append(f"KW  - {kw}")
        out.append(f"ID  - bench{i}")
        out.append("ER  - ")
        out.append("")
    return "\n".join(out).encode("utf-8")


def make_bibtex(n: int, seed: int = 1) -> bytes:
    rng = random.Random(seed)
    out: list[str] = []
    for i in range(n):
        r = _record(rng, i)
        names = " and ".join(
            f"{LAST_TEX.get(last, last)}, {FIRST_TEX.get(first, first)}"
            for last, first in r["authors"]  # type: ignore[attr-defined]
        )
        out.append(f"@article{{key{i},")
        out.append(f"  author = {{{names}}},")
        out.append(f"  title = {{{{{r['title']}}}: a {{\\'e}}tude na{{\\\"i}}ve}},")
        out.append(f"  journal = {{{r['journal']}}},")
        out.append(f"  year = {r['year']},")
        out.append(f"  volume = {{{r['volume']}}},")
        out.append(f"  pages = {{{str(r['pages']).replace('-', '--')}}},")
        out.append(f"  doi = {{{r['doi']}}},")
        out.append(f"  abstract = {{{r['abstract']}}},")
        out.append(f"  keywords = {{{', '.join(r['keywords'])}}}")  # type: ignore[arg-type]
        out.append("}")
        out.append("")
    return "\n".join(out).encode("utf-8")


def _rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize()


def _peak() -> int:
    """This process's high-water RSS in bytes (``VmHWM``; reset by exec, unlike ru_maxrss)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise SystemExit("no VmHWM in /proc/self/status")


def worker(tool: str, path: str) -> None:
    """Run one parser once in this process and print a JSON line of figures."""
    data = Path(path).read_bytes()
    if tool.startswith("litdesk-"):
        from litdesk.adapters.formats import loads
        from litdesk.faces.cli._imports import collector_paused

        fmt = tool.split("-")[1]

        def run() -> int:
            if tool.endswith("-cli"):
                with collector_paused():
                    return len(loads(data, format=fmt, path=path).records)
            return len(loads(data, format=fmt, path=path).records)

    elif tool == "rispy":
        import rispy

        def run() -> int:
            return len(rispy.loads(data.decode("utf-8")))

    elif tool == "bibtexparser":
        import bibtexparser
        from bibtexparser.middlewares import LatexDecodingMiddleware

        def run() -> int:
            lib = bibtexparser.parse_string(
                data.decode("utf-8"), append_middleware=[LatexDecodingMiddleware()]
            )
            return len(lib.entries)

    else:
        raise SystemExit(f"unknown tool {tool}")
    gc.collect()
    base = _rss()
    t0 = time.perf_counter()
    n = run()
    dt = time.perf_counter() - t0
    peak = _peak()
    out = {"tool": tool, "records": n, "seconds": dt, "peak_delta": peak - base}
    if tool.startswith("litdesk") and not tool.endswith("-cli"):
        out["paper_seconds"], out["pydantic_seconds"] = _paper_cost(data, tool.split("-")[1])
    print(json.dumps(out))


def _paper_cost(data: bytes, fmt: str) -> tuple[float, float]:
    """Seconds to build the same papers again: litdesk's own checks, and pydantic's validation.

    litdesk: ``paper_from_fields`` on each paper's given fields (id derived again); pydantic:
    ``Paper.model_validate`` on each paper's dump (``read_paper`` took that path until it got
    the fast one too). For scale only: the import builds its papers with litdesk's checks,
    not with pydantic's validation.
    """
    from litdesk.adapters.formats import loads
    from litdesk.core.records import Paper
    from litdesk.core.records._paper import paper_from_fields

    papers = loads(data, format=fmt).papers
    given = [{k: getattr(p, k) for k in p.model_fields_set if k != "id"} for p in papers]
    t0 = time.perf_counter()
    for fields in given:
        paper_from_fields(fields, fallback_key="sha256:")
    ours = time.perf_counter() - t0
    dicts = [p.model_dump() for p in papers]
    t0 = time.perf_counter()
    for d in dicts:
        Paper.model_validate(d)
    return ours, time.perf_counter() - t0


def _measure(tool: str, path: Path) -> dict[str, float] | None:
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", tool, str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        print(f"  {tool}: failed: {tail}")
        return None
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _report(
    name: str,
    size: int,
    ours: dict[str, float] | None,
    peer: dict[str, float] | None,
    cli: dict[str, float] | None = None,
) -> None:
    print(f"{name}: input {size / 1e6:.1f} MB")
    for r in (ours, cli, peer):
        if r is None:
            continue
        print(
            f"  {r['tool']:<15} {r['records']:>7} records  {r['seconds']:7.2f} s  "
            f"{r['records'] / r['seconds']:>9,.0f} rec/s  peak +{r['peak_delta'] / 1e6:7.1f} MB "
            f"({r['peak_delta'] / size:.2f}x input)"
        )
    if ours and "paper_seconds" in ours:
        share = ours["paper_seconds"] / ours["seconds"]
        print(
            f"  the same papers built again: {ours['paper_seconds']:.2f} s with litdesk's checks "
            f"({share:.0%} of litdesk's time), {ours['pydantic_seconds']:.2f} s with pydantic's "
            "validation (for scale)"
        )
    if ours and peer:
        print(f"  speed ratio litdesk/{peer['tool']}: {peer['seconds'] / ours['seconds']:.2f}x")
    if cli and peer:
        print(
            f"  speed ratio litdesk (collector paused, as the CLI runs it)/{peer['tool']}: "
            f"{peer['seconds'] / cli['seconds']:.2f}x"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", choices=["ris", "bibtex"], default=None)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument(
        "--no-peer", action="store_true", help="measure litdesk only (no rispy/bibtexparser run)"
    )
    ap.add_argument("--worker", nargs=2, metavar=("TOOL", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    with tempfile.TemporaryDirectory() as tmp:
        if args.only in (None, "ris"):
            path = Path(tmp) / "bench.ris"
            path.write_bytes(make_ris(args.records))
            size = path.stat().st_size
            _report(
                "RIS",
                size,
                _measure("litdesk-ris", path),
                None if args.no_peer else _measure("rispy", path),
                _measure("litdesk-ris-cli", path),
            )
        if args.only in (None, "bibtex"):
            path = Path(tmp) / "bench.bib"
            path.write_bytes(make_bibtex(args.records))
            size = path.stat().st_size
            _report(
                "BibTeX",
                size,
                _measure("litdesk-bibtex", path),
                None if args.no_peer else _measure("bibtexparser", path),
                _measure("litdesk-bibtex-cli", path),
            )


if __name__ == "__main__":
    main()
