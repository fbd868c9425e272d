"""A Study's records and its deduplicated working set (issue 27), on SQLite and PostgreSQL:
imports of real exports materialised as records with their sources, the labelled
haematology set deduplicated on the Study, a decision undone, and PRISMA's numbers the
Study's numbers."""

from __future__ import annotations

import asyncio
import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from litdesk import Settings
from litdesk.core.dedup import evaluate_groups
from litdesk.services.app import App, open_app
from litdesk.services.dedup import DecideRequest, DedupRequest
from litdesk.services.studies import (
    CreateStudyRequest,
    ImportRequest,
    RecordsRequest,
    WorkingSetExportRequest,
    WorkingSetRequest,
)

HAEM = "bib/dedup/rathbone_haematology__records_pre_merged.csv"
EXPORTS = (
    "bib/ris/citesource__20221207_gambling-harms_lens_49.ris",
    "bib/ris/asreview__pubmed_zotero.ris",
)


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    if request.param == "postgres":
        return tmp_settings.model_copy(
            update={"database_url": request.getfixturevalue("pg_schema")}
        )
    return tmp_settings


def on_app(settings: Settings, body: Callable[[App], Any]) -> Any:
    async def go() -> Any:
        async with open_app(settings) as app:
            return await asyncio.to_thread(body, app)

    return asyncio.run(go())


def _study(app: App, name: str, paths: list[Path]) -> str:
    sid = app.studies.create_study(CreateStudyRequest(name, None), owner=app.owner).id
    app.studies.import_files(
        ImportRequest(study=sid, paths=tuple(str(p) for p in paths)), owner=app.owner
    )
    return sid


def _same_numbers(app: App, sid: str, *, zip_too: bool = False) -> dict[str, Any]:
    """The Study page's, the working set's and PRISMA's numbers are one set of numbers, and
    the working set's export holds as many records; ``zip_too``: the Study's ZIP as well
    (once a test, after a merge or an update: the whole recovery ZIP is a quarter of this
    file's CPU when it is made at every step, and its references are the working set that
    the export just checked is counted from)."""
    page = app.studies.study(sid, owner=app.owner).to_dict()["working_set"]
    assert isinstance(page, dict)
    ws = app.studies.working_set(WorkingSetRequest(sid), owner=app.owner)
    idn = app.studies.prisma(sid, owner=app.owner).report["identification"]
    assert isinstance(idn, dict)
    assert ws.counts.to_dict() == page
    assert idn["records_identified"] == page["records_identified"]
    assert idn["records_per_source"] == page["records_per_source"]
    assert idn["duplicates_removed"] == page["duplicates_removed"]
    assert idn["records_after_deduplication"] == idn["records_screened"] == page["studies"]
    export = app.studies.export_working_set(WorkingSetExportRequest(sid, "ris"), owner=app.owner)
    assert export.count == page["studies"]
    if zip_too:
        assert app.studies.export_zip(sid, owner=app.owner).count == page["studies"]
    return page


def test_imports_of_real_exports_become_records_with_their_sources(
    settings: Settings, fixtures_dir: Path
) -> None:
    def body(app: App) -> None:
        sid = _study(app, "Gambling", [fixtures_dir / p for p in EXPORTS])
        view = app.studies.records(RecordsRequest(sid), owner=app.owner)
        counts = view.counts
        assert counts.identified == sum(counts.per_source.values())
        assert set(counts.per_source) == {
            "The Lens",  # no DB/DP: each record's page on lens.org names it
            # a Zotero library's RIS export: its records' DP names the catalog each was
            # captured from, not where the reviewers searched (an other method, named so)
            "Zotero export: asreview__pubmed_zotero.ris",
        }
        assert counts.per_source["The Lens"] == 49
        assert {r["source_kind"] for r in view.rows} == {"import"}
        assert all(r["title"] and r["group"] and r["rule"] for r in view.rows)
        page = _same_numbers(app, sid, zip_too=True)
        assert page["not_deduplicated"] == 0
        # the same file imported again identifies nothing new
        app.studies.import_files(
            ImportRequest(study=sid, paths=(str(fixtures_dir / EXPORTS[0]),)), owner=app.owner
        )
        assert _same_numbers(app, sid) == page

    on_app(settings, body)


