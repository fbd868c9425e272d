"""The Anthropic SDK clients of a process, one per (key, base URL, timeout), shared by the
backends made with them.

A backend is made per use (each AI-assistance request builds its own), and each SDK client
is an HTTPS connection pool: one client per backend meant a new connection, and TLS
handshake, for every call. Here every backend of one configuration borrows the same client
(thread-safe: an ``httpx.Client`` underneath) and gives it back on ``close``; a client no
backend holds stays open for the next one, and :func:`close_idle_clients` (the runtime's
shutdown) closes those. A client is never closed while a backend holds it.

Only connection pools are kept here: nothing is decided from them (allowances, consent and
every record are the store's). The key is held by its client alone; the table is keyed by
its SHA-256.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import ssl
import threading
from dataclasses import dataclass
from typing import Any

__all__ = [
    "borrow_anthropic",
    "close_idle_clients",
    "give_back",
    "openai_http_client",
    "openai_tls_context",
    "shared_clients",
]


@dataclass
class _Held:
    client: Any  # anthropic.Anthropic (imported lazily: an optional dependency)
    holders: int = 0


_lock = threading.Lock()
_clients: dict[tuple[str, str, float], _Held] = {}


def _key(api_key: str, base_url: str, timeout: float) -> tuple[str, str, float]:
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest(), base_url, float(timeout)


def borrow_anthropic(api_key: str, base_url: str, timeout: float) -> tuple[Any, object]:
    """The shared SDK client of this configuration (made on first use, ``max_retries=0``)
    and the token to give it back with."""
    import anthropic

    key = _key(api_key, base_url, timeout)
    with _lock:
        held = _clients.get(key)
        if held is None or held.client.is_closed():
            client = anthropic.Anthropic(
                api_key=api_key, max_retries=0, timeout=timeout, base_url=base_url
            )
            held = _clients[key] = _Held(client)
        held.holders += 1
        return held.client, key


def give_back(token: object) -> None:
    """A backend is done with its client (it stays open for the next backend)."""
    with _lock:
        held = _clients.get(token)  # type: ignore[call-overload]
        if held is not None and held.holders > 0:
            held.holders -= 1


def close_idle_clients() -> int:
    """Close the clients no backend holds (on shutdown); how many were closed."""
    with _lock:
        idle = [k for k, h in _clients.items() if h.holders == 0]
        gone = [_clients.pop(k).client for k in idle]
    for client in gone:
        client.close()
    return len(gone)


def shared_clients() -> int:
    """How many clients are open (tests)."""
    with _lock:
        return len(_clients)


# --- the OpenAI SDK: a client per backend, one TLS context per process ------------------


@functools.cache
def openai_tls_context() -> ssl.SSLContext:
    """The TLS context of every OpenAI SDK client of this process, made once by the HTTP
    library the SDK itself uses (``httpx2`` for the openai 3.63 installed here, ``httpx`` in
    older releases) with that library's defaults — the trust each SDK client would build for itself.
    Building one reads the whole CA bundle (about 35 ms of CPU); an ``SSLContext`` is
    shared safely by clients and threads, and holds no credential."""
    import openai

    library = openai.DefaultHttpxClient.__mro__[1].__module__.partition(".")[0]
    context = importlib.import_module(library).create_ssl_context()
    if not isinstance(context, ssl.SSLContext):  # pragma: no cover - a changed SDK
        raise TypeError(f"{library}.create_ssl_context() did not make an ssl.SSLContext")
    return context


@functools.cache
def _closing_client() -> type:
    """The SDK's default HTTP client class, closing its pool when collected as the client
    the SDK makes for itself does (a backend dropped without ``close()`` leaves no socket
    open)."""
    import openai

    class ClosingClient(openai.DefaultHttpxClient):
        def __del__(self) -> None:
            if self.is_closed:
                return
            with contextlib.suppress(Exception):  # as the SDK's own: nothing to report to
                self.close()

    return ClosingClient


def openai_http_client(timeout: float) -> Any:
    """A new HTTP client (its own connection pool) for one OpenAI SDK client, with the SDK's
    defaults and this process's TLS context (:func:`openai_tls_context`)."""
    return _closing_client()(verify=openai_tls_context(), timeout=timeout)
