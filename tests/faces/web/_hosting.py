"""Where a web test's app runs.

* In-process (most tests): the app's lifespan is entered once on a private event loop (an
  anyio blocking portal in a thread) and its clients send requests straight to the ASGI
  app through the transport below (response bodies streamed as the app sends them; a
  client that closes early is a disconnect): no socket, no server start or stop. The clients
  are plain ``httpx.Client`` objects with the base URL ``http://127.0.0.1:<port>``, so the
  security middleware sees the exact Host and Origin it checks; the port is a free one that
  nothing listens on (a request sent over a real socket by mistake is refused).
* On the session's one real server (tests that drive a browser): one uvicorn server per
  test session (per xdist worker) on a loopback port, whose ASGI app is a switch that
  forwards to the current test's app. The test's app is created for that port, its lifespan
  entered on the server's event loop for the test and left after it: fresh data per test,
  no new process or port.

Tests whose point is real processes or real HTTP framing (two workers, kill -9, coalescing
across processes, body limits while streaming, slow clients) keep their own servers."""

from __future__ import annotations

import math
import socket
from collections.abc import Callable, Iterator
from concurrent.futures import wait as wait_futures
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import anyio.from_thread
import httpx
import pytest
import uvicorn
from anyio.from_thread import BlockingPortal
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "AppTransport",
    "Hosting",
    "SessionServer",
    "LOOPBACK_TLS",
    "TransportFactory",
    "client_for",
    "free_port",
    "hosting_for",
    "needs_socket",
]

#: a new transport for each client of an in-process app (None: a real socket)
TransportFactory = Callable[[], httpx.BaseTransport]

#: the TLS context of the test clients of loopback servers, made once: httpx builds one per
#: client otherwise (loading the CA bundle: about 19 ms of CPU a client, and the team tests
#: open a client per request to reach either worker)
LOOPBACK_TLS = httpx.create_ssl_context()

#: fixtures that mean "this test drives a browser": its app needs a real socket
BROWSER_FIXTURES = frozenset({"browser", "chromium_path", "firefox_path"})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def needs_socket(request: pytest.FixtureRequest) -> bool:
    """Whether the test drives a browser (then its app is served on the session's server)."""
    return not BROWSER_FIXTURES.isdisjoint(request.fixturenames)


class _Switch:
    """The session server's ASGI app: forwards each request to the current test's app."""

    def __init__(self) -> None:
        self.app: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        app = self.app
        if app is None:  # between tests (a page left open by the last one, say)
            if scope["type"] != "http":
                return
            await send({"type": "http.response.start", "status": 503, "headers": []})
            await send({"type": "http.response.body", "body": b"no test app"})
            return
        await app(scope, receive, send)


