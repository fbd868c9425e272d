"""Study names are unique per owner (issue 17), on SQLite and PostgreSQL: another account's
private Study of the same name neither blocks nor shows; a name resolves among the account's
own Studies first, then those shared with it, and an ambiguous one asks for the id; a
co-owner's rename learns nothing of the owner's private Studies; the single-user owner
``local`` works as before."""

from __future__ import annotations

import pytest

from litdesk import Settings
from litdesk._errors import InputError, NotFoundError
from litdesk.adapters.store import Store, repo
from litdesk.core.records import make_paper
from litdesk.services.accounts import Accounts, Sharing
from litdesk.services.workspace import Workspace, export_study, import_study

PASSWORD = "correct horse battery"
NAME = "Aspirin and stroke"


@pytest.fixture
def accounts(team_store: Store, team_settings: Settings) -> tuple[str, str, str]:
    made = Accounts(team_store, team_settings)
    return tuple(made.add(n, PASSWORD).id for n in ("ana", "bob", "cy"))  # type: ignore[return-value]


def _paper(n: int):
    return make_paper(
        doi=f"10.1234/names.{n}",
        title=f"Names paper {n}",
        abstract="Aims: test. Results: fine.",
        year=2024,
        retrieved_at="2026-11-29T08:00:00+00:00",
    )


def test_a_name_taken_by_another_account_is_neither_refused_nor_revealed(
    team_store: Store, accounts: tuple[str, str, str]
) -> None:
    ana_id, bob_id, _ = accounts
    ana, bob = Workspace(team_store, owner=ana_id), Workspace(team_store, owner=bob_id)
    anas = ana.create_study(NAME, "ana's private study")
    ana.save_paper(_paper(1), study=NAME)
    with pytest.raises(NotFoundError):  # bob cannot see or resolve ana's
        bob.study(NAME)
    bobs = bob.create_study(NAME)  # works: names are unique per owner
    assert bobs.id != anas.id
    assert bob.study(NAME).id == bobs.id and ana.study(NAME).id == anas.id
    assert [s.id for s, _ in bob.studies()] == [bobs.id]
    assert bob.study_summary(NAME).papers == ()  # his, not ana's
    bob.save_paper(_paper(2), study=NAME)
    assert [p.title for p in ana.study_summary(NAME).papers] == ["Names paper 1"]
    assert [p.title for p in bob.study_summary(NAME).papers] == ["Names paper 2"]
    # one owner still has one Study per name
    with pytest.raises(InputError) as refused:
        bob.create_study(NAME)
    assert refused.value.code == "study_exists"
    # an import into a Study named like ana's creates bob's own (it never lands in ana's)
    with team_store.read() as conn:
        assert repo.get_study(conn, NAME, account=bob_id).id == bobs.id
        with pytest.raises(NotFoundError):
            repo.get_study(conn, "Nobody's", account=bob_id)


def test_own_first_then_shared_and_ambiguous_names_ask_for_the_id(
    team_store: Store, accounts: tuple[str, str, str]
) -> None:
    ana_id, bob_id, cy_id = accounts
    ana, bob, cy = (Workspace(team_store, owner=a) for a in accounts)
    anas = ana.create_study(NAME)
    Sharing(team_store, owner=ana_id).share(anas.id, "cy", "viewer")
    assert cy.study(NAME).id == anas.id  # shared with cy: resolves
    bobs = bob.create_study(NAME)
    Sharing(team_store, owner=bob_id).share(bobs.id, "cy", "editor")
    with pytest.raises(InputError) as ambiguous:  # two shared with cy, none of her own
        cy.study(NAME)
    assert ambiguous.value.code == "study_ambiguous"
    assert sorted(ambiguous.value.details["ids"]) == sorted([anas.id, bobs.id])
    assert "id" in ambiguous.value.message
    assert cy.study(bobs.id).id == bobs.id  # the id always works
    cys = cy.create_study(NAME)  # her own comes first
    assert cy.study(NAME).id == cys.id
    cy.save_paper(_paper(3), study=NAME)
    assert [p.title for p in cy.study_summary(cys.id).papers] == ["Names paper 3"]
    assert bob.study_summary(bobs.id).papers == ()
    # ana shares with bob too: bob's own still wins
    Sharing(team_store, owner=ana_id).share(anas.id, "bob", "editor")
    assert bob.study(NAME).id == bobs.id


