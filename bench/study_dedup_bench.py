"""Deduplicating a whole search's records against a Study's existing records (issue 27).

A Study holds N existing records (default 20,000: imported from a CSV file made of the
labelled haematology and stroke sets, 2,707 real records, repeated — copy k of a record gets
new ids, a title word of its own and its year moved back 3 k years, so copies are other
studies, while the labelled duplicates within each copy stay duplicates) and is
deduplicated. Then a whole search of M records (default 10,000) is added to the Study: its
pages are served by a loopback HTTP server speaking Europe PMC's search API (100 records a
page, cursor paging), its records the next copies in the same sequence, the first
``--overlap`` of them the same records the Study already holds (found again by the search).
The search job (paging, fusion, the run's commit with its hits) and the working set brought
up to date (the new records deduplicated against the existing ones) are timed, and the time
per 1,000 new records printed.

    PYTHONPATH=src LITDESK_FIXTURES=/work/shared/fixtures \\
        .venv/bin/python -u bench/study_dedup_bench.py --existing 20000 --new 10000
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import io
import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from litdesk import Settings
from litdesk.services.app import open_app
from litdesk.services.dedup import DedupRequest
from litdesk.services.search import SearchRequest
from litdesk.services.studies import (
    AddSearchRequest,
    CreateStudyRequest,
    ImportRequest,
    WorkingSetRequest,
)

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


def _copy(fields: list[str], rows: list[dict[str, str]], g: int) -> dict[str, str]:
    """Record ``g`` of the sequence: copy ``k`` of labelled row ``r`` (identifiers dropped
    from copies, a title word of its own, its year moved back ``3 k`` years)."""
    k, r = divmod(g, len(rows))
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
    return row


def _csv(fields: list[str], rows: list[dict[str, str]], n: int) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields)
    w.writeheader()
    for g in range(n):
        w.writerow(_copy(fields, rows, g))
    return buf.getvalue()


def _epmc(row: dict[str, str], g: int) -> dict[str, str]:
    """A record as Europe PMC's search API returns it."""
    authors = [a.strip() for a in row.get("author", "").split(" and ") if a.strip()]
    return {
        "id": f"B{g}",
        "source": "MED",
        "title": row.get("title", ""),
        "authorString": ", ".join(authors) + ("." if authors else ""),
        "journalTitle": row.get("journal", ""),
        "pubYear": row.get("year", ""),
        "pageInfo": row.get("pages", ""),
        "journalVolume": row.get("volume", ""),
        "issue": row.get("number", ""),
    }


@contextmanager
def loopback(records: list[dict[str, str]]) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            q = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
            cursor, size = q.get("cursorMark", "*"), int(q.get("pageSize", "25"))
            offset = 0 if cursor == "*" else int(cursor[1:])
            body: dict[str, object] = {
                "hitCount": len(records),
                "request": {"cursorMark": cursor, "pageSize": size},
                "resultList": {"result": records[offset : offset + size]},
            }
            if offset + size < len(records):
                body["nextCursorMark"] = f"c{offset + size}"
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def run(args: argparse.Namespace, tmp: Path) -> None:
    root = Path(os.environ.get("LITDESK_FIXTURES", "/work/shared/fixtures")) / "bib" / "dedup"
    fields, rows = _rows(root)
    old = tmp / "existing.csv"
    old.write_text(_csv(fields, rows, args.existing), encoding="utf-8")
    start = args.existing - min(args.overlap, args.existing)
    found = [_epmc(_copy(fields, rows, g), g) for g in range(start, start + args.new)]
    extra = {"database_url": args.database_url} if args.database_url else {}
    settings = Settings(data_dir=tmp / "data", owner_daily_requests=10_000, **extra)
    owner = "local"
    with loopback(found) as url:
        async with open_app(settings, base_urls={"europepmc": url}) as app:
            owner = app.owner
            sid = app.studies.create_study(CreateStudyRequest("bench", None), owner=owner).id
            c0, t0 = time.process_time(), time.perf_counter()
            app.studies.import_files(ImportRequest(study=sid, paths=(str(old),)), owner=owner)
            app.studies.working_set(WorkingSetRequest(sid), owner=owner)
            c1, t1 = time.process_time(), time.perf_counter()
            app.dedup.run(DedupRequest(files=(), study=sid), owner=owner)
            c2, t2 = time.process_time(), time.perf_counter()
            search = SearchRequest("stroke haematology", providers=("europepmc",))
            started = app.studies.add_search(AddSearchRequest(sid, search, 10_000), owner=owner)
            done = await asyncio.to_thread(app.studies.work_search_job, started.job.id, owner=owner)
            c3, t3 = time.process_time(), time.perf_counter()
            assert done.job.status == "done", done.job.message
            view = app.studies.working_set(WorkingSetRequest(sid), owner=owner)
            c4, t4 = time.process_time(), time.perf_counter()
    c = view.counts
    db = "postgresql" if args.database_url else "sqlite"
    print(f"{db}: existing {args.existing:,} records (imported) + a whole search of {args.new:,}")
    print("  (wall seconds; in brackets the process's CPU seconds, all threads)")
    print(f"  import of the existing records, working set formed: {t1 - t0:.1f} s [{c1 - c0:.1f}]")
    print(f"  first recorded deduplication run: {t2 - t1:.1f} s [{c2 - c1:.1f}]")
    print(
        "  whole-search job (paging, fusion, commit, the new records deduplicated against "
        f"the Study): {t3 - t2:.1f} s [{c3 - c2:.1f}]"
    )
    print(f"  working set shown after it (a read): {t4 - t3:.1f} s [{c4 - c3:.1f}]")
    total, cpu = t4 - t2, c4 - c2
    print(
        f"  search added and deduplicated against the Study: {total:.1f} s [{cpu:.1f}] — "
        f"{total / args.new * 1000:.2f} s per 1,000 new records "
        f"[{cpu / args.new * 1000:.2f} s CPU]"
    )
    print(
        f"  records {c.identified:,} → {c.studies:,} studies "
        f"({c.duplicates_removed:,} duplicates removed, {c.pending:,} not deduplicated)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--existing", type=int, default=20_000)
    ap.add_argument("--new", type=int, default=10_000)
    ap.add_argument("--overlap", type=int, default=1_000, help="search records already held")
    ap.add_argument("--database-url", default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run(args, Path(tmp)))


if __name__ == "__main__":
    main()
