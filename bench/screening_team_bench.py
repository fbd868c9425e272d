"""Screening decisions in and out and the PRISMA 2020 flow through the service (issue 28).

On a Study of the 2,072-record Cohen 2006 beta-blocker set (imported as its CSV, SQLite): the
set's title/abstract labels imported as an ASReview export (matched by PMID/DOI/title), the
same file again (nothing recorded), the decisions exported as CSV and RIS, the PRISMA 2020
flow, its SVG, and the Study's PRISMA report (PRISMA-S and the 2020 flow). Seconds per call.

    PYTHONPATH=src LITDESK_FIXTURES=... .venv/bin/python bench/screening_team_bench.py

Labels only stand in for a reviewer's decisions (nothing is tuned on them).
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from litdesk import Settings
from litdesk.services.app import open_app_sync
from litdesk.services.screening import (
    ConflictsRequest,
    ExportDecisionsRequest,
    ImportDecisionsRequest,
    PrismaFlowRequest,
)
from litdesk.services.studies import CreateStudyRequest, ImportRequest

T = TypeVar("T")
SET = "screening/cohen2006_BetaBlockers/cohen2006_BetaBlockers.csv"


def timed(label: str, fn: Callable[[], T]) -> T:
    t0 = time.perf_counter()
    out = fn()
    print(f"{label}: {time.perf_counter() - t0:.3f} s")
    return out


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
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["record_id", "title", "doi", "pmid", "included", "asreview_ranking"])
    w.writerows(
        [i, r["title"], r["doi"], r["pmid"], r["label_abstract_included"], i]
        for i, r in enumerate(rows)
    )
    data = buf.getvalue().encode()
    with open_app_sync(Settings(data_dir=tmp / "data")) as app:
        me = app.owner
        sid = app.studies.create_study(CreateStudyRequest("Cohen", None), owner=me).id
        app.studies.import_files(ImportRequest(study=sid, paths=(str(recs),)), owner=me)
        app.screening.conflicts(ConflictsRequest(sid), owner=me)  # the screen set, built once
        request = ImportDecisionsRequest(sid, data, "asreview.csv")
        v = timed(f"import-decisions {len(rows):,} rows (ASReview)",
                  lambda: app.screening.import_decisions(request, owner=me))  # fmt: skip
        print(f"  recorded {v.recorded}, unmatched {len(v.unmatched)}, matched by {v.matched_by}")
        v = timed("the same file again", lambda: app.screening.import_decisions(request, owner=me))
        print(f"  recorded {v.recorded}, already recorded {v.unchanged}")
        for fmt in ("csv", "ris"):
            out = ExportDecisionsRequest(sid, "title_abstract", fmt)  # type: ignore[arg-type]
            timed(f"export {fmt}", lambda o=out: app.screening.export_decisions(o, owner=me))
        flow = timed(
            "PRISMA 2020 flow", lambda: app.screening.prisma(PrismaFlowRequest(sid), owner=me)
        )
        r = flow.to_dict()["rounds"][0]  # type: ignore[index]
        print(f"  to screen {r['to_screen']}, screened {r['screened']}, excluded "
              f"{r['excluded_screening']}, sought {r['sought']}")  # fmt: skip
        timed("PRISMA 2020 SVG",
              lambda: app.screening.export_prisma(PrismaFlowRequest(sid, "svg"), owner=me))  # fmt: skip
        timed("app.studies.prisma (PRISMA-S and the 2020 flow)",
              lambda: app.studies.prisma(sid, owner=me))  # fmt: skip


if __name__ == "__main__":
    main()
