"""Drive Debian's Firefox through WebDriver BiDi (its built-in remote protocol), for tests.

No driver and no downloaded browser: Firefox is started with ``--remote-debugging-port=0``
and announces its WebSocket; a minimal RFC 6455 client (text frames, masked) sends BiDi
commands and collects the events that arrive in between (console entries).
"""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import struct
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

LISTENING = re.compile(r"WebDriver BiDi listening on ws://127\.0\.0\.1:(\d+)")


class BidiError(RuntimeError):
    """A BiDi command failed or the browser went away."""


class _WebSocket:
    def __init__(self, port: int, path: str, timeout: float) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        self.rest = b""
        while b"\r\n\r\n" not in self.rest:
            self.rest += self._chunk()
        head, self.rest = self.rest.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise BidiError(f"no WebSocket upgrade: {head[:200]!r}")

    def _chunk(self) -> bytes:
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise BidiError("the browser closed the connection")
        return chunk

    def _exact(self, n: int) -> bytes:
        while len(self.rest) < n:
            self.rest += self._chunk()
        out, self.rest = self.rest[:n], self.rest[n:]
        return out

    def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message).encode()
        n = len(data)
        if n < 126:
            head = struct.pack("!BB", 0x81, 0x80 | n)
        elif n < 1 << 16:
            head = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
        mask = os.urandom(4)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(head + mask + body)

    def receive(self) -> dict[str, Any]:
        message = b""
        while True:
            b0, b1 = self._exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._exact(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._exact(8))[0]
            payload = self._exact(n)
            opcode = b0 & 0x0F
            if opcode == 0x8:
                raise BidiError("the browser closed the WebSocket")
            if opcode in (0x9, 0xA):  # ping / pong
                continue
            message += payload
            if b0 & 0x80:
                result: dict[str, Any] = json.loads(message)
                return result

    def close(self) -> None:
        self.sock.close()


class Firefox:
    """One BiDi session: ``command`` returns a result; events are kept in ``events``."""

    def __init__(self, ws: _WebSocket) -> None:
        self.ws = ws
        self.events: list[dict[str, Any]] = []
        self._id = 0

    def command(self, method: str, **params: Any) -> dict[str, Any]:
        self._id += 1
        self.ws.send({"id": self._id, "method": method, "params": params})
        while True:
            msg = self.ws.receive()
            if msg.get("type") == "event":
                self.events.append(msg)
            elif msg.get("id") == self._id:
                if msg.get("type") != "success":
                    raise BidiError(f"{method}: {msg.get('error')}: {msg.get('message')}")
                result: dict[str, Any] = msg["result"]
                return result

    def evaluate(self, context: str, expression: str) -> Any:
        """The JSON value of ``JSON.stringify(expression)`` in the page."""
        got = self.command(
            "script.evaluate",
            expression=f"JSON.stringify({expression})",
            target={"context": context},
            awaitPromise=False,
        )
        if got.get("type") != "success":
            raise BidiError(f"script error: {got.get('exceptionDetails')}")
        return json.loads(got["result"]["value"])


@contextmanager
def firefox(executable: str, profile: Path, timeout: float = 30) -> Iterator[Firefox]:
    """A headless Firefox with a fresh profile and a BiDi session; stopped on exit."""
    profile.mkdir(parents=True, exist_ok=True)
    env = os.environ | {"MOZ_HEADLESS": "1", "HOME": str(profile)}
    proc = subprocess.Popen(
        [executable, "--headless", "--no-remote", "--profile", str(profile),
         "--remote-debugging-port=0", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    drain: threading.Thread | None = None
    try:
        assert proc.stderr is not None
        port = None
        seen = []
        for line in proc.stderr:
            seen.append(line)
            found = LISTENING.search(line)
            if found:
                port = int(found.group(1))
                break
        if port is None:
            raise BidiError("Firefox did not start its remote agent: " + "".join(seen)[-1000:])
        # keep reading its log so a full pipe never blocks the browser
        drain = threading.Thread(target=seen.extend, args=(proc.stderr,), daemon=True)
        drain.start()
        ws = _WebSocket(port, "/session", timeout)
        try:
            session = Firefox(ws)
            session.command("session.new", capabilities={})
            yield session
        finally:
            ws.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)
        if drain is not None:
            drain.join(timeout=5)
        if proc.stderr is not None:
            proc.stderr.close()
