"""One sanitised HTTP exchange: what was asked (without credentials or contact details)
and what came back (status, selected headers, the body and its digest)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final, Literal

import httpx

from litdesk.core.search import CompiledRequest

__all__ = ["KEPT_HEADERS", "Exchange", "sanitised_url"]

#: Response headers kept in exchanges and cassettes (nothing that could carry a secret).
KEPT_HEADERS: Final = (
    "content-type",
    "content-length",
    "retry-after",
    "x-rate-limit-limit",
    "x-rate-limit-interval",
    "date",
    "etag",
    "last-modified",
)


def sanitised_url(request: CompiledRequest) -> str:
    """The compiled URL with its own parameters: the form used in traces and cassettes."""
    return str(httpx.URL(request.url, params=list(request.params)))


@dataclass(frozen=True, slots=True)
class Exchange:
    provider: str
    method: str
    url: str
    request_body: str | None
    status: int
    headers: dict[str, str]
    body: bytes = field(repr=False)
    received_at: datetime
    elapsed_ms: float = 0.0
    source: Literal["network", "replay", "cache"] = "network"

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.body).hexdigest()
