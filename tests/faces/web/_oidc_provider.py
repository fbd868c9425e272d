"""A small but real OpenID provider for the single sign-on tests, served by uvicorn on a
loopback port: ``/.well-known/openid-configuration``, ``/authorize`` (redirects back with a
code for the scripted user), ``/token`` (checks the client secret, the code, the PKCE
verifier and the redirect URI) and ``/jwks``. ID tokens are signed RS256 with a key made
here; :class:`Script` makes it misbehave (wrong nonce, audience, issuer, expiry, key, an
unsigned token, a token endpoint on another host, a refusal)."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from tests.faces.web._server import free_port, serve_app

CLIENT_ID = "litdesk-test"
CLIENT_SECRET = "s3cr3t-" + "q" * 24 + "-do-not-log"

_KEY = RSAKey.generate_key(2048, parameters={"kid": "test-key-1", "use": "sig"})
_OTHER_KEY = RSAKey.generate_key(2048, parameters={"kid": "test-key-1", "use": "sig"})


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Script:
    """What the provider does for the next sign-in (tests change it between flows)."""

    subject: str = "sub-ana"
    email: str | None = "ana@lab.example"
    email_verified: bool = True
    preferred_username: str | None = "ana"
    nonce: str | None = None  # None: the one the client sent
    aud: Any = None  # None: the client id
    iss: str | None = None  # None: the issuer
    exp_in: int = 300
    iat_ago: int = 0
    signer: str = "good"  # good | other (a key not in the JWKS) | none (unsigned)
    token_endpoint: str | None = None  # None: on the issuer's host
    deny: bool = False


@dataclass
class Provider:
    base: str
    script: Script = field(default_factory=Script)
    redirect_uris: set[str] = field(default_factory=set)
    codes: dict[str, dict[str, str]] = field(default_factory=dict)
    #: every request the provider got: (path, had an Authorization header, form fields)
    seen: list[tuple[str, bool, dict[str, str]]] = field(default_factory=list)

    @property
    def issuer(self) -> str:
        return self.base

    def id_token(self, nonce: str) -> str:
        s = self.script
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": s.iss or self.issuer,
            "sub": s.subject,
            "aud": s.aud if s.aud is not None else CLIENT_ID,
            "exp": now + s.exp_in,
            "iat": now - s.iat_ago,
            "nonce": s.nonce if s.nonce is not None else nonce,
        }
        if s.email is not None:
            claims["email"] = s.email
            claims["email_verified"] = s.email_verified
        if s.preferred_username is not None:
            claims["preferred_username"] = s.preferred_username
        if s.signer == "none":
            head = _b64(json.dumps({"alg": "none", "typ": "JWT"}).encode())
            return f"{head}.{_b64(json.dumps(claims).encode())}."
        key = _KEY if s.signer == "good" else _OTHER_KEY
        return jwt.encode({"alg": "RS256", "kid": "test-key-1"}, claims, key)


def _app(op: Provider) -> Starlette:
    async def discovery(request: Request) -> Response:
        op.seen.append((request.url.path, "authorization" in request.headers, {}))
        return JSONResponse(
            {
                "issuer": op.issuer,
                "authorization_endpoint": op.base + "/authorize",
                "token_endpoint": op.script.token_endpoint or op.base + "/token",
                "jwks_uri": op.base + "/jwks",
                "response_types_supported": ["code"],
                "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic"],
                "code_challenge_methods_supported": ["S256"],
            }
        )

    async def jwks(request: Request) -> Response:
        op.seen.append((request.url.path, "authorization" in request.headers, {}))
        return JSONResponse(KeySet([_KEY]).as_dict(private=False))

    async def authorize(request: Request) -> Response:
        q = dict(request.query_params)
        op.seen.append((request.url.path, "authorization" in request.headers, q))
        if (
            q.get("client_id") != CLIENT_ID
            or q.get("redirect_uri") not in op.redirect_uris
            or q.get("response_type") != "code"
            or q.get("code_challenge_method") != "S256"
            or not q.get("code_challenge")
            or "openid" not in q.get("scope", "").split()
        ):
            return JSONResponse({"error": "invalid_request"}, status_code=400)
        back = q["redirect_uri"]
        if op.script.deny:
            params = {"error": "access_denied", "state": q.get("state", "")}
            return RedirectResponse(back + "?" + urlencode(params), status_code=302)
        code = secrets.token_urlsafe(24)
        op.codes[code] = {
            "challenge": q["code_challenge"],
            "nonce": q.get("nonce", ""),
            "redirect_uri": back,
        }
        params = {"code": code, "state": q.get("state", "")}
        return RedirectResponse(back + "?" + urlencode(params), status_code=302)

    async def token(request: Request) -> Response:
        form = {k: str(v) for k, v in (await request.form()).items()}
        auth = request.headers.get("authorization", "")
        op.seen.append((request.url.path, bool(auth), form))
        expected = "Basic " + base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
        if auth != expected:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        grant = op.codes.pop(form.get("code", ""), None)
        if grant is None or form.get("grant_type") != "authorization_code":
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        verifier = form.get("code_verifier", "")
        challenge = _b64(hashlib.sha256(verifier.encode()).digest())
        if challenge != grant["challenge"] or form.get("redirect_uri") != grant["redirect_uri"]:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        return JSONResponse(
            {
                "access_token": secrets.token_urlsafe(24),
                "token_type": "Bearer",
                "expires_in": 300,
                "id_token": op.id_token(grant["nonce"]),
            }
        )

    return Starlette(
        routes=[
            Route("/.well-known/openid-configuration", discovery),
            Route("/jwks", jwks),
            Route("/authorize", authorize),
            Route("/token", token, methods=["POST"]),
        ]
    )


@contextmanager
def openid_provider() -> Iterator[Provider]:
    port = free_port()
    op = Provider(f"http://127.0.0.1:{port}")
    for _ in serve_app(_app(op), port):
        yield op
