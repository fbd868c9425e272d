"""The seams the reading services are built on (so tests inject the real transport with
an ``httpx.MockTransport``, or a loopback server, and nothing else changes)."""

from __future__ import annotations

from typing import Protocol

from litdesk.core.search import CompiledRequest

__all__ = ["Fetcher", "Reply"]


class Reply(Protocol):
    """What a fetch returns (the transport's ``Exchange`` fits)."""

    @property
    def status(self) -> int: ...

    @property
    def body(self) -> bytes: ...


class Fetcher(Protocol):
    """The transport seam: ``ProviderTransport.fetch`` (exact hosts, no redirects, byte
    caps, timeouts, one reservation in the store's allowance). Raises a LitdeskError
    when refused or failed."""

    async def fetch(self, request: CompiledRequest) -> Reply: ...
