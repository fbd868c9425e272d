"""The OpenID Connect relying party's calls to the provider (httpx, synchronous): the
discovery document, the token endpoint and the JWKS.

Guards on every call: https (plain http only to a loopback address, for tests and a provider
on the same machine); the endpoint's host must be the issuer's own or one listed in
``allowed_hosts``; no user info or fragment in a URL; redirects are refused, never followed;
a body over :data:`MAX_BODY_BYTES` is refused (declared or counted while streaming); connect
and read timeouts, plus an overall deadline. The client secret is sent only in the token
request (HTTP Basic, or the form when the provider supports only ``client_secret_post``) and
never appears in an error message; a provider's error body is reduced to its ``error`` code.
"""

from __future__ import annotations

import functools
import ipaddress
import json
import re
import ssl
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import SplitResult, urlsplit

import httpx
from authlib.oauth2.rfc6749.parameters import prepare_grant_uri
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from pydantic import SecretStr

from litdesk._errors import ConfigError, ExternalError

__all__ = [
    "MAX_BODY_BYTES",
    "Discovery",
    "OidcClient",
    "OidcConfigError",
    "ProviderFailed",
    "TokenAnswer",
    "check_endpoint",
    "parse_allowed_hosts",
]

MAX_BODY_BYTES: Final = 1_000_000
#: discovery document and keys are fetched again after this long (seconds)
CACHE_SECONDS: Final = 600.0
#: the keys are fetched again at most this often when a token names a key we do not hold
KEYS_REFRESH_SECONDS: Final = 30.0
_ERROR_CODE: Final = re.compile(r"^[a-z0-9_.\-]{1,60}$")


class OidcConfigError(ConfigError):
    """The single sign-on settings or the provider's discovery document are unusable."""

    default_code = "oidc_config"


class ProviderFailed(ExternalError):
    """The OpenID provider did not answer as expected (network, status, size, body)."""

    default_code = "oidc_provider"


