"""The web face's security, in one ASGI middleware (tested alone):

* the ``Host`` header must name this server (a DNS-rebinding page cannot talk to it);
* every non-GET request needs the exact ``Origin`` of this server (missing → refused,
  different → refused) and a CSRF token bound to the browser's session: with a session
  cookie (``session_cookie``, the team server's ``ld_session``) the token is
  :func:`session_csrf` of it, an HMAC keyed by that 256-bit secret, so another session's
  token (another account's, or this browser's before its last login) is refused; without
  one (the single-user workspace, the team's login page) it is the browser's own random
  ``ld_csrf`` cookie. The token comes in
  the ``X-CSRF-Token`` header (scripts, API), in the ``csrf_token`` field of an
  ``application/x-www-form-urlencoded`` form post, or in the *first* field of a
  ``multipart/form-data`` form post (a file upload without JavaScript: only that first
  part is read, at most :data:`MULTIPART_TOKEN_LIMIT` bytes, and replayed before the rest
  of the body, which keeps streaming under its limit);
* request bodies are limited while they stream (``Content-Length`` checked first, then
  the bytes counted as they arrive): over the limit → 413, the handler never sees more;
* a GET that spends provider allowance (:data:`SPENDING_PATHS`: search, citations, the
  reader's look-ups and full text, remote subject suggestions) must come from this origin: ``Sec-Fetch-Site`` is
  ``same-origin`` or ``none`` (typed, bookmarked); without that header, an ``Origin`` or
  ``Referer`` present must be this origin's. A page on another origin — another port on
  loopback included — cannot spend the allowance through ``<img>`` or a no-cors fetch;
* under an https origin every ``Set-Cookie`` the app sends carries ``Secure``;
* a request body must keep arriving: a wait of more than :data:`BODY_READ_TIMEOUT` seconds
  for its next chunk answers 408 (a slow client cannot hold a worker thread);
* every response carries the CSP, ``nosniff``, ``no-referrer``, ``frame-ancestors
  'none'`` and ``Cache-Control: private, no-store``; static files ``no-cache``, except
  those under the current fingerprinted prefix (``/static/<content hash>/``, see
  ``_render.asset``): ``public, max-age=31536000, immutable`` and no ``Set-Cookie``, so a
  browser loads them once and then from its cache without asking again.

Refusals are JSON ``{error, code, message}`` under ``/api/`` and a short text page
elsewhere; they never echo the request.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final
from urllib.parse import parse_qs

import anyio
from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header

__all__ = [
    "CSP",
    "CSRF_COOKIE",
    "CSRF_FIELD",
    "CSRF_HEADER",
    "DEFAULT_BODY_LIMIT",
    "FORM_BODY_LIMIT",
    "MULTIPART_TOKEN_LIMIT",
    "BODY_READ_TIMEOUT",
    "BodyTooLarge",
    "SPENDING_PATHS",
    "SecurityMiddleware",
    "read_cookie",
    "session_csrf",
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
#: A multipart form's first part (the CSRF token) must end within this many bytes.
MULTIPART_TOKEN_LIMIT: Final = 4_096
#: seconds the next chunk of a request body may take to arrive
BODY_READ_TIMEOUT: Final = 30.0
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})
#: GET paths (and what lies under them) that spend provider allowance
SPENDING_PATHS: Final = (
    "/search",
    "/api/v1/search",
    "/citations",
    "/api/v1/citations",
    "/paper",
    "/api/v1/papers",
    "/api/v1/subjects/remote",
)
_TOKEN: Final = re.compile(r"^[A-Za-z0-9_-]{32,64}$")


class BodyTooLarge(Exception):
    """Raised from ``receive`` when a streamed body passes its limit."""


class BodyTimeout(Exception):
    """Raised from ``receive`` when the next chunk of a body does not arrive in time."""


def _timed(receive: Receive, seconds: float) -> Receive:
    """``receive`` with each chunk of the body due within ``seconds``; once the body has
    ended, waits are not timed (a streamed answer listens for the client leaving)."""
    ended = False

    async def timed() -> Message:
        nonlocal ended
        if ended:
            return await receive()
        try:
            with anyio.fail_after(seconds):
                message = await receive()
        except TimeoutError:
            raise BodyTimeout from None
        if message["type"] != "http.request" or not message.get("more_body", False):
            ended = True
        return message

    return timed


def _headers(scope: Scope) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in scope.get("headers", []):
        name = key.decode("latin-1").lower()
        if name not in out:  # the first one wins; duplicates cannot smuggle a second value
            out[name] = value.decode("latin-1")
    return out


def read_cookie(header: str | None, name: str) -> str | None:
    """The value of cookie ``name`` in a ``Cookie`` header, read pair by pair: a pair it
    cannot read (another app's cookie on the same host, quotes, no ``=``) is skipped, never
    the ones after it. The first pair of that name wins (the most specific path)."""
    if not header:
        return None
    for pair in header.split(";"):
        key, sep, value = pair.partition("=")
        if sep and key.strip() == name:
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            return value
    return None


def session_csrf(session: str) -> str:
    """The CSRF token of the session whose cookie token is ``session``: an HMAC-SHA-256 keyed
    by that secret (only its browser and the store's SHA-256 of it exist), base64url. One
    way: the token in a page never gives the session away; another session's token never
    matches. A new session (every login) has a new token; a session ended at logout leaves
    its token nothing to match."""
    mac = hmac.new(session.encode("ascii"), b"litdesk csrf v1", hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode("ascii")


def _cookie(header: str | None, name: str) -> str | None:
    value = read_cookie(header, name)
    if value is None or not _TOKEN.match(value):
        return None
    return value


class SecurityMiddleware:
    """See the module docstring. ``origin`` is this server's exact origin
    (``http://127.0.0.1:8765``); ``body_limits`` maps path prefixes to byte limits
    (the longest matching prefix wins; ``default_limit`` otherwise); ``session_cookie``:
    the cookie of a signed-in session, which the CSRF token is bound to when present."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        origin: str,
        hosts: frozenset[str],
        default_limit: int = DEFAULT_BODY_LIMIT,
        body_limits: dict[str, int] | None = None,
        static_prefix: str = "/static/",
        immutable_prefix: str | None = None,
        csp_overrides: dict[str, str] | None = None,
        spending_paths: tuple[str, ...] = SPENDING_PATHS,
        body_timeout: float = BODY_READ_TIMEOUT,
        session_cookie: str | None = None,
    ) -> None:
        self.app = app
        self.origin = origin
        self.hosts = hosts
        self.default_limit = default_limit
        self.body_limits = sorted((body_limits or {}).items(), key=lambda kv: -len(kv[0]))
        self.static_prefix = static_prefix
        #: files whose URL names their content (a hash): cached for good once answered 200
        self.immutable_prefix = immutable_prefix
        #: path prefix -> the CSP of those responses instead of :data:`CSP` (a served
        #: synthesis report carries its own: its one inline script and style by hash)
        self.csp_overrides = sorted((csp_overrides or {}).items(), key=lambda kv: -len(kv[0]))
        self.spending_paths = spending_paths
        self.body_timeout = body_timeout
        self.secure = origin.startswith("https://")
        self.session_cookie = session_cookie

    def _spends(self, path: str) -> bool:
        return any(path == p or path.startswith(p + "/") for p in self.spending_paths)

    def _same_origin(self, headers: dict[str, str]) -> bool:
        site = headers.get("sec-fetch-site")
        if site is not None:
            return site in ("same-origin", "none")
        origin = headers.get("origin")
        if origin is not None:
            return origin == self.origin
        referer = headers.get("referer")
        if referer is not None:
            return referer == self.origin or referer.startswith(self.origin + "/")
        return True  # no browser sends none of the three: a script, the CLI's tests

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

        receive = _timed(receive, self.body_timeout)
        cookie_token = _cookie(headers.get("cookie"), CSRF_COOKIE)
        nonce = cookie_token or secrets.token_urlsafe(32)
        session = (
            _cookie(headers.get("cookie"), self.session_cookie) if self.session_cookie else None
        )
        # the token pages and scripts send back: the session's, else the browser's cookie
        expected = session_csrf(session) if session else cookie_token
        scope.setdefault("state", {})["csrf_token"] = expected or nonce

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

        if method in SAFE_METHODS and self._spends(path) and not self._same_origin(headers):
            await _refuse(
                send,
                403,
                "cross_site",
                "this spends the provider allowance: open it from litdesk's own pages",
                api,
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
            if expected is None:
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
                except BodyTimeout:
                    await _refuse(send, 408, "body_timeout", _SLOW, api)
                    return
                fields = parse_qs(body.decode("utf-8", "replace"), max_num_fields=500)
                values = fields.get(CSRF_FIELD, [])
                sent = values[0] if len(values) == 1 else None
                receive = _replay(body)
            elif sent is None and ctype == "multipart/form-data":
                try:
                    sent, receive = await _multipart_token(
                        receive, headers.get("content-type", ""), min(limit, MULTIPART_TOKEN_LIMIT)
                    )
                except BodyTooLarge:
                    await _refuse(send, 413, "body_too_large", "the form is too large", api)
                    return
                except BodyTimeout:
                    await _refuse(send, 408, "body_timeout", _SLOW, api)
                    return
            if sent is None or not hmac.compare_digest(sent.encode(), expected.encode()):
                await _refuse(
                    send, 403, "csrf", "the CSRF token is missing or wrong; reload the page", api
                )
                return

        static = path.startswith(self.static_prefix)
        immutable = self.immutable_prefix is not None and path.startswith(self.immutable_prefix)
        csp = next((c for prefix, c in self.csp_overrides if path.startswith(prefix)), CSP)
        set_cookie = None if cookie_token else nonce
        started = False
        cut_off = False  # the body passed its limit: 413 sent, the app's answer dropped
        seen = 0

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if cut_off:
                return
            if message["type"] == "http.response.start":
                started = True
                cached = immutable and message.get("status") == 200
                _add_headers(
                    message,
                    cache=_IMMUTABLE if cached else _NO_CACHE if static else _NO_STORE,
                    set_cookie=None if cached else set_cookie,  # never in a shared cache
                    csp=csp,
                    secure=self.secure,
                )
            await send(message)

        async def limited_receive() -> Message:
            nonlocal seen, cut_off
            try:
                message = await receive()
            except BodyTimeout:
                if not started:
                    await _refuse(send, 408, "body_timeout", _SLOW, api)
                cut_off = True
                return {"type": "http.disconnect"}  # the app sees the client go away
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


_SLOW: Final = "the request body stopped arriving; send it again"


def _secured(value: bytes) -> bytes:
    attrs = [a.strip().lower() for a in value.split(b";")[1:]]
    return value if b"secure" in attrs else value + b"; Secure"


def _add_headers(
    message: Message,
    *,
    cache: bytes,
    set_cookie: str | None,
    csp: str = CSP,
    secure: bool = False,
) -> None:
    raw = [(k, v) for k, v in message.get("headers", []) if k.lower() not in _OWNED]
    if secure:
        raw = [(k, _secured(v) if k.lower() == b"set-cookie" else v) for k, v in raw]
    raw += [
        (b"content-security-policy", csp.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"x-frame-options", b"DENY"),
        (b"cross-origin-opener-policy", b"same-origin"),
        (b"cross-origin-resource-policy", b"same-origin"),
        (b"cache-control", cache),
    ]
    if set_cookie is not None:
        raw.append(
            (
                b"set-cookie",
                f"{CSRF_COOKIE}={set_cookie}; Path=/; HttpOnly; SameSite=Strict"
                f"{'; Secure' if secure else ''}".encode(),
            )
        )
    message["headers"] = raw


#: Cache-Control of pages and API answers, of static files, of fingerprinted static files
_NO_STORE: Final = b"private, no-store"
_NO_CACHE: Final = b"no-cache"
_IMMUTABLE: Final = b"public, max-age=31536000, immutable"

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


_FIRST_NAME: Final = re.compile(rb'content-disposition:\s*form-data;\s*name="([^"]{1,64})"', re.I)


def _replay(body: bytes) -> Receive:
    done = False

    async def receive() -> Message:
        nonlocal done
        if done:
            return {"type": "http.disconnect"}
        done = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


class _FirstPart:
    """Feeds a multipart body to python-multipart's streaming parser until its first part
    ends: that part's field name and value (bounded), nothing of the parts after it."""

    def __init__(self, boundary: bytes) -> None:
        self.ended = False
        self.name: str | None = None
        self.value = bytearray()
        self._headers: list[tuple[bytes, bytes]] = []
        self._field = bytearray()
        self._hvalue = bytearray()
        self.parser = MultipartParser(
            boundary,
            {
                "on_header_field": self._on_field,
                "on_header_value": self._on_value,
                "on_header_end": self._on_header_end,
                "on_part_data": self._on_data,
                "on_part_end": self._on_end,
            },
        )

    def _on_field(self, data: bytes, start: int, end: int) -> None:
        if not self.ended:
            self._field += data[start:end]

    def _on_value(self, data: bytes, start: int, end: int) -> None:
        if not self.ended:
            self._hvalue += data[start:end]

    def _on_header_end(self) -> None:
        if not self.ended:
            self._headers.append((bytes(self._field).lower(), bytes(self._hvalue)))
            self._field.clear()
            self._hvalue.clear()

    def _on_data(self, data: bytes, start: int, end: int) -> None:
        if not self.ended and len(self.value) <= 128:  # a token is 32–64 characters
            self.value += data[start:end][:129]

    def _on_end(self) -> None:
        if self.ended:
            return
        self.ended = True
        for name, value in self._headers:
            if name == b"content-disposition":
                kind, options = parse_options_header(value)
                if kind == b"form-data" and b"filename" not in options:
                    self.name = options.get(b"name", b"").decode("latin-1")

    def token(self) -> str | None:
        if self.name != CSRF_FIELD or len(self.value) > 128:
            return None
        text = bytes(self.value).decode("ascii", "replace")
        return text if _TOKEN.match(text) else None


async def _multipart_token(
    receive: Receive, content_type: str, limit: int
) -> tuple[str | None, Receive]:
    """The CSRF token in the first field of a ``multipart/form-data`` body (or ``None``),
    and a ``receive`` that replays the bytes read for it before the rest of the stream.
    At most ``limit`` bytes (plus the chunk that passes it) are read here: a first part that
    has not ended by then carries no token."""
    _kind, options = parse_options_header(content_type)
    boundary = options.get(b"boundary")
    read: list[Message] = []
    if not boundary or len(boundary) > 200:
        return None, _prefixed(read, receive)
    first = _FirstPart(boundary)
    size = 0
    while not first.ended and size <= limit:
        message = await receive()
        read.append(message)
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        try:
            first.parser.write(chunk[: max(0, limit + 1 - (size - len(chunk)))])
        except MultipartParseError:  # not a well-formed multipart body: no token
            return None, _prefixed(read, receive)
        if not message.get("more_body", False):
            break
    return (first.token() if first.ended else None), _prefixed(read, receive)


def _prefixed(read: list[Message], receive: Receive) -> Receive:
    """``receive`` with the messages already ``read`` given back first, in order."""
    pending = list(read)

    async def again() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return again


#: what to do after a refusal of the guard, by its code (the person's words)
_REMEDY: Final = {
    "host": "Open litdesk at the address it was started with.",
    "body_too_large": "Send a smaller file or less text.",
    "body_timeout": "Try again.",
}


async def _refuse(send: Send, status: int, code: str, message: str, api: bool) -> None:
    says_what_to_do = any(w in message for w in ("reload", "again", "open it"))
    remedy = "" if says_what_to_do else _REMEDY.get(code, "Reload the page and try again.")
    told = f"Refused: {message}. {remedy}".strip()
    if api:
        body = json.dumps(
            {"error": "RefusedError", "code": code, "message": message, "hint": told}
        ).encode()
        ctype = b"application/json"
    else:
        body = f"{told}\n".encode()
        ctype = b"text/plain; charset=utf-8"
    start: Message = {
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", ctype), (b"content-length", str(len(body)).encode())],
    }
    _add_headers(start, cache=_NO_STORE, set_cookie=None)
    await send(start)
    await send({"type": "http.response.body", "body": body})