class SessionServer:
    """One uvicorn server on a loopback port, run as a task on a private event loop, that
    serves whichever test app is mounted."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._switch = _Switch()
        self._stack = ExitStack()
        self.portal = self._stack.enter_context(anyio.from_thread.start_blocking_portal())
        config = uvicorn.Config(
            self._switch,
            host="127.0.0.1",
            port=port,
            log_level="warning",
            access_log=False,
            lifespan="off",  # each test's app has its lifespan entered when mounted
        )
        self._server = uvicorn.Server(config)
        self._task = self.portal.start_task_soon(self._server.serve)
        self.portal.call(self._started)

    async def _started(self) -> None:
        with anyio.fail_after(60):
            while not self._server.started:
                if self._task.done():
                    raise RuntimeError("the session's test server did not start")
                await anyio.sleep(0.02)

    @contextmanager
    def mounted(self, app: Any) -> Iterator[None]:
        """``app`` with its lifespan entered on the server's loop answers every request
        until the block ends; then its lifespan is left (job threads stopped, store closed)."""
        if self._switch.app is not None:
            raise RuntimeError("another test's app is still mounted")
        with self.portal.wrap_async_context_manager(app.router.lifespan_context(app)):
            self._switch.app = app
            try:
                yield
            finally:
                self._switch.app = None

    def close(self) -> None:
        self._server.should_exit = True
        try:
            self._task.result(timeout=30)
        finally:
            self._stack.close()


class _Body(httpx.SyncByteStream):
    """A response body read chunk by chunk from the app as it sends it (a live search's
    event stream too); closing it early disconnects the client, as a socket would."""

    def __init__(self, exchange: _Exchange) -> None:
        self._exchange = exchange

    def __iter__(self) -> Iterator[bytes]:
        portal = self._exchange.portal
        while True:
            try:
                chunk = portal.call(self._exchange.chunks_out.receive)
            except anyio.EndOfStream:
                return
            if chunk:
                yield chunk

    def close(self) -> None:
        self._exchange.close()


class _Exchange:
    """One request sent to the app on the portal's loop: the ASGI receive and send."""

    def __init__(self, app: ASGIApp, portal: BlockingPortal, scope: Scope, body: bytes) -> None:
        self.portal = portal
        self._app, self._scope, self._body = app, scope, body
        self.status: int | None = None
        self.headers: list[tuple[bytes, bytes]] = []
        self._body_sent = self._closed = self.complete = False
        self.started, self.gone, self.cancel = portal.call(self._loop_objects)
        self.chunks_in, self.chunks_out = portal.call(self._chunk_streams)
        self.task = portal.start_task_soon(self._run)
        portal.call(self.started.wait)

    @staticmethod
    async def _loop_objects() -> tuple[anyio.Event, anyio.Event, anyio.CancelScope]:
        return anyio.Event(), anyio.Event(), anyio.CancelScope()

    @staticmethod
    async def _chunk_streams() -> tuple[
        MemoryObjectSendStream[bytes], MemoryObjectReceiveStream[bytes]
    ]:
        return anyio.create_memory_object_stream[bytes](math.inf)

    async def _receive(self) -> Message:
        if not self._body_sent:
            self._body_sent = True
            return {"type": "http.request", "body": self._body, "more_body": False}
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def _send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = int(message["status"])
            self.headers = list(message.get("headers", []))
            self.started.set()
        elif message["type"] == "http.response.body":
            await self.chunks_in.send(bytes(message.get("body", b"")))
            if not message.get("more_body", False):
                self.complete = True
                self.chunks_in.close()

    async def _run(self) -> None:
        try:
            with self.cancel:
                await self._app(self._scope, self._receive, self._send)
        finally:  # an app that fails before answering: a 500, as from a server
            self.chunks_in.close()
            self.started.set()

    async def _hang_up(self) -> None:
        self.gone.set()

    async def _close_out(self) -> None:
        self.chunks_out.close()

    def close(self) -> None:
        """The client is done: an app still sending (an event stream) is told the client
        went away, as a server tells it; one that has answered is let finish (never
        cancelled between its last byte and its return). Cancelled only if it ignores the
        disconnect for 10 s."""
        if self._closed:
            return
        self._closed = True
        if not self.task.done():
            if not self.complete:
                self.portal.call(self._hang_up)
            wait_futures([self.task], timeout=10)
        if not self.task.done():
            self.portal.call(self.cancel.cancel)
            wait_futures([self.task])
        self.portal.call(self._close_out)


class AppTransport(httpx.BaseTransport):
    """httpx's sync transport to an ASGI app running on a portal's event loop."""

    def __init__(self, app: ASGIApp, portal: BlockingPortal) -> None:
        self._app, self._portal = app, portal

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        exchange = _Exchange(self._app, self._portal, _scope(request), request.read())
        if exchange.status is None:
            exchange.close()
            error = exchange.task.exception()
            return httpx.Response(
                500, content=b"Internal Server Error", extensions={"app_error": error}
            )
        return httpx.Response(
            exchange.status,
            headers=[(k.decode("latin-1"), v.decode("latin-1")) for k, v in exchange.headers],
            stream=_Body(exchange),
            request=request,
        )

    def whole_answer(self, request: httpx.Request) -> tuple[int, list[tuple[str, str]], bytes]:
        """``request``'s whole answer (status, headers, body) from the app, in one call to
        the portal's loop rather than the ~7 round trips of :meth:`handle_request`: for a
        client that reads every answer to its end before it does anything else (the
        OpenAPI fuzz's ~1,800 requests). The app gets the same scope, body and messages
        (no disconnect before its answer is complete, as from a client reading it all); an
        app that fails before answering is a 500, as above."""
        return self._portal.call(_whole_answer, self._app, _scope(request), request.read())


