"""A pair-screened Study's ZIP with its whole screening history: export and recovery time
and size (branch zipreview).

On a Study of the 2,072-record Cohen 2006 beta-blocker set (imported as its CSV, SQLite,
single-user workspace): title/abstract screened blind in pairs by two reviewers (the set's
labels imported as reviewer "ed", the same labels with every 9th record's flipped as
reviewer "bob"), revealed, the first 50 conflicts resolved; then the Study exported as its
ZIP and recovered into a second workspace (and, to compare, the same ZIP without its history
into a third, as a ZIP made before it recovers). Seconds per call, the ZIP's bytes and its
history's, and whether the recovered Study's PRISMA flow, agreement and conflict queue
equal the original's. Wall and CPU seconds (CPU: this process's, steadier on a shared
machine).

    PYTHONPATH=src LITDESK_FIXTURES=... .venv/bin/python bench/zip_history_bench.py

Labels only stand in for reviewers' decisions (nothing is tuned on them).
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from litdesk import Settings
from litdesk.services.app import App, open_app_sync
from litdesk.services.screening import (
    MAX_CONFLICTS_PAGE,
    AgreementRequest,
    ConfigureRequest,
    ConflictsRequest,
    ImportDecisionsRequest,
    PrismaFlowRequest,
    ResolveRequest,
    StudyStageRequest,
)
from litdesk.services.studies import CreateStudyRequest, ImportRequest, RecoverRequest

T = TypeVar("T")
SET = "screening/cohen2006_BetaBlockers/cohen2006_BetaBlockers.csv"
TA = "title_abstract"


def timed(label: str, fn: Callable[[], T]) -> T:
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"{label}: {wall:.3f} s wall, {cpu:.3f} s CPU of this process")
    return out


def _labels(rows: list[dict[str, str]], flip_every: int) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["record_id", "title", "doi", "pmid", "included", "asreview_ranking"])
    for i, r in enumerate(rows):
        label = r["label_abstract_included"]
        if flip_every and i % flip_every == 0:
            label = "0" if label == "1" else "1"
        w.writerow([i, r["title"], r["doi"], r["pmid"], label, i])
    return buf.getvalue().encode()


def _state(app: App, sid: str) -> dict[str, Any]:
    me = app.owner
    flow = app.screening.prisma(PrismaFlowRequest(sid), owner=me).to_dict()
    pairs = app.screening.agreement(AgreementRequest(sid), owner=me).pairs
    queue = app.screening.conflicts(
        ConflictsRequest(sid, TA, per_page=MAX_CONFLICTS_PAGE), owner=me
    )
    return {
        "flow": flow["total"],
        "pairs": [(p["n"], p["kappa"], sorted(p["reviewer_names"])) for p in pairs],
        "queue": [c.title for c in queue.conflicts],
        "resolved": queue.resolved,
    }


def _without_history(data: bytes) -> bytes:
    """The ZIP as made before the history was carried (its manifest to match)."""
    gone = ("screening/history.csv", "screening/review.json")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = {n: z.read(n) for n in z.namelist() if n not in gone}
    manifest = json.loads(members["manifest.json"])
    manifest["members"] = [m for m in manifest["members"] if m["path"] not in gone]
    members["manifest.json"] = json.dumps(manifest).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, body in members.items():
            z.writestr(name, body)
    return out.getvalue()


def main() -> None:
    src = Path(os.environ["LITDESK_FIXTURES"]) / SET
    with src.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    tmp = Path(tempfile.mkdtemp())
    recs = tmp / "records.csv"
    with recs.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["title", "abstract", "doi", "pmid", "year"])
        w.writerows([r["title"], r["abstract"], r["doi"], r["pmid"], r["year"]] for r in rows)
    with open_app_sync(Settings(data_dir=tmp / "one")) as app:
        me = app.owner
        sid = app.studies.create_study(CreateStudyRequest("Cohen pairs", None), owner=me).id
        app.studies.import_files(ImportRequest(study=sid, paths=(str(recs),)), owner=me)
        app.screening.configure(ConfigureRequest(sid, dual_review={TA: True}), owner=me)
        for who, flip in (("ed", 0), ("bob", 9)):
            request = ImportDecisionsRequest(sid, _labels(rows, flip), "labels.csv", reviewer=who)
            v = app.screening.import_decisions(request, owner=me)
            print(f"reviewer {who}: {v.recorded} decisions recorded")
        app.screening.reveal(StudyStageRequest(sid, TA), owner=me)
        asked = ConflictsRequest(sid, TA, per_page=MAX_CONFLICTS_PAGE)
        queue = app.screening.conflicts(asked, owner=me).conflicts
        for c in queue[:50]:
            app.screening.resolve(ResolveRequest(sid, TA, c.record_key, "exclude"), owner=me)
        before = _state(app, sid)
        print(f"conflicts {len(queue)}, resolved 50; pairs {before['pairs']}")
        out = timed("export_zip", lambda: app.studies.export_zip(sid, owner=me))
        data = out.body
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        info = {i.filename: i for i in z.infolist()}
        history = info["screening/history.csv"]
        events = z.read("screening/history.csv").count(b"\r\n") - 1
    print(f"ZIP {len(data):,} bytes; screening/history.csv {history.file_size:,} bytes "
          f"({history.compress_size:,} compressed), {events:,} events")  # fmt: skip
    with open_app_sync(Settings(data_dir=tmp / "old")) as app_old:
        old = _without_history(data)
        timed(
            "recover_zip of the same ZIP without its history (as before: outcomes only)",
            lambda: app_old.studies.recover_zip(RecoverRequest(old), owner=app_old.owner),
        )
    with open_app_sync(Settings(data_dir=tmp / "two")) as app2:
        done = timed(
            "recover_zip", lambda: app2.studies.recover_zip(RecoverRequest(data), owner=app2.owner)
        )
        print(f"  recorded {done.decisions.get('history')}")
        after = _state(app2, done.study.study_id)
    print(f"PRISMA, agreement and queue equal after recovery: {after == before}")


if __name__ == "__main__":
    main()
