"""Accounts, sessions and throttled logins in the store (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from litdesk import ManualClock, Settings
from litdesk._errors import InputError, NotFoundError
from litdesk.adapters.store import Store
from litdesk.services.accounts import Accounts, LoginFailed, LoginThrottled, hash_token

PASSWORD = "correct horse battery"


def test_add_list_disable_reset(team_store: Store, team_settings: Settings) -> None:
    accounts = Accounts(team_store, team_settings)
    ana = accounts.add("Ana", PASSWORD)
    assert ana.username == "ana" and ana.id.startswith("acct_") and not ana.disabled
    with pytest.raises(InputError) as exists:
        accounts.add("ana", PASSWORD)
    assert exists.value.code == "account_exists"
    with pytest.raises(InputError) as weak:
        accounts.add("bob", "short")
    assert weak.value.code == "weak_password"
    with pytest.raises(InputError):
        accounts.add("local", PASSWORD)  # the single-user owner is not an account
    assert [a.username for a in accounts.list()] == ["ana"]

    with team_store.read() as conn:
        stored = conn.execute(sa.text("SELECT password_hash FROM accounts")).scalar_one()
    assert stored.startswith("$argon2id$") and PASSWORD not in stored

    session = accounts.login("ana", PASSWORD, address="10.0.0.1")
    assert accounts.resolve(session.token) == ana
    assert accounts.set_disabled("ana").disabled
    assert accounts.resolve(session.token) is None  # disabling ends every session
    with pytest.raises(LoginFailed):
        accounts.login("ana", PASSWORD, address="10.0.0.1")
    accounts.set_disabled("ana", False)
    again = accounts.login("ana", PASSWORD, address="10.0.0.1")
    accounts.reset_password("ana", "another long passphrase")
    assert accounts.resolve(again.token) is None  # a new password ends every session
    with pytest.raises(LoginFailed):
        accounts.login("ana", PASSWORD, address="10.0.0.1")
    assert accounts.login("ana", "another long passphrase", address="10.0.0.1").token
    with pytest.raises(NotFoundError):
        accounts.reset_password("nobody", PASSWORD)


def test_sessions_rotate_at_login_and_end_at_logout(
    team_store: Store, team_settings: Settings
) -> None:
    accounts = Accounts(team_store, team_settings)
    accounts.add("ana", PASSWORD)
    first = accounts.login("ana", PASSWORD, address="10.0.0.1")
    second = accounts.login("ana", PASSWORD, address="10.0.0.1", previous=first.token)
    assert second.token != first.token
    assert accounts.resolve(first.token) is None  # the cookie's previous session ended
    assert accounts.resolve(second.token) is not None
    with team_store.read() as conn:
        hashes = conn.execute(sa.text("SELECT token_hash FROM sessions")).scalars().all()
    assert hashes == [hash_token(second.token)]  # only the hash is stored, never the token
    accounts.logout(second.token)
    assert accounts.resolve(second.token) is None
    assert accounts.resolve("not-a-token") is None and accounts.resolve(None) is None


def test_sessions_expire(team_store: Store, team_settings: Settings) -> None:
    clock = ManualClock(1_900_000_000.0)
    accounts = Accounts(team_store, team_settings, clock=clock)
    accounts.add("ana", PASSWORD)
    session = accounts.login("ana", PASSWORD, address="10.0.0.1")
    assert session.expires_at == clock.now() + team_settings.session_hours * 3600
    clock.set(session.expires_at - 1)
    assert accounts.resolve(session.token) is not None
    clock.set(session.expires_at)
    assert accounts.resolve(session.token) is None


def test_wrong_passwords_lock_the_name_from_that_address_only(
    team_store: Store, team_settings: Settings
) -> None:
    """Red team: 5 wrong passwords for a name locked the account for everyone. Now they
    lock that name from the guessing address; its owner elsewhere signs in."""
    accounts = Accounts(team_store, team_settings)  # 3 failures per (name, address)
    accounts.add("ana", PASSWORD)
    for _ in range(3):
        with pytest.raises(LoginFailed):
            accounts.login("ana", "wrong password!", address="10.6.6.6")
    # the right password no longer helps from the attacker's address, until the window passes
    with pytest.raises(LoginThrottled) as throttled:
        accounts.login("ana", PASSWORD, address="10.6.6.6")
    assert throttled.value.code == "login_throttled"
    assert throttled.value.details["retry_after"] == team_settings.login_window_seconds
    # ana's own address is not locked, and her login does not unlock the attacker's
    assert accounts.login("ana", PASSWORD, address="10.0.0.1").token
    with pytest.raises(LoginThrottled):
        accounts.login("ana", PASSWORD, address="10.6.6.6")
    accounts.reset_password("ana", PASSWORD)  # the administrator clears every lock of ana's
    assert accounts.login("ana", PASSWORD, address="10.6.6.6").token


def test_the_names_ceiling_slows_and_never_locks(
    team_store: Store, team_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the name's ceiling (6 failures from all addresses) an address that failed for
    it waits ``login_slow_seconds`` between attempts, unhashed; an address without
    failures signs in at once with the right password."""
    from litdesk.services.accounts import _service

    clock = ManualClock(1_900_000_000.0)
    accounts = Accounts(team_store, team_settings, clock=clock)
    accounts.add("ana", PASSWORD)
    for i in range(6):  # one guess from each of six addresses
        with pytest.raises(LoginFailed):
            accounts.login("ana", "wrong password!", address=f"10.1.0.{i}")
    hashed: list[str] = []
    verify = _service.verify_password
    monkeypatch.setattr(_service, "verify_password", lambda h, p: hashed.append(p) or verify(h, p))
    with pytest.raises(LoginThrottled) as slowed:
        accounts.login("ana", PASSWORD, address="10.1.0.0")
    assert slowed.value.code == "login_slowed"
    assert slowed.value.details["retry_after"] == team_settings.login_slow_seconds
    assert hashed == []  # refused before any Argon2 verification
    clock.advance(team_settings.login_slow_seconds - 1)
    with pytest.raises(LoginThrottled) as slowed:
        accounts.login("ana", "wrong password!", address="10.1.0.0")
    assert slowed.value.details["retry_after"] == 1
    # a fresh address with the right password signs in, ceiling or not
    assert accounts.login("ana", PASSWORD, address="10.0.0.1").token
    assert len(hashed) == 1
    clock.advance(1)  # slowed, not locked: the guessing address may try again
    with pytest.raises(LoginFailed):
        accounts.login("ana", "wrong password!", address="10.1.0.0")
    with pytest.raises(LoginThrottled) as slowed:  # and then waits again
        accounts.login("ana", "wrong password!", address="10.1.0.0")
    assert slowed.value.code == "login_slowed"
    assert len(hashed) == 2


