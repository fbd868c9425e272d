"""The CSRF token of a multipart form post (a file upload without JavaScript): read from
the form's first field only, bounded, and replayed so the handler still sees every byte;
the body limit still applies while the rest streams. On a tiny app of its own."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route
from tests.faces.web._hosting import LOOPBACK_TLS
from tests.faces.web._server import free_port, serve_app

from litdesk.faces.web._security import MULTIPART_TOKEN_LIMIT, SecurityMiddleware

LIMIT = 50_000
BOUNDARY = "----litdeskTestBoundary7MA4YWxkTrZu0gW"


async def _upload(request: Request) -> JSONResponse:
    body = await request.body()
    files = {}
    async with request.form() as form:
        for key, value in form.multi_items():
            if isinstance(value, UploadFile):
                files[key] = hashlib.sha256(await value.read()).hexdigest()
        names = list(form.keys())
    return JSONResponse(
        {"sha256": hashlib.sha256(body).hexdigest(), "fields": names, "files": files}
    )


async def _hello(request: Request) -> PlainTextResponse:
    return PlainTextResponse("hello")


@pytest.fixture(scope="module")
def alone() -> Iterator[str]:
    port = free_port()
    app = Starlette(routes=[Route("/upload", _upload, methods=["POST"]), Route("/", _hello)])
    guarded: Any = SecurityMiddleware(
        app,
        origin=f"http://127.0.0.1:{port}",
        hosts=frozenset({f"127.0.0.1:{port}"}),
        default_limit=LIMIT,
    )
    for _ in serve_app(guarded, port):
        yield f"http://127.0.0.1:{port}"


def _part(name: str, value: bytes, filename: str | None = None) -> bytes:
    disp = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
    head = f"--{BOUNDARY}\r\nContent-Disposition: {disp}\r\n"
    if filename:
        head += "Content-Type: application/zip\r\n"
    return head.encode() + b"\r\n" + value + b"\r\n"


def _body(*parts: bytes) -> bytes:
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


CTYPE = {"content-type": f"multipart/form-data; boundary={BOUNDARY}"}


@contextmanager
def _client(base: str) -> Iterator[tuple[httpx.Client, str]]:
    with httpx.Client(
        base_url=base, headers={"origin": base}, timeout=30, verify=LOOPBACK_TLS
    ) as c:
        c.get("/")
        token = c.cookies.get("ld_csrf")
        assert token
        yield c, token


def test_token_in_the_first_field_lets_the_whole_form_through(alone: str) -> None:
    with _client(alone) as (c, token):
        payload = bytes(range(256)) * 40  # 10 KB of binary "ZIP"
        body = _body(
            _part("csrf_token", token.encode()),
            _part("name", b"recovered"),
            _part("file", payload, "s.zip"),
        )
        ok = c.post("/upload", content=body, headers=CTYPE)
        assert ok.status_code == 200, ok.text
        doc = ok.json()
        assert doc["sha256"] == hashlib.sha256(body).hexdigest()  # every byte replayed
        assert doc["fields"] == ["csrf_token", "name", "file"]
        assert doc["files"] == {"file": hashlib.sha256(payload).hexdigest()}
        # httpx's own multipart encoder (fields first, then files) passes too
        enc = c.post(
            "/upload", data={"csrf_token": token}, files={"file": ("s.zip", payload, "x/y")}
        )
        assert enc.status_code == 200 and enc.json()["files"]["file"] == doc["files"]["file"]


def test_a_missing_late_wrong_or_file_token_is_refused(alone: str) -> None:
    with _client(alone) as (c, token):
        cases = {
            "none": _body(_part("file", b"PK", "s.zip")),
            "late": _body(_part("name", b"x"), _part("csrf_token", token.encode())),
            "wrong": _body(_part("csrf_token", b"w" * 43)),
            "as a file": _body(_part("csrf_token", token.encode(), "token.txt")),
            "not ascii": _body(_part("csrf_token", "é".encode() * 30)),
            "too long": _body(_part("csrf_token", token.encode() * 200)),
            "no boundary": b"--x\r\n",
        }
        for name, body in cases.items():
            headers = CTYPE if name != "no boundary" else {"content-type": "multipart/form-data"}
            r = c.post("/upload", content=body, headers=headers)
            assert r.status_code == 403, (name, r.status_code)
            assert "csrf" in r.text.lower()
        # a first part that does not end within the bound carries no token
        padded = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="csrf_token"\r\n'.encode()
        padded += b"X-Pad: " + b"p" * (MULTIPART_TOKEN_LIMIT + 10) + b"\r\n\r\n" + token.encode()
        r = c.post("/upload", content=_body(padded + b"\r\n"), headers=CTYPE)
        assert r.status_code == 403
        no_origin = httpx.post(
            alone + "/upload",
            content=_body(_part("csrf_token", token.encode())),
            headers=CTYPE,
            cookies={"ld_csrf": token},
            verify=LOOPBACK_TLS,
        )
        assert no_origin.status_code == 403 and "origin" in no_origin.text.lower()


def test_the_body_limit_still_applies_while_the_rest_streams(alone: str) -> None:
    with _client(alone) as (c, token):
        head = _part("csrf_token", token.encode())
        sent = 0

        def chunks() -> Iterator[bytes]:
            nonlocal sent
            yield head
            yield f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\n'.encode()
            for _ in range(200):  # 200 KB in 1 KB chunks, no Content-Length
                sent += 1
                yield b"z" * 1_000

        r = c.post("/upload", content=chunks(), headers=CTYPE)
        assert r.status_code == 413
        declared = c.post("/upload", content=_body(head, b"z" * LIMIT), headers=CTYPE)
        assert declared.status_code == 413


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    cuts=st.lists(st.integers(min_value=1, max_value=400), min_size=1, max_size=30),
    payload=st.binary(min_size=0, max_size=3_000),
)
def test_any_chunking_gives_the_handler_the_same_bytes(
    alone: str, cuts: list[int], payload: bytes
) -> None:
    with _client(alone) as (c, token):
        body = _body(_part("csrf_token", token.encode()), _part("file", payload, "f.bin"))

        def chunks() -> Iterator[bytes]:
            at = 0
            for n in cuts:
                if at >= len(body):
                    return
                yield body[at : at + n]
                at += n
            if at < len(body):
                yield body[at:]

        r = c.post("/upload", content=chunks(), headers=CTYPE)
        assert r.status_code == 200, r.text
        assert r.json()["sha256"] == hashlib.sha256(body).hexdigest()
        assert r.json()["files"]["file"] == hashlib.sha256(payload).hexdigest()
