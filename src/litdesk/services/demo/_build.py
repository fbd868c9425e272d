"""Build the demo workspace's Study through the app's own service methods, from the
bundled plan (``litdesk/_demo/data/study.json``): a Study with its question and criteria,
a whole search of the demo sample, a database export imported beside it (with duplicate
variants), the Study deduplicated, screened in part (title/abstract and full text, from
the SYNERGY labels), evidence recorded (passages quoted verbatim from the abstracts).
Nothing here writes SQL: each step is the method a person's click or command calls."""

from __future__ import annotations

import asyncio
import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from litdesk._errors import IntegrityError
from litdesk._settings import Settings
from litdesk.adapters.demo import DEMO_EXPORT, copy_data_file, sample_records, study_plan
from litdesk.core.records import normalize_doi
from litdesk.services.app import App, open_app
from litdesk.services.dedup import DedupRequest
from litdesk.services.screening import ConfigureRequest, ImportDecisionsRequest
from litdesk.services.search import SearchRequest
from litdesk.services.studies import AddSearchRequest, CreateStudyRequest, ImportRequest
from litdesk.services.workspace import Workspace

__all__ = ["DemoStudy", "build_study"]


@dataclass(frozen=True, slots=True)
class DemoStudy:
    """What the builder made: the Study and its counts, and the files it left."""

    study_id: str
    name: str
    search_records: int
    imported_records: int
    title_abstract: int
    full_text: int
    evidence: int
    files: tuple[Path, ...] = ()
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "study_id": self.study_id,
            "name": self.name,
            "search_records": self.search_records,
            "imported_records": self.imported_records,
            "title_abstract_decisions": self.title_abstract,
            "full_text_decisions": self.full_text,
            "evidence": self.evidence,
            "files": [str(p) for p in self.files],
        }


def _decisions_csv(rows: list[dict[str, Any]], dois: dict[str, str]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["doi", "decision", "reason"])
    for row in rows:
        writer.writerow([dois[row["id"]], row["verdict"], row.get("reason", "")])
    return out.getvalue().encode("utf-8")


def _imported(result: dict[str, Any]) -> int:
    """Records the import read (its files' counts)."""
    files = result.get("imported") or []
    return sum(int(f.get("records") or 0) for f in files if isinstance(f, dict))


def _evidence(ws: Workspace, paper: str, study: str, item: dict[str, Any]) -> None:
    ws.add_evidence(
        paper,
        finding=item["finding"],
        passage=item["passage"],
        source="abstract",
        study=study,
        population=item.get("population"),
        intervention=item.get("intervention"),
    )


async def _build(app: App, files: Path) -> DemoStudy:
    plan = study_plan()
    owner = app.owner
    created = app.studies.create_study(
        CreateStudyRequest(plan["name"], plan["question"]), owner=owner
    )
    study = created.id
    app.screening.configure(
        ConfigureRequest(
            study,
            reasons=tuple(plan["reasons"]),
            inclusion=plan["inclusion"],
            exclusion=plan["exclusion"],
        ),
        owner=owner,
    )
    # 1. the demo sample searched whole (a job, worked here as a server's runner would)
    search = SearchRequest(plan["search"]["query"], providers=tuple(plan["search"]["providers"]))
    queued = app.studies.add_search(AddSearchRequest(study, search), owner=owner)
    done = await asyncio.to_thread(app.studies.work_search_job, queued.job.id, owner=owner)
    if done.job.status != "done":
        raise IntegrityError(
            f"the demo Study's search did not finish ({done.job.status})", code="demo_build"
        )
    # 2. the database export beside it
    export = copy_data_file(plan["import"]["file"], files / plan["import"]["name"])
    imported = await asyncio.to_thread(
        app.studies.import_files, ImportRequest(study=study, paths=(str(export),)), owner=owner
    )
    result = imported.result.to_dict() if imported.result is not None else {}
    # 3. deduplicated (the automatic decisions; uncertain pairs wait for a person)
    await asyncio.to_thread(
        app.dedup.run, DedupRequest((), study=study, auto_only=True), owner=owner
    )
    # 4. screened in part, from the labels (matched by DOI, as a decisions file is)
    dois = {r.id: doi for r in sample_records() if r.doi and (doi := normalize_doi(r.doi))}
    for stage in ("title_abstract", "full_text"):
        body = _decisions_csv(plan[stage], dois)
        await asyncio.to_thread(
            app.screening.import_decisions,
            ImportDecisionsRequest(study, body, f"demo-{stage}.csv", stage=stage),
            owner=owner,
        )
    # 5. evidence on included records: passages quoted from their abstracts
    ws = app.workspace()
    evidence = 0
    for item in plan["evidence"]:
        paper = dois.get(item["id"])  # a saved paper is found by its DOI
        if paper is None:
            continue
        await asyncio.to_thread(_evidence, ws, paper, study, item)
        evidence += 1
    kept = copy_data_file(DEMO_EXPORT, files / DEMO_EXPORT)
    return DemoStudy(
        study_id=study,
        name=plan["name"],
        search_records=int(plan["counts"]["search_hits"]),
        imported_records=_imported(result),
        title_abstract=len(plan["title_abstract"]),
        full_text=len(plan["full_text"]),
        evidence=evidence,
        files=(kept, export),
    )


def build_study(settings: Settings, files: Path) -> DemoStudy:
    """Build the demo Study in the demo workspace of ``settings`` (made by
    :meth:`Settings.for_demo`), leaving its files in ``files``."""
    if not settings.demo:
        raise IntegrityError("the demo Study is built only in a demo workspace", code="not_demo")

    async def run() -> DemoStudy:
        async with open_app(settings) as app:
            return await _build(app, files)

    return asyncio.run(run())
