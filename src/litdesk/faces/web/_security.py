"""The web face's security, in one ASGI middleware (tested alone):

* the ``Host`` header must name this server (a DNS-rebinding page cannot talk to it);
* every non-GET request needs the exact ``Origin`` of this server (missing → refused,
  different → refused) and a CSRF token: the double-submit cookie ``ld_csrf`` repeated in
  the ``X-CSRF-Token`` header (scripts, API), in the ``csrf_token`` field of an
  ``application/x-www-form-urlencoded`` form post, or in the FIRST part of a
  ``multipart/form-data`` form post (a file upload without script: only the head of the
  body is read for it, at most :data:`MULTIPART_HEAD_LIMIT` bytes, then replayed);
* request bodies are limited while they stream (``Content-Length`` checked first, then
  the bytes counted as they arrive): over the limit → 413, the handler never sees more;
* every response carries the CSP, ``nosniff``, ``no-referrer``, ``frame-ancestors
  'none'`` and ``Cache-Control: private, no-store`` (static files: ``no-cache``).

Refusals are JSON ``{error, code, message}`` under ``/api/`` and a short text page
elsewhere; they never echo the request.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any, Final
from urllib.parse import parse_qs

__all__ = [
    "CSP",
    "CSRF_COOKIE",
    "CSRF_FIELD",
    "CSRF_HEADER",
    "DEFAULT_BODY_LIMIT",
    "FORM_BODY_LIMIT",
    "MULTIPART_HEAD_LIMIT",
    "BodyTooLarge",
    "SecurityMiddleware",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
CSRF_COOKIE: Final = "ld_csrf"
CSRF_HEADER: Final = "x-csrf-token"
CSRF_FIELD: Final = "csrf_token"
DEFAULT_BODY_LIMIT: Final = 1_000_000
FORM_BODY_LIMIT: Final = 256_000
#: Most bytes read from a multipart body to find its first part (the CSRF field).
MULTIPART_HEAD_LIMIT: Final = 16_384
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})
_TOKEN: Final = re.compile(r"^[A-Za-z0-9_-]{32,64}$")


class BodyTooLarge(Exception):
    """Raised from ``receive`` when a streamed body passes its limit."""


def _headers(scope: Scope) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in scope.get("headers", []):
        name = key.decode("latin-1").lower()
        if name not in out:  # the first one wins; duplicates cannot smuggle a second value
            out[name] = value.decode("latin-1")
    return out


def _cookie(header: str | None, name: str) -> str | None:
    if not header:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(header)
    except Exception:  # noqa: BLE001 - a malformed Cookie header means "no cookie"
        return None
    morsel = jar.get(name)
    if morsel is None or not _TOKEN.match(morsel.value):
        return None
    return morsel.value


class SecurityMiddleware:
    """See the module docstring. ``origin`` is this server's exact origin
    (``http://127.0.0.1:8765``); ``body_limits`` maps path prefixes to byte limits
    (the longest matching prefix wins; ``default_limit`` otherwise)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        origin: str,
        hosts: frozenset[str],
        default_limit: int = DEFAULT_BODY_LIMIT,
        body_limits: dict[str, int] | None = None,
        static_prefix: str = "/static/",
        csp_overrides: dict[str, str] | None = None,
    ) -> None:
        self.app = app
        self.origin = origin
        self.hosts = hosts
        self.default_limit = default_limit
        self.body_limits = sorted((body_limits or {}).items(), key=lambda kv: -len(kv[0]))
        self.static_prefix = static_prefix
        #: path prefix -> the CSP of those responses instead of :data:`CSP` (a served
        #: synthesis report carries its own: its one inline script and style by hash)
        self.csp_overrides = sorted((csp_overrides or {}).items(), key=lambda kv: -len(kv[0]))

    def _limit(self, path: str) -> int:
        for prefix, limit in self.body_limits:
            if path.startswith(prefix):
                return limit
        return self.default_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        api = path.startswith("/api/")
        headers = _headers(scope)
        method = str(scope.get("method", "GET")).upper()

        if headers.get("host", "") not in self.hosts:
            await _refuse(send, 421, "host", "this server does not answer for that host name", api)
            return

        cookie_token = _cookie(headers.get("cookie"), CSRF_COOKIE)
        token = cookie_token or secrets.token_urlsafe(32)
        scope.setdefault("state", {})["csrf_token"] = token

        limit = self._limit(path)
        length = headers.get("content-length")
        if length is not None:
            if not length.isdigit():
                await _refuse(
                    send, 400, "content_length", "the Content-Length is not a number", api
                )
                return
            if int(length) > limit:
                await _refuse(
                    send, 413, "body_too_large", f"the request body is over {limit:,} bytes", api
                )
                return

        if method not in SAFE_METHODS:
            origin = headers.get("origin")
            if origin is None:
                await _refuse(send, 403, "origin_missing", "a write needs this page's Origin", api)
                return
            if origin != self.origin:
                await _refuse(send, 403, "origin", "a write from another origin is refused", api)
                return
            if cookie_token is None:
                await _refuse(send, 403, "csrf", "the CSRF cookie is missing; reload the page", api)
                return
            sent = headers.get(CSRF_HEADER)
            ctype = headers.get("content-type", "").split(";")[0].strip().lower()
            if sent is None and ctype == "application/x-www-form-urlencoded":
                try:
                    body = await _read_all(receive, min(limit, FORM_BODY_LIMIT))
                except BodyTooLarge:
                    await _refuse(send, 413, "body_too_large", "the form is too large", api)
                    return
                fields = parse_qs(body.decode("utf-8", "replace"), max_num_fields=500)
                values = fields.get(CSRF_FIELD, [])
                sent = values[0] if len(values) == 1 else None
                receive = _replay(body)
            if sent is None and ctype == "multipart/form-data":
                boundary = _boundary(headers.get("content-type", ""))
                if boundary is not None:
                    sent, receive = await _multipart_token(receive, boundary)
            if sent is None or not hmac.compare_digest(sent.encode(), cookie_token.encode()):
                await _refuse(
                    send, 403, "csrf", "the CSRF token is missing or wrong; reload the page", api
                )
                return

        static = path.startswith(self.static_prefix)
        csp = next((c for prefix, c in self.csp_overrides if path.startswith(prefix)), CSP)
        set_cookie = None if cookie_token else token
        started = False
        cut_off = False  # the body passed its limit: 413 sent, the app's answer dropped
        seen = 0

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if cut_off:
                return
            if message["type"] == "http.response.start":
                started = True
                _add_headers(message, static=static, set_cookie=set_cookie, csp=csp)
            await send(message)

        async def limited_receive() -> Message:
            nonlocal seen, cut_off
            message = await receive()
            if message["type"] == "http.request" and not cut_off:
                seen += len(message.get("body", b""))
                if seen > limit:
                    if not started:
                        await _refuse(
                            send,
                            413,
                            "body_too_large",
                            f"the request body is over {limit:,} bytes",
                            api,
                        )
                    cut_off = True
                    return {"type": "http.disconnect"}  # the app sees the client go away
            return message

        try:
            await self.app(scope, limited_receive, send_with_headers)
        except Exception:
            if cut_off:  # the app failed on the cut-off body; the client already has its 413
                return
            raise


