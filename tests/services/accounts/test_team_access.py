"""Authorisation in the workspace (the service layer): private records, Study roles, the
Study's history, and the migration that hands existing rows to ``local``."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command

from litdesk import Settings
from litdesk._errors import NotFoundError
from litdesk.adapters.store import NotPermitted, Store, allowance_owner, open_store
from litdesk.adapters.store._engine import _alembic_config, make_engine
from litdesk.core.records import make_paper
from litdesk.services.accounts import Accounts, Sharing
from litdesk.services.workspace import Workspace

ABSTRACT = "Aims: test the drug. Results: the drug reduced tumour growth by 40% in mice."
PASSWORD = "correct horse battery"


def _paper(n: int = 1):
    return make_paper(
        doi=f"10.1234/drug.{n}",
        title=f"A drug in mice {n}",
        abstract=ABSTRACT,
        year=2024,
        retrieved_at="2026-11-29T08:00:00+00:00",
    )


@pytest.fixture
def team(team_store: Store, team_settings: Settings) -> tuple[str, str]:
    accounts = Accounts(team_store, team_settings)
    return accounts.add("ana", PASSWORD).id, accounts.add("bob", PASSWORD).id


def test_private_records_stay_private(team_store: Store, team: tuple[str, str]) -> None:
    ana_id, bob_id = team
    ana, bob = Workspace(team_store, owner=ana_id), Workspace(team_store, owner=bob_id)
    paper = ana.save_paper(_paper()).paper
    note = ana.add_note(paper.id, comment="ana's private thought")
    ev = ana.add_evidence(
        paper.id,
        finding="reduced growth",
        passage="the drug reduced tumour growth",
        source="abstract",
    )
    study = ana.create_study("Ana's review")

    assert [r.paper.id for r in ana.papers()] == [paper.id]
    assert bob.papers() == [] and bob.studies() == []
    assert bob.notes() == ([], []) and bob.evidence() == ([], [])
    for attempt in (
        lambda: bob.paper(paper.id),
        lambda: bob.paper(paper.doi or ""),  # by identifier too
        lambda: bob.add_note(paper.id, comment="x"),
        lambda: bob.set_status(paper.id, "read"),
        lambda: bob.study(study.id),
        lambda: bob.study(study.name),
        lambda: bob.study_summary(study.id),
        lambda: bob.add_to_study(study.id, paper.id),
        lambda: bob.update_evidence(ev.id, finding="changed"),
        lambda: bob.update_evidence(ev.id),  # an empty change: not found, before "nothing"
        lambda: bob.notes(study=study.id),
    ):
        with pytest.raises(NotFoundError):
            attempt()
    # local (the single-user owner and the CLI administrator) sees everything
    local = Workspace(team_store)
    assert [n.id for n in local.notes()[0]] == [note.id]
    assert len(local.studies()) == 1

    # bob saving the same paper gets his own saving of the shared record, not ana's notes
    bob.save_paper(_paper())
    assert [r.paper.id for r in bob.papers()] == [paper.id]
    assert bob.notes(paper_ref=paper.id) == ([], [])


def test_roles_decide_reads_and_writes(team_store: Store, team: tuple[str, str]) -> None:
    ana_id, bob_id = team
    ana, bob = Workspace(team_store, owner=ana_id), Workspace(team_store, owner=bob_id)
    study = ana.create_study("Shared review")
    paper = ana.save_paper(_paper(), study=study.id).paper
    ana.add_note(paper.id, comment="in the Study", study=study.id)
    ana.add_note(paper.id, comment="private to ana")

    Sharing(team_store, ana_id).share(study.id, "bob", "viewer")
    assert bob.study(study.id).id == study.id
    assert [r.paper.id for r in bob.papers(study=study.id)] == [paper.id]
    assert [n.annotation.comment for n in bob.notes(paper_ref=paper.id)[0]] == ["in the Study"]
    with pytest.raises(NotPermitted):
        bob.add_note(paper.id, comment="viewer writes", study=study.id)
    with pytest.raises(NotPermitted):
        bob.set_status(paper.id, "read")
    with pytest.raises(NotPermitted):
        bob.save_paper(_paper(2), study=study.id)
    with pytest.raises(NotPermitted):
        Sharing(team_store, bob_id).share(study.id, "bob", "owner")  # no self-promotion

    Sharing(team_store, ana_id).share(study.id, "bob", "editor")
    bob.add_note(paper.id, comment="editor writes", study=study.id)
    bob.save_paper(_paper(2), study=study.id)
    with pytest.raises(NotPermitted):
        Sharing(team_store, bob_id).share(study.id, "ana", "viewer")  # editors do not share

    history = Sharing(team_store, ana_id).history(study.id).entries
    done = [(e["username"], e["action"]) for e in reversed(history)]
    assert done[0] == ("ana", "study_created")
    assert ("ana", "member_viewer") in done and ("ana", "member_editor") in done
    assert ("bob", "note_added") in done and ("bob", "paper_added") in done
    assert all(e["at"] for e in history)

    Sharing(team_store, ana_id).share(study.id, "bob", None)
    with pytest.raises(NotFoundError):
        bob.study(study.id)
    with pytest.raises(NotFoundError):
        Sharing(team_store, bob_id).history(study.id)


def test_allowance_owner_is_a_hash() -> None:
    owner = allowance_owner("acct_0123")
    assert owner.startswith("sha256:") and "acct_0123" not in owner and len(owner) == 71
    assert allowance_owner("local") == "local"


def test_existing_rows_belong_to_local(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    engine = make_engine(url)
    cfg = _alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0004")
        conn.execute(
            sa.text(
                "INSERT INTO papers (id, data, created_at, updated_at)"
                " VALUES ('DOI-10.1/x', '{}', '2026-01-01', '2026-01-01')"
            )
        )
        conn.execute(
            sa.text("INSERT INTO paper_keys (key, paper_id) VALUES ('id:DOI-10.1/x', 'DOI-10.1/x')")
        )
    engine.dispose()
    store = open_store(url)  # migrates to head
    try:
        with store.read() as conn:
            assert conn.execute(sa.text("SELECT owner FROM papers")).scalar_one() == "local"
            assert conn.execute(sa.text("SELECT count(*) FROM paper_keys")).scalar_one() == 1
            saver = conn.execute(sa.text("SELECT account_id FROM paper_savers")).scalar_one()
            assert saver == "local"
    finally:
        store.dispose()


def test_history_shows_dedup_decisions(team_store: Store, team: tuple[str, str]) -> None:
    from litdesk.adapters.store import add_dedup_entry

    ana_id, _bob_id = team
    study = Workspace(team_store, owner=ana_id).create_study("Dedup review")
    with team_store.write() as conn:
        add_dedup_entry(
            conn, study.id, "decision", {"by": ana_id, "via": "web"}, "2099-01-01T00:00:00+00:00",
            a_digest="sha256:a", b_digest="sha256:b", decision="merge",
        )  # fmt: skip
    entries = Sharing(team_store, ana_id).history(study.id).entries
    assert (entries[0]["username"], entries[0]["action"]) == ("ana", "dedup_merge")
    assert entries[-1]["action"] == "study_created"


def test_reading_status_is_each_accounts_own(team_store: Store, team: tuple[str, str]) -> None:
    ana_id, bob_id = team
    ana, bob = Workspace(team_store, owner=ana_id), Workspace(team_store, owner=bob_id)
    paper = ana.save_paper(_paper(), status="reading").paper
    bob.save_paper(_paper())  # the same public record, saved by bob too
    assert ana.paper(paper.id).status == "reading"
    assert bob.paper(paper.id).status is None  # ana's status is hers
    bob.set_status(paper.id, "read")
    assert (ana.paper(paper.id).status, bob.paper(paper.id).status) == ("reading", "read")
    assert [r.paper.id for r in bob.papers(status="read")] == [paper.id]
    assert ana.papers(status="read") == [] and bob.papers(status="reading") == []
    study = ana.create_study("Shared statuses")
    ana.add_to_study(study.id, paper.id)
    Sharing(team_store, ana_id).share(study.id, "bob", "editor")
    shown = {p.id: p.status for p in bob.study_summary(study.id).papers}
    assert shown == {paper.id: "read"}
    local = Workspace(team_store)  # the single-user status is the paper's own, untouched
    assert local.paper(paper.id).status is None
