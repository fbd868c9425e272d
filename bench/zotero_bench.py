"""Zotero import benchmark: a generated Zotero 10 library (``--items`` items, ``--pdfs`` of
them with a small stored PDF and a ``.zotero-ft-cache``, collections and sub-collections,
tags, creators, a child note on every tenth item) built in a temporary folder from Zotero's
own schema files (``$LITDESK_FIXTURES/zotero/schema-sql``), then imported by
``app.zotero.import_library`` into a fresh litdesk data directory — in a child process, so
its peak memory is its own: the high-water RSS (``VmHWM``) minus the RSS just before the
import. Then the same import again (everything unchanged: the identity path).

With ``--web`` the same library is served by the loopback Zotero Web API server of the
tests (``tests/_zotero_web.py``, a real HTTP exchange) and imported by
``app.zotero.import_web`` (PDFs downloaded); then, after ``--changes`` items are edited in
"Zotero", imported again (only the changes are read: ``since=``). Requests are counted.

    .venv/bin/python bench/zotero_bench.py                        # 10,000 items, 5,000 PDFs
    .venv/bin/python bench/zotero_bench.py --items 1000 --pdfs 500
    .venv/bin/python bench/zotero_bench.py --items 2000 --pdfs 500 --web
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests._zotero_lib import PDF_BYTES, LibraryBuilder, random_title  # noqa: E402


def _rss(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise SystemExit(f"no {field} in /proc/self/status")


def build(root: Path, items: int, pdfs: int, seed: int = 7) -> Path:
    fixtures = Path(os.environ.get("LITDESK_FIXTURES", "")) / "zotero" / "schema-sql"
    if not fixtures.is_dir():
        raise SystemExit("LITDESK_FIXTURES must name the shared fixtures (zotero/schema-sql)")
    b = LibraryBuilder(fixtures, root / "Zotero", wal=True, seed=seed)
    rng = random.Random(seed)
    tops = [b.collection(f"Topic {i}") for i in range(10)]
    subs = [b.collection(f"Topic {i} / screened", tops[i]) for i in range(10)]
    with_pdf = set(rng.sample(range(items), pdfs))
    for n in range(items):
        kind = rng.choice(["journalArticle"] * 8 + ["book", "preprint"])
        fields = {
            "title": random_title(rng),
            "date": f"{rng.randint(1990, 2025)}-{rng.randint(1, 12):02d}-00",
            "abstractNote": " ".join(random_title(rng, 12) for _ in range(4)),
        }
        if kind == "journalArticle":
            fields["DOI"] = f"10.{rng.randint(1000, 9999)}/bench.{n}"
            fields["publicationTitle"] = f"Journal {rng.randint(1, 200)}"
            fields["extra"] = f"PMID: {10_000_000 + n}"
        key = b.item(
            kind,
            fields=fields,
            creators=[
                ("author", f"Author{rng.randint(1, 5000)}", f"First{rng.randint(1, 300)}")
                for _ in range(rng.randint(1, 6))
            ],
            tags=sorted({f"tag{rng.randint(1, 50)}" for _ in range(rng.randint(0, 3))}),
            collections=[rng.choice(tops + subs)] if rng.random() < 0.9 else [],
        )
        if n % 10 == 0:
            b.note(f"<p>Note on item {n}: <b>{random_title(rng, 5)}</b></p>", key)
        if n in with_pdf:
            b.attachment(
                key,
                name=f"item {n}.pdf",
                data=PDF_BYTES + f"% item {n}\n".encode(),
                full_text=random_title(rng, 40),
            )
    b.close()
    return b.data_dir


def child(zotero: str, data: str) -> None:
    """One import in this process; prints a JSON line of figures."""
    from litdesk import Settings
    from litdesk.services.app import open_app_sync
    from litdesk.services.zotero import ZoteroImportRequest

    with open_app_sync(Settings(data_dir=Path(data))) as app:
        request = ZoteroImportRequest(data_dir=zotero)
        base = _rss("VmRSS")
        t0 = time.perf_counter()
        view = app.zotero.import_library(request, owner=app.owner)
        seconds = time.perf_counter() - t0
        peak = _rss("VmHWM") - base
        t1 = time.perf_counter()
        again = app.zotero.import_library(request, owner=app.owner)
        again_s = time.perf_counter() - t1
    print(
        json.dumps(
            {
                "seconds": round(seconds, 2),
                "peak_mb": round(peak / 2**20, 1),
                "items": view.items_read,
                "added": view.added,
                "pdfs": view.pdfs_attached,
                "notes": view.notes_added,
                "studies": len(view.studies),
                "again_seconds": round(again_s, 2),
                "again_unchanged": again.unchanged,
                "again_added": again.added,
            }
        )
    )


def web_child(zotero: str, data: str, changes: int) -> None:
    """The Web API import of the library in this process; prints a JSON line of figures."""
    import asyncio

    from tests._zotero_server import ToLoopback
    from tests._zotero_web import WebServer, WebState

    from litdesk import Settings
    from litdesk.services.app import open_app_sync
    from litdesk.services.zotero import ZoteroArea, ZoteroWebImportRequest

    key = "K" * 24
    state = WebState.from_library(Path(zotero))
    with WebServer(state) as server, open_app_sync(Settings(data_dir=Path(data))) as app:
        area = ZoteroArea(
            store=app.store,
            pdfs=app.pdfs,
            screening=app.screening,
            http_transport=ToLoopback(server.port),
        )
        request = ZoteroWebImportRequest(library="users/123", api_key=key, pdfs=True)
        base = _rss("VmRSS")
        t0 = time.perf_counter()
        view = asyncio.run(area.import_web(request, owner=app.owner))
        seconds = time.perf_counter() - t0
        peak = _rss("VmHWM") - base
        first_requests = len(state.received)
        regular = [k for k, o in state.items.items() if "parentItem" not in o["data"]]
        for k in regular[:changes]:
            state.change(k, title=state.items[k]["data"].get("title", "") + " (corrected)")
        t1 = time.perf_counter()
        again = asyncio.run(area.import_web(request, owner=app.owner))
        again_s = time.perf_counter() - t1
    print(
        json.dumps(
            {
                "seconds": round(seconds, 2),
                "peak_mb": round(peak / 2**20, 1),
                "requests": first_requests,
                "items": view.items_read,
                "added": view.added,
                "pdfs": view.pdfs_attached,
                "notes": view.notes_added,
                "studies": len(view.studies),
                "again_seconds": round(again_s, 2),
                "again_requests": len(state.received) - first_requests,
                "again_read": again.items_read,
                "again_updated": again.updated,
                "again_added": again.added,
            }
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--pdfs", type=int, default=5_000)
    ap.add_argument("--web", action="store_true", help="Import through the Web API (loopback).")
    ap.add_argument("--changes", type=int, default=10)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--web-child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    if args.web_child:
        web_child(*args.web_child, args.changes)
        return
    with tempfile.TemporaryDirectory(prefix="zotero-bench-") as tmp:
        t0 = time.perf_counter()
        zotero = build(Path(tmp), args.items, min(args.pdfs, args.items))
        print(f"built {args.items} items / {args.pdfs} PDFs in {time.perf_counter() - t0:.1f} s")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--web-child" if args.web else "--child",
                str(zotero),
                str(Path(tmp) / "litdesk"),
                "--changes",
                str(args.changes),
            ],  # fmt: skip
            check=True,
            capture_output=True,
            text=True,
            env=env,
        )
        print(out.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
