"""The OpenID Connect client's guards against a real loopback server that misbehaves
(redirects, oversized and non-JSON bodies, error answers, a discovery document naming
another issuer), the endpoint rules, and ID-token validation details (HMAC and unsigned
tokens refused whatever is advertised, a missing nonce, an ``iat`` in the future, a key
rotated at the provider)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import KeySet, OctKey, RSAKey
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route
from tests.faces.web._server import free_port, serve_app

from litdesk.adapters.oidc import (
    IdTokenInvalid,
    OidcClient,
    OidcConfigError,
    ProviderFailed,
    check_endpoint,
    parse_allowed_hosts,
    validate_id_token,
)

SECRET = "client-secret-" + "z" * 20
KEY = RSAKey.generate_key(2048, parameters={"kid": "k1", "use": "sig"})


class Quirks:
    def __init__(self) -> None:
        self.discovery: dict[str, Any] = {}
        self.token_status = 200
        self.token_body: dict[str, Any] = {"id_token": "x.y.z", "access_token": "a"}
        self.forms: list[dict[str, str]] = []
        self.auth: list[str] = []
        self.hits: list[str] = []


@pytest.fixture
def server() -> Iterator[tuple[str, Quirks]]:
    quirks = Quirks()
    port = free_port()
    base = f"http://127.0.0.1:{port}"

    async def discovery(request: Request) -> Response:
        quirks.hits.append(request.url.path)
        doc = {
            "issuer": base,
            "authorization_endpoint": base + "/authorize",
            "token_endpoint": base + "/token",
            "jwks_uri": base + "/jwks",
            **quirks.discovery,
        }
        return JSONResponse(doc)

    async def token(request: Request) -> Response:
        quirks.hits.append(request.url.path)
        quirks.forms.append({k: str(v) for k, v in (await request.form()).items()})
        quirks.auth.append(request.headers.get("authorization", ""))
        return JSONResponse(quirks.token_body, status_code=quirks.token_status)

    async def jwks(request: Request) -> Response:
        quirks.hits.append(request.url.path)
        return JSONResponse(KeySet([KEY]).as_dict(private=False))

    async def moved(request: Request) -> Response:
        quirks.hits.append(request.url.path)
        return RedirectResponse(base + "/jwks", status_code=302)

    async def huge(request: Request) -> Response:
        async def chunks() -> Any:
            for _ in range(40):
                yield b" " * 50_000

        return StreamingResponse(chunks(), media_type="application/json")

    async def text(request: Request) -> Response:
        return Response("<html>not json</html>", media_type="text/html")

    app = Starlette(
        routes=[
            Route("/.well-known/openid-configuration", discovery),
            Route("/token", token, methods=["POST"]),
            Route("/jwks", jwks),
            Route("/moved", moved),
            Route("/huge", huge),
            Route("/text", text),
        ]
    )
    for _ in serve_app(app, port):
        yield base, quirks


def _client(base: str, **kw: Any) -> OidcClient:
    return OidcClient(base, "client-1", SecretStr(SECRET), **kw)


def test_endpoint_rules() -> None:
    allowed = parse_allowed_hosts("login.example, keys.example:8443")
    assert allowed == frozenset({"login.example:443", "keys.example:8443"})
    assert check_endpoint("https://login.example/token", "token endpoint", allowed)
    assert check_endpoint("https://keys.example:8443/jwks", "JWKS URI", allowed)
    for url, code in [
        ("http://login.example/token", "oidc_insecure"),
        ("https://user:pw@login.example/token", "oidc_url"),
        ("https://login.example/token#x", "oidc_url"),
        ("https://keys.example/jwks", "oidc_host"),  # port 443, not 8443
        ("https://evil.example/token", "oidc_host"),
        ("ftp://login.example/x", "oidc_url"),
        (None, "oidc_url"),
    ]:
        with pytest.raises(OidcConfigError) as refused:
            check_endpoint(url, "token endpoint", allowed)
        assert refused.value.code == code, url
    # plain http only on loopback
    assert check_endpoint("http://127.0.0.1:9/t", "token endpoint", {"127.0.0.1:9"})


def test_discovery_naming_another_issuer_is_refused(server: tuple[str, Quirks]) -> None:
    base, quirks = server
    quirks.discovery = {"issuer": base + "/"}
    with pytest.raises(OidcConfigError) as refused:
        _client(base).discovery()
    assert refused.value.code == "oidc_issuer_mismatch"


def test_exchanges_share_one_verifying_tls_context(
    server: tuple[str, Quirks], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every exchange of every client uses the process's one TLS context (a new one reads
    the whole CA bundle), and that context verifies certificates and host names."""
    import ssl

    from litdesk.adapters.oidc._client import tls_context

    base, quirks = server
    shared = tls_context()
    made: list[object] = []
    real = ssl.create_default_context
    monkeypatch.setattr(
        ssl, "create_default_context", lambda *a, **kw: made.append(a) or real(*a, **kw)
    )
    for _ in range(2):
        client = _client(base)
        client.discovery()
        client.keys()
    assert quirks.hits == ["/.well-known/openid-configuration", "/jwks"] * 2
    assert made == []
    assert tls_context() is shared
    assert shared.verify_mode == ssl.CERT_REQUIRED and shared.check_hostname