async def _whole_answer(
    app: ASGIApp, scope: Scope, body: bytes
) -> tuple[int, list[tuple[str, str]], bytes]:
    sent = False
    status: int | None = None
    headers: list[tuple[str, str]] = []
    chunks: list[bytes] = []

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await anyio.sleep_forever()  # the client never hangs up before the answer's end
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = int(message["status"])
            headers.extend(
                (k.decode("latin-1"), v.decode("latin-1")) for k, v in message.get("headers", [])
            )
        elif message["type"] == "http.response.body":
            chunks.append(bytes(message.get("body", b"")))

    with suppress(Exception):  # a server keeps it too: its client gets what was sent
        await app(scope, receive, send)
    if status is None:  # it failed before answering: a 500, as from a server
        return 500, [], b"Internal Server Error"
    return status, headers, b"".join(chunks)


def _scope(request: httpx.Request) -> Scope:
    """The ASGI scope of ``request`` as a server on its URL's host and port makes it."""
    url = request.url
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": url.scheme,
        "path": unquote(url.path),
        "raw_path": url.raw_path.split(b"?", 1)[0],
        "root_path": "",
        "query_string": url.query,
        "headers": [(k.lower(), v) for k, v in request.headers.raw],
        "client": ("127.0.0.1", 50000),
        "server": (url.host, url.port or 80),
        "state": {},
    }


@contextmanager
def _in_process(app: Any) -> Iterator[TransportFactory]:
    """``app``'s lifespan entered on a private loop; yields a factory of transports that
    send requests to it there."""
    with ExitStack() as stack:
        portal = stack.enter_context(anyio.from_thread.start_blocking_portal())
        stack.enter_context(portal.wrap_async_context_manager(app.router.lifespan_context(app)))
        yield lambda: AppTransport(app, portal)


@dataclass(frozen=True)
class Hosting:
    """Where this test's app is served: ``port`` is the one to create the app for
    (``create_app(settings, host="127.0.0.1", port=hosting.port)``)."""

    port: int
    server: SessionServer | None  #: the session's server (browser tests), else in-process

    host = "127.0.0.1"

    @classmethod
    def in_process(cls) -> Hosting:
        """In-process, created for a free port nothing listens on."""
        return cls(free_port(), None)

    @property
    def base(self) -> str:
        return f"http://{self.host}:{self.port}"

    @contextmanager
    def serve(self, app: Any) -> Iterator[TransportFactory | None]:
        """Serve ``app`` for the block: yields the transport factory its clients need
        (in-process), or None when it answers on the real socket of the session server."""
        if self.server is None:
            with _in_process(app) as transport:
                yield transport
        else:
            with self.server.mounted(app):
                yield None


def hosting_for(request: pytest.FixtureRequest) -> Hosting:
    """In-process, unless the test drives a browser (then the session's server)."""
    if needs_socket(request):
        server: SessionServer = request.getfixturevalue("session_server")
        return Hosting(server.port, server)
    return Hosting.in_process()


def client_for(
    base: str, transport: TransportFactory | None, timeout: float, **kw: Any
) -> httpx.Client:
    """An httpx client of an app served either way."""
    if transport is not None:
        kw["transport"] = transport()
    else:
        kw.setdefault("verify", LOOPBACK_TLS)
    return httpx.Client(base_url=base, timeout=timeout, **kw)
