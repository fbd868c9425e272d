"""Accounts and sessions of a team server: one method per use case, each one transaction.

* ``add``/``list``/``disable``/``enable``/``reset_password`` — the administrator's CLI.
* ``login`` — Argon2 verification, throttled so that nobody can lock someone else out
  (failed attempts are rows in the store, so every worker counts the same ones):
  failures of one user name *from one client address* lock that pair for the window; past a
  ceiling of failures of the name from all addresses, an address that has failed for it is
  slowed (one attempt per ``login_slow_seconds``, 429 with Retry-After), never locked; an
  address with no recent failures is never refused, so the right password from it signs in.
  At most one Argon2 verification per request, none while refused. A new session token on
  every login (the cookie's previous session, if any, ends: rotation).
* ``resolve`` — the account of a session cookie (expired, unknown or disabled → ``None``).
* ``logout`` — the session ends in the store.

A session token is 256 random bits; the store keeps only its SHA-256.
"""

from __future__ import annotations

import builtins
import hashlib
import math
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
    """Too many failed logins for this user name from this address, or from this address,
    or (code ``login_slowed``) for this user name from anywhere while this address failed
    for it moments ago; wait ``details["retry_after"]`` seconds."""

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


def _pairs_of(name: str) -> str:
    """The prefix of every (user name, address) scope of ``name``."""
    return f"pair:{hashlib.sha256(name.encode('utf-8')).hexdigest()[:32]}:"


def _pair_scope(name: str, address: str) -> str:
    return _pairs_of(name) + hashlib.sha256(address.encode("utf-8")).hexdigest()[:32]


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
            acc.clear_failures_under(conn, _pairs_of(row.username))
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
        """A new session for the right name and password. Refused without checking the
        password (:class:`LoginThrottled`, Retry-After in ``details``) while this name has too
        many recent failures from this address, or this address too many in all, or — past
        the name's ceiling — this address failed for it less than ``login_slow_seconds``
        ago. An address with no recent failures is never refused."""
        name = username.strip().lower()[:80]
        now = self.clock.now()
        since = now - self.settings.login_window_seconds
        by_name = _scope("account", name)
        by_pair = _pair_scope(name, address)
        by_address = _scope("address", address)
        with self.store.write() as conn:
            # the name's counts are checked and this attempt reserved under one lock, so
            # concurrent guesses cannot pass a limit (nor verify more than one hash each);
            # an address's failures are recorded after the check (many people may sign in
            # at once behind one address)
            self.store.lock(conn, _THROTTLE_LOCK, by_name)
            refusal = self._refusal(
                acc.failure_stats(conn, by_pair, since),
                acc.failure_stats(conn, by_name, since)[0],
                acc.failure_stats(conn, by_address, since)[0],
                now,
            )
            if refusal is None:
                # a failure until proven otherwise (taken back below when the password is right)
                reserved = acc.reserve_failures(conn, [by_pair, by_name], now)
                # keep the table small: failures older than the window count for nothing
                for scope in (by_pair, by_name, by_address):
                    acc.clear_failures(conn, scope, before=since)
                row = acc.find_account(conn, name)
        if refusal is not None:
            raise refusal
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
            # this attempt was no failure, and this address has proved itself for the name;
            # the name's failures from other addresses still count towards its ceiling
            acc.delete_failures(conn, reserved)
            acc.clear_failures(conn, by_pair)
            return new_session(conn, row, self.settings, now, previous)

    def _refusal(
        self, pair: tuple[int, float | None], by_name: int, by_address: int, now: float
    ) -> LoginThrottled | None:
        """Why this attempt is refused before its password is checked, or ``None``."""
        s = self.settings
        if pair[0] >= s.login_max_failures_user_address:
            return LoginThrottled(
                "too many failed logins for this user name from this address; try again later",
                retry_after=s.login_window_seconds,
            )
        if by_address >= s.login_max_failures_address:
            return LoginThrottled(
                "too many failed logins from this address; try again later",
                retry_after=s.login_window_seconds,
            )
        latest = pair[1]
        if by_name >= s.login_max_failures_account and latest is not None:
            wait = math.ceil(latest + s.login_slow_seconds - now)
            if wait > 0:
                return LoginThrottled(
                    f"too many failed logins for this user name; try again in {wait} s",
                    code="login_slowed",
                    retry_after=wait,
                )
        return None

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
