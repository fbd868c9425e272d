"""Accounts and sessions of a team server: one method per use case, each one transaction.

* ``add``/``list``/``disable``/``enable``/``reset_password`` — the administrator's CLI.
* ``login`` — Argon2 verification, throttled per account and per client address (failed
  attempts are rows in the store, so every worker counts the same ones); a new session token
  on every login (the cookie's previous session, if any, ends: rotation).
* ``resolve`` — the account of a session cookie (expired, unknown or disabled → ``None``).
* ``logout`` — the session ends in the store.

A session token is 256 random bits; the store keeps only its SHA-256.
"""

from __future__ import annotations

import builtins
import hashlib
import re
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC
from typing import Any, Final

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import InputError, NotFoundError, RefusedError
from litdesk._settings import Settings
from litdesk.adapters.store import Store, oidc
from litdesk.adapters.store import _accounts as acc

from ._passwords import hash_password, needs_rehash, verify_password, waste_time

__all__ = [
    "USERNAME",
    "AccountView",
    "Accounts",
    "IdentityView",
    "LoginFailed",
    "LoginThrottled",
    "NO_PASSWORD",
    "Session",
    "hash_token",
    "new_session",
]

#: advisory-lock namespace of the login throttle (PostgreSQL; SQLite writes are serial)
_THROTTLE_LOCK: Final = 1_909_102_017
#: the password hash of an account made by single sign-on: no password verifies against it
NO_PASSWORD: Final = "!sso-only"
USERNAME: Final = re.compile(r"^[a-z0-9][a-z0-9._-]{1,79}$")


class LoginFailed(RefusedError):
    """Wrong name or password (which one is never said), or a disabled account."""

    default_code = "login_failed"


class LoginThrottled(RefusedError):
    """Too many failed logins for this account or from this address; wait."""

    default_code = "login_throttled"


@dataclass(frozen=True, slots=True)
class AccountView:
    id: str
    username: str
    disabled: bool
    created_at: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "username": self.username,
            "disabled": self.disabled,
            "created_at": self.created_at,
        }


@dataclass(frozen=True, slots=True)
class IdentityView:
    """A single sign-on identity (issuer, subject) linked to an account."""

    username: str
    issuer: str
    subject: str
    email: str | None
    linked_at: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "username": self.username,
            "issuer": self.issuer,
            "subject": self.subject,
            "email": self.email,
            "linked_at": self.linked_at,
        }


@dataclass(frozen=True, slots=True)
class Session:
    """A new session: the cookie's token (never stored) and when it ends (epoch seconds)."""

    token: str
    account: AccountView
    expires_at: float


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_session(
    conn: Any, row: acc.AccountRow, settings: Settings, now: float, previous: str | None
) -> Session:
    """A new session for ``row`` inside the caller's write transaction: a fresh 256-bit token
    (the store keeps its SHA-256), the cookie's previous session ended (rotation), expired
    sessions purged. Password and single sign-on logins both end here."""
    token = secrets.token_urlsafe(32)
    expires = now + settings.session_hours * 3600
    if previous and len(previous) <= 128:
        acc.delete_session(conn, hash_token(previous))
    acc.insert_session(conn, hash_token(token), row.id, now, expires)
    acc.purge_sessions(conn, now)
    return Session(token, _view(row), expires)


def _scope(kind: str, value: str) -> str:
    return f"{kind}:{hashlib.sha256(value.encode('utf-8')).hexdigest()[:64]}"


def _view(row: acc.AccountRow) -> AccountView:
    return AccountView(row.id, row.username, row.disabled, row.created_at)


def _now_iso(clock: Clock) -> str:
    return clock.utcnow().astimezone(UTC).isoformat(timespec="seconds")


def _username(name: str) -> str:
    name = name.strip().lower()
    if not USERNAME.match(name) or name == acc.LOCAL_OWNER:
        raise InputError(
            "a user name is 2 to 80 characters: lower-case letters, digits, '.', '_' or '-' "
            "(and not 'local')",
            code="bad_username",
        )
    return name