def test_labelled_set_deduplicated_on_the_study_and_a_decision_undone(
    settings: Settings, fixtures_dir: Path
) -> None:
    root = fixtures_dir / "bib" / "dedup"

    def body(app: App) -> None:
        sid = _study(app, "Haematology", [fixtures_dir / HAEM])
        before = _same_numbers(app, sid)
        assert before["records_identified"] == 1415
        # litdesk dedup --study NAME, no files: the Study's own records
        outcome = app.dedup.run(DedupRequest(files=(), study=sid), owner=app.owner)
        report = outcome.report
        assert len(report.refs) == 1415
        page = _same_numbers(app, sid)
        assert (
            page["studies"] == report.result.counts["groups"] == 1415 - page["duplicates_removed"]
        )
        # the working set against the labels: no false merge
        groups = app.studies.working_set(WorkingSetRequest(sid, 1), owner=app.owner)
        assert groups.pages == -(-page["studies"] // 50)
        multi = [g for g in groups.groups if len(g["members"]) > 1]
        assert multi and all(g["members"][0]["rule"] == "first identified" for g in multi)
        assert all(m["rule"] for g in multi for m in g["members"][1:])
        by_id = {ref.source_id: i for i, ref in enumerate(report.refs)}
        with open(root / "rathbone_haematology__merged_record_ids.csv", encoding="utf-8") as fh:
            truth = [[by_id[x] for x in r["merged_ids"].split(";")] for r in csv.DictReader(fh)]
        q = evaluate_groups(1415, report.result.groups, truth)
        assert q.fp == 0 and q.sensitivity >= 0.869
        # a reviewer merges an uncertain pair: one study fewer, everywhere
        review = app.dedup.review(sid, owner=app.owner)
        assert review.run is not None
        pair = next(p for p in review.pairs if p["mergeable"])
        run_id = review.run.id
        decided = app.dedup.decide(
            DecideRequest(study=sid, run_id=run_id, pair=int(pair["no"]), decision="merge"),
            owner=app.owner,
        )
        merged = _same_numbers(app, sid, zip_too=True)
        assert merged["studies"] == page["studies"] - 1
        # … and undoes it from the history: the numbers come back
        app.dedup.undo(sid, decided.seq, owner=app.owner)
        assert _same_numbers(app, sid) == page

    on_app(settings, body)


def test_records_added_later_join_the_existing_working_set(
    settings: Settings, fixtures_dir: Path
) -> None:
    def body(app: App) -> None:
        sid = _study(app, "Later", [fixtures_dir / EXPORTS[1]])
        app.dedup.run(DedupRequest(files=(), study=sid), owner=app.owner)
        first = app.studies.records(RecordsRequest(sid), owner=app.owner).rows
        groups = {r["key"]: r["group"] for r in first}
        app.studies.import_files(
            ImportRequest(study=sid, paths=(str(fixtures_dir / EXPORTS[0]),)), owner=app.owner
        )
        page = _same_numbers(app, sid, zip_too=True)
        assert page["not_deduplicated"] == 0
        again = app.studies.records(RecordsRequest(sid), owner=app.owner).rows
        assert {r["key"]: r["group"] for r in again if r["key"] in groups} == groups

    on_app(settings, body)


def _five_thousand(fixtures_dir: Path, out: Path, n: int = 5_000) -> Path:
    """``n`` (5,000) records from the two labelled sets (2,707 records): the second copy of a
    record gets a new id, no identifiers and a title word of its own (a different study).
    (A 3,000-record Study of them, deduplicated, a merge and its undo: in
    ``test_working_set_5000``, whose Study holds 2,950 of them.)"""
    rows: list[dict[str, str]] = []
    fields: list[str] = []
    for name in ("rathbone_haematology", "rathbone_stroke"):
        path = fixtures_dir / "bib" / "dedup" / f"{name}__records_pre_merged.csv"
        with open(path, encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            fields = fields or list(reader.fieldnames or [])
            rows += [{k: r.get(k) or "" for k in fields} for r in reader]
    with open(out, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        for i in range(n):
            copy, k = divmod(i, len(rows))
            row = dict(rows[k])
            if copy:
                row["ID"] = f"{row['ID']}-copy{copy}"
                row["title"] = f"{row['title']} second cohort"
                row["pages"] = f"{row['pages']}{copy}" if row.get("pages") else "e1"
            w.writerow(row)
    return out
