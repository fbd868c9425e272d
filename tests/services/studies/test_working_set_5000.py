"""A 5,000-record Study (issue 27): imports of the labelled sets plus a paged whole search,
deduplicated, an import removed and restored, the search updated, a reviewer's merge undone — on
SQLite and PostgreSQL. In a file of its own so that the suite's workers share the slow tests."""

from __future__ import annotations

import asyncio
import csv
from pathlib import Path

import pytest
from tests.services.studies.test_working_set import _five_thousand, _same_numbers, _study

from litdesk import Settings
from litdesk.services.app import App, open_app
from litdesk.services.dedup import DecideRequest, DedupRequest, working_groups
from litdesk.services.studies import WorkingSetRequest


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    if request.param == "postgres":
        return tmp_settings.model_copy(
            update={"database_url": request.getfixturevalue("pg_schema")}
        )
    return tmp_settings


def _generated_ris(path: Path, numbers: range) -> Path:
    """Records of the generated Europe PMC search, exported from elsewhere (same DOIs)."""
    lines = []
    for n in numbers:
        lines += [
            "TY  - JOUR",
            f"TI  - Generated record {n} on malaria vaccines",
            f"DO  - 10.5555/gen.{n}",
            f"PY  - {1990 + n % 30}",
            "ER  - ",
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _ref(record: object) -> tuple[str, int]:
    """A review pair's record as ``(file or label, position in it)``."""
    assert isinstance(record, dict)
    return str(record["file"]), int(record["index"])


def _groups_of(app: App, sid: str, refs: set[tuple[str, int]]) -> set[str]:
    """The working set's groups that hold the records ``refs`` names (:func:`_ref`)."""
    return {
        g.key
        for g in working_groups(app.store, sid)
        for m in g.members
        if (str(m.data.get("file") or m.data.get("label") or m.source_id), m.position) in refs
    }


@pytest.mark.slow
@pytest.mark.timeout(900)  # about 30 s of CPU; a loaded shared machine stretches it
def test_a_5000_record_study_from_imports_and_a_paged_search_kept_up_to_date(
    settings: Settings, fixtures_dir: Path, tmp_path: Path
) -> None:
    """2,950 imported records of the labelled sets, 50 imported records a paged search
    (2,000 records, 20 pages through the provider transport) finds again: deduplicated,
    an import removed and restored, the search updated (100 new records), a reviewer's
    merge on the updated Study and its undo."""
    import httpx
    from tests.services.studies._paged import GeneratedSearch

    from litdesk.services.search import SearchRequest
    from litdesk.services.studies import AddSearchRequest, UpdateStudyRequest

    labelled = tmp_path / "labelled.csv"
    with open(_five_thousand(fixtures_dir, tmp_path / "all.csv"), encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        rows = [row for _, row in zip(range(2_950), reader, strict=False)]
    with open(labelled, "w", encoding="utf-8", newline="") as out:
        w = csv.DictWriter(out, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    overlap = _generated_ris(tmp_path / "found-again.ris", range(50))
    state = {"search": GeneratedSearch(2_000)}

    def body(app: App) -> None:
        sid = _study(app, "Five thousand, searched", [labelled])
        ris = app.workspace().save_file(overlap, study=sid)
        search = SearchRequest("malaria vaccine", providers=("europepmc",))
        job = app.studies.add_search(AddSearchRequest(sid, search), owner=app.owner).job.id
        done = app.studies.work_search_job(job, owner=app.owner)
        assert done.job.status == "done", done.job.message
        first = _same_numbers(app, sid)  # grouped as the records came
        assert (first["records_identified"], first["not_deduplicated"]) == (5_000, 0)
        run = app.dedup.run(DedupRequest(files=(), study=sid), owner=app.owner)
        page = _same_numbers(app, sid)
        assert page["studies"] == run.report.result.counts["groups"] < 5_000
        # the 50 found again by the search are one study each with their search record
        assert page["duplicates_removed"] >= 50
        groups = {g.key: {m.key for m in g.members} for g in working_groups(app.store, sid)}
        again = [
            members for members in groups.values()
            if any(k.startswith(ris.import_id) for k in members) and len(members) > 1
        ]  # fmt: skip
        assert len(again) == 50

        # an import out of the Study and back: its records leave and come back grouped
        # as they were
        def counts() -> dict[str, object]:
            return app.studies.working_set(WorkingSetRequest(sid), owner=app.owner).counts.to_dict()

        out = app.studies.remove_import(sid, ris.import_id, owner=app.owner)
        less = counts()
        assert less["records_identified"] == 4_950
        assert less["studies"] == page["studies"]  # the search still holds those 50
        app.studies.restore(out.trash_id or "", owner=app.owner)
        assert counts() == page
        back = {g.key: {m.key for m in g.members} for g in working_groups(app.store, sid)}
        assert sorted(map(sorted, back.values())) == sorted(map(sorted, groups.values()))

        # months later the search finds 100 more: the update adds them, deduplicated
        state["search"] = GeneratedSearch(2_100)
        job = app.studies.update_study(UpdateStudyRequest(sid), owner=app.owner).job.id
        done = app.studies.work_search_job(job, owner=app.owner)
        assert done.job.status == "done", done.job.message
        latest = app.studies.search_rounds(sid, owner=app.owner).latest_update
        assert latest is not None and (latest["new"], latest["already_known"]) == (100, 2_000)
        updated = _same_numbers(app, sid)
        assert updated["records_identified"] == 5_000 + 2_100
        assert updated["studies"] == page["studies"] + 100
        assert updated["not_deduplicated"] == 0

        # a reviewer merges an uncertain pair of the run's review queue, on the updated
        # Study, and undoes it from the history (the labelled sets with copies of some of
        # their records, as test_working_set's 3,000-record Study was)
        review = app.dedup.review(sid, owner=app.owner)
        assert review.run is not None and review.pairs
        pair = next(p for p in review.pairs if p["mergeable"])
        refs = {_ref(pair["a"]), _ref(pair["b"])}
        apart = _groups_of(app, sid, refs)  # (other merges may join them already)
        decided = app.dedup.decide(
            DecideRequest(study=sid, run_id=review.run.id, pair=int(pair["no"]), decision="merge"),
            owner=app.owner,
        )
        # the two records are one study now (a join may send another, chained join back
        # to review, so the count is checked against the working set, not assumed); the
        # Study's ZIP made once, here: after an update and a merge
        assert len(_groups_of(app, sid, refs)) == 1
        _same_numbers(app, sid, zip_too=True)
        app.dedup.undo(sid, decided.seq, owner=app.owner)
        assert _same_numbers(app, sid) == updated
        assert _groups_of(app, sid, refs) == apart

    def handler(request: httpx.Request) -> httpx.Response:
        return state["search"](request)

    async def go() -> None:
        # the mock answers at once: Europe PMC's pacing (0.1 s a page, ~4 s of this test's
        # 41 pages) is the pacer's tests' subject (tests/adapters/http), not this one's
        transport = httpx.MockTransport(handler)
        async with open_app(settings, http_transport=transport, pacing={"europepmc": 0}) as app:
            await asyncio.to_thread(body, app)

    asyncio.run(go())
