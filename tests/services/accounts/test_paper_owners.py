"""Paper records scoped to their owners (issue 29), service level, SQLite and PostgreSQL:
every way a record comes in — a save (a search selection, a citation), a Study ZIP, a
Zotero library — makes the importer's own record; identifier lookups name only the
records the account may read; a Study member reads the Study's records."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests._zotero_lib import LibraryBuilder

from litdesk import Settings
from litdesk._errors import NotFoundError
from litdesk.adapters.store import Store, open_store
from litdesk.core.records import make_paper
from litdesk.services.accounts import Accounts, Sharing
from litdesk.services.app import open_app_sync
from litdesk.services.workspace import Workspace, export_study, import_study
from litdesk.services.zotero import ZoteroImportRequest

PASSWORD = "correct horse battery"
DOI = "10.5555/own.1"
SECRET = "Ana's unpublished title"


@pytest.fixture
def team(team_store: Store, team_settings: Settings) -> tuple[str, str]:
    accounts = Accounts(team_store, team_settings)
    return accounts.add("ana", PASSWORD).id, accounts.add("bob", PASSWORD).id


def _ana(team_store: Store, ana_id: str) -> str:
    """Ana's record of DOI (in her Study) and one only she has; its paper id."""
    ana = Workspace(team_store, owner=ana_id)
    ana.create_study("Ana's", None)
    full = make_paper(doi=DOI, title=SECRET, abstract="Ana's abstract.", journal="Ana J")
    ana.save_paper(full, study="Ana's")
    ana.save_paper(make_paper(doi="10.5555/own.2", title="Ana only"))
    return full.id


def _ana_unchanged(team_store: Store, ana_id: str, paper_id: str) -> None:
    row = Workspace(team_store, owner=ana_id).paper(paper_id)
    assert (row.paper.title, row.paper.year, row.paper.journal) == (SECRET, None, "Ana J")
    assert row.paper.pmid is None


def test_saves_and_lookups_are_per_owner(team_store: Store, team: tuple[str, str]) -> None:
    ana_id, bob_id = team
    pid = _ana(team_store, ana_id)
    bob = Workspace(team_store, owner=bob_id)
    # identifier lookups: ana's records are not bob's to find
    for ref in (f"doi:{DOI}", pid, "10.5555/own.2"):
        with pytest.raises(NotFoundError):
            bob.paper(ref)
    # a search selection / citation save with ana's DOI: bob's own new record
    (saved,) = bob.save_papers([make_paper(doi=DOI, title="Bob's", year=2021, pmid="42")])
    assert saved.created and saved.paper.title == "Bob's"
    assert bob.paper(f"doi:{DOI}").paper.title == "Bob's"
    assert [r.paper.title for r in bob.papers()] == ["Bob's"]
    _ana_unchanged(team_store, ana_id, pid)
    # bob's record of PMID 42 does not block ana from saving a record with it
    again = Workspace(team_store, owner=ana_id).save_paper(
        make_paper(doi="10.5555/own.9", pmid="42", title="Ana's PMID 42")
    )
    assert again.created
    # a member of ana's Study reads its record (and still his own outside it)
    Sharing(team_store, ana_id).share("Ana's", "bob", "viewer")
    (study,) = [s for s, _n in bob.studies() if s.name == "Ana's"]
    assert [r.paper.title for r in bob.papers(study=study.id)] == [SECRET]
    assert bob.paper(f"doi:{DOI}").paper.title == "Bob's"
    with pytest.raises(NotFoundError):
        bob.paper("10.5555/own.2")  # ana's paper outside the Study stays hers


def test_a_study_zip_makes_the_importers_records(team_store: Store, team: tuple[str, str]) -> None:
    ana_id, bob_id = team
    pid = _ana(team_store, ana_id)
    bob = Workspace(team_store, owner=bob_id)
    bob.create_study("Bob's", None)
    bob.save_paper(make_paper(doi=DOI, title="Bob's copy", year=1999), study="Bob's")
    data = export_study(bob, "Bob's")
    # bob's ZIP carries ana's DOI (and her paper id): recovered as bob's records only
    done = import_study(bob, data, name="Recovered")
    assert done.papers == 1, done
    rows = bob.papers(study="Recovered")
    assert [r.paper.title for r in rows] == ["Bob's copy"]
    _ana_unchanged(team_store, ana_id, pid)
    # ana recovering bob's ZIP gets her own record, not bob's, and her title stays
    ana = Workspace(team_store, owner=ana_id)
    import_study(ana, data, name="From bob")
    (mine,) = ana.papers(study="From bob")
    assert mine.paper.title == SECRET and mine.paper.year == 1999  # her record, completed
    assert Workspace(team_store, owner=bob_id).paper(f"doi:{DOI}").paper.title == "Bob's copy"


@pytest.mark.fixtures
def test_a_zotero_library_makes_the_importers_records(
    team_store: Store,
    team: tuple[str, str],
    team_settings: Settings,
    fixtures_dir: Path,
    tmp_path: Path,
) -> None:
    ana_id, bob_id = team
    pid = _ana(team_store, ana_id)
    b = LibraryBuilder(fixtures_dir / "zotero" / "schema-sql", tmp_path / "Zotero")
    review = b.collection("Review")
    b.item(fields={"title": "Bob's Zotero copy", "DOI": DOI, "date": "2018"}, collections=[review])
    b.close()
    with open_app_sync(team_settings) as app:
        view = app.zotero.import_library(
            ZoteroImportRequest(data_dir=str(b.data_dir), study="Zotero", pdfs=False),
            owner=bob_id,
        )
        assert view.added == 1
    store = open_store(team_settings)
    try:
        (row,) = Workspace(store, owner=bob_id).papers(study="Zotero")
        assert row.paper.title == "Bob's Zotero copy" and SECRET not in str(view.to_dict())
        _ana_unchanged(store, ana_id, pid)
    finally:
        store.dispose()