def _add_headers(message: Message, *, static: bool, set_cookie: str | None, csp: str = CSP) -> None:
    raw = [(k, v) for k, v in message.get("headers", []) if k.lower() not in _OWNED]
    raw += [
        (b"content-security-policy", csp.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"x-frame-options", b"DENY"),
        (b"cross-origin-opener-policy", b"same-origin"),
        (b"cross-origin-resource-policy", b"same-origin"),
        (b"cache-control", b"no-cache" if static else b"private, no-store"),
    ]
    if set_cookie is not None:
        raw.append(
            (
                b"set-cookie",
                f"{CSRF_COOKIE}={set_cookie}; Path=/; HttpOnly; SameSite=Strict".encode(),
            )
        )
    message["headers"] = raw


_OWNED: Final = frozenset(
    {
        b"content-security-policy",
        b"x-content-type-options",
        b"referrer-policy",
        b"x-frame-options",
        b"cross-origin-opener-policy",
        b"cross-origin-resource-policy",
        b"cache-control",
    }
)


async def _read_all(receive: Receive, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


_BOUNDARY: Final = re.compile(r'boundary="?([0-9A-Za-z\'()+_,\-./:=? ]{1,70})"?', re.I)
_FIRST_NAME: Final = re.compile(rb'content-disposition:\s*form-data;\s*name="([^"]{1,64})"', re.I)


def _boundary(content_type: str) -> bytes | None:
    found = _BOUNDARY.search(content_type)
    return found.group(1).rstrip().encode("latin-1") if found else None


def _first_field(head: bytes, boundary: bytes) -> tuple[bool, str | None]:
    """``(complete, csrf token)`` from the head of a multipart body: ``complete`` once the
    first part is whole (or cannot be the CSRF field)."""
    start = b"--" + boundary + b"\r\n"
    if len(head) < len(start):
        return False, None
    if not head.startswith(start):
        return True, None
    end_headers = head.find(b"\r\n\r\n", len(start))
    if end_headers < 0:
        return False, None
    found = _FIRST_NAME.search(head[len(start) : end_headers])
    if found is None or found.group(1) != CSRF_FIELD.encode():
        return True, None
    value_at = end_headers + 4
    end = head.find(b"\r\n--" + boundary, value_at)
    if end < 0:
        return False, None
    value = head[value_at:end].decode("latin-1")
    return True, value if _TOKEN.match(value) else None


async def _multipart_token(receive: Receive, boundary: bytes) -> tuple[str | None, Receive]:
    """The CSRF token of a multipart body's first part, and a ``receive`` that replays
    what was read (one message) before passing the rest of the stream through."""
    chunks: list[bytes] = []
    size = 0
    more = True
    token: str | None = None
    disconnected = False
    while more and size < MULTIPART_HEAD_LIMIT:
        message = await receive()
        if message["type"] == "http.disconnect":
            disconnected = True
            break
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        more = bool(message.get("more_body", False))
        complete, token = _first_field(b"".join(chunks)[:MULTIPART_HEAD_LIMIT], boundary)
        if complete:
            break
    head = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            if disconnected and not head:
                return {"type": "http.disconnect"}
            return {"type": "http.request", "body": head, "more_body": more and not disconnected}
        if not more or disconnected:
            return {"type": "http.disconnect"}
        return await receive()

    return token, replay


def _replay(body: bytes) -> Receive:
    done = False

    async def receive() -> Message:
        nonlocal done
        if done:
            return {"type": "http.disconnect"}
        done = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


async def _refuse(send: Send, status: int, code: str, message: str, api: bool) -> None:
    if api:
        body = json.dumps({"error": "RefusedError", "code": code, "message": message}).encode()
        ctype = b"application/json"
    else:
        body = f"Refused ({status}): {message}\n".encode()
        ctype = b"text/plain; charset=utf-8"
    start: Message = {
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", ctype), (b"content-length", str(len(body)).encode())],
    }
    _add_headers(start, static=False, set_cookie=None)
    await send(start)
    await send({"type": "http.response.body", "body": body})
