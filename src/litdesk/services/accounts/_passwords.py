"""Password hashing with Argon2id (argon2-cffi, the reference binding of the Argon2 authors'
C library; OWASP's first choice). Parameters are argon2-cffi's RFC 9106 low-memory profile;
a hash made with older parameters is replaced at the next successful login."""

from __future__ import annotations

from functools import cache
from typing import Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from litdesk._errors import InputError

__all__ = [
    "MAX_PASSWORD",
    "MIN_PASSWORD",
    "check_password_rules",
    "hash_password",
    "needs_rehash",
    "verify_password",
    "waste_time",
]

MIN_PASSWORD: Final = 12
MAX_PASSWORD: Final = 1_024
_HASHER: Final = PasswordHasher()


@cache
def _dummy() -> str:
    """The hash verified against when the account does not exist, so that both answers take
    as long; made on first use (one Argon2 hash costs every process that imports the app
    a noticeable start-up time, and most never check a password)."""
    return _HASHER.hash("litdesk-no-such-account")


def check_password_rules(password: str) -> None:
    """At least 12 characters, at most 1,024 (a longer one is a denial-of-service attempt)."""
    if len(password) < MIN_PASSWORD:
        raise InputError(f"a password has at least {MIN_PASSWORD} characters", code="weak_password")
    if len(password) > MAX_PASSWORD:
        raise InputError(f"a password has at most {MAX_PASSWORD} characters", code="bad_password")


def hash_password(password: str) -> str:
    check_password_rules(password)
    return _HASHER.hash(password)


def verify_password(stored: str, password: str) -> bool:
    """Whether ``password`` is the one hashed in ``stored``. Every call verifies exactly one
    hash: an over-long password is verified (cut to the limit) against the dummy hash and
    refused, so it takes as long as any other answer and never reveals the account."""
    if len(password) > MAX_PASSWORD:
        _check(_dummy(), password[:MAX_PASSWORD])
        return False
    return _check(stored, password)


def _check(stored: str, password: str) -> bool:
    try:
        return _HASHER.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(stored: str) -> bool:
    try:
        return _HASHER.check_needs_rehash(stored)
    except InvalidHashError:
        return True


def waste_time(password: str) -> None:
    """Verify against a dummy hash (an unknown or disabled account answers as slowly)."""
    verify_password(_dummy(), password[:MAX_PASSWORD])
