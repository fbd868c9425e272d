"""Single sign-on in the store and the accounts service, on SQLite and PostgreSQL (a fresh
schema): sign-ins under way are single use (also when two callbacks race), expire and are
bounded; an identity links to one account; linking, unlinking and listing through the
service; the migration's tables exist at head."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from litdesk import Settings
from litdesk._errors import InputError, NotFoundError
from litdesk.adapters.store import Store, oidc
from litdesk.services.accounts import Accounts

PASSWORD = "correct horse battery"
ISSUER = "https://login.lab.example"


def _flow(store: Store, state: str, now: float, *, ttl: float = 600) -> None:
    with store.write() as conn:
        oidc.insert_flow(conn, state, "b" * 64, "nonce", "v" * 64, "/saved", now, now + ttl)


def test_tables_exist_at_head(team_store: Store) -> None:
    names = set(sa.inspect(team_store.engine).get_table_names())
    assert {"oidc_links", "oidc_flows"} <= names


def test_a_flow_is_taken_once(team_store: Store) -> None:
    _flow(team_store, "s" * 64, 1_000.0)
    with team_store.write() as conn:
        got = oidc.take_flow(conn, "s" * 64)
    assert got is not None and got.nonce == "nonce" and got.next_path == "/saved"
    with team_store.write() as conn:
        assert oidc.take_flow(conn, "s" * 64) is None
        assert oidc.take_flow(conn, "unknown") is None


def test_racing_callbacks_get_one_flow(team_store: Store) -> None:
    _flow(team_store, "r" * 64, 1_000.0)
    barrier = threading.Barrier(4)
    won: list[bool] = []
    errors: list[BaseException] = []

    def take() -> None:
        try:
            barrier.wait(timeout=30)
            with team_store.write() as conn:
                won.append(oidc.take_flow(conn, "r" * 64) is not None)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=take) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    assert sorted(won) == [False, False, False, True]


def test_flows_expire_and_are_bounded(team_store: Store) -> None:
    _flow(team_store, "old", 1_000.0, ttl=10)
    for i in range(5):
        _flow(team_store, f"new{i}", 2_000.0 + i)
    with team_store.write() as conn:
        assert oidc.purge_flows(conn, 1_500.0, keep=3) == 3  # the expired one, the two oldest
        assert oidc.count_flows(conn) == 3
        assert oidc.take_flow(conn, "new4") is not None
        assert oidc.take_flow(conn, "new0") is None


def test_link_unlink_and_list(team_store: Store, team_settings: Settings) -> None:
    accounts = Accounts(team_store, team_settings.model_copy(update={"oidc_issuer": ISSUER}))
    accounts.add("ana", PASSWORD)
    accounts.add("bob", PASSWORD)
    view = accounts.link("ana", "sub-1")
    assert (view.username, view.issuer, view.subject) == ("ana", ISSUER, "sub-1")
    accounts.link("ana", "sub-1", issuer="https://other.example")  # another provider's sub
    with pytest.raises(InputError) as taken:
        accounts.link("bob", "sub-1")  # one identity, one account
    assert taken.value.code == "identity_linked"
    with pytest.raises(NotFoundError):
        accounts.link("nobody", "sub-2")
    with pytest.raises(InputError):
        accounts.link("bob", "")
    listed = [(i.username, i.issuer, i.subject) for i in accounts.identities()]
    assert listed == [("ana", ISSUER, "sub-1"), ("ana", "https://other.example", "sub-1")]
    with pytest.raises(NotFoundError):
        accounts.unlink("bob", "sub-1")  # linked to ana, not bob
    accounts.unlink("ana", "sub-1")
    assert [(i.issuer, i.subject) for i in accounts.identities()] == [
        ("https://other.example", "sub-1")
    ]
    with team_store.read() as conn:
        assert oidc.find_link(conn, ISSUER, "sub-1") is None


def test_link_needs_an_issuer(team_store: Store, team_settings: Settings) -> None:
    accounts = Accounts(team_store, team_settings)
    accounts.add("ana", PASSWORD)
    with pytest.raises(InputError) as no_issuer:
        accounts.link("ana", "sub-1")
    assert no_issuer.value.code == "no_issuer"


@pytest.mark.parametrize(
    ("over", "code"),
    [
        ({"oidc_issuer": "https://login.lab.example"}, "oidc_not_configured"),
        ({"oidc_client_id": "litdesk"}, "oidc_not_configured"),
        ({"oidc_issuer": "http://login.lab.example", "oidc_client_id": "x"}, "oidc_insecure"),
    ],
)
def test_a_team_server_refuses_unusable_sso_settings(
    tmp_settings: Settings, over: dict[str, str], code: str
) -> None:
    from litdesk._errors import ConfigError
    from litdesk.services.accounts import prepare_team_store

    with pytest.raises(ConfigError) as refused:
        prepare_team_store(tmp_settings.model_copy(update=over))
    assert refused.value.code == code


def test_loopback_sso_settings_pass(tmp_settings: Settings) -> None:
    from litdesk.services.accounts import check_sso_settings

    check_sso_settings(tmp_settings)  # off
    on = {"oidc_issuer": "http://127.0.0.1:9/realm", "oidc_client_id": "x"}
    check_sso_settings(tmp_settings.model_copy(update=on))
