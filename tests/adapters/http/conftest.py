"""Fixtures for transport tests (the kit lives in transport_kit.py)."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator

import pytest
from pydantic import SecretStr
from transport_kit import SECRETS, LoopbackServer


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    srv = LoopbackServer()
    try:
        yield srv
    finally:
        srv.close()


@pytest.fixture
def blackhole() -> Iterator[str]:
    """A loopback port whose accept queue is full: new connections never complete."""
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(0)
    port = lsock.getsockname()[1]
    fillers: list[socket.socket] = []
    for _ in range(8):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            s.connect(("127.0.0.1", port))
        fillers.append(s)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        for s in fillers:
            s.close()
        lsock.close()


@pytest.fixture
def keyed_settings(tmp_settings):
    """Settings with a distinct fake credential for every provider and a contact address."""
    return tmp_settings.model_copy(
        update={k: SecretStr(v) for k, v in SECRETS.items()}
        | {
            "contact_email": "team@example.org",
            "http_connect_timeout": 1.0,
            "http_read_timeout": 1.0,
        }
    )
