"""A Study's pages read less (issues 26 and 28), on SQLite and PostgreSQL:
the full-text counts of the Study page and PRISMA from one aggregate row are the counts of
every paper's row; a process keeps a Study's working set while the Study's records version
(``studies.records_version``) is the one it read it with, and a write of the records by
another app — its own store, engine and kept sets, as another process or host has — gives
the next read of this one the records as they are now."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.services.studies.test_working_set import EXPORTS, _same_numbers, _study

from litdesk import Settings
from litdesk.adapters.store import Store, fulltext, records_version, study_records
from litdesk.core.records import make_paper
from litdesk.services.app import App, open_app
from litdesk.services.dedup import working_groups, working_page
from litdesk.services.studies import ImportRequest, WorkingSetRequest
from litdesk.services.studies._fulltext import retrieval
from litdesk.services.workspace import Workspace


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_settings: Settings) -> Settings:
    if request.param == "postgres":
        return tmp_settings.model_copy(
            update={"database_url": request.getfixturevalue("pg_schema")}
        )
    return tmp_settings


def on_two_apps(settings: Settings, body: Callable[[App, App], Any]) -> Any:
    """``body(a, b)``: two apps opened on the same database, each with its own store."""

    async def go() -> Any:
        async with open_app(settings) as a, open_app(settings) as b:
            assert a.store is not b.store and a.store.engine is not b.store.engine
            return await asyncio.to_thread(body, a, b)

    return asyncio.run(go())


def _version(store: Store, sid: str) -> str | None:
    with store.read() as conn:
        return records_version(conn, sid)


def test_the_full_text_counts_from_one_row_are_every_paper_s(settings: Settings) -> None:
    def body(app: App, _b: App) -> None:
        ws = Workspace(app.store)
        sid = ws.create_study("Reports").id
        ids = [
            ws.save_paper(make_paper(title=f"Trial {i}", doi=f"10.1000/t{i}"), study=sid).paper.id
            for i in range(6)
        ]
        at = "2026-12-08T00:00:00+00:00"
        links = {0: "linked", 1: "linked", 2: "suggested", 3: "rejected"}
        checks = {0: True, 1: False, 2: True, 4: False}
        with app.store.write() as conn:
            for i, state in links.items():
                fulltext.put_pdf_link(
                    conn,
                    fulltext.PdfLinkRow(sid, ids[i], f"{i}" * 64, f"{i}.pdf", "doi", "DOI",
                                        state, "local", at),  # type: ignore[arg-type]
                )  # fmt: skip
            for i, available in checks.items():
                fulltext.put_fulltext_check(
                    conn,
                    fulltext.FulltextCheckRow(sid, ids[i], available, None, None, None, None,
                                              "local", at),
                )  # fmt: skip
        every = retrieval(app.store, sid)  # every paper's row, counted
        page = retrieval(app.store, sid, [ids[3], ids[0], "not-in-the-study"])
        assert page.counts == every.counts == {
            "papers": 6, "with_pdf": 2, "suggested": 1, "with_fulltext": 2, "checked": 4,
            "unchecked": 2, "without_full_text": 3,  # 3, 4 and 5: neither
        }  # fmt: skip
        assert list(page.papers) == [ids[3], ids[0]]  # the page's, in its order
        assert page.papers[ids[0]] == every.papers[ids[0]]
        assert page.papers[ids[0]]["retrieved"] == "both"
        assert page.papers[ids[3]] == every.papers[ids[3]]
        assert page.papers[ids[3]]["pdf"] is None  # a rejected link is none
        assert retrieval(app.store, sid, ()).papers == {}
        # a small Study's page: every row read at once (one statement), the same answer
        small = retrieval(app.store, sid, [ids[3], ids[0], "not-in-the-study"], total=6)
        assert (small.papers, small.counts) == (page.papers, page.counts)

    on_two_apps(settings, body)


def test_a_kept_working_set_is_the_study_s_after_another_app_s_writes(
    settings: Settings, fixtures_dir: Path
) -> None:
    lens, zotero = (fixtures_dir / p for p in EXPORTS)

    def body(a: App, b: App) -> None:
        sid = _study(a, "Kept", [lens])
        first = working_groups(a.store, sid)
        assert working_groups(a.store, sid)[0] is first[0]  # kept: not read again
        version = _version(a.store, sid)
        assert version is not None
        a.studies.study(sid, owner=a.owner)  # reads write nothing
        a.studies.prisma(sid, owner=a.owner)
        assert _version(a.store, sid) == _version(b.store, sid) == version
        page = _same_numbers(a, sid)
        assert working_page(a.store, sid, 0, 10) == (first[:10], len(first))

        # another app imports a second file: the first app's next reads hold its records
        b.studies.import_files(ImportRequest(study=sid, paths=(str(zotero),)), owner=b.owner)
        assert _version(a.store, sid) not in (None, version)
        more = _same_numbers(a, sid)
        assert more["records_identified"] > page["records_identified"]
        assert more == _same_numbers(b, sid)
        grown = working_groups(a.store, sid)
        assert sum(len(g.members) for g in grown) == more["records_identified"]
        assert working_page(a.store, sid, 0, 10**6)[1] == len(grown) == more["studies"]

        # a regrouping that changes one record's rule only (same groups, same counts)
        key, grp = grown[0].members[0].key, grown[0].key
        with b.store.write() as conn:
            assert study_records.set_groups(conn, sid, [(key, grp, "set by another app")]) == 1
        member = working_groups(a.store, sid)[0].members[0]
        assert (member.key, member.rule) == (key, "set by another app")
        shown = a.studies.working_set(WorkingSetRequest(sid), owner=a.owner).groups[0]
        assert shown["members"][0]["rule"] == "set by another app"

        # the other app removes the import again: the first app's numbers are back
        with b.store.read() as conn:
            second = [s.id for s in study_records.study_sources(conn, sid)
                      if s.kind == "import"][-1]  # fmt: skip
        b.studies.remove_import(sid, second, owner=b.owner)
        assert _same_numbers(a, sid) == page
        assert {g.key for g in working_groups(a.store, sid)} == {g.key for g in first}

    on_two_apps(settings, body)


def test_every_write_of_a_study_s_records_gives_it_a_new_version(settings: Settings) -> None:
    """Each writer of ``study_records`` in a write transaction, and outside one (at once);
    a transaction rolled back leaves the version as it was."""

    def body(app: App, _b: App) -> None:
        store = app.store
        ws = Workspace(store)
        sid = ws.create_study("Versions").id
        other = ws.create_study("Other").id
        pid = ws.save_paper(make_paper(title="Hand added", doi="10.1000/h"), study=sid).paper.id
        seen = {_version(store, sid)}
        untouched = _version(store, other)

        def changed() -> None:
            now = _version(store, sid)
            assert now is not None and now not in seen
            seen.add(now)

        with store.read() as conn:
            row = study_records.list_records(conn, sid)[0]
        assert row.source_id == pid  # the paper's own record (its saving wrote it)
        with store.write() as conn:
            study_records.rename_paper_record(conn, sid, pid, "Colleague's list")
        changed()
        with store.write() as conn:
            study_records.set_record_papers(conn, sid, [(row.key, pid)])
        changed()
        with store.write() as conn:
            study_records.set_groups(conn, sid, [(row.key, row.key, "first identified again")])
        changed()
        with store.write() as conn:
            assert study_records.delete_source(conn, sid, pid) == 1
        changed()
        with store.write() as conn:
            study_records.insert_records(conn, sid, [row])
        changed()
        with pytest.raises(RuntimeError), store.write() as conn:
            study_records.delete_source(conn, sid, pid)
            raise RuntimeError("rolled back")
        assert _version(store, sid) in seen and len(seen) == 6
        with store.engine.begin() as conn:  # not the store's write: given at once
            study_records.delete_source(conn, sid, pid)
        changed()
        assert _version(store, other) == untouched

    on_two_apps(settings, body)


def test_refresh_reads_only_while_the_records_it_found_in_step_are_unchanged(
    settings: Settings, fixtures_dir: Path
) -> None:
    """The Study page's screening line reconciles the Study (``refresh``): a write each
    visit before; now a read while this process found the records in step at their version
    — and a Study another app left out of step (its records written without its sources)
    is still brought back in step by the next refresh."""
    import sqlalchemy as sa

    from litdesk.services.dedup import refresh

    lens = fixtures_dir / EXPORTS[0]

    def body(a: App, b: App) -> None:
        sid = _study(a, "In step", [lens])
        counts = refresh(a.store, sid)  # found in step (the import reconciled it)
        seen: list[str] = []

        def count(_c: Any, _cur: Any, statement: str, *_x: Any) -> None:
            seen.append(statement)

        sa.event.listen(a.store.engine, "before_cursor_execute", count)
        try:
            assert refresh(a.store, sid) == counts
        finally:
            sa.event.remove(a.store.engine, "before_cursor_execute", count)
        assert len(seen) <= 3 and not any("lock" in s.lower() for s in seen), seen

        # another app's records written without their sources: every record of the import
        # gone (a new version at once), the import still the Study's
        with b.store.read() as conn:
            imp = next(s.id for s in study_records.study_sources(conn, sid) if s.kind == "import")
        with b.store.engine.begin() as conn:
            assert study_records.delete_source(conn, sid, imp) == counts.records
        with a.store.read() as conn:
            assert study_records.count_records(conn, sid).records == 0
        assert refresh(a.store, sid) == counts  # reconciled again: the records are back
        assert sum(len(g.members) for g in working_groups(a.store, sid)) == counts.records

    on_two_apps(settings, body)


_OTHER_PROCESS = """
import sys
from pathlib import Path
from litdesk import Settings
from litdesk.services.app import open_app_sync
from litdesk.services.studies import ImportRequest

