"""Team accounts: local accounts with Argon2 passwords, sessions in the store, throttled
logins, Study roles and a Study's history (see :mod:`litdesk.adapters.store._accounts` for
the access rules the workspace enforces)."""

from ._health import Readiness, prepare_team_store, readiness
from ._service import (
    USERNAME,
    Accounts,
    AccountView,
    LoginFailed,
    LoginThrottled,
    Session,
    hash_token,
    open_accounts,
)
from ._sharing import HistoryView, MembersView, Sharing

__all__ = [
    "USERNAME",
    "AccountView",
    "HistoryView",
    "MembersView",
    "Readiness",
    "Sharing",
    "Accounts",
    "LoginFailed",
    "LoginThrottled",
    "Session",
    "hash_token",
    "open_accounts",
    "prepare_team_store",
    "readiness",
]
