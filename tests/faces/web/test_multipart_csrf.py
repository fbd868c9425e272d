"""The CSRF token of a file-upload form without script: read from the first multipart part
only (at most MULTIPART_HEAD_LIMIT bytes), whatever the chunking of the body; the bytes read
are replayed unchanged; garbage never raises and never yields a token (Hypothesis)."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.faces.web._security import MULTIPART_HEAD_LIMIT, _boundary, _multipart_token

TOKENS = st.text(
    alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
    min_size=32,
    max_size=64,
)
BOUNDARIES = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyz0123456789-'()+_,./:=?", min_size=1, max_size=70
)


def _body(boundary: str, parts: list[tuple[str, bytes]]) -> bytes:
    out = b""
    for name, value in parts:
        out += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"'.encode()
        if name == "files":
            out += b'; filename="a.pdf"\r\nContent-Type: application/pdf'
        out += b"\r\n\r\n" + value + b"\r\n"
    return out + f"--{boundary}--\r\n".encode()


def _split(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(body)) for c in cuts} | {0, len(body)})
    return [body[a:b] for a, b in zip(points, points[1:], strict=False)] or [b""]


def _run(body_chunks: list[bytes], boundary: bytes) -> tuple[str | None, bytes]:
    async def go() -> tuple[str | None, bytes]:
        queue = list(body_chunks)

        async def receive() -> dict[str, Any]:
            if not queue:
                return {"type": "http.disconnect"}
            chunk = queue.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(queue)}

        token, replay = await _multipart_token(receive, boundary)
        seen = b""
        while True:
            m = await replay()
            if m["type"] != "http.request":
                break
            seen += m.get("body", b"")
            if not m.get("more_body"):
                break
        return token, seen

    return asyncio.run(go())


@settings(max_examples=200, deadline=None)
@given(TOKENS, BOUNDARIES, st.binary(max_size=40_000), st.lists(st.integers(0, 50_000), max_size=8))
def test_the_first_part_token_is_found_and_the_body_replayed(
    token: str, boundary: str, pdf: bytes, cuts: list[int]
) -> None:
    body = _body(boundary, [("csrf_token", token.encode()), ("files", pdf)])
    ctype = f"multipart/form-data; boundary={boundary}"
    parsed = _boundary(ctype)
    assert parsed == boundary.rstrip().encode()
    found, replayed = _run(_split(body, cuts), parsed)
    if boundary == boundary.rstrip():
        assert found == token
    assert replayed == body  # nothing lost, nothing added


@settings(max_examples=200, deadline=None)
@given(TOKENS, BOUNDARIES, st.binary(min_size=1, max_size=40_000))
def test_a_token_after_another_part_is_not_taken(token: str, boundary: str, pdf: bytes) -> None:
    body = _body(boundary, [("files", pdf), ("csrf_token", token.encode())])
    found, replayed = _run([body], boundary.encode())
    assert found is None and replayed == body


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=MULTIPART_HEAD_LIMIT * 2), st.lists(st.integers(0, 40_000), max_size=6))
def test_garbage_never_raises_and_never_yields_a_token(junk: bytes, cuts: list[int]) -> None:
    found, replayed = _run(_split(junk, cuts), b"boundary123")
    assert found is None
    assert replayed == junk


def test_a_huge_first_part_is_read_only_up_to_the_limit() -> None:
    boundary = "bnd"
    body = _body(boundary, [("csrf_token", b"A" * 20_000 * 2)])
    reads: list[int] = []

    async def go() -> str | None:
        chunks = [body[i : i + 1000] for i in range(0, len(body), 1000)]

        async def receive() -> dict[str, Any]:
            chunk = chunks.pop(0)
            reads.append(len(chunk))
            return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}

        token, _ = await _multipart_token(receive, boundary.encode())
        return token

    assert asyncio.run(go()) is None
    assert sum(reads) <= MULTIPART_HEAD_LIMIT + 1000
