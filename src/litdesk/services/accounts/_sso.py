"""Single sign-on through OpenID Connect for a team server (authorization code flow with
PKCE S256, state and nonce).

* ``start`` — a new sign-in: state, nonce and PKCE verifier are kept in the store (so any
  worker finishes it) bound to the SHA-256 of a short-lived pre-login cookie, for
  :data:`FLOW_SECONDS`; answers the provider's authorization URL and that cookie's token.
  Starts are counted per client address in the store (``oidc_max_starts_address`` within
  ``login_window_seconds``; every worker counts the same ones). A browser that already
  holds a pre-login cookie binding a live sign-in keeps it: the new sign-in is bound to the
  same cookie, so two tabs signing in at once both finish (the cookie is one per browser —
  minting a new one would strand the first tab's sign-in).
* ``finish`` — the provider's callback: the state is taken (single use) and must belong to
  this browser's pre-login cookie; the code is exchanged, the ID token validated, the
  identity mapped to an account through its (issuer, subject) link — or, with
  ``oidc_create_accounts``, a new account for a verified e-mail of an allowed domain — and a
  session is made exactly as a password login makes one. Failures are counted per client
  address with the password failures (the same limit and window). The answer (or the
  refusal's ``details["pending"]``) says whether other sign-ins are still bound to the
  cookie, so the face keeps it for them.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import ConfigError, LitdeskError, RefusedError
from litdesk._settings import Settings
from litdesk.adapters.store import Store, oidc
from litdesk.adapters.store import _accounts as acc

if TYPE_CHECKING:  # the OpenID client (authlib, joserfc) is imported when sign-on is on
    from sqlalchemy.engine import Connection

    from litdesk.adapters.oidc import Identity, OidcClient

from ._service import NO_PASSWORD, USERNAME, LoginThrottled, Session, new_session

__all__ = [
    "FLOW_SECONDS",
    "SingleSignOn",
    "SsoDone",
    "SsoFailed",
    "SsoStart",
    "check_sso_settings",
    "sso_configured",
]

#: how long a started sign-in may take to come back (seconds)
FLOW_SECONDS: Final = 600
_CREATE_LOCK: Final = 1_909_102_019
#: advisory-lock namespace of the per-address count of started sign-ins
_START_LOCK: Final = 1_909_102_031
_STATE: Final = re.compile(r"^[A-Za-z0-9_-]{20,128}$")
#: a pre-login cookie's token as :meth:`SingleSignOn.start` makes it (32 random bytes)
_BINDING: Final = re.compile(r"^[A-Za-z0-9_-]{43}$")


class SsoFailed(RefusedError):
    """A single sign-on callback that does not sign anyone in (the message says why)."""

    default_code = "sso_failed"


@dataclass(frozen=True, slots=True)
class SsoStart:
    """Where to send the browser, and the pre-login cookie's token and lifetime."""

    url: str
    binding: str
    max_age: int


@dataclass(frozen=True, slots=True)
class SsoDone:
    """A finished sign-in: its session, where to go, and whether other sign-ins (another
    tab's) are still bound to the browser's pre-login cookie."""

    session: Session
    next_path: str
    pending: bool


def sso_configured(settings: Settings) -> bool:
    return bool(settings.oidc_issuer and settings.oidc_client_id)


def check_sso_settings(settings: Settings) -> None:
    """Before a team server starts: single sign-on is either off or has both the issuer and
    the client id, an issuer URL that is https (plain http only on loopback) and well-formed
    allowed hosts (no network call)."""
    if bool(settings.oidc_issuer) != bool(settings.oidc_client_id):
        raise ConfigError(
            "single sign-on needs both LITDESK_OIDC_ISSUER and LITDESK_OIDC_CLIENT_ID",
            code="oidc_not_configured",
        )
    if sso_configured(settings):
        from litdesk.adapters.oidc import OidcClient

        OidcClient(
            str(settings.oidc_issuer),
            str(settings.oidc_client_id),
            settings.oidc_client_secret,
            allowed_hosts=settings.oidc_allowed_hosts,
        )


def _address_scope(address: str) -> str:
    # the same scope as the password logins' (services.accounts._service._scope)
    return f"address:{hashlib.sha256(address.encode('utf-8')).hexdigest()[:64]}"


