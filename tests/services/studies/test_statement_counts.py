"""What a read costs the store (issue 29): the SQL statements of a paper's page and of a
Study's page, on SQLite and PostgreSQL, for the record's owner, a member of its Study and
an account that may not read it — with upper bounds, so a statement added back fails here,
and with the answers and refusals each account got before the cuts.

A paper's own record is found and read in one statement (its key's lookup joined to the
record); the Study's record and the account's role in it in one; its counts in one; its
imports once per page; its papers' PDF links and full-text checks in one; its records'
numbers in one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from tests.adapters.store.conftest import pg_schema, store_url

from litdesk import Settings
from litdesk._errors import NotFoundError
from litdesk.adapters.store import accounts as access
from litdesk.core.records import make_paper
from litdesk.services.app import App, open_app_sync
from litdesk.services.workspace import now_iso

__all__ = ["pg_schema", "store_url"]

ABSTRACT = "Aspirin lowered the risk of stroke in older adults over five years."


@pytest.fixture
def app(store_url: str, tmp_path: Path) -> Iterator[App]:
    settings = Settings(data_dir=tmp_path / "data", database_url=store_url)
    with open_app_sync(settings) as a:
        yield a


@contextmanager
def counted(app: App) -> Iterator[list[str]]:
    """The statements the store sends inside the block (SQLite's ``BEGIN`` left out)."""
    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_a: Any) -> None:
        if not statement.lstrip().upper().startswith("BEGIN"):
            seen.append(" ".join(statement.split()))

    engine = app.store.engine
    sa.event.listen(engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        sa.event.remove(engine, "before_cursor_execute", count)


def _team(app: App) -> tuple[str, str]:
    """Ana's Study (Ben a viewer in it) holding her paper, with a note and an import."""
    ana = app.workspace("acct_ana")
    paper = ana.save_paper(
        make_paper(pmid="4242", doi="10.1000/aspirin", title="Aspirin", abstract=ABSTRACT)
    ).paper
    study = ana.create_study("Aspirin")
    ana.add_to_study(study.id, paper.id)
    ana.add_note(paper.id, comment="Check the dose", study=study.id)
    with app.store.write() as conn:
        access.set_member(conn, study.id, "acct_ben", "viewer", "acct_ana", now_iso())
    return paper.id, study.id


def test_a_papers_page_finds_and_reads_an_own_record_in_one_statement(app: App) -> None:
    paper_id, _study = _team(app)
    with counted(app) as seen:
        view = app.reader.reader(paper_id, owner="acct_ana")
    assert view.saved and view.paper.id == paper_id and len(view.notes) == 1
    # the key's lookup joined to the record: no separate id lookup, access check or
    # record-owner query before the record is read
    assert sum("paper_keys" in s for s in seen) == 1, seen
    assert not any(s.startswith("SELECT papers.id FROM papers") for s in seen), seen
    # the record, notes, evidence, the Studies holding it, the Study list, the PDF
    # (links of its Studies and the library's): 7 before the cut was 10
    assert len(seen) <= 7, seen

    # by another identifier the same record: its own key's lookup with the record, and
    # whether a Study of hers holds a record with that id (an id comes first)
    with counted(app) as seen:
        by_doi = app.reader.reader("10.1000/aspirin", owner="acct_ana")
    assert by_doi.paper.id == paper_id
    assert sum("paper_keys" in s for s in seen) == 2 and len(seen) <= 8, seen


def test_access_to_a_paper_is_still_checked(app: App) -> None:
    paper_id, _study = _team(app)
    # a member of its Study reads it (through the Study: the full check runs)
    assert app.reader.reader(paper_id, owner="acct_ben").paper.id == paper_id
    # another account cannot, by id or by identifier
    for ref in (paper_id, "10.1000/aspirin", "4242"):
        with pytest.raises(NotFoundError):
            app.reader.reader(ref, owner="acct_eve")
    with pytest.raises(NotFoundError):
        app.workspace("acct_eve").set_status(paper_id, "read")


def test_a_studys_page_costs_nine_statements_for_its_owner_and_a_member(app: App) -> None:
    paper_id, study = _team(app)
    app.studies.study(study, owner="acct_ana")  # the first read may check it is in step
    for who in ("acct_ana", "acct_ben"):
        with counted(app) as seen:
            view = app.studies.study(study, owner=who).to_dict()
        assert [p["id"] for p in view["papers"]] == [paper_id]
        assert (view["papers_total"], view["notes"], view["evidence"]) == (1, 1, 0)
        assert sum(s.startswith("SELECT imports.") for s in seen) == 1, seen
        assert not any(s.startswith("SELECT studies.owner") for s in seen), seen
        # Study and role, counts, page of papers, runs, imports, PDFs and full text,
        # records' numbers, whole-search rounds: 8 (16–17 before the cuts); and the update
        # rounds begun by hand (shown on the page since they exist): 9
        assert len(seen) <= 9, (who, seen)
    with pytest.raises(NotFoundError):
        app.studies.study(study, owner="acct_eve")
