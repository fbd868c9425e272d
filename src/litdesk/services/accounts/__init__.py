"""Team accounts: local accounts with Argon2 passwords, sessions in the store, throttled
logins, single sign-on through OpenID Connect, Study roles and a Study's history (see
:mod:`litdesk.adapters.store._accounts` for the access rules the workspace enforces)."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._health import Readiness, prepare_team_store, readiness
    from ._service import (
        NO_PASSWORD,
        USERNAME,
        Accounts,
        AccountView,
        IdentityView,
        LoginFailed,
        LoginThrottled,
        Session,
        hash_token,
    )
    from ._sharing import HistoryView, MembersView, Sharing
    from ._sso import (
        FLOW_SECONDS,
        SingleSignOn,
        SsoDone,
        SsoFailed,
        SsoStart,
        check_sso_settings,
        sso_configured,
    )

__all__ = [
    "FLOW_SECONDS",
    "NO_PASSWORD",
    "IdentityView",
    "SingleSignOn",
    "SsoDone",
    "SsoFailed",
    "SsoStart",
    "check_sso_settings",
    "sso_configured",
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
    "prepare_team_store",
    "readiness",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