def test_redirects_are_not_followed(server: tuple[str, Quirks]) -> None:
    base, quirks = server
    quirks.discovery = {"jwks_uri": base + "/moved"}
    with pytest.raises(ProviderFailed) as refused:
        _client(base).keys()
    assert refused.value.code == "oidc_redirect"
    assert "/jwks" not in quirks.hits  # the redirect's target was never asked


@pytest.mark.parametrize(
    ("path", "code"), [("/huge", "oidc_too_large"), ("/text", "oidc_bad_body")]
)
def test_bodies_are_bounded_and_json(server: tuple[str, Quirks], path: str, code: str) -> None:
    base, quirks = server
    quirks.discovery = {"jwks_uri": base + path}
    with pytest.raises(ProviderFailed) as refused:
        _client(base).keys()
    assert refused.value.code == code


def test_unreachable_provider(server: tuple[str, Quirks]) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ProviderFailed) as refused:
        _client(dead, connect_timeout=2, read_timeout=2).discovery()
    assert refused.value.code in ("oidc_unreachable", "oidc_timeout")


def test_the_secret_goes_to_the_token_endpoint_only(server: tuple[str, Quirks]) -> None:
    base, quirks = server
    client = _client(base)
    url = client.authorization_url(
        redirect_uri="http://127.0.0.1:1/cb", scopes="email", state="s" * 43, nonce="n" * 43,
        verifier="v" * 64,
    )  # fmt: skip
    assert url.startswith(base + "/authorize?") and SECRET not in url
    assert "code_challenge_method=S256" in url and "scope=openid+email" in url
    assert "v" * 64 not in url  # the verifier stays here; its S256 challenge goes
    answer = client.exchange(code="c1", redirect_uri="http://127.0.0.1:1/cb", verifier="v" * 64)
    assert answer.id_token == "x.y.z"
    assert quirks.auth[-1].startswith("Basic ") and SECRET not in json.dumps(quirks.forms)
    assert quirks.forms[-1]["code_verifier"] == "v" * 64
    # a provider that takes only client_secret_post gets it in the form
    quirks.discovery = {"token_endpoint_auth_methods_supported": ["client_secret_post"]}
    _client(base).exchange(code="c2", redirect_uri="http://127.0.0.1:1/cb", verifier="v" * 64)
    assert quirks.forms[-1]["client_secret"] == SECRET and quirks.auth[-1] == ""


def test_token_errors_name_the_code_only(server: tuple[str, Quirks]) -> None:
    base, quirks = server
    quirks.token_status = 400
    quirks.token_body = {"error": "invalid_grant", "error_description": "<b>" + SECRET + "</b>"}
    with pytest.raises(ProviderFailed) as refused:
        _client(base).exchange(code="c", redirect_uri="http://127.0.0.1:1/cb", verifier="v" * 64)
    assert "invalid_grant" in refused.value.message
    assert SECRET not in str(refused.value.to_dict()) and "<b>" not in refused.value.message
    quirks.token_status, quirks.token_body = 200, {"access_token": "a"}
    with pytest.raises(ProviderFailed) as missing:
        _client(base).exchange(code="c", redirect_uri="http://127.0.0.1:1/cb", verifier="v" * 64)
    assert missing.value.code == "oidc_no_id_token"