def test_renames_and_recovered_studies_are_per_owner(
    team_store: Store, accounts: tuple[str, str, str]
) -> None:
    ana_id, bob_id, _ = accounts
    ana, bob = Workspace(team_store, owner=ana_id), Workspace(team_store, owner=bob_id)
    anas = ana.create_study(NAME)
    bobs = bob.create_study("Bob's draft")
    with team_store.write() as conn:  # a rename to a name only ana has works for bob
        assert repo.rename_study(conn, bobs.id, NAME, account=bob_id).name == NAME
    bob.create_study("Another")
    with team_store.write() as conn, pytest.raises(InputError):
        repo.rename_study(conn, "Another", NAME, account=bob_id)  # bob already has it
    # a Study recovered from its export keeps its name unless the owner has one like it
    archive = export_study(ana, anas.id)
    recovered = import_study(Workspace(team_store, owner=bob_id), archive, name="Unique")
    assert recovered.name == "Unique"
    again = import_study(bob, archive)
    assert again.name == f"{NAME} (recovered 1)"  # bob's own "NAME" is taken
    cy = Workspace(team_store, owner=accounts[2])
    assert import_study(cy, archive).name == NAME  # ana's and bob's are not cy's


def test_a_co_owners_rename_reveals_nothing_of_the_owners_private_studies(
    team_store: Store, accounts: tuple[str, str, str]
) -> None:
    """Bob, co-owner of ana's shared Study, renames it to the name of her private Study: it
    is renamed exactly as to a name nobody has (a refusal would tell him that Study exists).
    A clash he can see is refused as before; ana then names her two by id."""
    ana_id, bob_id, _ = accounts
    ana, bob = Workspace(team_store, owner=ana_id), Workspace(team_store, owner=bob_id)
    private = ana.create_study("Secret plans", "ana's private notes")
    shared = ana.create_study("Shared review")
    seen = ana.create_study("Also shared")
    sharing = Sharing(team_store, owner=ana_id)
    sharing.share(shared.id, "bob", "owner")
    sharing.share(seen.id, "bob", "viewer")
    with team_store.write() as conn:
        unknown = repo.rename_study(conn, shared.id, "Nobody's name", account=bob_id)
        taken = repo.rename_study(conn, shared.id, "Secret plans", account=bob_id)
    assert (unknown.id, unknown.name) == (shared.id, "Nobody's name")
    assert (taken.id, taken.name) == (shared.id, "Secret plans")
    assert bob.study("Secret plans").id == shared.id  # his view: the shared one only
    with pytest.raises(NotFoundError):
        bob.study(private.id)
    # a name he sees on another Study of ana's is refused, naming nothing he cannot see
    with team_store.write() as conn, pytest.raises(InputError) as refused:
        repo.rename_study(conn, shared.id, "Also shared", account=bob_id)
    assert refused.value.code == "study_exists"
    # ana sees both of her Studies of that name: a lookup by it asks for the id
    with pytest.raises(repo.AmbiguousStudy) as asked:
        ana.study("Secret plans")
    assert set(asked.value.details["ids"]) == {private.id, shared.id}
    assert ana.study(private.id).name == "Secret plans"
    # and her own create or rename to a name she has is refused as before
    with pytest.raises(InputError):
        ana.create_study("Secret plans")
    with team_store.write() as conn, pytest.raises(InputError):
        repo.rename_study(conn, seen.id, "Secret plans", account=ana_id)


def test_the_local_owner_works_as_before(team_store: Store) -> None:
    local = Workspace(team_store)
    made = local.create_study(NAME, "single user")
    assert local.study(NAME).id == made.id
    with pytest.raises(InputError) as refused:
        local.create_study(NAME)
    assert refused.value.code == "study_exists"
    local.save_paper(_paper(4), study=NAME)
    assert [p.title for p in local.study_summary(NAME).papers] == ["Names paper 4"]
    with pytest.raises(NotFoundError):
        local.study("No such Study")


def test_local_on_a_team_store_names_the_id_when_accounts_share_a_name(
    team_store: Store, accounts: tuple[str, str, str]
) -> None:
    """The CLI (owner ``local``) sees every Study: a name two accounts use is ambiguous for
    it (asking for the id) until it has one of its own."""
    ana_id, bob_id, _ = accounts
    anas = Workspace(team_store, owner=ana_id).create_study(NAME)
    assert Workspace(team_store).study(NAME).id == anas.id  # one Study of that name
    bobs = Workspace(team_store, owner=bob_id).create_study(NAME)
    local = Workspace(team_store)
    with pytest.raises(InputError) as ambiguous:
        local.study(NAME)
    assert ambiguous.value.code == "study_ambiguous"
    assert sorted(ambiguous.value.details["ids"]) == sorted([anas.id, bobs.id])
    own = local.create_study(NAME)
    assert local.study(NAME).id == own.id