@dataclass(frozen=True, slots=True)
class Discovery:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    signing_algs: tuple[str, ...]
    auth_methods: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TokenAnswer:
    id_token: str
    access_token: str | None


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The TLS context of every exchange with the provider in this process (httpx's
    default trust: the certifi bundle, no environment), made once: building one reads the
    whole CA bundle (about 20–35 ms of CPU), and a sign-in makes three exchanges."""
    return httpx.create_ssl_context(trust_env=False)


def _port(parts: SplitResult) -> int:
    try:
        port = parts.port
    except ValueError:
        raise OidcConfigError("a provider URL has a malformed port", code="oidc_url") from None
    if port is not None:
        return int(port)
    return 443 if parts.scheme == "https" else 80


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _host_key(host: str, port: int) -> str:
    return f"{host.lower()}:{port}"


def parse_allowed_hosts(text: str) -> frozenset[str]:
    """``host`` or ``host:port`` entries (comma-separated) as ``host:port`` keys (https's
    port 443 when none is given)."""
    out: set[str] = set()
    for entry in (e.strip() for e in text.split(",")):
        if not entry:
            continue
        parts = urlsplit("https://" + entry)
        if not parts.hostname:
            raise OidcConfigError(
                "LITDESK_OIDC_ALLOWED_HOSTS holds an entry that is not a host",
                code="oidc_allowed_hosts",
            )
        out.add(_host_key(parts.hostname, _port(parts)))
    return frozenset(out)


def check_endpoint(url: object, what: str, allowed: Iterable[str]) -> str:
    """``url`` when it is https (or http to loopback) on an allowed ``host:port``."""
    if not isinstance(url, str) or not url or len(url) > 2_000:
        raise OidcConfigError(f"the provider's {what} is missing or too long", code="oidc_url")
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.scheme not in ("https", "http") or not host:
        raise OidcConfigError(f"the provider's {what} is not an https URL", code="oidc_url")
    if parts.scheme == "http" and not _is_loopback(host):
        raise OidcConfigError(
            f"the provider's {what} must use https (plain http only on loopback)",
            code="oidc_insecure",
        )
    if parts.username is not None or parts.password is not None or parts.fragment:
        raise OidcConfigError(
            f"the provider's {what} carries user info or a fragment", code="oidc_url"
        )
    if _host_key(host, _port(parts)) not in allowed:
        raise OidcConfigError(
            f"the provider's {what} is on another host than the issuer's "
            "(allow it with LITDESK_OIDC_ALLOWED_HOSTS)",
            code="oidc_host",
        )
    return url


def _strings(value: object) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, str))
    return ()


class OidcClient:
    """The provider of one issuer: discovery and keys cached (per process), the code
    exchanged at the token endpoint. Thread-safe; one per app."""

    def __init__(
        self,
        issuer: str,
        client_id: str,
        client_secret: SecretStr | None,
        *,
        allowed_hosts: str = "",
        connect_timeout: float = 10.0,
        read_timeout: float = 20.0,
    ) -> None:
        parts = urlsplit(issuer)
        if not parts.hostname:
            raise OidcConfigError("LITDESK_OIDC_ISSUER is not a URL", code="oidc_issuer")
        self.issuer = issuer
        self.client_id = client_id
        self._secret = client_secret
        self._allowed = parse_allowed_hosts(allowed_hosts) | {
            _host_key(parts.hostname, _port(parts))
        }
        check_endpoint(issuer, "issuer URL", self._allowed)
        self._timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
        self._deadline = connect_timeout + read_timeout
        self._lock = threading.Lock()
        self._discovery: tuple[float, Discovery] | None = None
        self._keys: tuple[float, dict[str, Any]] | None = None

    # --- HTTP ---------------------------------------------------------------------------

    def _call(self, request: httpx.Request, what: str) -> tuple[int, dict[str, Any]]:
        """``(status, JSON object)`` of one exchange, within the guards."""
        started = time.monotonic()
        try:
            with httpx.Client(
                timeout=self._timeout, verify=tls_context(), follow_redirects=False, trust_env=False
            ) as c:
                response = c.send(request, stream=True)
                try:
                    if response.is_redirect or 300 <= response.status_code < 400:
                        raise ProviderFailed(
                            f"the provider's {what} answered with a redirect (not followed)",
                            code="oidc_redirect",
                        )
                    declared = response.headers.get("content-length", "")
                    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
                        raise ProviderFailed(
                            f"the provider's {what} answer is too large", code="oidc_too_large"
                        )
                    body = bytearray()
                    for chunk in response.iter_bytes():
                        body += chunk
                        if len(body) > MAX_BODY_BYTES:
                            raise ProviderFailed(
                                f"the provider's {what} answer is too large",
                                code="oidc_too_large",
                            )
                        if time.monotonic() - started > self._deadline:
                            raise ProviderFailed(
                                f"the provider's {what} took too long", code="oidc_timeout"
                            )
                finally:
                    response.close()
        except httpx.TimeoutException:
            raise ProviderFailed(
                f"the provider's {what} took too long", code="oidc_timeout"
            ) from None
        except httpx.HTTPError:
            raise ProviderFailed(
                f"the provider's {what} could not be reached", code="oidc_unreachable"
            ) from None
        try:
            document = json.loads(bytes(body))
        except ValueError:
            document = None
        if not isinstance(document, dict):
            raise ProviderFailed(
                f"the provider's {what} answer (HTTP {response.status_code}) is not a JSON object",
                code="oidc_bad_body",
            )
        return response.status_code, document

    def _get(self, url: str, what: str) -> dict[str, Any]:
        status, document = self._call(
            httpx.Request("GET", url, headers={"accept": "application/json"}), what
        )
        if status != 200:
            raise ProviderFailed(
                f"the provider's {what} answered HTTP {status}", code="oidc_status"
            )
        return document

    # --- discovery and keys ---------------------------------------------------------------

    def discovery(self) -> Discovery:
        with self._lock:
            cached = self._discovery
        if cached is not None and time.monotonic() - cached[0] < CACHE_SECONDS:
            return cached[1]
        url = self.issuer.rstrip("/") + "/.well-known/openid-configuration"
        doc = self._get(url, "discovery document")
        if doc.get("issuer") != self.issuer:
            raise OidcConfigError(
                "the provider's discovery document names another issuer than "
                "LITDESK_OIDC_ISSUER (they must match exactly)",
                code="oidc_issuer_mismatch",
            )
        found = Discovery(
            issuer=self.issuer,
            authorization_endpoint=check_endpoint(
                doc.get("authorization_endpoint"), "authorization endpoint", self._allowed
            ),
            token_endpoint=check_endpoint(
                doc.get("token_endpoint"), "token endpoint", self._allowed
            ),
            jwks_uri=check_endpoint(doc.get("jwks_uri"), "JWKS URI", self._allowed),
            signing_algs=_strings(doc.get("id_token_signing_alg_values_supported")),
            auth_methods=_strings(doc.get("token_endpoint_auth_methods_supported")),
        )
        with self._lock:
            self._discovery = (time.monotonic(), found)
        return found

    def keys(self, *, refresh: bool = False) -> dict[str, Any]:
        """The provider's JWK set (cached; ``refresh`` fetches it again, at most every
        :data:`KEYS_REFRESH_SECONDS`)."""
        with self._lock:
            cached = self._keys
        if cached is not None:
            age = time.monotonic() - cached[0]
            if age < (KEYS_REFRESH_SECONDS if refresh else CACHE_SECONDS):
                return cached[1]
        doc = self._get(self.discovery().jwks_uri, "JWKS")
        if not isinstance(doc.get("keys"), list):
            raise ProviderFailed("the provider's JWKS holds no keys", code="oidc_bad_body")
        with self._lock:
            self._keys = (time.monotonic(), doc)
        return doc

    # --- the flow --------------------------------------------------------------------------

    def authorization_url(
        self, *, redirect_uri: str, scopes: str, state: str, nonce: str, verifier: str
    ) -> str:
        """Where the browser is sent: authorization code flow with PKCE (S256), state and
        nonce."""
        found = self.discovery()
        words = scopes.split()
        scope = " ".join(["openid", *(w for w in words if w != "openid")])
        url: str = prepare_grant_uri(
            found.authorization_endpoint,
            self.client_id,
            "code",
            redirect_uri=redirect_uri,
            scope=scope,
            state=state,
            nonce=nonce,
            code_challenge=create_s256_code_challenge(verifier),
            code_challenge_method="S256",
        )
        return url

    def exchange(self, *, code: str, redirect_uri: str, verifier: str) -> TokenAnswer:
        """The authorization code for tokens at the token endpoint (the secret goes there
        only)."""
        found = self.discovery()
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": verifier,
            "client_id": self.client_id,
        }
        auth: httpx.BasicAuth | None = None
        if self._secret is not None:
            secret = self._secret.get_secret_value()
            methods = found.auth_methods
            if methods and "client_secret_basic" not in methods and "client_secret_post" in methods:
                form["client_secret"] = secret
            else:
                auth = httpx.BasicAuth(self.client_id, secret)
        request = httpx.Request(
            "POST", found.token_endpoint, data=form, headers={"accept": "application/json"}
        )
        if auth is not None:
            request = next(auth.auth_flow(request))
        status, doc = self._call(request, "token endpoint")
        if status != 200:
            code_name = doc.get("error")
            shown = code_name if isinstance(code_name, str) and _ERROR_CODE.match(code_name) else ""
            raise ProviderFailed(
                f"the provider refused the sign-in code (HTTP {status}"
                + (f", {shown}" if shown else "")
                + ")",
                code="oidc_token_refused",
            )
        id_token = doc.get("id_token")
        if not isinstance(id_token, str) or not id_token or len(id_token) > 100_000:
            raise ProviderFailed(
                "the provider's token answer has no ID token", code="oidc_no_id_token"
            )
        access = doc.get("access_token")
        return TokenAnswer(id_token, access if isinstance(access, str) else None)
