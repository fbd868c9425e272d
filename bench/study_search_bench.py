"""Bench: a whole search of N records (default 10,000) added to a Study, pages served by a
loopback HTTP server speaking Europe PMC's search API (100 records a page, cursor paging,
generated records with DOIs and PMIDs). Measures the job end to end (paging through the
real transport with its pacing and allowance, fusion, the one commit of the run, its hits
and the Study's papers) and the time per 1,000 records; ``--existing M`` first adds M
records to the Study by a first whole search (the update path then compares against them).

    PYTHONPATH=src .venv/bin/python bench/study_search_bench.py --records 10000
    PYTHONPATH=src .venv/bin/python bench/study_search_bench.py --records 2000 --database-url postgresql+psycopg://...
"""

from __future__ import annotations

import argparse
import asyncio
import json
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
from litdesk.services.search import SearchRequest
from litdesk.services.studies import AddSearchRequest, UpdateStudyRequest


def page(total: int, cursor: str, size: int) -> bytes:
    offset = 0 if cursor == "*" else int(cursor[1:])
    records = [
        {
            "id": str(10_000_000 + n),
            "source": "MED",
            "pmid": str(10_000_000 + n),
            "doi": f"10.5555/bench.{n}",
            "title": f"Generated record {n} on malaria vaccine efficacy in children",
            "authorString": "Smith J, Jones K, Okafor A.",
            "journalTitle": "Bench J",
            "pubYear": str(1990 + n % 30),
        }
        for n in range(offset, min(offset + size, total))
    ]
    body: dict[str, object] = {
        "hitCount": total,
        "request": {"cursorMark": cursor, "pageSize": size},
        "resultList": {"result": records},
    }
    if offset + size < total:
        body["nextCursorMark"] = f"c{offset + size}"
    return json.dumps(body).encode()


@contextmanager
def loopback(state: dict[str, int]) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            q = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
            data = page(state["total"], q.get("cursorMark", "*"), int(q.get("pageSize", "25")))
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


async def run(args: argparse.Namespace, data_dir: Path) -> None:
    state = {"total": args.existing or args.records}
    extra = {"database_url": args.database_url} if args.database_url else {}
    settings = Settings(data_dir=data_dir, owner_daily_requests=10_000, **extra)
    with loopback(state) as url:
        async with open_app(settings, base_urls={"europepmc": url}) as app:
            study = app.workspace().create_study("Bench").id
            search = SearchRequest("malaria vaccine", providers=("europepmc",))
            request = AddSearchRequest(study, search, 10_000)
            if args.existing:
                job = app.studies.add_search(request, owner=app.owner).job.id
                await asyncio.to_thread(app.studies.work_search_job, job, owner=app.owner)
                state["total"] = args.records
                started = app.studies.update_study(UpdateStudyRequest(study), owner=app.owner)
            else:
                started = app.studies.add_search(request, owner=app.owner)
            t0 = time.perf_counter()
            done = await asyncio.to_thread(
                app.studies.work_search_job, started.job.id, owner=app.owner
            )
            elapsed = time.perf_counter() - t0
            assert done.job.status == "done", done.job.message
            result = done.job.result or {}
            search_result = result["searches"][0]
            print(
                json.dumps(
                    {
                        "records": args.records,
                        "existing": args.existing,
                        "database": "postgresql" if args.database_url else "sqlite",
                        "pages": search_result["lanes"][0]["pages"],
                        "new": search_result["new"],
                        "already_known": search_result["already_known"],
                        "seconds": round(elapsed, 2),
                        "seconds_per_1000": round(elapsed / args.records * 1000, 3),
                    }
                )
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--existing", type=int, default=0)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(run(args, Path(folder)))


if __name__ == "__main__":
    main()
