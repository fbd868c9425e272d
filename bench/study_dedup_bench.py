"""Deduplicating new records against a Study's existing records (issue 27): a Study with
N existing records (the labelled haematology and stroke sets, 2,707 real records, repeated:
each copy with changed ids, no identifiers and a word added to its title — many copies
still match their originals by the similarity rules, so the new records hold duplicates
of existing ones as well as duplicates among themselves) deduplicated, then M new records
imported and the working set brought up to date (the new records deduplicated against
it). Prints the time per 1,000 new records.

    PYTHONPATH=src LITDESK_FIXTURES=/work/shared/fixtures \\
        .venv/bin/python bench/study_dedup_bench.py --existing 20000 --new 10000
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import tempfile
import time
from pathlib import Path

from litdesk import Settings
from litdesk.services.app import open_app_sync
from litdesk.services.dedup import DedupRequest
from litdesk.services.studies import CreateStudyRequest, ImportRequest, WorkingSetRequest

SETS = ("rathbone_haematology__records_pre_merged.csv", "rathbone_stroke__records_pre_merged.csv")


def _rows(root: Path) -> tuple[list[str], list[dict[str, str]]]:
    out: list[dict[str, str]] = []
    fields: list[str] = []
    for name in SETS:
        with open(root / name, encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            fields = fields or list(reader.fieldnames or [])
            out += [{k: r.get(k, "") for k in fields} for r in reader]
    return fields, out


def _copies(fields: list[str], rows: list[dict[str, str]], n: int, start: int) -> str:
    """``n`` records: copy k of the labelled rows gets new ids, a title word of its own and
    its year moved back ``3 k`` years (identifiers dropped)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields)
    w.writeheader()
    for i in range(n):
        k, r = divmod(start + i, len(rows))
        row = dict(rows[r])
        for key in fields:
            low = key.lower()
            if low in ("id", "record_id", "recordid"):
                row[key] = f"{row[key]}-c{k}"
            elif low in ("doi", "pmid", "pmcid", "url"):
                row[key] = "" if k else row[key]
            elif low == "title" and k:
                row[key] = f"{row[key]} cohort{k:05d}"
            elif low == "year" and k and row[key].strip().isdigit():
                row[key] = str(int(row[key]) - 3 * k)  # never within rule A's year gap
        w.writerow(row)
    return buf.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--existing", type=int, default=20_000)
    ap.add_argument("--new", type=int, default=10_000)
    args = ap.parse_args()
    root = Path(os.environ.get("LITDESK_FIXTURES", "/work/shared/fixtures")) / "bib" / "dedup"
    fields, rows = _rows(root)
    with tempfile.TemporaryDirectory() as tmp:
        old, new = Path(tmp, "existing.csv"), Path(tmp, "new.csv")
        old.write_text(_copies(fields, rows, args.existing, 0), encoding="utf-8")
        new.write_text(_copies(fields, rows, args.new, args.existing), encoding="utf-8")
        settings = Settings(data_dir=Path(tmp, "data"))
        with open_app_sync(settings) as app:
            sid = app.studies.create_study(CreateStudyRequest("bench", None), owner="local").id
            t0 = time.perf_counter()
            app.studies.import_files(ImportRequest(study=sid, paths=(str(old),)), owner="local")
            t1 = time.perf_counter()
            app.dedup.run(DedupRequest(files=(), study=sid), owner="local")
            t2 = time.perf_counter()
            app.studies.import_files(ImportRequest(study=sid, paths=(str(new),)), owner="local")
            t3 = time.perf_counter()
            view = app.studies.working_set(WorkingSetRequest(sid), owner="local")  # up to date
            t4 = time.perf_counter()
            app.dedup.run(DedupRequest(files=(), study=sid), owner="local")  # a recorded run
            t5 = time.perf_counter()
    c = view.counts
    print(
        f"existing {args.existing:,}: import {t1 - t0:.1f} s, first deduplication {t2 - t1:.1f} s"
    )
    print(
        f"new {args.new:,}: import {t3 - t2:.1f} s; working set brought up to date "
        f"{t4 - t3:.1f} s ({(t4 - t3) / args.new * 1000:.2f} s per 1,000 new records); "
        f"a recorded run over all {t5 - t4:.1f} s ({(t5 - t4) / args.new * 1000:.2f} s per "
        "1,000 new)"
    )
    print(f"records {c.identified:,} → {c.studies:,} studies ({c.duplicates_removed:,} removed)")


if __name__ == "__main__":
    main()