def test_wrong_passwords_throttle_the_address(team_store: Store, team_settings: Settings) -> None:
    accounts = Accounts(team_store, team_settings)  # 5 failures per address
    accounts.add("ana", PASSWORD)
    for i in range(5):
        with pytest.raises(LoginFailed):
            accounts.login(f"guess{i}", "wrong password!", address="10.0.0.66")
    with pytest.raises(LoginThrottled):
        accounts.login("ana", PASSWORD, address="10.0.0.66")
    assert accounts.login("ana", PASSWORD, address="10.0.0.1").token  # another address


def test_window_passes(team_store: Store, team_settings: Settings) -> None:
    clock = ManualClock(1_900_000_000.0)
    accounts = Accounts(team_store, team_settings, clock=clock)
    accounts.add("ana", PASSWORD)
    for _ in range(3):
        with pytest.raises(LoginFailed):
            accounts.login("ana", "wrong password!", address="10.0.0.1")
    clock.advance(team_settings.login_window_seconds - 1)
    with pytest.raises(LoginThrottled):
        accounts.login("ana", PASSWORD, address="10.0.0.1")
    clock.advance(2)  # the failures are older than the window now
    assert accounts.login("ana", PASSWORD, address="10.0.0.1").token


def test_concurrent_guesses_never_pass_the_limit(
    team_store: Store, team_settings: Settings
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    accounts = Accounts(team_store, team_settings)  # 3 failures per (name, address)
    accounts.add("ana", PASSWORD)

    def guess(i: int) -> str:
        try:
            accounts.login("ana", f"wrong password {i}", address="10.1.0.9")
        except LoginThrottled:
            return "throttled"
        except LoginFailed:
            return "failed"
        return "signed in"

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(guess, range(12)))
    assert answers.count("failed") == 3 and answers.count("throttled") == 9


def test_successful_logins_do_not_count(team_store: Store, team_settings: Settings) -> None:
    accounts = Accounts(team_store, team_settings)  # 5 failures per address
    accounts.add("ana", PASSWORD)
    from concurrent.futures import ThreadPoolExecutor

    for _ in range(8):  # one shared address (an office behind NAT)
        assert accounts.login("ana", PASSWORD, address="10.0.0.7").token
    for i in range(12):
        accounts.add(f"user{i}", PASSWORD)
    with ThreadPoolExecutor(max_workers=12) as pool:  # everyone at nine o'clock
        sessions = list(
            pool.map(lambda i: accounts.login(f"user{i}", PASSWORD, address="10.0.0.7"), range(12))
        )
    assert len({s.token for s in sessions}) == 12
    with team_store.read() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM login_failures")).scalar_one() == 0


@pytest.mark.real_password_hash
def test_passwords_are_hashed_with_argon2id_rfc_9106_low_memory(
    team_store: Store, team_settings: Settings
) -> None:
    """The production parameters (the other tests hash with Argon2id's smallest ones, see
    tests/conftest.py): RFC 9106's low-memory profile, verified at login; a hash made with
    other parameters is replaced at the next successful login."""
    from argon2 import PasswordHasher
    from argon2.profiles import RFC_9106_LOW_MEMORY

    accounts = Accounts(team_store, team_settings)
    accounts.add("ana", PASSWORD)
    p = RFC_9106_LOW_MEMORY
    with team_store.read() as conn:
        stored = conn.execute(sa.text("SELECT password_hash FROM accounts")).scalar_one()
    assert stored.startswith(f"$argon2id$v=19$m={p.memory_cost},t={p.time_cost},p={p.parallelism}$")
    assert accounts.login("ana", PASSWORD, address="10.0.0.1").token
    old = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1).hash(PASSWORD)
    with team_store.write() as conn:
        conn.execute(sa.text("UPDATE accounts SET password_hash = :h"), {"h": old})
    assert accounts.login("ana", PASSWORD, address="10.0.0.1").token
    with team_store.read() as conn:
        assert conn.execute(sa.text("SELECT password_hash FROM accounts")).scalar_one() != old
        rehashed = conn.execute(sa.text("SELECT password_hash FROM accounts")).scalar_one()
    assert rehashed.startswith(
        f"$argon2id$v=19$m={p.memory_cost},t={p.time_cost},p={p.parallelism}$"
    )
