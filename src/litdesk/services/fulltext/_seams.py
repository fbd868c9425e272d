"""The seams the reading services are built on (so tests inject the real transport with
an ``httpx.MockTransport``, or a loopback server, and nothing else changes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from litdesk.core.search import CompiledRequest, ProviderPage

__all__ = ["Allowance", "Fetcher", "ParseFn", "Reply"]


class Reply(Protocol):
    """What a fetch returns (the transport's ``Exchange`` fits)."""

    @property
    def status(self) -> int: ...

    @property
    def body(self) -> bytes: ...


class Fetcher(Protocol):
    """The transport seam: ``ProviderTransport.fetch`` (exact hosts, no redirects, byte
    caps, timeouts, metering). Raises a LitdeskError when refused or failed."""

    async def fetch(self, request: CompiledRequest) -> Reply: ...


ParseFn = Callable[[str, CompiledRequest, int, bytes], ProviderPage]


class Allowance(Protocol):
    """An extra allowance reserved before every call (e.g. the store's ``reserve``).

    It must raise a :class:`~litdesk._errors.RefusedError` to refuse; the call is then
    not sent (fail closed)."""

    def reserve(self, provider: str) -> None: ...