class Accounts:
    """Accounts and sessions over one :class:`Store`."""

    def __init__(self, store: Store, settings: Settings, *, clock: Clock = SYSTEM_CLOCK) -> None:
        """``clock``: what sessions' expiry, the login throttle's window and the stamps of
        accounts read (tests move a :class:`~litdesk.ManualClock` on instead of sleeping)."""
        self.store = store
        self.settings = settings
        self.clock = clock

    # --- administration (CLI) ------------------------------------------------------------

    def add(self, username: str, password: str) -> AccountView:
        name = _username(username)
        hashed = hash_password(password)
        with self.store.write() as conn:
            row = acc.insert_account(
                conn, "acct_" + uuid.uuid4().hex, name, hashed, _now_iso(self.clock)
            )
        return _view(row)

    def list(self) -> list[AccountView]:
        with self.store.read() as conn:
            return [_view(r) for r in acc.list_accounts(conn)]

    def _named(self, conn: Any, username: str) -> acc.AccountRow:
        row = acc.find_account(conn, username.strip().lower())
        if row is None:
            raise NotFoundError(f"no account named {username[:80]!r}", code="account_not_found")
        return row

    def set_disabled(self, username: str, disabled: bool = True) -> AccountView:
        """Disable (every session ends at once) or enable an account."""
        with self.store.write() as conn:
            row = self._named(conn, username)
            acc.set_disabled(conn, row.id, disabled)
            return _view(acc.get_account(conn, row.id))

    def reset_password(self, username: str, password: str) -> AccountView:
        """A new password; every session of the account ends, its throttle is cleared."""
        hashed = hash_password(password)
        with self.store.write() as conn:
            row = self._named(conn, username)
            acc.set_password(conn, row.id, hashed, _now_iso(self.clock))
            acc.clear_failures(conn, _scope("account", row.username))
        return _view(row)

    # --- single sign-on identities (CLI) -------------------------------------------------

    def _issuer(self, issuer: str | None) -> str:
        chosen = (issuer or self.settings.oidc_issuer or "").strip()
        if not chosen or len(chosen) > 500:
            raise InputError(
                "name the provider with --issuer URL (or set LITDESK_OIDC_ISSUER)",
                code="no_issuer",
            )
        return chosen

    def link(self, username: str, subject: str, issuer: str | None = None) -> IdentityView:
        """Let the identity (issuer, subject) sign in as ``username``."""
        subject = subject.strip()
        if not 0 < len(subject) <= 255 or any(ord(c) < 32 for c in subject):
            raise InputError("a subject is 1 to 255 printable characters", code="bad_subject")
        chosen = self._issuer(issuer)
        now = _now_iso(self.clock)
        with self.store.write() as conn:
            row = self._named(conn, username)
            oidc.insert_link(conn, chosen, subject, row.id, None, now)
        return IdentityView(row.username, chosen, subject, None, now)

    def unlink(self, username: str, subject: str, issuer: str | None = None) -> IdentityView:
        """The identity no longer signs in as ``username``."""
        chosen = self._issuer(issuer)
        subject = subject.strip()
        with self.store.write() as conn:
            row = self._named(conn, username)
            have = oidc.find_link(conn, chosen, subject)
            oidc.delete_link(conn, row.id, chosen, subject)
        return IdentityView(
            row.username,
            chosen,
            subject,
            have.email if have else None,
            have.linked_at if have else "",
        )

    def identities(self) -> builtins.list[IdentityView]:
        """Every linked identity, by account name."""
        with self.store.read() as conn:
            return [
                IdentityView(r.username, r.issuer, r.subject, r.email, r.linked_at)
                for r in oidc.list_links(conn)
            ]

    # --- sessions (web) --------------------------------------------------------------------

    def login(
        self, username: str, password: str, *, address: str, previous: str | None = None
    ) -> Session:
        """A new session for the right name and password; refused while the account or the
        address has too many recent failures (even with the right password)."""
        name = username.strip().lower()[:80]
        now = self.clock.now()
        since = now - self.settings.login_window_seconds
        by_account = _scope("account", name)
        by_address = _scope("address", address)
        with self.store.write() as conn:
            # the account's count is checked and reserved under one lock, so concurrent
            # guesses at one account cannot pass its limit; an address's failures are
            # recorded after the check (many people may sign in at once behind one address)
            self.store.lock(conn, _THROTTLE_LOCK, by_account)
            throttled = (
                acc.count_failures(conn, by_account, since)
                >= self.settings.login_max_failures_account
                or acc.count_failures(conn, by_address, since)
                >= self.settings.login_max_failures_address
            )
            if not throttled:
                # a failure until proven otherwise (cleared below when the password is right)
                acc.add_failure(conn, [by_account], now)
                # keep the table small: failures older than the window count for nothing
                acc.clear_failures(conn, by_account, before=since)
                acc.clear_failures(conn, by_address, before=since)
                row = acc.find_account(conn, name)
        if throttled:
            raise LoginThrottled(
                "too many failed logins; try again later",
                retry_after=self.settings.login_window_seconds,
            )
        if row is None or row.disabled or row.password_hash == NO_PASSWORD:
            waste_time(password)
            ok = False
        else:
            ok = verify_password(row.password_hash, password)
        if not ok or row is None:
            with self.store.write() as conn:
                acc.add_failure(conn, [by_address], now)
            raise LoginFailed("wrong user name or password")
        rehash = hash_password(password) if needs_rehash(row.password_hash) else None
        with self.store.write() as conn:
            if rehash is not None:
                acc.set_password(
                    conn, row.id, rehash, _now_iso(self.clock)
                )  # ends the old sessions
            acc.clear_failures(conn, by_account)
            return new_session(conn, row, self.settings, now, previous)

    def resolve(self, token: str | None) -> AccountView | None:
        """The account of a live session, else ``None``."""
        if not token or len(token) > 128:
            return None
        with self.store.read_one() as conn:  # every request asks: one round trip
            row = acc.session_account(conn, hash_token(token), self.clock.now())
        return _view(row) if row is not None else None

    def logout(self, token: str | None) -> None:
        if not token or len(token) > 128:
            return
        with self.store.write() as conn:
            acc.delete_session(conn, hash_token(token))