def _start_scope(address: str) -> str:
    # the starts of one address, in the same table as failed logins, under their own scope
    return f"sso-start:{hashlib.sha256(address.encode('utf-8')).hexdigest()[:54]}"


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def _domains(text: str) -> frozenset[str]:
    return frozenset(d.strip().lower().lstrip("@") for d in text.split(",") if d.strip())


def _username_base(identity: Identity) -> str:
    seed = identity.preferred_username or (identity.email or "").split("@")[0] or "user"
    name = re.sub(r"[^a-z0-9._-]+", "-", seed.lower()).strip("._-")[:70] or "user"
    if len(name) < 2 or name == acc.LOCAL_OWNER:
        name = f"{name}-sso"
    return name


class SingleSignOn:
    """The team server's OpenID Connect sign-in over one :class:`Store`."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        *,
        client: OidcClient | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        if not sso_configured(settings):
            raise ConfigError(
                "single sign-on needs LITDESK_OIDC_ISSUER and LITDESK_OIDC_CLIENT_ID",
                code="oidc_not_configured",
            )
        self.store = store
        self.settings = settings
        self.clock = clock
        from litdesk.adapters.oidc import OidcClient

        self.client = client or OidcClient(
            str(settings.oidc_issuer),
            str(settings.oidc_client_id),
            settings.oidc_client_secret,
            allowed_hosts=settings.oidc_allowed_hosts,
            connect_timeout=settings.http_connect_timeout,
            read_timeout=settings.http_read_timeout,
        )

    @property
    def display_name(self) -> str:
        return self.settings.oidc_display_name

    def start(
        self, *, redirect_uri: str, next_path: str, address: str, binding: str | None = None
    ) -> SsoStart:
        """A new sign-in under way; the URL of the provider's authorization endpoint.

        Refused (:class:`LoginThrottled`) once ``address`` has started
        ``oidc_max_starts_address`` sign-ins within the window. ``binding`` is the browser's
        current pre-login cookie: kept when a live sign-in is bound to it, else a new one."""
        self._count_start(address)
        state = secrets.token_urlsafe(32)
        nonce = secrets.token_urlsafe(32)
        verifier = secrets.token_urlsafe(48)  # 64 characters of [A-Za-z0-9_-] (RFC 7636)
        url = self.client.authorization_url(
            redirect_uri=redirect_uri,
            scopes=self.settings.oidc_scopes,
            state=state,
            nonce=nonce,
            verifier=verifier,
        )
        now = self.clock.now()
        with self.store.write() as conn:
            oidc.purge_flows(conn, now)
            kept = binding if binding and self._pending(conn, binding, now) else None
            token = kept or secrets.token_urlsafe(32)
            oidc.insert_flow(
                conn,
                _digest(state),
                _digest(token),
                nonce,
                verifier,
                next_path,
                now,
                now + FLOW_SECONDS,
            )
        return SsoStart(url, token, FLOW_SECONDS)

    def _count_start(self, address: str) -> None:
        """Count one start of ``address`` (checked and recorded under one lock, so
        concurrent starts on any worker cannot pass the limit); refused past it."""
        now = self.clock.now()
        since = now - self.settings.login_window_seconds
        scope = _start_scope(address)
        with self.store.write() as conn:
            self.store.lock(conn, _START_LOCK, scope)
            acc.clear_failures(conn, scope, before=since)  # older starts count for nothing
            throttled = (
                acc.count_failures(conn, scope, since) >= self.settings.oidc_max_starts_address
            )
            if not throttled:
                acc.add_failure(conn, [scope], now)
        if throttled:
            raise LoginThrottled(
                "too many sign-ins started from this address; try again later",
                retry_after=self.settings.login_window_seconds,
            )

    @staticmethod
    def _pending(conn: Connection, binding: str | None, now: float) -> bool:
        """Whether a live sign-in is bound to this pre-login cookie."""
        if not binding or not _BINDING.match(binding):
            return False
        return oidc.count_flows_bound(conn, _digest(binding), now) > 0

    def finish(
        self,
        *,
        redirect_uri: str,
        state: str | None,
        code: str | None,
        error: str | None,
        binding: str | None,
        address: str,
        previous: str | None = None,
    ) -> SsoDone:
        """The session of a valid callback and the local path to go to; refused (and
        counted against the address) otherwise. Either way, whether other sign-ins are still
        bound to ``binding`` (a refusal's ``details["pending"]``)."""
        now = self.clock.now()
        scope = _address_scope(address)
        with self.store.read() as conn:
            failures = acc.count_failures(conn, scope, now - self.settings.login_window_seconds)
            pending = self._pending(conn, binding, now)
        if failures >= self.settings.login_max_failures_address:
            raise LoginThrottled(
                "too many failed sign-ins; try again later",
                retry_after=self.settings.login_window_seconds,
                pending=pending,
            )
        try:
            session, next_path = self._finish(
                redirect_uri, state, code, error, binding, now, previous
            )
        except LitdeskError as exc:  # refused, bad token, provider trouble: all count
            with self.store.write() as conn:
                acc.add_failure(conn, [scope], now)
                exc.details["pending"] = self._pending(conn, binding, now)
            raise
        with self.store.read() as conn:
            return SsoDone(session, next_path, self._pending(conn, binding, now))

    def _finish(
        self,
        redirect_uri: str,
        state: str | None,
        code: str | None,
        error: str | None,
        binding: str | None,
        now: float,
        previous: str | None,
    ) -> tuple[Session, str]:
        if not state or not _STATE.match(state):
            raise SsoFailed("this sign-in link is not valid; start again", code="sso_state")
        with self.store.write() as conn:
            flow = oidc.take_flow(conn, _digest(state))
        if flow is None:
            raise SsoFailed(
                "this sign-in was already used or is unknown; start again", code="sso_state"
            )
        if not binding or not hmac.compare_digest(_digest(binding[:128]), flow.binding_hash):
            raise SsoFailed(
                "this sign-in was started in another browser; start again", code="sso_state"
            )
        if flow.expires_at <= now:
            raise SsoFailed("this sign-in took too long; start again", code="sso_expired")
        if error is not None:
            raise SsoFailed(
                "the provider did not sign you in (cancelled or refused)", code="sso_denied"
            )
        if not code or len(code) > 2_000:
            raise SsoFailed("the provider sent no sign-in code; start again", code="sso_no_code")
        answer = self.client.exchange(code=code, redirect_uri=redirect_uri, verifier=flow.verifier)
        from litdesk.adapters.oidc import validate_id_token

        identity = validate_id_token(
            answer.id_token,
            lambda refresh: self.client.keys(refresh=refresh),
            issuer=self.client.issuer,
            client_id=self.client.client_id,
            nonce=flow.nonce,
            access_token=answer.access_token,
            advertised_algs=self.client.discovery().signing_algs,
            now=now,
        )
        with self.store.write() as conn:
            row = self._account(conn, identity)
            if row.disabled:
                raise SsoFailed("this account is disabled", code="account_disabled")
            return new_session(conn, row, self.settings, now, previous), flow.next_path

    def _account(self, conn: Connection, identity: Identity) -> acc.AccountRow:
        link = oidc.find_link(conn, identity.issuer, identity.subject)
        if link is not None:
            return acc.get_account(conn, link.account_id)
        if not self.settings.oidc_create_accounts:
            raise SsoFailed(
                "no account is linked to this sign-in; ask an administrator to add you",
                code="sso_unknown_identity",
            )
        return self._create(conn, identity)

    def _create(self, conn: Connection, identity: Identity) -> acc.AccountRow:
        email = identity.email
        if not email or not identity.email_verified or "@" not in email:
            raise SsoFailed(
                "a new account needs a verified e-mail address at the provider; ask an "
                "administrator to add you",
                code="sso_email_unverified",
            )
        allowed = _domains(self.settings.oidc_email_domains)
        domain = email.rsplit("@", 1)[1].lower()
        if allowed and domain not in allowed:
            raise SsoFailed(
                "accounts are not created for that e-mail domain; ask an administrator to add you",
                code="sso_email_domain",
            )
        db = conn  # inside the caller's write transaction
        self.store.lock(db, _CREATE_LOCK, identity.issuer + "\n" + identity.subject)
        again = oidc.find_link(db, identity.issuer, identity.subject)
        if again is not None:  # a concurrent callback of the same identity made it
            return acc.get_account(db, again.account_id)
        base = _username_base(identity)
        name = base
        for n in range(2, 1_000):
            if USERNAME.match(name) and acc.find_account(db, name) is None:
                break
            name = f"{base[:70]}-{n}"
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(self.clock.now()))
        row = acc.insert_account(db, "acct_" + uuid.uuid4().hex, name, NO_PASSWORD, stamp)
        oidc.insert_link(db, identity.issuer, identity.subject, row.id, email, stamp)
        return row