data_dir, url, study, path = sys.argv[1:]
settings = Settings(data_dir=Path(data_dir), database_url=url or None)
with open_app_sync(settings) as app:
    app.studies.import_files(ImportRequest(study=study, paths=(path,)), owner=app.owner)
"""


def test_a_write_from_another_process_changes_the_next_read(
    settings: Settings, fixtures_dir: Path
) -> None:
    """As a second server process on the same database: it imports a file into the Study
    this app keeps the working set of; this app's next reads count its records."""
    import subprocess
    import sys

    lens, zotero = (fixtures_dir / p for p in EXPORTS)

    def body(a: App, _b: App) -> None:
        sid = _study(a, "Two processes", [lens])
        before = _same_numbers(a, sid)
        kept = working_groups(a.store, sid)
        assert working_groups(a.store, sid)[0] is kept[0]
        args = [str(settings.data_dir), settings.database_url or "", sid, str(zotero)]
        subprocess.run([sys.executable, "-c", _OTHER_PROCESS, *args], check=True, timeout=300)
        after = _same_numbers(a, sid)
        assert after["records_identified"] > before["records_identified"]
        assert (
            sum(len(g.members) for g in working_groups(a.store, sid))
            == (after["records_identified"])
        )

    on_two_apps(settings, body)


def test_screening_s_fingerprint_follows_a_change_that_keeps_the_group_sizes(
    settings: Settings,
) -> None:
    """Screening keeps a Study's screen set while ``record_fingerprint`` is the same: a
    record's rule changed in place (the same groups, counts and key lengths) must change it,
    or screening would show the set as it was."""
    from litdesk.adapters.store import screening

    def body(app: App, other: App) -> None:
        ws = Workspace(app.store)
        sid = ws.create_study("Fingerprint").id
        pid = ws.save_paper(make_paper(title="Hand added", doi="10.1000/f"), study=sid).paper.id
        with app.store.read() as conn:
            row = study_records.list_records(conn, sid)[0]
            before = screening.record_fingerprint(conn, sid)
        assert row.source_id == pid
        with other.store.write() as conn:  # another process's write, its own engine
            study_records.set_groups(conn, sid, [(row.key, row.grp or row.key, "by hand")])
        with app.store.read() as conn:
            assert screening.record_fingerprint(conn, sid) != before

    on_two_apps(settings, body)
