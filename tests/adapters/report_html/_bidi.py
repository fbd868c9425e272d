"""Drive Debian's Firefox through WebDriver BiDi (its built-in remote protocol), for tests.

No driver and no downloaded browser: Firefox is started with ``--remote-debugging-port=0``
and announces its WebSocket; the ``websockets`` client sends BiDi commands and collects the
events that arrive in between (console entries).

A test file imports the module-scoped fixture :func:`shared_firefox` (one cold start, a few
seconds of CPU, per file) and opens each page in :meth:`Firefox.tab`: a tab in a user context
of its own (cookies and storage of its own, as a fresh profile has), closed after it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

LISTENING = re.compile(r"WebDriver BiDi listening on ws://127\.0\.0\.1:(\d+)")


class BidiError(RuntimeError):
    """A BiDi command failed or the browser went away."""


class Firefox:
    """One BiDi session: ``command`` returns a result; events are kept in ``events``."""

    def __init__(self, ws: ClientConnection, timeout: float) -> None:
        self.ws = ws
        self.timeout = timeout
        self.events: list[dict[str, Any]] = []
        self._id = 0

    def command(self, method: str, **params: Any) -> dict[str, Any]:
        self._id += 1
        self.ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            try:
                msg = json.loads(self.ws.recv(timeout=self.timeout))
            except ConnectionClosed as exc:
                raise BidiError("the browser closed the WebSocket") from exc
            if msg.get("type") == "event":
                self.events.append(msg)
            elif msg.get("id") == self._id:
                if msg.get("type") != "success":
                    raise BidiError(f"{method}: {msg.get('error')}: {msg.get('message')}")
                result: dict[str, Any] = msg["result"]
                return result

    @contextmanager
    def tab(self, viewport: tuple[int, int] | None = None) -> Iterator[str]:
        """A new tab (its browsing context id) in a new user context: no cookie, storage
        or cache of another tab's; the console entries seen before it are forgotten
        (see :meth:`problems`). Closed, with its user context, after the block."""
        user = self.command("browser.createUserContext")["userContext"]
        try:
            tab = self.command("browsingContext.create", type="tab", userContext=user)["context"]
            if viewport is not None:
                size = {"width": viewport[0], "height": viewport[1]}
                self.command("browsingContext.setViewport", context=tab, viewport=size)
            self.events.clear()
            yield tab
        finally:
            self.command("browser.removeUserContext", userContext=user)  # closes its tabs

    def problems(self, context: str) -> list[str]:
        """The console's errors and warnings in ``context`` (needs ``log.entryAdded``
        subscribed, as :func:`shared_firefox` does)."""
        return [
            str(e["params"].get("text"))
            for e in self.events
            if e.get("method") == "log.entryAdded"
            and e["params"].get("level") in {"error", "warn"}
            and e["params"].get("source", {}).get("context") in (context, None)
        ]

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
def firefox(executable: str, profile: Path, timeout: float = 180) -> Iterator[Firefox]:
    """A headless Firefox with a fresh profile and a BiDi session; stopped on exit.

    ``timeout`` bounds each command's answer: generous, because a cold Firefox on a machine
    whose cores are busy took over 30 s to answer ``session.new`` (the test then failed)."""
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
        with connect(f"ws://127.0.0.1:{port}/session", open_timeout=timeout, max_size=None) as ws:
            session = Firefox(ws, timeout)
            session.command("session.new", capabilities={})
            yield session
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


@pytest.fixture(scope="module")
def shared_firefox(
    firefox_path: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Firefox]:
    """One headless Firefox for the test file, console entries subscribed; each test opens
    its pages in :meth:`Firefox.tab`."""
    with firefox(firefox_path, tmp_path_factory.mktemp("firefox") / "profile") as session:
        session.command("session.subscribe", events=["log.entryAdded"])
        yield session
