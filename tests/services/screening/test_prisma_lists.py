"""Every number of the PRISMA 2020 flow opens as the records behind it (issue 28), the
identification numbers too: "Records identified", each kind of source and each source line,
per round of a living review and in all, list every record each source brought in (before
deduplication: a study two sources found is listed under each, as it is counted), and
"Duplicate records removed" lists the records set aside, each naming the record kept to
screen that it duplicates. The count of every list is the number in its box, and the lists
add up as the boxes do; a page of a list is 100 records."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests._seconds import sleep_to_next_second
from tests.services.studies._paged import GeneratedSearch

from litdesk import Settings
from litdesk.services.app import App, open_app
from litdesk.services.screening import (
    PrismaFlowRequest,
    PrismaRecordsRequest,
    ScreeningRequestError,
)
from litdesk.services.screening._team_requests import RECORDS_PAGE
from litdesk.services.search import SearchRequest
from litdesk.services.studies import AddSearchRequest, ImportRequest, UpdateStudyRequest

#: a register's export: three records of the search (same DOIs), two of its own
_RIS = "".join(
    f"TY  - JOUR\nTI  - {title}\nDO  - {doi}\nPY  - 2001\nAU  - Smith, J\nER  - \n"
    for title, doi in (
        ("Generated record 0 on malaria vaccines", "10.5555/gen.0"),
        ("Generated record 1 on malaria vaccines", "10.5555/gen.1"),
        ("Generated record 2 on malaria vaccines", "10.5555/gen.2"),
        ("A registered trial of a malaria vaccine in infants", "10.5555/reg.1"),
        ("A registered trial of a malaria vaccine in adults", "10.5555/reg.2"),
    )
)


def _all(app: App, request: PrismaRecordsRequest) -> tuple[int, list[dict[str, object]]]:
    """Every page of a list: its total and all its rows (each page at most 100)."""
    first = app.screening.prisma_records(request, owner=app.owner)
    rows = list(first.rows)
    for page in range(2, first.pages + 1):
        asked = PrismaRecordsRequest(
            request.study, request.box, request.round, page, request.reason, request.kind,
            request.source,
        )  # fmt: skip
        more = app.screening.prisma_records(asked, owner=app.owner)
        assert more.page == page and more.total == first.total
        assert 0 < len(more.rows) <= RECORDS_PAGE
        rows += more.rows
    assert len(first.rows) == min(first.total, RECORDS_PAGE)
    return first.total, rows


def test_identification_numbers_open_as_their_records(
    tmp_settings: Settings, tmp_path: Path
) -> None:
    state = {"search": GeneratedSearch(70)}
    ris = tmp_path / "register.ris"
    ris.write_text(_RIS, encoding="utf-8")

    async def run(app: App, job_id: str) -> None:
        done = await asyncio.to_thread(app.studies.work_search_job, job_id, owner=app.owner)
        assert done.job.status == "done"

    def check(app: App, study: str) -> None:
        flow: dict[str, Any] = app.screening.prisma(PrismaFlowRequest(study), owner=app.owner).flow
        rounds = flow["rounds"]
        assert len(rounds) == 2
        # every line of the table that names a box opens as that many records
        lines = [
            r for r in flow["table"]["rows"] if r["box"] in ("identified", "removed_duplicates")
        ]
        assert {(r["box"], r["kind"], bool(r["source"])) for r in lines} >= {
            ("identified", None, False),
            ("identified", "database", False),
            ("identified", "database", True),
            ("identified", "register", True),
            ("removed_duplicates", None, False),
        }
        for line in lines:
            for i, value in enumerate(line["values"]):
                round_no = None if i == len(rounds) else i + 1
                asked = PrismaRecordsRequest(
                    study, line["box"], round_no, kind=line["kind"], source=line["source"]
                )
                total, rows = _all(app, asked)
                assert total == len(rows) == value, (line["label"], round_no)
                assert len({r["record_key"] for r in rows}) == total  # no record twice
        for n, r in enumerate(rounds, start=1):
            _, found = _all(app, PrismaRecordsRequest(study, "identified", n))
            by_source = Counter(str(row["source"]) for row in found)
            assert by_source == {s["name"]: s["records"] for s in r["identified"]["sources"]}
            kept = [row for row in found if row["duplicate_of"] is None]
            assert len(kept) == r["to_screen"]  # identified − duplicates = to screen
            assert len({row["group_key"] for row in kept}) == len(kept)
            _, dups = _all(app, PrismaRecordsRequest(study, "removed_duplicates", n))
            assert len(dups) == r["removed_duplicates"] == len(found) - len(kept)
            for d in dups:  # each names the record it duplicates: its study's record kept
                assert d["duplicate_of"] not in (None, d["record_key"])
                assert d["duplicate_of_title"] and d["rule"]
                members = {m["key"] for m in _members(app, study, str(d["group_key"]))}
                assert {d["record_key"], d["duplicate_of"]} <= members
        first, update = rounds
        # the register's three records of the search: one of each pair set aside, naming
        # the other source's record it duplicates
        _, round_one = _all(app, PrismaRecordsRequest(study, "identified", 1))
        source_of = {r["record_key"]: r["source"] for r in round_one}
        _, dups = _all(app, PrismaRecordsRequest(study, "removed_duplicates", 1))
        titles = sorted(str(d["title"]) for d in dups)
        assert titles == [f"Generated record {n} on malaria vaccines" for n in range(3)]
        assert all({d["source"], source_of[d["duplicate_of"]]} == {"Europe PMC", "ISRCTN"}
                   for d in dups)  # fmt: skip
        # the update found the first 70 again: each a duplicate of a record of round 1
        assert (update["identified"]["total"], update["removed_duplicates"]) == (130, 70)
        kept_first = {r["record_key"] for r in round_one if r["duplicate_of"] is None}
        _, again = _all(app, PrismaRecordsRequest(study, "removed_duplicates", 2))
        assert {d["duplicate_of"] for d in again} <= kept_first
        # all rounds: 205 records on three pages
        total, _ = _all(app, PrismaRecordsRequest(study, "identified"))
        assert total == first["identified"]["total"] + update["identified"]["total"] == 205

    async def body(app: App) -> None:
        study = app.workspace().create_study("Listed").id
        search = SearchRequest("malaria vaccine", providers=("europepmc",))
        await run(
            app, app.studies.add_search(AddSearchRequest(study, search), owner=app.owner).job.id
        )
        await asyncio.to_thread(
            app.studies.import_files,
            ImportRequest(study, paths=(str(ris),), source_name="ISRCTN", source_kind="register"),
            owner=app.owner,
        )
        await asyncio.to_thread(sleep_to_next_second)  # rounds begin to the second
        state["search"] = GeneratedSearch(130)  # the 70 again and 60 new
        await run(app, app.studies.update_study(UpdateStudyRequest(study), owner=app.owner).job.id)
        await asyncio.to_thread(check, app, study)

    def handler(request: httpx.Request) -> httpx.Response:
        return state["search"](request)  # the update's search replaces the first

    async def go() -> None:
        transport = httpx.MockTransport(handler)
        async with open_app(tmp_settings, http_transport=transport) as app:
            await body(app)

    asyncio.run(go())


def _members(app: App, study: str, key: str) -> list[dict[str, Any]]:
    from litdesk.services.screening import CardRequest

    card = app.screening.card(CardRequest(study, "title_abstract", key), owner=app.owner)
    return [dict(m) for m in card.members]


@pytest.mark.parametrize(
    ("box", "kind", "source"),
    [
        ("to_screen", "database", None),
        ("excluded_reports", None, "Embase"),
        ("identified", "journal", None),
        ("identified", None, " "),
    ],
)
def test_a_kind_or_source_narrows_only_the_source_boxes(
    box: str, kind: str | None, source: str | None
) -> None:
    with pytest.raises(ScreeningRequestError) as refused:
        PrismaRecordsRequest("s", box, kind=kind, source=source)
    assert refused.value.code == "bad_source"
