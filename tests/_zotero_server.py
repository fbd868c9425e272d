"""A Zotero Web API v3 server on loopback for the write paths' tests: multi-object writes
(``POST /<library>/items``, at most 50 objects), item versions and
``If-Unmodified-Since-Version``, per-object 412 in ``failed``, ``Last-Modified-Version``,
``Backoff`` and ``429`` + ``Retry-After`` on demand, a redirect on demand; it keeps every
request it received. :class:`ToLoopback` is the httpx transport that sends the client's
requests for api.zotero.org or localhost:23119 to it (a real HTTP exchange)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: list[dict[str, object]]


@dataclass
class ZoteroState:
    library: str = "users/123"
    api_key: str | None = "K" * 24
    library_version: int = 10
    items: dict[str, dict[str, object]] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    throttle_next: int = 0  # answer this many requests with 429 + Retry-After first
    backoff: str | None = None
    redirect: bool = False
    next_key: int = 0

    def add_item(self, key: str, version: int, tags: list[str]) -> None:
        self.items[key] = {"key": key, "version": version, "tags": [{"tag": t} for t in tags]}


class _Handler(BaseHTTPRequestHandler):
    state: ZoteroState

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return

    def _send(self, status: int, body: object, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Last-Modified-Version", str(self.state.library_version))
        if self.state.backoff:
            self.send_header("Backoff", self.state.backoff)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        s = self.state
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"[]")
        s.received.append(Received(self.path, dict(self.headers.items()), body))
        if s.redirect:
            self.send_response(302)
            self.send_header("Location", "https://elsewhere.example/steal")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if s.throttle_next:
            s.throttle_next -= 1
            self._send(429, {"error": "rate limited"}, {"Retry-After": "3"})
            return
        if self.headers.get("Zotero-API-Version") != "3":
            self._send(400, {"error": "API version 3 only"})
            return
        if s.api_key is not None and self.headers.get("Zotero-API-Key") != s.api_key:
            self._send(403, {"error": "Forbidden"})
            return
        if self.path != f"/{s.library}/items":
            self._send(404, {"error": "Not found"})
            return
        if not isinstance(body, list) or len(body) > 50:
            self._send(413, {"error": "Only 50 objects can be written at a time"})
            return
        guard = self.headers.get("If-Unmodified-Since-Version")
        if guard is not None and int(guard) != s.library_version:
            self._send(412, {"error": "Library has been modified"})
            return
        successful: dict[str, object] = {}
        success: dict[str, str] = {}
        failed: dict[str, object] = {}
        for i, obj in enumerate(body):
            key = obj.get("key")
            if key is not None and key in s.items:
                item = s.items[key]
                if "version" in obj and obj["version"] != item["version"]:
                    failed[str(i)] = {
                        "key": key,
                        "code": 412,
                        "message": f"Item has been modified since specified version "
                        f"(expected {obj['version']}, found {item['version']})",
                    }
                    continue
                s.library_version += 1
                item.update({k: v for k, v in obj.items() if k not in ("key", "version")})
                item["version"] = s.library_version
            elif obj.get("itemType") == "note":
                parent = obj.get("parentItem")
                if parent not in s.items:
                    failed[str(i)] = {"key": "", "code": 400, "message": "Parent item not found"}
                    continue
                s.next_key += 1
                key = f"N{s.next_key:07d}"
                s.library_version += 1
                s.items[key] = {**obj, "key": key, "version": s.library_version}
            else:
                failed[str(i)] = {"key": key or "", "code": 404, "message": "Item not found"}
                continue
            successful[str(i)] = {"key": key, "version": s.library_version, "data": s.items[key]}
            success[str(i)] = str(key)
        self._send(
            200, {"successful": successful, "success": success, "unchanged": {}, "failed": failed}
        )


class ZoteroServer:
    """The server on 127.0.0.1 (an ephemeral port) in a thread; a context manager."""

    def __init__(self, state: ZoteroState) -> None:
        handler = type("Handler", (_Handler,), {"state": state})
        self.state = state
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> ZoteroServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


class ToLoopback(httpx.AsyncBaseTransport):
    """Sends every request to the loopback server (as a real HTTP exchange), keeping its
    path and headers; records the hosts the client asked for."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.inner = httpx.AsyncHTTPTransport()
        self.hosts: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        port = url.port or (443 if url.scheme == "https" else 80)
        self.hosts.append(f"{url.scheme}://{url.host}:{port}")
        request.url = request.url.copy_with(scheme="http", host="127.0.0.1", port=self.port)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()