# --- ID tokens -------------------------------------------------------------------------------

ISS = "https://login.example"


def _claims(**over: Any) -> dict[str, Any]:
    now = int(time.time())
    return {
        "iss": ISS,
        "sub": "s1",
        "aud": "client-1",
        "exp": now + 300,
        "iat": now,
        "nonce": "n1",
        **over,
    }


def _check(token: str, keys: dict[str, Any] | None = None, **kw: Any) -> Any:
    doc = keys or KeySet([KEY]).as_dict(private=False)
    return validate_id_token(
        token, lambda refresh: doc, issuer=ISS, client_id="client-1", nonce="n1", **kw
    )


def test_a_good_token_gives_the_identity() -> None:
    claims = _claims(email="ana@lab.example", email_verified=True, preferred_username="ana")
    who = _check(jwt.encode({"alg": "RS256", "kid": "k1"}, claims, KEY))
    assert (who.subject, who.email, who.email_verified, who.preferred_username) == (
        "s1",
        "ana@lab.example",
        True,
        "ana",
    )
    unverified = _check(jwt.encode({"alg": "RS256", "kid": "k1"}, _claims(email="a@b.c"), KEY))
    assert unverified.email_verified is False


def test_hmac_tokens_are_refused_even_when_advertised() -> None:
    shared = OctKey.import_key(SECRET.encode())
    token = jwt.encode({"alg": "HS256"}, _claims(), shared)
    with pytest.raises(IdTokenInvalid) as refused:
        _check(token, advertised_algs=("HS256", "RS256"))
    assert refused.value.code == "oidc_bad_alg"


def test_an_alg_the_provider_does_not_advertise_is_refused() -> None:
    token = jwt.encode({"alg": "RS256", "kid": "k1"}, _claims(), KEY)
    with pytest.raises(IdTokenInvalid) as refused:
        _check(token, advertised_algs=("ES256",))
    assert refused.value.code == "oidc_bad_alg"


@pytest.mark.parametrize(
    ("claims", "code"),
    [
        ({"nonce": None}, "oidc_bad_claim"),
        ({"iat": int(time.time()) + 3_600}, "oidc_bad_claim"),
        ({"sub": None}, "oidc_bad_claim"),
        ({"aud": ["client-1", "other"], "azp": "other"}, "oidc_bad_claim"),
    ],
)
def test_claim_defects(claims: dict[str, Any], code: str) -> None:
    body = {k: v for k, v in _claims(**claims).items() if v is not None}
    with pytest.raises(IdTokenInvalid) as refused:
        _check(jwt.encode({"alg": "RS256", "kid": "k1"}, body, KEY))
    assert refused.value.code == code


def test_several_audiences_with_azp_are_accepted() -> None:
    claims = _claims(aud=["client-1", "other"], azp="client-1")
    assert _check(jwt.encode({"alg": "RS256", "kid": "k1"}, claims, KEY)).subject == "s1"


def test_a_rotated_key_is_fetched_again() -> None:
    new = RSAKey.generate_key(2048, parameters={"kid": "k2", "use": "sig"})
    asked: list[bool] = []

    def keys(refresh: bool) -> dict[str, Any]:
        asked.append(refresh)
        return dict(KeySet([new] if refresh else [KEY]).as_dict(private=False))

    token = jwt.encode({"alg": "RS256", "kid": "k2"}, _claims(), new)
    who = validate_id_token(token, keys, issuer=ISS, client_id="client-1", nonce="n1")
    assert who.subject == "s1" and asked == [False, True]


def test_garbage_is_not_a_token() -> None:
    for junk in ["", "abc", "a.b", "é.é.é", "e30.e30."]:
        with pytest.raises(IdTokenInvalid):
            _check(junk)
