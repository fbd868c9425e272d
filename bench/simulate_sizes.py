"""``litdesk screen simulate`` on large synthetic labelled sets: wall seconds, CPU seconds and
peak RSS per size, and the ``--json`` contract checked (stdout is one JSON document whose
``order`` lists every record once).

The sets are made in a temporary folder (never in the project) from the rows of two fixture
sets of $LITDESK_FIXTURES/screening (Cohen 2006 BetaBlockers and SYNERGY Oud 2018, both about
2% included): each row is a random fixture row whose abstract loses about 10% of its words and
gains two words of other abstracts (random.Random(28), one stream over the sizes in the order
given: the same --sizes give the same files); the label is the fixture row's.

    .venv/bin/python bench/simulate_sizes.py [--sizes 2000,10000,20000,40000,50000] [--keep DIR]
        [--only-make]

Each size runs ``python -m litdesk screen simulate FILE --labels label_included --seed 1
--json`` under ``/usr/bin/time -f "%e %U %M"`` one after the other (the machine's other load
shows in the wall seconds: compare the CPU seconds).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

_SETS = ("cohen2006_BetaBlockers", "synergy_Oud_2018")


def make(folder: Path, sizes: list[int]) -> dict[int, Path]:
    fixtures = Path(os.environ["LITDESK_FIXTURES"]) / "screening"
    rows: list[dict[str, str]] = []
    for name in _SETS:
        with (fixtures / name / f"{name}.csv").open(encoding="utf-8", newline="") as fh:
            rows += list(csv.DictReader(fh))
    words = [w for r in rows[:3000] for w in r["abstract"].split()][:200000]
    rng = random.Random(28)
    out: dict[int, Path] = {}
    for n in sizes:
        path = folder / f"set{n // 1000}k.csv"
        with path.open("w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(
                fh, fieldnames=["record_id", "title", "abstract", "label_included"]
            )
            writer.writeheader()
            for i in range(n):
                row = rows[rng.randrange(len(rows))]
                kept = [x for x in row["abstract"].split() if rng.random() > 0.1]
                abstract = [*kept, rng.choice(words), rng.choice(words)]
                writer.writerow(
                    {
                        "record_id": i + 1,
                        "title": row["title"],
                        "abstract": " ".join(abstract),
                        "label_included": row["label_included"],
                    }
                )
        out[n] = path
    return out


def run(path: Path) -> dict[str, float | int | str]:
    command = [
        "/usr/bin/time",
        "-f",
        "%e %U %M",
        sys.executable,
        "-m",
        "litdesk",
        "screen",
        "simulate",
        str(path),
        "--labels",
        "label_included",
        "--seed",
        "1",
        "--json",
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall, user, rss = done.stderr.strip().splitlines()[-1].split()
    doc = json.loads(done.stdout)  # nothing else on stdout
    records = sum(1 for _ in path.open(encoding="utf-8")) - 1
    assert sorted(doc["order"]) == list(range(records)), "order is not every record once"
    return {
        "file": path.name,
        "records": records,
        "included": doc["included"],
        "wall_s": float(wall),
        "cpu_user_s": float(user),
        "peak_rss_mb": round(int(rss) / 1024),
        "retrains": doc["retrains"],
        "wss95": round(doc["wss95"], 3),
        "stdout_bytes": len(done.stdout),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,10000,20000,40000,50000")
    parser.add_argument("--keep", type=Path, help="make the sets in this folder and keep them")
    parser.add_argument("--only-make", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        paths = make(folder, sizes)
        if args.only_make:
            print(json.dumps({n: str(p) for n, p in paths.items()}))
            return
        for n in sizes:
            print(json.dumps(run(paths[n])), flush=True)


if __name__ == "__main__":
    main()
