"""The security middleware alone (on a tiny app of its own), then on the workspace: every
write route of the OpenAPI document and every page form route refuses a missing or
different Origin and a missing or wrong CSRF token; headers on every response."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route
from tests.faces.web._hosting import LOOPBACK_TLS
from tests.faces.web._server import Running, free_port, serve_app

from litdesk.faces.web._render import asset_prefix
from litdesk.faces.web._security import CSP, SecurityMiddleware

LIMIT = 1_000


async def _echo(request: Request) -> JSONResponse:
    body = await request.body()
    return JSONResponse({"bytes": len(body), "method": request.method})


async def _hello(request: Request) -> PlainTextResponse:
    return PlainTextResponse("hello")


@pytest.fixture(scope="module")
def alone() -> Iterator[str]:
    port = free_port()
    app = Starlette(
        routes=[Route("/echo", _echo, methods=["POST", "PUT", "DELETE"]), Route("/", _hello)]
    )
    guarded: Any = SecurityMiddleware(
        app,
        origin=f"http://127.0.0.1:{port}",
        hosts=frozenset({f"127.0.0.1:{port}"}),
        default_limit=LIMIT,
    )
    for _ in serve_app(guarded, port):
        yield f"http://127.0.0.1:{port}"


def _token(c: httpx.Client) -> str:
    c.get("/")
    token = c.cookies.get("ld_csrf")
    assert token and len(token) >= 32
    return token


def _headers_ok(r: httpx.Response) -> None:
    assert r.headers["content-security-policy"] == CSP
    for part in (
        "default-src 'self'",
        "script-src 'self'",
        "object-src 'none'",
        "frame-ancestors 'none'",
    ):
        assert part in r.headers["content-security-policy"]
    assert "unsafe-inline" not in CSP and "unsafe-eval" not in CSP
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "no-referrer"


def test_origin_rules(alone: str) -> None:
    with httpx.Client(base_url=alone, verify=LOOPBACK_TLS) as c:
        token = _token(c)
        h = {"x-csrf-token": token}
        missing = c.post("/echo", content=b"{}", headers=h)
        other = c.post("/echo", content=b"{}", headers=h | {"origin": "http://evil.example"})
        near = c.post("/echo", content=b"{}", headers=h | {"origin": alone + "/"})
        null = c.post("/echo", content=b"{}", headers=h | {"origin": "null"})
        exact = c.post("/echo", content=b"{}", headers=h | {"origin": alone})
        put = c.put("/echo", content=b"{}", headers=h)
    assert [r.status_code for r in (missing, other, near, null, put)] == [403] * 5
    assert missing.text.startswith("Refused") and "origin" in missing.text.lower()
    assert exact.status_code == 200 and exact.json() == {"bytes": 2, "method": "POST"}
    for r in (missing, other, exact):
        _headers_ok(r)


def test_csrf_rules(alone: str) -> None:
    with httpx.Client(base_url=alone, headers={"origin": alone}, verify=LOOPBACK_TLS) as c:
        no_cookie = c.post("/echo", content=b"x", headers={"x-csrf-token": "a" * 43})
        token = _token(c)
        wrong = c.post("/echo", content=b"x", headers={"x-csrf-token": "b" * 43})
        none = c.post("/echo", content=b"x")
        form_ok = c.post("/echo", data={"csrf_token": token, "name": "x"})
        form_bad = c.post("/echo", data={"csrf_token": "c" * 43})
        form_twice = c.post(
            "/echo",
            content=f"csrf_token={token}&csrf_token={token}".encode(),
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
        header_ok = c.post("/echo", content=b"x", headers={"x-csrf-token": token})
    assert [r.status_code for r in (no_cookie, wrong, none, form_bad, form_twice)] == [403] * 5
    assert (
        form_ok.status_code == 200 and form_ok.json()["bytes"] > 0
    )  # the handler still reads the form
    assert header_ok.status_code == 200


def test_body_limits_while_streaming(alone: str) -> None:
    with httpx.Client(base_url=alone, headers={"origin": alone}, verify=LOOPBACK_TLS) as c:
        h = {"x-csrf-token": _token(c)}
        declared = c.post("/echo", content=b"x" * (LIMIT + 1), headers=h)

        def chunks() -> Iterator[bytes]:
            for _ in range(50):
                yield b"y" * 100  # 5,000 bytes, no Content-Length: counted as they arrive

        streamed = c.post("/echo", content=chunks(), headers=h)
        under = c.post("/echo", content=b"z" * LIMIT, headers=h)
    assert declared.status_code == 413 and streamed.status_code == 413
    assert under.status_code == 200 and under.json()["bytes"] == LIMIT
    _headers_ok(streamed)


def test_wrong_host_is_refused(alone: str) -> None:
    port = alone.rsplit(":", 1)[1]
    with httpx.Client(base_url=alone, verify=LOOPBACK_TLS) as c:
        r = c.get("/", headers={"host": f"evil.example:{port}"})
        loc = c.get("/", headers={"host": f"localhost:{port}"})
    assert r.status_code == 421 and loc.status_code == 421


def _write_routes(running: Running) -> list[tuple[str, str]]:
    with running.client() as c:
        doc = c.get("/api/v1/openapi.json").json()
    out = []
    for path, item in doc["paths"].items():
        for method in item:
            if method.upper() not in {"GET", "HEAD", "OPTIONS"}:
                out.append((method.upper(), path))
    return out


def _page_forms() -> list[str]:
    """Every POST route of the pages (not in the API document), from the routers."""
    from fastapi.routing import APIRoute

    from litdesk.faces.web.routes import notes, papers, search, studies

    out = []
    for module in (search, papers, notes, studies):
        for route in module.pages.routes:
            if isinstance(route, APIRoute) and "POST" in route.methods:
                out.append(
                    route.path.replace("{paper_id}", "MED-1")
                    .replace("{ref}", "x")
                    .replace("{run_id}", "r1")
                )
    return out


def test_every_write_route_needs_origin_and_csrf(running: Running) -> None:
    api = _write_routes(running)
    forms = _page_forms()
    assert len(api) >= 8 and len(forms) >= 7
    targets = [
        (m, p.replace("{paper_id}", "MED-1").replace("{ref}", "x").replace("{run_id}", "r1"))
        for m, p in api
    ]
    targets += [("POST", p) for p in forms]
    with running.client() as c:
        c.get("/studies")
        token = c.cookies.get("ld_csrf")
        for method, path in targets:
            body = {"csrf_token": token} if not path.startswith("/api/") else None
            js = {} if path.startswith("/api/") else None
            cases = {
                "no origin": {"x-csrf-token": token},
                "other origin": {"x-csrf-token": token, "origin": "http://127.0.0.1:1"},
                "no token": {"origin": running.base},
                "wrong token": {"origin": running.base, "x-csrf-token": "w" * 43},
            }
            for name, headers in cases.items():
                if path.startswith("/api/"):
                    r = c.request(method, path, json=js, headers=headers)
                else:
                    form = dict(body or {})
                    if name == "no token":
                        form = {}
                    if name == "wrong token":
                        headers = {"origin": running.base}
                        form = {"csrf_token": "w" * 43}
                    r = c.request(method, path, data=form, headers=headers)
                assert r.status_code == 403, (method, path, name, r.status_code)
                _headers_ok(r)
            ok = (
                c.request(
                    method, path, json=js, headers={"origin": running.base, "x-csrf-token": token}
                )
                if path.startswith("/api/")
                else c.request(method, path, data=body, headers={"origin": running.base})
            )
            assert ok.status_code != 403 and ok.status_code < 500, (
                method,
                path,
                ok.status_code,
                ok.text[:200],
            )


def test_headers_on_pages_api_static_and_errors(running: Running) -> None:
    with running.client() as c:
        responses = [
            c.get("/search"),
            c.get("/saved"),
            c.get("/studies"),
            c.get("/api/v1/saved"),
            c.get("/api/v1/openapi.json"),
            c.get("/static/app.css"),
            c.get("/static/js/app.js"),
            c.get("/nope"),
            c.get("/api/v1/papers/MED-1"),
        ]
    for r in responses:
        _headers_ok(r)
    for r in responses:
        if "/static/" in str(r.url):
            assert r.headers["cache-control"] == "no-cache"
        else:
            assert r.headers["cache-control"] == "private, no-store"
    assert "javascript" in responses[6].headers["content-type"]


def test_pages_link_fingerprinted_static_files_cached_for_good(running: Running) -> None:
    """Every page links its CSS and scripts by a URL naming their content; those answer
    ``immutable`` (a browser never asks again) and set no cookie (a shared cache would
    hand it to everyone); the plain URL, an older fingerprint and a missing file do not."""
    prefix = asset_prefix()
    assert re.fullmatch(r"/static/[0-9a-f]{16}", prefix)
    with running.client() as c, running.client() as fresh:  # fresh: no cookie yet
        page = c.get("/search").text
        linked = re.findall(r'(?:href|src)="(/static/[^"]+)"', page)
        assert {f"{prefix}/app.css", f"{prefix}/js/app.js", f"{prefix}/favicon.svg"} <= set(linked)
        assert all(url.startswith(prefix + "/") for url in linked), linked
        for url in linked + [f"{prefix}/js/dom.js"]:  # a module imported relatively
            r = fresh.get(url)
            assert r.status_code == 200, url
            _headers_ok(r)
            assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
            assert "set-cookie" not in r.headers
            assert r.content == c.get(url.replace(prefix, "/static")).content
        older = fresh.get("/static/0123456789abcdef/app.css")  # a page from before an upgrade
        assert older.status_code == 200 and older.headers["cache-control"] == "no-cache"
        assert older.content == fresh.get(f"{prefix}/app.css").content
        missing = fresh.get(f"{prefix}/nope.css")
        assert missing.status_code == 404 and missing.headers["cache-control"] == "no-cache"
        assert fresh.get(f"{prefix}/../_render.py").status_code == 404


def test_no_docs_pages_with_cdn_scripts(running: Running) -> None:
    with running.client() as c:
        assert c.get("/docs").status_code == 404 and c.get("/redoc").status_code == 404


def test_an_internal_error_is_generic(tmp_settings: Any, cassette: Any) -> None:
    from litdesk.faces.web import create_app

    class Broken:
        def studies(self) -> None:
            raise RuntimeError("secret upstream body /etc/passwd")

    port = free_port()
    app = create_app(tmp_settings, host="127.0.0.1", port=port, app=Broken())  # type: ignore[arg-type]
    for _ in serve_app(app, port):
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", verify=LOOPBACK_TLS) as c:
            api = c.get("/api/v1/studies")
            html = c.get("/studies")
    assert api.status_code == 500 and api.json() == {
        "error": "InternalError",
        "code": "internal",
        "message": "an internal error; see the server log",
        "hint": "Something went wrong inside litdesk. Try again; if it keeps happening, the "
        "server log has the details.",
    }
    assert html.status_code == 500 and "secret" not in html.text and "Traceback" not in html.text
    _headers_ok(api)
    _headers_ok(html)


def test_socket_helper_gives_a_free_port() -> None:
    port = free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
