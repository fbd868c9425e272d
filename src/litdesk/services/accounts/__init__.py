"""Team accounts: local accounts with Argon2 passwords, sessions in the store, throttled
logins, Study roles and a Study's history (see :mod:`litdesk.adapters.store._accounts` for
the access rules the workspace enforces)."""

from ._service import (
    USERNAME,
    AccountView,
    Accounts,
    LoginFailed,
    LoginThrottled,
    Session,
    hash_token,
)

__all__ = [
    "USERNAME",
    "AccountView",
    "Accounts",
    "LoginFailed",
    "LoginThrottled",
    "Session",
    "hash_token",
]
