"""Validating an ID token (OpenID Connect Core 3.1.3.7): the signature with the provider's
keys (joserfc), then the claims (authlib's ``CodeIDToken`` over joserfc's registry): ``iss``
exactly the issuer, ``aud`` holding the client id (``azp`` when there are several), ``exp``
and ``iat`` with a small leeway (and ``iat`` not older than :data:`MAX_AGE_SECONDS`),
``nonce`` equal to the one sent, ``at_hash`` when present.

Only asymmetric signatures are accepted (RS/PS/ES and EdDSA): an unsigned token
(``"alg": "none"``) and HMAC tokens are refused whatever the provider advertises. Errors
name the claim that failed, never the token's content.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from authlib.oidc.core import CodeIDToken
from joserfc import jws, jwt
from joserfc.errors import ExpiredTokenError, InvalidClaimError, JoseError, MissingClaimError
from joserfc.jwk import KeySet, KeySetSerialization

from litdesk._errors import RefusedError

__all__ = ["ASYMMETRIC_ALGS", "LEEWAY_SECONDS", "IdTokenInvalid", "Identity", "validate_id_token"]

ASYMMETRIC_ALGS: Final = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
)
LEEWAY_SECONDS: Final = 60
#: an ID token issued longer ago than this is not accepted for a new sign-in
MAX_AGE_SECONDS: Final = 600


class IdTokenInvalid(RefusedError):
    """The provider's ID token did not validate (signature or claims)."""

    default_code = "oidc_bad_token"


@dataclass(frozen=True, slots=True)
class Identity:
    """Who the provider says signed in."""

    issuer: str
    subject: str
    email: str | None
    email_verified: bool
    preferred_username: str | None
    name: str | None


def _text(claims: dict[str, Any], key: str, limit: int) -> str | None:
    value = claims.get(key)
    if isinstance(value, str) and value.strip() and len(value) <= limit:
        return value.strip()
    return None


def validate_id_token(
    token: str,
    keys: Callable[[bool], dict[str, Any]],
    *,
    issuer: str,
    client_id: str,
    nonce: str,
    access_token: str | None = None,
    advertised_algs: tuple[str, ...] = (),
    now: float | None = None,
) -> Identity:
    """The identity in a valid ID token; :class:`IdTokenInvalid` otherwise. ``keys(refresh)``
    answers the provider's JWK set (``refresh``: the token names a key not in the cached
    one)."""
    try:
        header = jws.extract_compact(token.encode("ascii")).protected
    except (JoseError, ValueError, UnicodeError):
        raise IdTokenInvalid("the ID token is not a signed JWT", code="oidc_bad_token") from None
    alg = header.get("alg")
    allowed = [a for a in ASYMMETRIC_ALGS if not advertised_algs or a in advertised_algs]
    if alg not in allowed:
        raise IdTokenInvalid(
            "the ID token is not signed with an accepted algorithm", code="oidc_bad_alg"
        )
    kid = header.get("kid")
    key_set = KeySet.import_key_set(_public(keys(False)))
    if isinstance(kid, str) and all(k.kid != kid for k in key_set.keys):
        key_set = KeySet.import_key_set(_public(keys(True)))
    try:
        decoded = jwt.decode(token, key_set, algorithms=[str(alg)])
    except JoseError:
        raise IdTokenInvalid(
            "the ID token's signature is not valid", code="oidc_bad_signature"
        ) from None
    claims = dict(decoded.claims)
    at = int(time.time() if now is None else now)
    checked = CodeIDToken(
        claims,
        decoded.header,
        options={
            "iss": {"essential": True, "value": issuer},
            "aud": {"essential": True, "value": client_id},
            "sub": {"essential": True},
            "exp": {"essential": True},
            "iat": {"essential": True},
            "nonce": {"essential": True},
        },
        params={"nonce": nonce, "client_id": client_id, "access_token": access_token},
    )
    try:
        checked.validate(now=at, leeway=LEEWAY_SECONDS)
    except ExpiredTokenError:
        raise IdTokenInvalid("the ID token has expired", code="oidc_expired") from None
    except (InvalidClaimError, MissingClaimError) as exc:
        claim = str(getattr(exc, "claim", "") or "a claim")[:20]
        raise IdTokenInvalid(
            f"the ID token's claim {claim!r} is missing or not valid", code="oidc_bad_claim"
        ) from None
    except JoseError:
        raise IdTokenInvalid("the ID token's claims are not valid", code="oidc_bad_claim") from None
    iat = claims.get("iat")
    if isinstance(iat, int | float) and iat < at - MAX_AGE_SECONDS - LEEWAY_SECONDS:
        raise IdTokenInvalid("the ID token is too old", code="oidc_expired")
    subject = claims.get("sub")
    if not isinstance(subject, str) or not 0 < len(subject) <= 255:
        raise IdTokenInvalid("the ID token's subject is not valid", code="oidc_bad_claim")
    return Identity(
        issuer=issuer,
        subject=subject,
        email=_text(claims, "email", 320),
        email_verified=claims.get("email_verified") is True,
        preferred_username=_text(claims, "preferred_username", 200),
        name=_text(claims, "name", 200),
    )


def _public(document: dict[str, Any]) -> KeySetSerialization:
    """The signing keys of a JWK set (symmetric and encryption-only keys left out)."""
    keys = [
        k
        for k in document.get("keys", [])
        if isinstance(k, dict)
        and k.get("kty") in ("RSA", "EC", "OKP")
        and k.get("use") in (None, "sig")
    ]
    if not keys:
        raise IdTokenInvalid("the provider publishes no signing key", code="oidc_no_keys")
    found: KeySetSerialization = {"keys": keys}
    try:
        KeySet.import_key_set(found)
    except (JoseError, ValueError, TypeError):
        raise IdTokenInvalid("the provider's keys are not valid", code="oidc_no_keys") from None
    return found
