"""The records a Study holds found by identity key (``find_study_paper_ids``), whoever's
they are, on SQLite and PostgreSQL: the keys' records first (the index on the key, migration
0027_paper_keys_key), then the Study's links — only the records the Study holds answer."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from litdesk import Settings
from litdesk.adapters.store import Store
from litdesk.adapters.store import _repo as repo
from litdesk.core.records import make_paper
from litdesk.services.accounts import Accounts
from litdesk.services.workspace import Workspace


@pytest.fixture
def team(team_store: Store, team_settings: Settings) -> tuple[str, str]:
    accounts = Accounts(team_store, team_settings)
    return accounts.add("ana", "correct horse battery").id, accounts.add(
        "bob", "correct horse battery"
    ).id


def _paper(n: int):
    return make_paper(
        doi=f"10.1234/keys.{n}",
        pmid=str(40_000_000 + n),
        title=f"Identity keys of record {n}",
        year=2024,
        retrieved_at="2026-11-29T08:00:00+00:00",
    )


def test_only_the_records_the_study_holds_answer(team_store: Store, team: tuple[str, str]) -> None:
    ana_id, bob_id = team
    ana, bob = Workspace(team_store, owner=ana_id), Workspace(team_store, owner=bob_id)
    shared = ana.save_paper(_paper(1)).paper  # ana's record, and bob's record of it
    assert bob.save_paper(_paper(1)).paper.id == shared.id
    only_ana = ana.save_paper(_paper(2)).paper
    study = bob.create_study("Bob's review")
    assert bob.add_to_study(study.id, shared.id)
    other = bob.create_study("Empty review")

    shared_keys = repo.identity_keys(shared)
    ana_keys = repo.identity_keys(only_ana)
    assert len(shared_keys) >= 2 and not set(shared_keys) & set(ana_keys)
    with team_store.read() as conn:
        found = repo.find_study_paper_ids(
            conn, [*shared_keys, *ana_keys, "doi:10.9999/none"], study_id=study.id
        )
        assert found == dict.fromkeys(shared_keys, shared.id)
        assert repo.find_study_paper_ids(conn, shared_keys, study_id=other.id) == {}
        assert repo.find_study_paper_ids(conn, [], study_id=study.id) == {}
        # which record the Study holds: bob's (ana's record of the same id is not linked)
        link = conn.execute(
            sa.select(repo.study_papers.c.paper_owner).where(
                repo.study_papers.c.study_id == study.id
            )
        ).scalar_one()
        assert link == bob_id


def test_paper_keys_are_indexed_by_key(team_store: Store) -> None:
    with team_store.read() as conn:
        indexes = sa.inspect(conn).get_indexes("paper_keys")
    assert {"name": "ix_paper_keys_key", "columns": ["key"]} in [
        {"name": i["name"], "columns": i["column_names"]} for i in indexes
    ]
